"""Coordinator-side member lifecycles (consumer and streams groups).

``MemberState`` (STABLE, UNREVOKED_*, UNRELEASED_*, UNKNOWN) is set only by
``CurrentAssignmentBuilder.build()``, a function of the member, the target and
what the member reports owning. Each trigger names one *outcome* of that
function, so a replay reads the builder's result and fires the matching trigger.
The lifecycle adds states Kafka encodes elsewhere: FENCED and LEFT (member
removed: tombstones written) and, for consumers, TEMPORARILY_LEFT (a static
member that sent epoch -2; Kafka keeps its MemberState and sets memberEpoch -2).
"""

from __future__ import annotations

from kgspec.spec.declarations import Declaration, Transition, transition

STABLE, UNKNOWN = "STABLE", "UNKNOWN"
FENCED, LEFT, TEMPORARILY_LEFT = "FENCED", "LEFT", "TEMPORARILY_LEFT"


def _member(
    name: str, title: str, unit: str, cab: str, unrevoked: str, unreleased: str, static: bool
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
            know (MemberState.fromValue -> UNKNOWN), e.g. after a coordinator downgrade."""),
        transition("fenced", (*active, UNKNOWN), FENCED, f"""
            Session timeout, rebalance timeout (scheduled only in {unrevoked}), an invalid
            member epoch, or UNKNOWN state while owning {unit} ({cab} throws
            FencedMemberEpochException). The group epoch is bumped."""),
        transition("left", (*active, UNKNOWN), LEFT, """
            Heartbeat with memberEpoch -1 (LEAVE_GROUP_MEMBER_EPOCH): fenced-member records,
            group epoch bumped."""),
    ]
    terminal = (FENCED, LEFT)
    states: tuple[str, ...] = (*active, UNKNOWN, FENCED, LEFT)
    if static:
        states = (*active, UNKNOWN, TEMPORARILY_LEFT, FENCED, LEFT)
        transitions += [
            transition("static_temporary_leave", active, TEMPORARILY_LEFT, """
                Static member heartbeat with memberEpoch -2: GroupMetadataManager.
                consumerGroupStaticMemberGroupLeave writes memberEpoch -2 and clears
                partitionsPendingRevocation; no group epoch bump."""),
            transition("fenced", TEMPORARILY_LEFT, FENCED, """
                The session timer keeps running: if no replacement joins, the member is
                fenced and the group epoch bumped."""),
            transition("reconciled", TEMPORARILY_LEFT, STABLE, """
                Same instance id rejoins with epoch 0: the replacement copies the member
                (throwIfInstanceIdIsUnreleased accepts epoch -2) and reconciles to the
                target with the same partitions, nothing revoked."""),
            transition("assigned_with_unreleased", TEMPORARILY_LEFT, unreleased, """
                Replacement rejoins while some target partitions are still unreleased."""),
        ]
    return Declaration(
        name=name,
        title=title,
        doc=f"Coordinator view of one member; outcomes of {cab}.build(). "
        "Initial STABLE: Builder default state, memberEpoch 0, reconciled on its first heartbeat.",
        states=states,
        initial=STABLE,
        terminal=terminal,
        transitions=tuple(transitions),
    )


CONSUMER_MEMBER = _member(
    "consumer-member",
    "KIP-848 consumer group member (coordinator side)",
    "partitions",
    "modern/consumer/CurrentAssignmentBuilder",
    "UNREVOKED_PARTITIONS",
    "UNRELEASED_PARTITIONS",
    static=True,
)

# Streams static membership exists only on trunk (4.4); the 4.1 baseline rejects it.
STREAMS_MEMBER = _member(
    "streams-member",
    "KIP-1071 streams group member (coordinator side)",
    "tasks",
    "streams/CurrentAssignmentBuilder",
    "UNREVOKED_TASKS",
    "UNRELEASED_TASKS",
    static=False,
)
