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
are ``java.util.PriorityQueue`` (``javaorder.pq_poll``/``pq_offer``; the process queue replays whole
rounds, ``load_heap.LoadHeap``). Members are walked in
the order given (Kafka walks ``GroupSpec.members()``: a LinkedHashMap in its tests, a
HashMap of member ids in ``TargetAssignmentBuilder``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kgspec.model.javaorder import (
    java_compute_if_absent_order,
    java_hashmap_order,
    java_str_key,
    pq_offer,
    pq_poll,
)
from kgspec.model.streams.load_heap import LoadHeap

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


_SINGLES: list[frozenset[int]] = []  # frozenset({p}) for each partition number p, shared by all results


def _singles(n: int) -> list[frozenset[int]]:
    """At least ``n`` shared singletons (results hold immutable sets, so sharing is safe)."""
    _SINGLES.extend(frozenset((p,)) for p in range(len(_SINGLES), n))
    return _SINGLES


def _ceil_div(n: int, d: int) -> int:
    return 0 if d == 0 else -(-n // d)


class _StickyTaskAssignor:
    """The assignor's state as flat lists: tasks, members and processes are numbers.

    A task is an int ordered as Kafka orders ``TaskId`` (subtopology id by ``String.compareTo``,
    then partition), so sorting task numbers is sorting ``TaskId``s. Members are numbered in the
    order given, processes in ``processIdToState``'s hash order; a member's count, a process's
    load and the tasks each holds are list slots. The heaps are lists of numbers sifted exactly
    as ``java.util.PriorityQueue`` (``javaorder.pq_offer``/``pq_poll``), keyed by those lists.
    """

    def __init__(self, members: Iterable[TaskMemberSpec], subtopologies: Iterable[SubtopologyTasks],
                 num_standby_replicas: int, allow_standby_on_active_process: bool,
                 compute_if_absent: bool) -> None:
        self.members = list(members)
        subs = sorted(subtopologies, key=lambda s: java_str_key(s.subtopology_id))
        self.replicas = num_standby_replicas
        self.mutant = allow_standby_on_active_process
        # -- tasks: task number = base[subtopology] + partition
        self.sub_ids = [s.subtopology_id for s in subs]
        self.sizes = [s.num_tasks for s in subs]
        self.stateful = [s.stateful for s in subs]
        self.base: dict[str, int] = {}
        self.task_sub: list[int] = []  # task -> subtopology number
        self.task_part: list[int] = []  # task -> partition
        self.task_sid: list[str] = []  # task -> subtopology id
        for i, s in enumerate(subs):
            self.base[s.subtopology_id] = len(self.task_part)
            self.task_sub += [i] * s.num_tasks
            self.task_sid += [s.subtopology_id] * s.num_tasks
            self.task_part += range(s.num_tasks)
        self.singles = _singles(max(self.sizes, default=0))
        # Results list subtopology ids in Python's order; ids outside the BMP sort differently in Java
        self.java_order_is_sorted = self.sub_ids == sorted(self.sub_ids)
        n_tasks = len(self.task_part)
        total_standby = sum(s.num_tasks for s in subs if s.stateful) * self.replicas
        # -- quotas
        self.total_active = n_tasks
        self.total_tasks = n_tasks + total_standby
        self.members_with_active_capacity = len(self.members)
        self.members_with_capacity = len(self.members)
        self.active_quota = _ceil_div(self.total_active, len(self.members))
        self.total_quota = _ceil_div(self.total_tasks, len(self.members))
        # -- processes: processIdToState = new HashMap<>(memberCount), filled with putIfAbsent (4.3)
        # or computeIfAbsent (trunk); its order feeds the heaps, so it decides equal loads.
        calls = [spec.process_id for spec in self.members]
        order = (java_compute_if_absent_order(calls, len(self.members)) if compute_if_absent
                 else java_hashmap_order(calls, len(self.members)))
        proc_of_id = {pid: i for i, pid in enumerate(order)}
        self.member_proc = [proc_of_id[pid] for pid in calls]
        self.capacity = [0] * len(order)
        for pi in self.member_proc:
            self.capacity[pi] += 1
        self.task_count = [0] * len(order)
        self.count = [0] * len(self.members)
        self.active_proc = [-1] * n_tasks  # the process each task is active on
        self.standby_procs: dict[int, list[int]] = {}  # the processes holding each task as a standby
        self.active_of: list[list[int]] = [[] for _ in self.members]
        self.standby_of: list[list[int]] = [[] for _ in self.members]
        # a process's only member, or (several members) its members in its memberToTaskCounts
        # (a HashMap) order; the member heap is built from them lazily and dropped by a targeted
        # add, as in Kafka
        self.only_member = [-1] * len(order)
        shared: dict[int, dict[str, int]] = {}
        for mi, pi in enumerate(self.member_proc):
            if self.capacity[pi] == 1:
                self.only_member[pi] = mi
            else:
                shared.setdefault(pi, {})[self.members[mi].member_id] = mi
        self.proc_members = {pi: [ids[m] for m in java_hashmap_order(ids)] for pi, ids in shared.items()}
        self.member_heap: list[list[int] | None] = [None] * len(order)
        self._previous(n_tasks)
        self.fresh = not self.prev_standby and max(self.prev_active, default=-1) < 0  # a new group

    def _tasks(self, sid: str, parts: Iterable[int]) -> list[int]:
        """The numbers of tasks ``sid_p`` for ``p`` in ``parts``; tasks the topology lacks are left out."""
        base = self.base.get(sid)
        if base is None:
            return []
        size = self.sizes[self.task_sub[base]]
        return [base + p for p in parts if 0 <= p < size]

    def _previous(self, n_tasks: int) -> None:
        """Previous owners: the last member listing a task active wins (a map put); previous
        standby candidates ranked as trunk's rankStandbyCandidates (a stable sort: previous
        standbys first, then the highest reported offset sum; 4.3 has no offsets, so members' order)."""
        prev_active = self.prev_active = [-1] * n_tasks
        prev_standby: dict[int, list[int]] = {}
        offsets_of: dict[int, list[tuple[int, bool, int]]] = {}  # only when someone reports offsets
        # the hot loops below are _tasks() inlined: a member lists ~10 subtopologies
        bounds = {sid: (base, self.sizes[self.task_sub[base]]) for sid, base in self.base.items()}
        no_bounds = (0, 0)
        for mi, spec in enumerate(self.members):
            for sid, parts in spec.active_tasks.items():
                base, size = bounds.get(sid, no_bounds)
                for p in parts:
                    if 0 <= p < size:
                        prev_active[base + p] = mi
            if not spec.task_offsets and not offsets_of:
                for sid, parts in spec.standby_tasks.items():
                    base, size = bounds.get(sid, no_bounds)
                    for p in parts:
                        if 0 <= p < size:
                            prev_standby.setdefault(base + p, []).append(mi)
                continue
            if not offsets_of:  # the first member with offsets: rank everything listed so far
                offsets_of = {t: [(m, True, 0) for m in ms] for t, ms in prev_standby.items()}
            offsets = spec.task_offsets
            for sid, parts in spec.standby_tasks.items():
                by_part = offsets.get(sid, {})
                for p in parts:
                    for t in self._tasks(sid, (p,)):
                        offsets_of.setdefault(t, []).append((mi, True, by_part.get(p, 0)))
            for sid, by_partition in offsets.items():
                listed = spec.standby_tasks.get(sid, frozenset())
                for t in self._tasks(sid, [p for p in by_partition if p not in listed]):
                    offsets_of.setdefault(t, []).append((mi, False, by_partition[self.task_part[t]]))
        if offsets_of:
            prev_standby = {}
            for t, cands in offsets_of.items():
                cands.sort(key=lambda c: (not c[1], -c[2]))
                prev_standby[t] = [c[0] for c in cands]
        self.prev_standby = prev_standby

    # -- adding a task ----------------------------------------------------------------------
    def _add(self, mi: int, t: int, is_active: bool) -> None:
        """Give task ``t`` to member ``mi``, then update the quotas as Kafka does after each add.
        A targeted add drops the process's member heap (Kafka's does too)."""
        pi = self.member_proc[mi]
        self.task_count[pi] += 1  # the load (task count / members) is derived when read
        self.member_heap[pi] = None
        n = self.count[mi] + 1
        self.count[mi] = n
        if is_active:
            self.active_proc[t] = pi
            self.active_of[mi].append(t)
            if n == self.active_quota:
                self.members_with_active_capacity -= 1
                self.total_active -= n
                self.active_quota = _ceil_div(self.total_active, self.members_with_active_capacity)
        else:
            self.standby_procs.setdefault(t, []).append(pi)
            self.standby_of[mi].append(t)
        if n == self.total_quota:
            self.members_with_capacity -= 1
            self.total_tasks -= n
            self.total_quota = _ceil_div(self.total_tasks, self.members_with_capacity)

    def _give(self, pi: int, t: int, is_active: bool) -> None:
        """``ProcessState.addTaskToLeastLoadedMember``: a process's only member takes it directly,
        several go through the member heap (by task count)."""
        mi = self.only_member[pi]
        if mi >= 0:
            self._add(mi, t, is_active)
            return
        members = self.proc_members[pi]
        heap = self.member_heap[pi]
        if heap is None:
            heap = []
            for mi in members:
                pq_offer(heap, self.count, mi)
        mi = pq_poll(heap, self.count)
        self._add(mi, t, is_active)
        self.member_heap[pi] = heap  # kept: this add went through it
        pq_offer(heap, self.count, mi)

    def _holds(self, pi: int, t: int) -> bool:
        return not self.mutant and (self.active_proc[t] == pi or pi in self.standby_procs.get(t, ()))

    def _holders(self, t: int) -> tuple[int, ...]:
        return () if self.mutant else (self.active_proc[t], *self.standby_procs.get(t, ()))

    def _by_partition(self, stateful_only: bool) -> list[int]:
        """Tasks ordered by (partition, subtopology), as Kafka's first sort; no key function needed."""
        subs = [i for i in range(len(self.sizes)) if self.stateful[i] or not stateful_only]
        bases = [self.base[self.sub_ids[i]] for i in subs]
        sizes = [self.sizes[i] for i in subs]
        return [b + p for p in range(max(sizes, default=0)) for b, n in zip(bases, sizes, strict=True) if p < n]

    def _process_heap(self) -> LoadHeap:
        return LoadHeap(self.task_count, self.capacity)

    # -- actives ----------------------------------------------------------------------------
    def assign_active(self) -> None:
        if self.fresh:  # passes 1 and 2 keep nothing, and task numbers are already in TaskId order
            self._active_to_least_loaded(list(range(len(self.prev_active))))
            return
        count, prev_active = self.count, self.prev_active
        # 1. back to the previous active owner while it is under the active quota
        rest = []
        for t in self._by_partition(False):
            mi = prev_active[t]
            if mi >= 0 and count[mi] < self.active_quota:
                self._add(mi, t, True)
            else:
                rest.append(t)
        # 2. to the least-loaded previous standby owner under the active quota
        tasks, rest = rest, []
        for t in tasks:
            cands = self.prev_standby.get(t)
            mi = -1 if cands is None else self._least_loaded_prev(cands, -1)
            if mi >= 0 and count[mi] < self.active_quota:
                self._add(mi, t, True)
            else:
                rest.append(t)
        rest.sort()
        self._active_to_least_loaded(rest)

    def _active_to_least_loaded(self, rest: list[int]) -> None:
        """3. the rest, range-style (sorted by TaskId), to the least-loaded process and its
        least-loaded member."""
        if not rest:
            return  # Kafka builds the queue anyway; nothing observable comes of it
        heap = self._process_heap()
        if not heap:
            raise TaskAssignorError(f"No process available to assign active task {self._name(rest[0])}.")
        add, only_member = self._add, self.only_member
        for t, pi in zip(rest, heap.take(len(rest)), strict=True):
            mi = only_member[pi]
            if mi >= 0:
                add(mi, t, True)  # _give's first case, without the call: 10 000 times at Kafka's JMH point
            else:
                self._give(pi, t, True)

    def _name(self, t: int) -> str:
        return f"{self.sub_ids[self.task_sub[t]]}_{self.task_part[t]}"

    def _least_loaded_prev(self, members: list[int], standby_task: int) -> int:
        """``findPrevMemberWithLeastLoad`` (4.3, after KAFKA-20899): the first eligible member
        wins unless a later one is strictly lower on *both* process load and member load; -1: none.
        ``standby_task`` >= 0: skip members whose process already holds it."""
        check = standby_task >= 0 and not self.mutant
        if len(members) == 1:  # the usual case: one previous standby owner
            mi = members[0]
            return -1 if check and self._holds(self.member_proc[mi], standby_task) else mi
        best = -1
        best_pload = best_mload = float("inf")
        member_proc, task_count, capacity, count = self.member_proc, self.task_count, self.capacity, self.count
        for mi in members:
            pi = member_proc[mi]
            if check and self._holds(pi, standby_task):
                continue
            pload, mload = task_count[pi] / capacity[pi], count[mi]
            if best < 0 or (pload < best_pload and mload < best_mload):
                best, best_pload, best_mload = mi, pload, mload
        return best

    # -- standbys ---------------------------------------------------------------------------
    def assign_standby(self) -> None:
        if self.fresh:  # nobody owned anything: every replica of every stateful task is left over
            leftovers = [t for i in reversed(range(len(self.sizes))) if self.stateful[i]
                         for t in reversed(range(self.base[self.sub_ids[i]], self.base[self.sub_ids[i]] + self.sizes[i]))]
            short: dict[int, int] = {}
        else:
            leftovers, short = self._standby_to_previous_owners()
            leftovers.sort(reverse=True)  # by TaskId, descending
        if not leftovers:
            return
        # assignStandbyToMemberWithLeastLoad: the least-loaded process not holding the task
        heap = self._process_heap()
        if self.replicas == 1:  # one standby each: only the active process holds the task
            holder = [-1] * len(leftovers) if self.mutant else [self.active_proc[t] for t in leftovers]
            add, only_member = self._add, self.only_member
            for t, pi in zip(leftovers, heap.take_each(holder), strict=True):
                if pi < 0:
                    continue  # every process holds it: Kafka logs it and moves on
                mi = only_member[pi]
                if mi >= 0:
                    add(mi, t, False)  # _give's first case, without the call
                else:
                    self._give(pi, t, False)
            return
        for t in leftovers:
            for _ in range(short.get(t, self.replicas)):
                pi = heap.take_one(self._holders(t))
                if pi < 0:
                    break  # Kafka logs "Unable to assign k of R standby tasks" and moves on
                self._give(pi, t, False)

    def _standby_to_previous_owners(self) -> tuple[list[int], dict[int, int]]:
        """Each replica of each stateful task (by partition, then subtopology, descending) to its
        previous active owner, else its least-loaded previous standby owner, while their process
        does not hold it and they are under the total quota. Returns the tasks left over and,
        for those with some replicas placed, how many are left."""
        count, prev_active, member_proc = self.count, self.prev_active, self.member_proc
        prev_standby, active_proc, mutant = self.prev_standby, self.active_proc, self.mutant
        tasks = self._by_partition(True)
        tasks.reverse()
        leftovers: list[int] = []
        short: dict[int, int] = {}
        for t in tasks:
            prev = prev_active[t]
            cands = prev_standby.get(t)
            if prev < 0 and cands is None:  # no previous owner: all to the heap
                leftovers.append(t)
                continue
            for i in range(self.replicas):
                # (the active-process test first: it is _holds' usual answer, without the call)
                if (prev >= 0 and (mutant or active_proc[t] != member_proc[prev])
                        and not self._holds(member_proc[prev], t) and count[prev] < self.total_quota):
                    self._add(prev, t, False)
                    continue
                mi = -1 if cands is None else self._least_loaded_prev(cands, t)
                if mi >= 0 and count[mi] < self.total_quota:
                    self._add(mi, t, False)
                    continue
                leftovers.append(t)
                if i:
                    short[t] = self.replicas - i
                break
        return leftovers, short

    # -- result -----------------------------------------------------------------------------
    def result(self) -> TaskAssignment:
        return TaskAssignment(self._maps(self.active_of), self._maps(self.standby_of))

    def _maps(self, tasks_of: list[list[int]]) -> dict[str, TaskMap]:
        """Each member's tasks as {subtopology id: partitions}, subtopology ids in sorted order.

        A member mostly holds one partition per subtopology: those share one frozenset per
        partition number (building 15 000 small sets costs more than assigning the tasks)."""
        sid_of, part_of, singles = self.task_sid, self.task_part, self.singles
        out: dict[str, TaskMap] = {}
        for spec, tasks in zip(self.members, tasks_of, strict=True):
            tasks.sort()  # by TaskId: subtopology ids in Java's order
            by_sub: TaskMap
            if len(tasks) > 1 and sid_of[tasks[0]] == sid_of[tasks[-1]]:  # all of one subtopology
                by_sub = {sid_of[tasks[0]]: frozenset(map(part_of.__getitem__, tasks))}
            else:
                by_sub = {sid_of[t]: singles[part_of[t]] for t in tasks}
                if len(by_sub) < len(tasks):  # several partitions of some subtopology
                    grouped: dict[str, list[int]] = {}
                    for t in tasks:
                        grouped.setdefault(sid_of[t], []).append(part_of[t])
                    by_sub = {sid: frozenset(ps) if len(ps) > 1 else singles[ps[0]] for sid, ps in grouped.items()}
            out[spec.member_id] = by_sub if self.java_order_is_sorted else dict(sorted(by_sub.items()))
        return out


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
