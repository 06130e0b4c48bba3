"""Invariants of a live streams group (KIP-1071), for the simulator and the fuzzer.

The same names as the consumer invariants where the statement is the same one about
tasks instead of partitions; each check takes one :class:`StreamsObservation` and
returns violation messages (empty when it holds). ``invariants/streams.py`` holds the
``kgspec check`` variants over replayed records and observed responses.

* ``processid-exclusivity``: a task is active on at most one member (assigned or pending
  revocation) and no process holds a task twice, in any roles (KAFKA-20899) — trunk's in-place
  demotion aside, counted as ``kgspec check`` counts it (``invariants/streams.py``);
* ``target-validity``: targets only for members, no active task in two targets, no
  process twice in one task's targets; when the target is current and the topology ready,
  it keeps every guarantee of the sticky assignor (each task active exactly once, standbys
  only for stateful subtopologies, ``min(replicas, processes - 1)`` of them);
* ``no-tasks-while-not-ready``: a target computed while the group is NotReady is empty,
  and a heartbeat answered while NotReady grants no task the member did not have, except
  tasks of its target computed earlier, while the topology was ready, and kept by 4.3's
  assignment interval (``invariants/streams.py``: ``not_ready_grants``);
* ``epoch-monotonicity``, ``epoch-fencing``, ``replay-equivalence``, ``session-expiry``,
  ``client-no-double-ownership`` (active tasks): as for consumer groups.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kgspec.invariants.catalogue import (
    CLIENT_NO_DOUBLE_OWNERSHIP,
    EPOCH_FENCING,
    EPOCH_MONOTONICITY,
    NO_TASKS_WHILE_NOT_READY,
    PROCESSID_EXCLUSIVITY,
    REPLAY_EQUIVALENCE,
    SESSION_EXPIRY,
    TARGET_VALIDITY,
)
from kgspec.invariants.epochs import (
    EpochSnapshot,
    accepted_epoch_problems,
    epoch_monotonicity,
)
from kgspec.invariants.liveness import (
    ClientView,
    converged_problems,
    session_expiry,
)
from kgspec.invariants.ownership import client_no_double_ownership
from kgspec.invariants.processid import StreamsHolding, processid_exclusivity
from kgspec.invariants.replay import replay_equivalence
from kgspec.invariants.streams import held_tasks, not_ready_grants
from kgspec.model.config import Config
from kgspec.model.consumer import member as consumer_member
from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignment, TaskMemberSpec
from kgspec.model.streams.group import NOT_READY, STABLE_STATE, StreamsGroup
from kgspec.model.streams.guarantees import sticky_guarantee_problems
from kgspec.model.streams.member import (
    ACTIVE,
    ROLE_FIELDS,
    ROLES,
    STABLE,
    STANDBY,
    UNRELEASED_TASKS,
    UNREVOKED_TASKS,
    WARMUP,
    StreamsMember,
)

# Streams member states in the consumer's codes, so epoch-monotonicity reads them alike.
_AS_CONSUMER_STATE = {STABLE: consumer_member.STABLE, UNREVOKED_TASKS: consumer_member.UNREVOKED_PARTITIONS,
                      UNRELEASED_TASKS: consumer_member.UNRELEASED_PARTITIONS}

StreamsCall = tuple[StreamsMember | None, Mapping[str, Any], Mapping[str, Any]]


@dataclass(slots=True)
class StreamsObservation:
    """One streams group at one point, with the caller's context (as ``Observation``)."""

    group_id: str
    group: StreamsGroup | None
    previous: EpochSnapshot | None = None
    replayed: StreamsGroup | None = None
    check_replay: bool = False
    now: int | None = None
    session_deadlines: Mapping[str, int] | None = None
    call: StreamsCall | None = None
    client_beliefs: Mapping[str, Mapping[str, Any]] | None = None  # client -> active tasks


def snapshot_streams_epochs(group: StreamsGroup | None) -> EpochSnapshot | None:
    if group is None:
        return None
    return EpochSnapshot(group.group_epoch, group.assignment_epoch,
                         {mid: (m.member_epoch, _AS_CONSUMER_STATE.get(m.state, consumer_member.UNKNOWN))
                          for mid, m in group.members.items()})


def holdings(group: StreamsGroup) -> dict[str, StreamsHolding]:
    """Each member's tasks by role, assigned ∪ pending revocation, its demoted active tasks
    marked as the checker counts them (:func:`kgspec.invariants.streams.held_tasks`)."""
    out: dict[str, StreamsHolding] = {}
    for mid, m in group.members.items():
        roles: dict[str, dict[str, set[int]]] = {role: {} for role in ROLES}
        demoted: dict[str, set[int]] = {}
        for role, sid, p, counts in held_tasks([m.assigned, m.pending_revocation]):
            roles[role].setdefault(sid, set()).add(p)
            if not counts:
                demoted.setdefault(sid, set()).add(p)
        out[mid] = StreamsHolding(m.process_id, roles[ACTIVE], roles[STANDBY], roles[WARMUP], demoted)
    return out


def streams_target_validity(group: StreamsGroup) -> list[str]:
    """Target validity for streams (see the module docstring)."""
    problems: list[str] = []
    stray = sorted(set(group.target) - set(group.members))
    if stray:
        problems.append(f"targets for non-members {stray}")
    targets = {mid: StreamsHolding(group.members[mid].process_id if mid in group.members else f"<{mid}>",
                                   t.get(ACTIVE, {}), t.get(STANDBY, {}), t.get(WARMUP, {}))
               for mid, t in group.target.items()}
    problems.extend(f"target: {p}" for p in processid_exclusivity(targets))
    configured = group.configured_topology
    if (problems or group.assignment_epoch != group.group_epoch or group.state == NOT_READY
            or configured is None or not configured.is_ready or not configured.subtopologies
            or not group.members):
        return problems
    specs = [TaskMemberSpec(mid, m.process_id) for mid, m in sorted(group.members.items())]
    subs = [SubtopologyTasks(sid, s.num_tasks, s.is_stateful) for sid, s in configured.subtopologies.items()]
    replicas = int(group.last_assignment_configs.get("num.standby.replicas", "0"))
    assignment = TaskAssignment({mid: dict(group.target_of(mid).get(ACTIVE, {})) for mid in group.members},
                                {mid: dict(group.target_of(mid).get(STANDBY, {})) for mid in group.members})
    return [f"current target at epoch {group.assignment_epoch}: {p}"
            for p in sticky_guarantee_problems(specs, subs, replicas, assignment)]


def no_tasks_while_not_ready(group: StreamsGroup | None, call: StreamsCall | None) -> list[str]:
    """No tasks while NotReady (see the module docstring)."""
    if group is None or group.state != NOT_READY:
        return []
    problems: list[str] = []
    if group.assignment_epoch == group.group_epoch:
        for mid, target in sorted(group.target.items()):
            held = sorted(f"{role} {sid}_{p}" for role in ROLES for sid, parts in target.get(role, {}).items()
                          for p in parts)
            if held:
                problems.append(f"group is NotReady but the target at epoch {group.assignment_epoch} gives "
                                f"{mid} {', '.join(held[:3])}")
    if call is not None:
        before, request, response = call
        if response.get("errorCode") == 0:
            had = before.assigned if before is not None else {}
            gained = [(role, entry["subtopologyId"], p) for role, name in ROLE_FIELDS.items()
                      for entry in response.get(name) or [] for p in entry["partitions"]
                      if p not in had.get(role, {}).get(entry["subtopologyId"], {})]
            mid = str(request.get("memberId"))
            named: set[tuple[str, str]] = set()
            for role, sid, p in not_ready_grants(group, mid, gained):
                if (role, sid) not in named:  # one line per task list entry, at its first task
                    named.add((role, sid))
                    problems.append(f"group is NotReady but member {mid} is granted {role} task {sid}_{p}")
    return problems


def _contained(raw: Any, assigned: Mapping[str, Mapping[int, int]]) -> bool:
    if raw is None:
        return False
    return all(int(p) in assigned.get(e["subtopologyId"], {}) for e in raw for p in e["partitions"])


def streams_epoch_fencing(before: StreamsMember | None, request: Mapping[str, Any],
                          response: Mapping[str, Any]) -> list[str]:
    """Epoch fencing (``throwIfStreamsGroupMemberEpochIsInvalid``).

    A StreamsGroupHeartbeat with memberEpoch > 0 from a known member succeeds only at the
    member's current epoch, or at exactly its previous epoch when the owned tasks it
    reports (all three lists, non-null) are each contained in its assigned tasks of
    that role (the lost-response rule).
    """
    if before is None:
        return []
    mid = before.member_id

    def owned_problem(epoch: int) -> str | None:
        for role, name in ROLE_FIELDS.items():
            if not _contained(request.get(name), before.assigned.get(role, {})):
                return (f"member {mid} was accepted with its previous epoch {epoch} although its {name} "
                        f"{request.get(name)!r} are not within its assigned {role} tasks")
        return None

    return accepted_epoch_problems(mid, before.member_epoch, before.previous_member_epoch, request,
                                   response, owned_problem)


def _epochs(o: StreamsObservation) -> list[str]:
    current = snapshot_streams_epochs(o.group)
    return epoch_monotonicity(o.previous, current) if current is not None else []


def _session(o: StreamsObservation) -> list[str]:
    if o.group is None or o.now is None or o.session_deadlines is None:
        return []
    return session_expiry(o.group, o.now, o.session_deadlines)


#: name -> check over a StreamsObservation.
STREAMS_GROUP_INVARIANTS: dict[str, Callable[[StreamsObservation], list[str]]] = {
    PROCESSID_EXCLUSIVITY: lambda o: processid_exclusivity(holdings(o.group)) if o.group is not None else [],
    CLIENT_NO_DOUBLE_OWNERSHIP: lambda o: (client_no_double_ownership(o.client_beliefs)
                                           if o.client_beliefs is not None else []),
    EPOCH_MONOTONICITY: _epochs,
    EPOCH_FENCING: lambda o: streams_epoch_fencing(*o.call) if o.call is not None else [],
    TARGET_VALIDITY: lambda o: streams_target_validity(o.group) if o.group is not None else [],
    NO_TASKS_WHILE_NOT_READY: lambda o: no_tasks_while_not_ready(o.group, o.call),
    REPLAY_EQUIVALENCE: lambda o: replay_equivalence(o.group, o.replayed) if o.check_replay else [],
    SESSION_EXPIRY: _session,
}


def streams_convergence_bound_ms(config: Config, max_delay_ms: int, topic_creation_ms: int) -> int:
    """How long after faults stop a streams group must have converged.

    As :func:`convergence_bound_ms` with the streams timings (session S, assignment
    interval A, heartbeat H), plus the initial rebalance delay I of a group that emptied,
    and the internal topics: a heartbeat asks for them (H), the cluster creates them
    (``topic_creation_ms``) and the next heartbeat sees the new metadata and bumps the
    epoch (H + 2d). Total: S + I + A + T + 5H + 14d.
    """
    s = config.int("group.streams.session.timeout.ms")
    i = config.int("group.streams.initial.rebalance.delay.ms")
    a = config.int("group.streams.assignment.interval.ms")
    h = config.int("group.streams.heartbeat.interval.ms")
    return s + i + a + topic_creation_ms + 5 * h + 14 * max_delay_ms


def _lost(group: StreamsGroup | None, clients: Mapping[str, ClientView]) -> dict[str, str]:
    """Member id -> the :func:`lost_assignments` message about it."""
    if group is None:
        return {}
    out: dict[str, str] = {}
    for mid in sorted(set(group.members) & set(clients)):
        m, view = group.members[mid], clients[mid]
        assigned = {r: ts for r, ts in m.assigned_sets().items() if ts}
        owned: dict[str, Any] = dict(view.owned)
        if (m.state == STABLE and m.member_epoch == group.assignment_epoch == view.member_epoch
                and view.state == "STABLE" and owned != assigned and all(
                    p <= assigned.get(r, {}).get(s, frozenset()) for r, subs in owned.items() for s, p in subs.items())):
            out[mid] = (f"member {mid} is STABLE at epoch {m.member_epoch} with {assigned}, but its client "
                        f"runs only {owned}: the response that carried the assignment was lost")
    return out


def lost_assignments(group: StreamsGroup | None, clients: Mapping[str, ClientView]) -> list[str]:
    """Members STABLE at the assignment epoch on both sides whose client runs none of some
    tasks the coordinator assigned them (a Kafka gap, see :func:`streams_convergence`)."""
    return list(_lost(group, clients).values())


def streams_convergence(group: StreamsGroup | None, clients: Mapping[str, ClientView],
                        ready_expected: bool, tolerate_lost_assignment: bool = False) -> list[str]:
    """Convergence of a streams group (``clients``: member id -> view; owned by role).

    Members are exactly the live clients, the target is computed, every member is STABLE
    at the assignment epoch on both sides owning exactly its target in every role, and the
    group is Stable when ``ready_expected`` — the caller's judgement: NotReady is the right
    state while a source topic is missing or an internal topic has the wrong partition count
    (INCORRECTLY_PARTITIONED_TOPICS after a source topic grew: Kafka does not repartition a
    changelog), both of which need an operator; missing internal topics the cluster creates.

    Kafka (4.3 and trunk) breaks this after a lost response: the coordinator sends a streams
    member its tasks only when it joins or its assigned tasks change
    (``GroupMetadataManager.streamsGroupHeartbeat``; there is no "full request" case as for
    consumers), and the client retries with its old epoch, which the lost-response rule
    accepts without resending the tasks. ``tolerate_lost_assignment`` leaves such members
    (see :func:`lost_assignments`) out, so the rest can still be checked.
    """
    lost = _lost(group, clients) if tolerate_lost_assignment else {}

    def owns_target(g: StreamsGroup, mid: str, view: ClientView) -> str | None:
        target = {r: {s: p for s, p in ts.items() if p} for r, ts in g.target_of(mid).items()}
        target = {r: ts for r, ts in target.items() if ts}
        assigned = {r: ts for r, ts in g.members[mid].assigned_sets().items() if ts}
        owned: dict[str, Any] = dict(view.owned)  # a streams client's view: role -> subtopology -> tasks
        if (owned != target and mid not in lost) or assigned != target:
            return f"member {mid} owns {owned}, is assigned {assigned}, target {target}"
        return None

    problems = converged_problems(group, clients, owns_target)
    if (ready_expected and group is not None and group.members and group.state != STABLE_STATE
            and not problems):
        problems.append(f"group is {group.state}, not Stable, although nothing needs an operator")
    return problems
