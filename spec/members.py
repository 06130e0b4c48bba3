"""Coordinator-side member lifecycles (consumer and streams groups).

``MemberState`` (STABLE, UNREVOKED_*, UNRELEASED_*, UNKNOWN) is set only by
``CurrentAssignmentBuilder.build()``, a function of the member, the target and
what the member reports owning. Each trigger names one *outcome* of that
function: the heartbeat handler runs the builder and fires the matching trigger
through the compiled table (``kgspec.spec.tables.fire``). The lifecycle adds
states Kafka encodes elsewhere: FENCED and LEFT (member removed: tombstones
written) and TEMPORARILY_LEFT (a static member that sent epoch -2; Kafka keeps
its MemberState and sets memberEpoch -2; streams groups have static members on
trunk only).
"""

from __future__ import annotations

from kgspec.spec.declarations import Declaration, Transition, transition

STABLE, UNKNOWN = "STABLE", "UNKNOWN"
FENCED, LEFT, TEMPORARILY_LEFT = "FENCED", "LEFT", "TEMPORARILY_LEFT"


def _member(
    name: str, title: str, unit: str, cab: str, unrevoked: str, unreleased: str, leave: str,
    static_leave: str,
) -> Declaration:
    active = (STABLE, unrevoked, unreleased)
    transitions: list[Transition] = [
        transition("revocation_needed", active, unrevoked, f"""
            {cab}.computeNextAssignment: some assigned {unit} left the target and the member
            still owns them (or did not report ownership), so it stays at its epoch with them
            pending revocation. In {unrevoked} this is the 'acked, but the new target revokes
            more' case, or a subscription shrink of still-owned {unit}."""),
        transition("assigned_with_unreleased", (*active, UNKNOWN), unreleased, f"""
            {cab}.computeNextAssignment: nothing to revoke; the member moves to the target
            epoch but some target {unit} are still owned by their previous owner."""),
        transition("reconciled", (*active, UNKNOWN), STABLE, f"""
            {cab}.computeNextAssignment: nothing to revoke or wait for; memberEpoch =
            targetEpoch. From STABLE: a new target whose {unit} are all free. From
            {unrevoked}: all revocations acked. From {unreleased}: the {unit} were released.
            From UNKNOWN: the member reported owning nothing."""),
        transition("unknown_state_loaded", active, UNKNOWN, """
            Replay of a CurrentMemberAssignment record whose state byte this version does not
            know (MemberState.fromValue -> UNKNOWN), e.g. after a coordinator downgrade. A load:
            replay sets what the record says without the table (docs/spec.md)."""),
        transition("fenced", (*active, UNKNOWN), FENCED, f"""
            Session timeout, rebalance timeout (scheduled only in {unrevoked}), an invalid
            member epoch, or UNKNOWN state while owning {unit} ({cab} throws
            FencedMemberEpochException). The group epoch is bumped."""),
        transition("left", (*active, UNKNOWN), LEFT, """
            Heartbeat with memberEpoch -1 (LEAVE_GROUP_MEMBER_EPOCH): fenced-member records,
            group epoch bumped."""),
        transition("static_temporary_leave", (*active, UNKNOWN, TEMPORARILY_LEFT), TEMPORARILY_LEFT, f"""
            Static member heartbeat with memberEpoch -2: GroupMetadataManager.{leave} looks
            the member up by instance id (throwIfStaticMemberIsUnknown, throwIfInstanceIdIsFenced)
            and calls {static_leave} whatever its MemberState, so from UNKNOWN and a second -2
            (TEMPORARILY_LEFT again) too. It writes memberEpoch -2 and clears the pending
            revocations (the MemberState byte is kept); no group epoch bump."""),
        transition("fenced", TEMPORARILY_LEFT, FENCED, """
            The session timer keeps running: if no replacement joins, the member is
            fenced and the group epoch bumped."""),
        transition("left", TEMPORARILY_LEFT, LEFT, f"""
            The temporarily-left instance sends memberEpoch -1 with its member id:
            GroupMetadataManager.{leave} finds it by instance id and, the epoch not being -2,
            fences it (tombstones, group epoch bumped)."""),
        transition("reconciled", TEMPORARILY_LEFT, STABLE, f"""
            Same instance id rejoins with epoch 0: the replacement copies the member
            (throwIfInstanceIdIsUnreleased accepts epoch -2) at memberEpoch 0 and {cab}
            reconciles it; it reports owning nothing, so nothing is left to revoke."""),
        transition("assigned_with_unreleased", TEMPORARILY_LEFT, unreleased, f"""
            Replacement rejoins while some target {unit} are still unreleased."""),
    ]
    return Declaration(
        name=name,
        title=title,
        doc=f"Coordinator view of one member; outcomes of {cab}.build(). "
        "Initial STABLE: Builder default state, memberEpoch 0, reconciled on its first heartbeat.",
        states=(*active, UNKNOWN, TEMPORARILY_LEFT, FENCED, LEFT),
        initial=STABLE,
        terminal=(FENCED, LEFT),
        transitions=tuple(transitions),
    )


CONSUMER_MEMBER = _member(
    "consumer-member",
    "KIP-848 consumer group member (coordinator side)",
    "partitions",
    "modern/consumer/CurrentAssignmentBuilder",
    "UNREVOKED_PARTITIONS",
    "UNRELEASED_PARTITIONS",
    "consumerGroupLeave",
    "consumerGroupStaticMemberGroupLeave",
)

# Streams static membership exists only on trunk (KAFKA-20169, model/streams/static.py).
STREAMS_MEMBER = _member(
    "streams-member",
    "KIP-1071 streams group member (coordinator side)",
    "tasks",
    "streams/CurrentAssignmentBuilder",
    "UNREVOKED_TASKS",
    "UNRELEASED_TASKS",
    "streamsGroupLeave",
    "streamsGroupStaticMemberGroupLeave",
)
