"""Derived group states (KIP-848 consumer groups, KIP-1071 streams groups).

Kafka never *transitions* these groups: ``maybeUpdateGroupState`` recomputes the
state from counters after every ``setGroupEpoch``, ``setTargetAssignmentMetadata``,
``updateMember`` and ``removeMember``. The machines declared here use triggers
that each stand for one abstract change of those counters, chosen so that a
(state, trigger) pair always determines the next derived state. The mapping
(trigger -> counter change, precondition) is documented on each transition and
checked by ``tests/test_spec_derivation.py``.

Abstract counters: ``n`` members, ``u`` members not reconciled to the assignment
epoch, group epoch ``g``, assignment epoch ``a`` (always ``a <= g``; an empty
group has ``a == g`` because fencing the last member also writes
TargetAssignmentMetadata at the new group epoch). Streams adds ``ready``:
topology present and its epoch equals ``validatedTopologyEpoch``.
"""

from __future__ import annotations

from kgspec.spec.declarations import Declaration, self_loops, transition

EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD = "EMPTY", "ASSIGNING", "RECONCILING", "STABLE", "DEAD"
NOT_READY = "NOT_READY"

#: Kafka's names of these states (ConsumerGroupState / StreamsGroupState ``toString``), as
#: ConsumerGroupDescribe, StreamsGroupDescribe and ListGroups answer them.
DESCRIBED_NAMES = {EMPTY: "Empty", NOT_READY: "NotReady", ASSIGNING: "Assigning",
                   RECONCILING: "Reconciling", STABLE: "Stable", DEAD: "Dead"}

_CG = "ConsumerGroup.maybeUpdateGroupState"
_SG = "StreamsGroup.maybeUpdateGroupState"


def derive_consumer_group_state(
    num_members: int, group_epoch: int, assignment_epoch: int, all_reconciled: bool
) -> str:
    """Kafka's ``ConsumerGroup.maybeUpdateGroupState`` (modern/consumer/ConsumerGroup.java).

    ``all_reconciled``: every member ``isReconciledTo(assignmentEpoch)``, i.e. is
    STABLE with ``memberEpoch == assignmentEpoch``. DEAD is never derived.
    """
    if num_members == 0:
        return EMPTY
    if group_epoch > assignment_epoch:
        return ASSIGNING
    if not all_reconciled:
        return RECONCILING
    return STABLE


def derive_streams_group_state(
    num_members: int,
    topology_epoch: int | None,
    validated_topology_epoch: int,
    group_epoch: int,
    assignment_epoch: int,
    all_reconciled: bool,
) -> str:
    """Kafka's ``StreamsGroup.maybeUpdateGroupState`` (streams/StreamsGroup.java).

    ``topology_epoch`` is None while no topology record exists;
    ``validated_topology_epoch`` is -1 until a configured topology ``isReady()``.
    """
    if num_members == 0:
        return EMPTY
    if topology_epoch is None or topology_epoch != validated_topology_epoch:
        return NOT_READY
    if group_epoch > assignment_epoch:
        return ASSIGNING
    if not all_reconciled:
        return RECONCILING
    return STABLE


_LIVE = (ASSIGNING, RECONCILING, STABLE)

CONSUMER_GROUP = Declaration(
    name="consumer-group",
    title="KIP-848 consumer group (derived state)",
    doc=f"State derived by {_CG}; each trigger is one abstract change of (n, u, g, a).",
    states=(EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD),
    initial=EMPTY,
    terminal=(DEAD,),
    transitions=(
        transition("member_joined", (EMPTY, *_LIVE), ASSIGNING, """
            n+=1, u+=1, g+=1. A new member with a subscription changes subscribedTopicNames,
            so GroupMetadataManager bumps the group epoch (reference §2)."""),
        transition("member_left", _LIVE, ASSIGNING, """
            Requires n>=2. n-=1 (u-=1 if it was unreconciled), g+=1: leaving (epoch -1) or
            being fenced always bumps the group epoch (consumerGroupFenceMember)."""),
        transition("member_left_last", _LIVE, EMPTY, """
            Requires n==1. n=0, u=0, g+=1 and a=g: fencing the last member also writes
            TargetAssignmentMetadata at the new group epoch."""),
        transition("group_epoch_bumped", _LIVE, ASSIGNING, """
            Requires n>=1. g+=1: subscription, regex, assignor or metadata-hash change."""),
        transition("target_assignment_computed", ASSIGNING, RECONCILING, """
            Requires g>a. a=g, u=n: every member epoch is below the new assignment epoch,
            so none isReconciledTo(a) (TargetAssignmentMetadata record)."""),
        *self_loops("member_reconciled", ASSIGNING, """
            Requires u>=2 and g>a. u-=1: a member reaches the old target; still ASSIGNING."""),
        transition("member_reconciled", RECONCILING, RECONCILING, """
            Requires u>=2. u-=1: CurrentAssignmentBuilder moved one member to STABLE at
            epoch a; others are still reconciling."""),
        *self_loops("all_members_reconciled", ASSIGNING, """
            Requires u==1 and g>a: the last member reaches the old target; still ASSIGNING."""),
        transition("all_members_reconciled", RECONCILING, STABLE, """
            Requires u==1. u=0: every member is STABLE at memberEpoch == a."""),
        *self_loops("member_unreconciled", ASSIGNING, """
            Requires u<n and g>a. u+=1; still ASSIGNING."""),
        transition("member_unreconciled", (RECONCILING, STABLE), RECONCILING, """
            Requires u<n. u+=1: a reconciled member leaves STABLE at epoch a, e.g.
            updateCurrentAssignment -> UNREVOKED_PARTITIONS, or a static member's
            temporary leave (memberEpoch -2)."""),
        transition("unloaded", (EMPTY, *_LIVE), DEAD, """
            The coordinator partition is unloaded. Kafka never derives DEAD for consumer
            groups; it exists in ConsumerGroupState for describe/list only."""),
    ),
)

_READY = (ASSIGNING, RECONCILING, STABLE)

STREAMS_GROUP = Declaration(
    name="streams-group",
    title="KIP-1071 streams group (derived state)",
    doc=f"State derived by {_SG}; like consumer-group plus NOT_READY (topology not validated).",
    states=(EMPTY, NOT_READY, ASSIGNING, RECONCILING, STABLE, DEAD),
    initial=EMPTY,
    terminal=(DEAD,),
    transitions=(
        transition("member_joined", (EMPTY, *_READY), ASSIGNING, """
            Requires ready. n+=1, u+=1, g+=1: a dynamic member joining changes member
            metadata, which bumps the streams group epoch."""),
        transition("member_joined_topology_not_ready", (EMPTY, NOT_READY), NOT_READY, """
            Requires not ready. n+=1, u+=1, g+=1; the first member's heartbeat writes the
            StreamsGroupTopology record (maybeUpdateTopology) but configureTopics did not
            yield isReady()."""),
        transition("topology_validated", NOT_READY, ASSIGNING, """
            Requires n>=1, not ready. ready=True, g+=1: ConfiguredTopology.isReady() sets
            validatedTopologyEpoch = topology epoch, and a newly validated epoch bumps g."""),
        transition("topology_invalidated", _READY, NOT_READY, """
            Requires n>=1, ready. ready=False, g+=1: a metadata-hash change re-runs
            InternalTopicManager.configureTopics, which now fails (validatedTopologyEpoch=-1)."""),
        transition("member_left", _READY, ASSIGNING, "Requires n>=2, ready. n-=1, g+=1."),
        transition("member_left", NOT_READY, NOT_READY, "Requires n>=2, not ready. n-=1, g+=1."),
        transition("member_left_last", (NOT_READY, *_READY), EMPTY, """
            Requires n==1. n=0, g+=1, a=g; validatedTopologyEpoch and the topology stay."""),
        transition("group_epoch_bumped", _READY, ASSIGNING, """
            Requires n>=1, ready. g+=1: member metadata, metadata hash or assignment configs
            (num.standby.replicas, rack.aware.assignment.tags) changed."""),
        transition("group_epoch_bumped", NOT_READY, NOT_READY, "Requires n>=1, not ready. g+=1."),
        transition("target_assignment_computed", ASSIGNING, RECONCILING, """
            Requires g>a. a=g, u=n (updateStreamsTargetAssignment)."""),
        transition("target_assignment_computed", NOT_READY, NOT_READY, """
            Requires g>a, not ready. a=g, u=n: GroupMetadataManager computes the target
            whenever g > a, whatever the topology state (members then get empty tasks)."""),
        *self_loops("member_reconciled", (NOT_READY, ASSIGNING), """
            Requires u>=2. u-=1: a member reaches the current target; the state is unchanged."""),
        transition("member_reconciled", RECONCILING, RECONCILING, "Requires u>=2. u-=1."),
        *self_loops("all_members_reconciled", (NOT_READY, ASSIGNING), """
            Requires u==1. u=0; the state is unchanged."""),
        transition("all_members_reconciled", RECONCILING, STABLE, """
            Requires u==1. u=0: every member isReconciledTo(a)."""),
        *self_loops("member_unreconciled", (NOT_READY, ASSIGNING), """
            Requires u<n. u+=1; the state is unchanged."""),
        transition("member_unreconciled", (RECONCILING, STABLE), RECONCILING, """
            Requires u<n. u+=1: a reconciled member leaves STABLE at epoch a (e.g. its
            tasks must be revoked after a subtopology change)."""),
        transition("unloaded", (EMPTY, NOT_READY, *_READY), DEAD, """
            The coordinator partition is unloaded; DEAD is never derived."""),
    ),
)
