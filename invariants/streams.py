"""Streams group invariants (KIP-1071), checked by ``kgspec check`` as ``invariant`` findings.

* ``streams-single-active-owner``: a task is active on at most one member at a time (assigned
  or pending revocation) — a task granted before its previous owner released it breaks this;
* ``streams-process-exclusivity``: a process holds a task in at most one role and at most once
  (an active task and its standby never share a process; two standbys never share one). One
  exception, trunk's in-place demotion (KAFKA-20665): the *same member* may hold the task as an
  active task pending revocation and as its new standby/warm-up — the client recycles the task;
* ``streams-no-tasks-while-not-ready``: a group whose topology is not validated (NotReady) gives
  no member any task — but one from a target computed while it was ready and kept by 4.3's
  assignment interval (:func:`not_ready_grants`);
* ``streams-epoch-while-revoking``: a member that still owns a task it must revoke keeps its
  member epoch;
* ``streams-target-validity``: at record 20 (target complete) each active task is in at most one
  member's target and no process has a task twice in the target.

The state checks run on the model's group (after each replayed record) or on the group as it
would be if the observed response were applied (calls).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from kgspec.invariants.catalogue import (
    STREAMS_EPOCH_WHILE_REVOKING,
    STREAMS_NO_TASKS_WHILE_NOT_READY,
    STREAMS_PROCESS_EXCLUSIVITY,
    STREAMS_SINGLE_ACTIVE_OWNER,
    STREAMS_TARGET_VALIDITY,
)
from kgspec.invariants.exclusivity import ACTIVE_TWICE, HeldTask, TaskConflict, task_conflicts
from kgspec.model.records import (
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    STREAMS_GROUP_MEMBER_METADATA,
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA,
    Record,
)
from kgspec.model.streams.group import NOT_READY, StreamsGroup
from kgspec.model.streams.member import ACTIVE, ROLES, TaskSets

Problem = tuple[str, str]
_MEMBER_RECORD_TYPES: Final = frozenset({STREAMS_GROUP_MEMBER_METADATA, STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT})
Holds = Mapping[str, Mapping[str, Any]]  # role -> subtopology -> partitions (set or epochs)


def _tasks(h: Holds) -> list[tuple[str, str, int]]:
    return [(role, sid, p) for role in ROLES for sid, parts in sorted(h.get(role, {}).items()) for p in sorted(parts)]


def held_tasks(hs: list[Holds]) -> Iterator[tuple[str, str, int, bool]]:
    """Each task a member holds (``hs``: assigned, pending revocation, ...), once, in order:
    ``(role, subtopology, partition, whether it counts against its process)`` — all do but an
    active task pending revocation that the member keeps as a replica (demoted in place)."""
    seen: set[tuple[str, str, int]] = set()
    replicas = {(sid, p) for role, sid, p in _tasks(hs[0]) if role != ACTIVE} if hs else set()
    for index, h in enumerate(hs):
        for role, sid, p in _tasks(h):
            if (role, sid, p) in seen:
                continue
            seen.add((role, sid, p))
            yield role, sid, p, not (role == ACTIVE and index > 0 and (sid, p) in replicas)


def _conflict_problems(conflicts: list[TaskConflict], active_name: str, active_message: str,
                       process_message: str) -> list[Problem]:
    """kgspec check's wording of :func:`task_conflicts`: each active task held twice as it is found,
    then each (process, task) held more than once, with every holder, in order."""
    problems: list[Problem] = []
    by_process: dict[tuple[str, str, int], list[tuple[str, str]]] = {}
    for c in conflicts:
        if c.kind == ACTIVE_TWICE:
            problems.append((active_name, active_message.format(task=f"{c.subtopology}_{c.partition}",
                                                                first=c.first[0], then=c.then[0])))
        else:
            by_process.setdefault((c.process, c.subtopology, c.partition), [c.first]).append(c.then)
    for (pid, sid, p), holders in sorted(by_process.items()):
        roles = ", ".join(f"{role} on {mid}" for mid, role in holders)
        problems.append((STREAMS_PROCESS_EXCLUSIVITY,
                         process_message.format(pid=pid, task=f"{sid}_{p}", n=len(holders), roles=roles)))
    return problems


def holdings_problems(holdings: Mapping[str, tuple[str, list[Holds]]]) -> list[Problem]:
    """``holdings``: member id -> (process id, [assigned, pending revocation, ...])."""
    held = [(mid, pid, role, sid, p, counts) for mid in sorted(holdings) for pid, hs in (holdings[mid],)
            for role, sid, p, counts in held_tasks(hs)]
    return _conflict_problems(task_conflicts(held), STREAMS_SINGLE_ACTIVE_OWNER,
                              "active task {task} is held by both {first} and {then}",
                              "process {pid} holds task {task} {n} times ({roles})")


def state_problems(group: StreamsGroup) -> list[Problem]:
    return holdings_problems({mid: (m.process_id, [m.assigned, m.pending_revocation])
                                     for mid, m in group.members.items()})


def target_problems(group: StreamsGroup) -> list[Problem]:
    held: list[HeldTask] = []
    for mid, target in sorted(group.target.items()):
        member = group.members.get(mid)
        pid = member.process_id if member is not None else f"<{mid}>"
        held += [(mid, pid, role, sid, p, True) for role, sid, p in _tasks(target)]
    problems = _conflict_problems(task_conflicts(held), STREAMS_TARGET_VALIDITY,
                                  "active task {task} is in the targets of both {first} and {then}",
                                  "the target puts task {task} on process {pid} {n} times ({roles})")
    owners = sorted({mid for mid, _, role, _, _, _ in held if role == ACTIVE})
    if group.state == NOT_READY and owners:
        problems.append((STREAMS_NO_TASKS_WHILE_NOT_READY,
                         f"group {group.group_id} is NotReady (topology not validated) but its target gives "
                         f"member {owners[0]} active tasks"))
    return problems


def record_problems(group: StreamsGroup | None, record: Record) -> list[Problem]:
    """After a replayed streams record; the target as a whole only at record 20."""
    if group is None:
        return []
    problems = state_problems(group)
    if record.type == STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA and record.value is not None:
        problems.extend(target_problems(group))
    return problems


class ReplayedStateProblems:
    """:func:`record_problems` for the records of one group, replayed in order, without going
    over every member at every record (which made a group's replay quadratic).

    :func:`state_problems` finds problems exactly when some active task is held by two members,
    or some process holds a task twice (as :func:`holdings_problems` counts: each member's tasks
    once, in-place demotion aside). Each member's contribution to those two counts is kept;
    while no count exceeds one there are no state problems, and none are computed. Otherwise
    :func:`state_problems` lists them, as always.

    ``generation``: a counter the caller bumps whenever the group may have changed, once per
    record replayed. When it moved on by exactly that record's bump, only the record's member (if
    any: records 19 and 22) changed and only its contribution is redone; otherwise all are.
    """

    __slots__ = ("_active", "_conflicts", "_generation", "_group", "_members", "_process")

    def __init__(self) -> None:
        self._group: StreamsGroup | None = None
        self._generation = -1
        self._members: dict[str, tuple[list[tuple[str, int]], list[tuple[str, str, int]]]] = {}
        self._active: dict[tuple[str, int], int] = {}  # active task -> members holding it
        self._process: dict[tuple[str, str, int], int] = {}  # (process, task) -> times held
        self._conflicts = 0  # counts above one, in both

    def problems(self, group: StreamsGroup | None, record: Record, generation: int) -> list[Problem]:
        if group is None:
            self._group = None
            return []
        if group is not self._group or generation != self._generation + 1:
            self._rebuild(group)
        elif record.type in _MEMBER_RECORD_TYPES:
            self._update(group, str(record.key["memberId"]))
        self._generation = generation
        problems = state_problems(group) if self._conflicts else []
        if record.type == STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA and record.value is not None:
            problems.extend(target_problems(group))
        return problems

    def _rebuild(self, group: StreamsGroup) -> None:
        self._group = group
        self._members, self._active, self._process, self._conflicts = {}, {}, {}, 0
        for mid in group.members:
            self._update(group, mid)

    def _update(self, group: StreamsGroup, member_id: str) -> None:
        old = self._members.pop(member_id, None)
        if old is not None:
            for task in old[0]:
                self._count(self._active, task, -1)
            for key in old[1]:
                self._count(self._process, key, -1)
        member = group.members.get(member_id)
        if member is None:
            return
        active: list[tuple[str, int]] = []
        process: list[tuple[str, str, int]] = []
        for role, sid, p, counts in held_tasks([member.assigned, member.pending_revocation]):
            if role == ACTIVE:
                active.append((sid, p))
            if counts:
                process.append((member.process_id, sid, p))
        for task in active:
            self._count(self._active, task, 1)
        for key in process:
            self._count(self._process, key, 1)
        self._members[member_id] = (active, process)

    def _count(self, counts: dict[Any, int], key: Any, step: int) -> None:
        before = counts.get(key, 0)
        after = before + step
        if after:
            counts[key] = after
        else:
            del counts[key]
        if before < 2 <= after:
            self._conflicts += 1
        elif after < 2 <= before:
            self._conflicts -= 1


def not_ready_grants(group: StreamsGroup, member_id: str,
                     gained: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The tasks of ``gained`` (role, subtopology, partition) a NotReady group must not grant.

    A target computed while NotReady is empty (``TargetAssignmentBuilder.build``). But the
    heartbeat that finds the topology not ready (bumping the group epoch) may fall inside 4.3's
    assignment interval (KAFKA-20291): it answers ASSIGNMENT_DELAYED and reconciles the member
    toward the last target, computed while the topology was ready (``fromLastTargetAssignment``).
    So while that older target stands (assignment epoch below the group epoch) the member may be
    granted the tasks of its target, and only those; otherwise none.
    """
    if group.state != NOT_READY:
        return []
    kept = group.target.get(member_id, {}) if group.assignment_epoch < group.group_epoch else {}
    return [(role, sid, p) for role, sid, p in gained if p not in kept.get(role, {}).get(sid, ())]


def response_problems(group: StreamsGroup | None, member_id: str, process_id: str,
                      before: Holds | None, before_pending: Holds | None, before_epoch: int | None,
                      observed: TaskSets | None, observed_epoch: int | None,
                      owned: Mapping[str, Mapping[str, frozenset[int]]] | None) -> list[Problem]:
    """Checks on an observed successful response. ``group`` is the model's group after the call;
    ``before*`` the member as it was; ``observed`` the tasks the response gives (None: unchanged)."""
    if group is None:
        return []
    problems: list[Problem] = []
    if observed is not None:
        holdings: dict[str, tuple[str, list[Holds]]] = {
            mid: (m.process_id, [m.assigned, m.pending_revocation])
            for mid, m in group.members.items() if mid != member_id}
        holdings[member_id] = (process_id, [observed])
        problems.extend(holdings_problems(holdings))
        gained = [t for t in _tasks(observed) if t[2] not in (before or {}).get(t[0], {}).get(t[1], ())]
        refused = not_ready_grants(group, member_id, gained)
        if refused:
            role, sid, p = refused[0]
            problems.append((STREAMS_NO_TASKS_WHILE_NOT_READY,
                             f"group {group.group_id} is NotReady (topology not validated) but member "
                             f"{member_id} is given {role} task {sid}_{p}"))
    if before_pending is not None and before_epoch is not None and observed_epoch is not None \
            and observed_epoch > before_epoch and owned is not None:
        still = [(role, sid, p) for role, sid, p in _tasks(before_pending)
                 if p in owned.get(role, {}).get(sid, frozenset())]
        if still:
            role, sid, p = still[0]
            problems.append((STREAMS_EPOCH_WHILE_REVOKING,
                             f"member {member_id} still owns {role} task {sid}_{p} it must revoke, so its epoch "
                             f"must stay {before_epoch}, not move to {observed_epoch}"))
    return problems
