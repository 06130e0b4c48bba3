"""The KIP-848 consumer client's member lifecycle.

Kafka source: clients/.../consumer/internals/MemberState.java (``previousValidStates``
is the only table; ``AbstractMembershipManager.transitionTo`` enforces it) and the
methods of AbstractMembershipManager that call ``transitionTo``. Every edge here,
including each hop listed in ``via``, is in ``VALID_PREVIOUS_STATES`` (tested).
"""

from __future__ import annotations

from types import MappingProxyType

from kgspec.spec.declarations import Declaration, transition

UNSUBSCRIBED, JOINING, RECONCILING = "UNSUBSCRIBED", "JOINING", "RECONCILING"
ACKNOWLEDGING, STABLE, FENCED = "ACKNOWLEDGING", "STABLE", "FENCED"
PREPARE_LEAVING, LEAVING, STALE, FATAL = "PREPARE_LEAVING", "LEAVING", "STALE", "FATAL"

#: Copied from MemberState's static block: state -> states it may be entered from.
VALID_PREVIOUS_STATES = MappingProxyType({
    STABLE: (JOINING, ACKNOWLEDGING, RECONCILING),
    RECONCILING: (STABLE, JOINING, ACKNOWLEDGING, RECONCILING),
    ACKNOWLEDGING: (RECONCILING,),
    FATAL: (JOINING, STABLE, RECONCILING, ACKNOWLEDGING, PREPARE_LEAVING, LEAVING, UNSUBSCRIBED),
    FENCED: (JOINING, STABLE, RECONCILING, ACKNOWLEDGING, PREPARE_LEAVING, LEAVING),
    JOINING: (FENCED, UNSUBSCRIBED, STALE),
    PREPARE_LEAVING: (JOINING, STABLE, RECONCILING, ACKNOWLEDGING, UNSUBSCRIBED),
    LEAVING: (PREPARE_LEAVING,),
    UNSUBSCRIBED: (PREPARE_LEAVING, LEAVING, FENCED),
    STALE: (LEAVING,),
})

_IN_GROUP = (JOINING, RECONCILING, ACKNOWLEDGING, STABLE)
_AMM = "AbstractMembershipManager"

CONSUMER_CLIENT = Declaration(
    name="consumer-client",
    title="KIP-848 consumer client member (MemberState)",
    doc="Client-side lifecycle; edges follow MemberState.previousValidStates.",
    states=(UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE,
            FENCED, PREPARE_LEAVING, LEAVING, STALE, FATAL),
    initial=UNSUBSCRIBED,
    terminal=(FATAL,),
    transitions=(
        transition("subscribe", UNSUBSCRIBED, JOINING, f"""
            {_AMM}.onConsumerPoll after subscribe(): subscriptionUpdated and UNSUBSCRIBED ->
            transitionToJoining; heartbeats with epoch 0 follow."""),
        transition("assignment_received", (JOINING, RECONCILING, STABLE), RECONCILING, f"""
            {_AMM}.processAssignmentReceived: heartbeat response carries a target that
            differs from the current assignment."""),
        transition("assignment_unchanged", (JOINING, RECONCILING), STABLE, f"""
            {_AMM}.processAssignmentReceived: the target equals the current assignment
            (e.g. joining with an empty assignment)."""),
        transition("reconciliation_completed", RECONCILING, ACKNOWLEDGING, f"""
            {_AMM}.maybeReconcile: callbacks done and the assignment made effective (or only
            the resolvable part is unchanged); the next heartbeat is sent at once."""),
        transition("ack_sent", ACKNOWLEDGING, STABLE, f"""
            {_AMM}.onHeartbeatRequestGenerated: the ack heartbeat is out and the target is
            fully reconciled."""),
        transition("ack_sent_more_to_reconcile", ACKNOWLEDGING, RECONCILING, f"""
            {_AMM}.onHeartbeatRequestGenerated: ack sent but the target still differs
            (unresolved topics or a newer target)."""),
        transition("fenced", _IN_GROUP, FENCED, f"""
            {_AMM}.transitionToFenced on FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: epoch
            reset, onPartitionsLost invoked."""),
        transition("fenced", PREPARE_LEAVING, UNSUBSCRIBED, f"""
            {_AMM}.transitionToFenced while preparing to leave: passes through LEAVING
            without sending the leave heartbeat, then stops.""", via=(LEAVING,)),
        transition("fenced", LEAVING, UNSUBSCRIBED, f"""
            {_AMM}.transitionToFenced before the leave heartbeat went out: no rejoin."""),
        transition("rejoin", FENCED, JOINING, f"""
            {_AMM}.transitionToFenced: once onPartitionsLost completes, still FENCED ->
            transitionToJoining."""),
        transition("rejoin", STALE, JOINING, f"""
            {_AMM}.maybeRejoinStaleMember: the application polled again (poll timer reset)
            and the lost-partitions release completed."""),
        transition("leave_group", _IN_GROUP, PREPARE_LEAVING, f"""
            {_AMM}.leaveGroup (unsubscribe() or close()): release the assignment, running
            onPartitionsRevoked unless closing."""),
        transition("leave_group", FENCED, UNSUBSCRIBED, f"""
            {_AMM}.leaveGroup while not in the group: a FENCED member clears its assignment
            and stops instead of rejoining."""),
        transition("leave_callbacks_done", PREPARE_LEAVING, LEAVING, f"""
            {_AMM}.clearAssignmentAndLeaveGroup -> transitionToSendingLeaveGroup(false):
            epoch set to -1 (or -2 for a static member)."""),
        transition("poll_timer_expired", _IN_GROUP, LEAVING, f"""
            max.poll.interval.ms expired: {_AMM}.transitionToSendingLeaveGroup(true) passes
            through PREPARE_LEAVING without running callbacks.""", via=(PREPARE_LEAVING,)),
        transition("leave_heartbeat_sent", LEAVING, UNSUBSCRIBED, f"""
            {_AMM}.onHeartbeatRequestGenerated: the leave heartbeat is out."""),
        transition("leave_heartbeat_skipped", LEAVING, UNSUBSCRIBED, f"""
            {_AMM}.onHeartbeatRequestSkipped: coordinator unknown; leave best-effort."""),
        transition("stale_leave_heartbeat_sent", LEAVING, STALE, f"""
            {_AMM}.onHeartbeatRequestGenerated with the poll timer expired: transitionToStale,
            onPartitionsLost, no heartbeats until the next poll."""),
        transition("fatal_error", (UNSUBSCRIBED, *_IN_GROUP, PREPARE_LEAVING, LEAVING), FATAL, f"""
            {_AMM}.transitionToFatal on a non-retriable heartbeat error; no further
            requests."""),
    ),
)
