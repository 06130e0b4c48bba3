"""kip: members with a stale topology epoch get no new tasks (seed KIP-1071, "Topology updates").

The seed: "The topology epoch of the group and the topology epoch of each member are provided to
the assignor, which will make sure that members with a topology epoch that does not correspond to
the group's topology epoch will not get any new tasks assigned" and, in its rolling-bounce example,
"A and B cannot get any new tasks, but they can retain some of the tasks they have".

kgspec's reading (``docs/kip.md``, 002 "Topology updates"): the assignor runs as usual, then a
stale member keeps only the tasks its previous target gave it *in the same role*; every task taken
back goes, in (subtopology, partition) order, to the up-to-date member with the fewest tasks
(ties: the assignor's member order) whose process does not hold the task in any role. A task no
up-to-date member can take stays unassigned: the seed forbids giving it to a stale member and a
process never holds a task twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kgspec.model.streams.assignor import TaskAssignment, TaskMap, TaskMemberSpec

Task = tuple[str, int]


def _tasks(m: Mapping[str, frozenset[int]]) -> set[Task]:
    return {(s, p) for s, ps in m.items() for p in ps}


def _as_map(tasks: set[Task]) -> TaskMap:
    out: dict[str, set[int]] = {}
    for s, p in tasks:
        out.setdefault(s, set()).add(p)
    return {s: frozenset(ps) for s, ps in sorted(out.items())}


def withhold_new_tasks(specs: Sequence[TaskMemberSpec], assignment: TaskAssignment,
                       stale: frozenset[str]) -> TaskAssignment:
    """The assignment with every stale member's new tasks moved to up-to-date members."""
    if not stale:
        return assignment
    order = [s.member_id for s in specs]
    process = {s.member_id: s.process_id for s in specs}
    prev = {s.member_id: (_tasks(s.active_tasks), _tasks(s.standby_tasks)) for s in specs}
    active = {m: _tasks(assignment.active.get(m, {})) for m in order}
    standby = {m: _tasks(assignment.standby.get(m, {})) for m in order}
    freed_active: set[Task] = set()
    freed_standby: list[Task] = []
    for m in order:
        if m not in stale:
            continue
        freed_active |= active[m] - prev[m][0]
        freed_standby.extend(sorted(standby[m] - prev[m][1]))
        active[m] &= prev[m][0]
        standby[m] &= prev[m][1]
    fresh = [m for m in order if m not in stale]

    def held_by_process(task: Task, pid: str) -> bool:
        return any(process[m] == pid and (task in active[m] or task in standby[m]) for m in order)

    def place(task: Task, into: dict[str, set[Task]]) -> None:
        candidates = [m for m in fresh if not held_by_process(task, process[m])]
        if candidates:
            best = min(candidates, key=lambda m: (len(active[m]) + len(standby[m]), fresh.index(m)))
            into[best].add(task)

    for task in sorted(freed_active):
        place(task, active)
    for task in freed_standby:
        place(task, standby)
    return TaskAssignment({m: _as_map(active[m]) for m in order}, {m: _as_map(standby[m]) for m in order})
