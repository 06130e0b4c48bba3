"""Kafka Connect on the KIP-848 protocol (the Connect draft, profile ``kip``): three lifecycles.

Never implemented in Apache Kafka: the draft (``shared/seeds/001_*``) is the source; section
names below are the draft's. ``docs/connect.md`` lists every reading kgspec chose.

- ``connect-group``: the group state, derived like a consumer group's from counters
  (members ``n``, unreconciled members ``u``, group epoch ``g``, assignment epoch ``a``);
  ``a`` moves only when a worker installs an assignment (ConnectGroupInstallAssignment).
- ``connect-member``: the coordinator's view of one worker: outcomes of the shared
  reconciliation engine on connectors and tasks ("Member Epoch - Reconciliation").
- ``connect-assignment``: the client-side assignment computation ("Assignment Process"):
  who is asked to COMPUTE_ASSIGNMENT, Prepare -> Install, validation failures, timeouts.
"""

from __future__ import annotations

from kgspec.spec.declarations import Declaration, self_loops, transition

EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD = "EMPTY", "ASSIGNING", "RECONCILING", "STABLE", "DEAD"
_LIVE = (ASSIGNING, RECONCILING, STABLE)

CONNECT_GROUP = Declaration(
    name="connect-group",
    title="Connect worker group on the KIP-848 protocol (derived state, draft)",
    doc="Derived from (n, u, g, a) as ConsumerGroup.maybeUpdateGroupState derives it; the "
    "assignment epoch moves only through ConnectGroupInstallAssignment (draft 'Assignment Epoch').",
    states=(EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD),
    initial=EMPTY,
    terminal=(DEAD,),
    transitions=(
        transition("worker_joined", (EMPTY, *_LIVE), ASSIGNING, """
            n+=1, u+=1, g+=1: 'A new worker joins' (draft 'Group Epoch', case 1)."""),
        transition("worker_left", _LIVE, ASSIGNING, """
            Requires n>=2. n-=1, g+=1: left with epoch -1, fenced (session or rebalance timeout,
            FENCED_MEMBER_EPOCH, assignment timeout) (draft 'Group Epoch', case 4)."""),
        transition("worker_left_last", _LIVE, EMPTY, """
            Requires n==1. n=0, g+=1; an empty group has nothing to assign."""),
        transition("group_epoch_bumped", _LIVE, ASSIGNING, """
            Requires n>=1. g+=1: assignors, reason or metadata changed, connectors or tasks
            added or removed, or the scheduled rebalance delay ended (cases 2, 3, 5, 6)."""),
        transition("assignment_installed", ASSIGNING, RECONCILING, """
            Requires g>a. a=E (the epoch the worker prepared at), u=n: a valid
            ConnectGroupInstallAssignment (or an assignor error that retains the target)."""),
        *self_loops("assignment_installed_stale", ASSIGNING, """
            Requires g>E>a. a=E: the group moved on during the computation; still ASSIGNING."""),
        *self_loops("worker_reconciled", ASSIGNING, "Requires u>=2 and g>a. u-=1; still ASSIGNING."),
        transition("worker_reconciled", RECONCILING, RECONCILING, "Requires u>=2. u-=1."),
        *self_loops("all_workers_reconciled", ASSIGNING, "Requires u==1 and g>a. u=0; still ASSIGNING."),
        transition("all_workers_reconciled", RECONCILING, STABLE, """
            Requires u==1. u=0: every worker is STABLE at memberEpoch == a."""),
        *self_loops("worker_unreconciled", ASSIGNING, "Requires u<n and g>a. u+=1; still ASSIGNING."),
        transition("worker_unreconciled", (RECONCILING, STABLE), RECONCILING, """
            Requires u<n. u+=1: a reconciled worker must revoke (it reported owning a connector
            or task its target no longer holds)."""),
        transition("unloaded", (EMPTY, *_LIVE), DEAD, "The coordinator partition is unloaded."),
    ),
)

UNREVOKED, UNRELEASED, FENCED, LEFT = "UNREVOKED", "UNRELEASED", "FENCED", "LEFT"
_ACTIVE = (STABLE, UNREVOKED, UNRELEASED)
_ENGINE = "model/reconcile.py (the shared engine) on roles connectors and tasks"

CONNECT_MEMBER = Declaration(
    name="connect-member",
    title="Connect worker (coordinator side, draft)",
    doc=f"Outcomes of {_ENGINE}; initial STABLE at memberEpoch 0 (draft case 1: 'W1 epoch=0').",
    states=(*_ACTIVE, FENCED, LEFT),
    initial=STABLE,
    terminal=(FENCED, LEFT),
    transitions=(
        transition("revocation_needed", _ACTIVE, UNREVOKED, """
            'Reconciliation' phase 1: connectors/tasks left the worker's target and it still
            owns them: the response carries current ∩ target and the epoch stays."""),
        transition("assigned_with_unreleased", _ACTIVE, UNRELEASED, """
            Phase 3: the worker moves to the target epoch, but some of its target is still held
            (assigned or pending revocation) by another worker, so it is withheld."""),
        transition("reconciled", _ACTIVE, STABLE, """
            Phase 2/3: nothing to revoke or wait for: memberEpoch = assignment epoch and the
            whole target is given (case 1: 'transitions it to its target epoch/assignment')."""),
        transition("fenced", _ACTIVE, FENCED, """
            Session timeout, rebalance timeout while revoking, FENCED_MEMBER_EPOCH ('The member
            is also removed from the group'), or no install within rebalance.timeout.ms after
            COMPUTE_ASSIGNMENT. Tombstones; group epoch + 1."""),
        transition("left", _ACTIVE, LEFT, "Heartbeat with memberEpoch -1: tombstones; group epoch + 1."),
    ),
)

IDLE, REQUESTED, NOTIFIED, PREPARED = "IDLE", "REQUESTED", "NOTIFIED", "PREPARED"
_BUSY = (REQUESTED, NOTIFIED, PREPARED)

CONNECT_ASSIGNMENT = Declaration(
    name="connect-assignment",
    title="Connect client-side assignment computation (draft 'Assignment Process')",
    doc="Soft state of the coordinator (not in records): rebuilt on load from g > a.",
    states=(IDLE, *_BUSY),
    initial=IDLE,
    transitions=(
        transition("group_epoch_ahead", IDLE, REQUESTED, """
            g > a and the group has workers: a new target is required ('Whenever the group epoch
            is larger than the assignment epoch'). The previous computing worker is preferred
            if still eligible (Connect's sticky leader), else the first eligible worker to
            heartbeat is chosen."""),
        transition("worker_notified", REQUESTED, NOTIFIED, """
            'Worker Selection': the chosen worker, whose version range covers every member's,
            heartbeats and gets errorCode COMPUTE_ASSIGNMENT; its rebalance timeout starts."""),
        *self_loops("no_eligible_worker", REQUESTED, """
            No worker's version range covers all the others' ('we will throw a FATAL error'):
            nobody is notified; the group keeps its target until membership changes."""),
        transition("prepared", _BUSY, PREPARED, """
            ConnectGroupPrepareAssignment by the chosen worker: the group metadata at the current
            group epoch is remembered; the install is validated against it."""),
        transition("installed", _BUSY, IDLE, """
            A valid ConnectGroupInstallAssignment at the current group epoch (or an assignor
            Error, which retains the current assignments): a = g."""),
        transition("installed_stale", _BUSY, REQUESTED, """
            A valid install at an older group epoch E: a = E < g, a new computation is needed."""),
        transition("install_rejected", _BUSY, REQUESTED, """
            INVALID_ASSIGNMENT ('Assignment Validation'): the worker abandons; it is asked again
            on its next heartbeat."""),
        transition("computing_worker_left", _BUSY, REQUESTED, """
            The chosen worker left or was fenced (session, FENCED_MEMBER_EPOCH, or the
            assignment's rebalance.timeout.ms ran out): another eligible worker is chosen."""),
        transition("group_emptied", _BUSY, IDLE, "The last worker left: nothing to compute."),
    ),
)
