"""Kafka's streams ``StickyTaskAssignor`` (``group-coordinator/.../streams/assignor/``), 4.3.

Release notes (paths under ``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/streams/assignor/``):

* 4.3 contains KAFKA-20899 (#23096): ``findPrevMemberWithLeastLoad`` skips previous
  standby owners whose *process* already holds the task; before it, the first previous
  owner was the default candidate and a holding process could end the search with none.
* trunk (``StickyTaskAssignor.java`` after KAFKA-20719/KAFKA-20790): previous-standby
  candidates are ranked (target-assignment standbys first, then by reported offset sum,
  descending) and members' reported ``taskOffsets`` add weaker candidates; the API moved to
  ``group-coordinator-api``, and ``processIdToState`` is filled with ``computeIfAbsent``
  (``compute_if_absent``), so processes of equal load can meet the heap in another order than
  on 4.3 even without task offsets. Checked against trunk's own class on generated inputs
  (``scripts/oracle_streams_assignor.py``).
* 4.1 is the first version (KAFKA-17125, #18652): no quotas or heaps, "task pairs", and
  standbys placed by a balanced-load test; KAFKA-19478/19661 (#20120..#20523) rewrote it.

Java orders that decide ties are reproduced: ``processIdToState`` and each process's
``memberToTaskCounts`` are HashMaps (``javaorder.java_hashmap_order``) and the two heaps
are ``java.util.PriorityQueue`` (``javaorder.JavaPriorityQueue``). Members are walked in
the order given (Kafka walks ``GroupSpec.members()``: a LinkedHashMap in its tests, a
HashMap of member ids in ``TargetAssignmentBuilder``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kgspec.model.javaorder import (
    JavaPriorityQueue,
    java_compute_if_absent_order,
    java_hashmap_order,
    java_str_key,
)

Task = tuple[str, int]  # (subtopology id, partition)
TaskMap = dict[str, frozenset[int]]  # subtopology id -> partitions


class TaskAssignorError(Exception):
    """``TaskAssignorException`` (no process/member available for an active task)."""


@dataclass(frozen=True, slots=True)
class TaskMemberSpec:
    member_id: str
    process_id: str
    # The member's current *target* assignment.
    active_tasks: Mapping[str, frozenset[int]] = field(default_factory=dict)
    standby_tasks: Mapping[str, frozenset[int]] = field(default_factory=dict)
    # trunk: the member's reported task changelog offset sums (MemberAssignmentState.taskOffsets).
    task_offsets: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    # kip: its reported task changelog end offset sums (the highly_available assignor's lags).
    task_end_offsets: Mapping[str, Mapping[int, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SubtopologyTasks:
    subtopology_id: str
    num_tasks: int  # ConfiguredSubtopology.numberOfTasks (maxNumInputPartitions)
    stateful: bool


@dataclass(frozen=True, slots=True)
class TaskAssignment:
    active: dict[str, TaskMap]
    standby: dict[str, TaskMap]
    # kip: warm-up tasks an assignor hands out itself (highly_available); Kafka's assignors none.
    warmup: dict[str, TaskMap] = field(default_factory=dict)


class _Member:
    __slots__ = ("member_id", "process_id")

    def __init__(self, process_id: str, member_id: str) -> None:
        self.process_id = process_id
        self.member_id = member_id


class _Entry:
    """A mutable ``Map.Entry<memberId, taskCount>`` in a process's member heap."""

    __slots__ = ("count", "member_id")

    def __init__(self, member_id: str, count: int) -> None:
        self.member_id = member_id
        self.count = count


def _cmp_entry(a: _Entry, b: _Entry) -> int:
    return (a.count > b.count) - (a.count < b.count)


class _Process:
    """``ProcessState``: load = tasks / members; a lazily built member heap."""

    __slots__ = ("active", "assigned", "capacity", "counts", "heap", "load", "process_id",
                 "standby", "task_count")

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.capacity = 0
        self.load = float("inf")  # Double.MAX_VALUE until a member is added
        self.task_count = 0
        self.counts: dict[str, int] = {}
        self.active: dict[str, set[Task]] = {}
        self.standby: dict[str, set[Task]] = {}
        self.assigned: set[Task] = set()
        self.heap: JavaPriorityQueue[_Entry] | None = None

    def add_member(self, member_id: str) -> None:
        self.counts[member_id] = 0
        self.capacity += 1
        self.load = self.task_count / self.capacity

    def _add(self, member_id: str, task: Task, is_active: bool) -> int:
        self.task_count += 1
        self.assigned.add(task)
        (self.active if is_active else self.standby).setdefault(member_id, set()).add(task)
        n = self.counts[member_id] + 1
        self.counts[member_id] = n
        self.load = self.task_count / self.capacity
        return n

    def add_task(self, member_id: str, task: Task, is_active: bool) -> int:
        n = self._add(member_id, task, is_active)
        self.heap = None  # a targeted add invalidates the member heap (Kafka drops it too)
        return n

    def add_to_least_loaded(self, task: Task, is_active: bool) -> int:
        if not self.counts:
            return -1
        if len(self.counts) == 1:
            return self._add(next(iter(self.counts)), task, is_active)
        if self.heap is None:
            self.heap = JavaPriorityQueue(
                _cmp_entry, (_Entry(m, self.counts[m]) for m in java_hashmap_order(self.counts)))
        entry = self.heap.poll()
        assert entry is not None  # the heap holds every member of a non-empty process
        n = self._add(entry.member_id, task, is_active)
        entry.count = n
        self.heap.add(entry)
        return n


def _cmp_load(a: _Process, b: _Process) -> int:
    return (a.load > b.load) - (a.load < b.load)


def _ceil_div(n: int, d: int) -> int:
    return 0 if d == 0 else -(-n // d)


class _StickyTaskAssignor:
    def __init__(self, members: Iterable[TaskMemberSpec], subtopologies: Iterable[SubtopologyTasks],
                 num_standby_replicas: int, allow_standby_on_active_process: bool,
                 compute_if_absent: bool) -> None:
        self.members = list(members)
        self.subtopologies = list(subtopologies)
        self.replicas = num_standby_replicas
        self.mutant = allow_standby_on_active_process
        self.total_active = sum(s.num_tasks for s in self.subtopologies)
        self.total_tasks = self.total_active + sum(
            s.num_tasks * self.replicas for s in self.subtopologies if s.stateful)
        self.members_with_active_capacity = len(self.members)
        self.members_with_capacity = len(self.members)
        self.active_quota = _ceil_div(self.total_active, len(self.members))
        self.total_quota = _ceil_div(self.total_tasks, len(self.members))
        procs: dict[str, _Process] = {}
        self.prev_active: dict[Task, _Member] = {}
        self.prev_standby: dict[Task, list[_Member]] = {}
        # trunk's collectStandbyCandidates: (member, is previous standby, reported offset sum)
        candidates: dict[Task, list[tuple[_Member, bool, int]]] = {}
        for spec in self.members:
            member = _Member(spec.process_id, spec.member_id)
            procs.setdefault(spec.process_id, _Process(spec.process_id)).add_member(spec.member_id)
            for sid, parts in spec.active_tasks.items():
                for p in parts:
                    self.prev_active[(sid, p)] = member
            for sid, parts in spec.standby_tasks.items():
                for p in parts:
                    offset = spec.task_offsets.get(sid, {}).get(p, 0)
                    candidates.setdefault((sid, p), []).append((member, True, offset))
            for sid, by_partition in spec.task_offsets.items():
                for p, offset in by_partition.items():
                    if p not in spec.standby_tasks.get(sid, frozenset()):
                        candidates.setdefault((sid, p), []).append((member, False, offset))
        # rankStandbyCandidates: previous standbys first, then the highest offset sum (a stable sort,
        # so without reported offsets the order is the members' order, as on 4.3).
        for task, ranked in candidates.items():
            ranked.sort(key=lambda c: (not c[1], -c[2]))
            self.prev_standby[task] = [c[0] for c in ranked]
        # processIdToState = new HashMap<>(memberCount): its values feed the heaps in hash order.
        # 4.3 fills it with putIfAbsent, trunk with computeIfAbsent (head-of-bin links, lazy resize).
        calls = [spec.process_id for spec in self.members]
        order = (java_compute_if_absent_order(calls, len(self.members)) if compute_if_absent
                 else java_hashmap_order(calls, len(self.members)))
        self.processes = {pid: procs[pid] for pid in order}

    # -- quotas ---------------------------------------------------------------------------
    def _after_active(self, n: int) -> None:
        if n == self.active_quota:
            self.members_with_active_capacity -= 1
            self.total_active -= n
            self.active_quota = _ceil_div(self.total_active, self.members_with_active_capacity)
        self._after_any(n)

    def _after_any(self, n: int) -> None:
        if n == self.total_quota:
            self.members_with_capacity -= 1
            self.total_tasks -= n
            self.total_quota = _ceil_div(self.total_tasks, self.members_with_capacity)

    def _holds(self, proc: _Process, task: Task) -> bool:
        return not self.mutant and task in proc.assigned

    # -- actives ----------------------------------------------------------------------------
    def assign_active(self) -> None:
        tasks = [(s.subtopology_id, p) for s in self.subtopologies for p in range(s.num_tasks)]
        tasks.sort(key=lambda t: (t[1], java_str_key(t[0])))
        # 1. back to the previous active owner while it is under the active quota
        rest = []
        for task in tasks:
            prev = self.prev_active.get(task)
            if prev is not None:
                proc = self.processes[prev.process_id]
                if proc.counts[prev.member_id] < self.active_quota:
                    self._after_active(proc.add_task(prev.member_id, task, True))
                    continue
            rest.append(task)
        # 2. to the least-loaded previous standby owner under the active quota
        tasks, rest = rest, []
        for task in tasks:
            cand = self._least_loaded_prev(self.prev_standby.get(task), None)
            if cand is not None:
                proc = self.processes[cand.process_id]
                if proc.counts[cand.member_id] < self.active_quota:
                    self._after_active(proc.add_task(cand.member_id, task, True))
                    continue
            rest.append(task)
        # 3. the rest, range-style, to the least-loaded process and its least-loaded member
        rest.sort(key=lambda t: (java_str_key(t[0]), t[1]))
        heap = JavaPriorityQueue(_cmp_load, self.processes.values())
        for task in rest:
            least = heap.poll()
            if least is None:
                raise TaskAssignorError(f"No process available to assign active task {task[0]}_{task[1]}.")
            n = least.add_to_least_loaded(task, True)
            if n == -1:
                raise TaskAssignorError(f"No member available to assign active task {task[0]}_{task[1]}.")
            self._after_active(n)
            heap.add(least)

    def _least_loaded_prev(self, members: list[_Member] | None, standby_task: Task | None) -> _Member | None:
        """``findPrevMemberWithLeastLoad`` (4.3, after KAFKA-20899): the first eligible member
        wins unless a later one is strictly lower on *both* process load and member load."""
        if not members:
            return None
        best: _Member | None = None
        best_pload = best_mload = float("inf")
        for m in members:
            proc = self.processes[m.process_id]
            if standby_task is not None and self._holds(proc, standby_task):
                continue
            pload, mload = proc.load, proc.counts[m.member_id]
            if best is None or (pload < best_pload and mload < best_mload):
                best, best_pload, best_mload = m, pload, mload
        return best

    # -- standbys ---------------------------------------------------------------------------
    def assign_standby(self) -> None:
        tasks = [(s.subtopology_id, p) for s in self.subtopologies if s.stateful
                 for p in range(s.num_tasks)]
        tasks.sort(key=lambda t: (t[1], java_str_key(t[0])), reverse=True)
        leftovers: list[tuple[Task, int]] = []
        for task in tasks:
            for i in range(self.replicas):
                prev = self.prev_active.get(task)
                if prev is not None:
                    proc = self.processes[prev.process_id]
                    if not self._holds(proc, task) and proc.counts[prev.member_id] < self.total_quota:
                        self._after_any(proc.add_task(prev.member_id, task, False))
                        continue
                cand = self._least_loaded_prev(self.prev_standby.get(task), task)
                if cand is not None:
                    proc = self.processes[cand.process_id]
                    if proc.counts[cand.member_id] < self.total_quota:
                        self._after_any(proc.add_task(cand.member_id, task, False))
                        continue
                leftovers.append((task, self.replicas - i))
                break
        leftovers.sort(key=lambda x: (java_str_key(x[0][0]), x[0][1]), reverse=True)
        heap = JavaPriorityQueue(_cmp_load, self.processes.values())
        for task, remaining in leftovers:
            for _ in range(remaining):
                if not self._standby_to_least_loaded(heap, task):
                    break  # Kafka logs "Unable to assign k of R standby tasks" and moves on

    def _standby_to_least_loaded(self, heap: JavaPriorityQueue[_Process], task: Task) -> bool:
        """``assignStandbyToMemberWithLeastLoad``: pop processes holding the task, push them back."""
        popped: list[_Process] = []
        found = False
        while True:
            polled = heap.poll()
            if polled is None:
                break
            proc = polled
            popped.append(proc)
            if not self._holds(proc, task):
                n = proc.add_to_least_loaded(task, False)
                if n != -1:
                    found = True
                    self._after_any(n)
                break
            if not len(heap):
                break
        for proc in reversed(popped):  # Kafka re-adds innermost first (recursion unwinding)
            heap.add(proc)
        return found

    def result(self) -> TaskAssignment:
        active: dict[str, TaskMap] = {m.member_id: {} for m in self.members}
        standby: dict[str, TaskMap] = {m.member_id: {} for m in self.members}
        for proc in self.processes.values():
            for out, by_member in ((active, proc.active), (standby, proc.standby)):
                for member_id, tasks in by_member.items():
                    grouped: dict[str, set[int]] = {}
                    for sid, p in tasks:
                        grouped.setdefault(sid, set()).add(p)
                    out[member_id] = {sid: frozenset(ps) for sid, ps in sorted(grouped.items())}
        return TaskAssignment(active, standby)


def assign_tasks(
    members: Iterable[TaskMemberSpec],
    subtopologies: Iterable[SubtopologyTasks],
    num_standby_replicas: int = 0,
    *,
    allow_standby_on_active_process: bool = False,
    compute_if_absent: bool = False,
) -> TaskAssignment:
    """Run the sticky task assignor; every member gets an entry (possibly empty).

    ``allow_standby_on_active_process`` is the ``standby-on-active-process`` mutant
    (model/mutants.py): it drops the "process already holds the task" test everywhere
    standbys are placed, so a standby can land next to (or on) the active task.
    ``compute_if_absent`` is trunk's process map (``Profile.streams_assignor_api``): equal process
    loads can then break ties the other way round.
    """
    a = _StickyTaskAssignor(members, subtopologies, num_standby_replicas, allow_standby_on_active_process,
                            compute_if_absent)
    a.assign_active()
    if a.replicas > 0:
        a.assign_standby()
    return a.result()
