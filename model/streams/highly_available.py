"""kip: the seed's ``highly_available`` task assignor (seed 002, "Assignment").

The seed: "highly_available - Similar to the current HighAvailabilityTaskAssignor"; "If no task
assignor is configured globally or on the group-level, the broker picks the assignor ... the AK
implementation will choose highly_available for stateful topologies and sticky for stateless
topologies"; the offsets "can be used by the assignors, in particular the highly_available
assignor, to determine which tasks are caught-up to acceptable.recovery.lag"; a task whose end
offset is unknown is never caught up, "however, the cumulative task changelog offset can still be
used when deciding on where to place a new active, standby or warm-up task - typically, by
selecting the client with the maximal cumulative task changelog offset".

kgspec's reading (docs/kip.md), after Kafka Streams' ``HighAvailabilityTaskAssignor``: the sticky
assignment first (balance, stickiness, standbys); then each stateful active task, in
(subtopology, partition) order, whose member is not caught up and that no member held as active
before (a held task stays with its holder while the new one warms up: the warm-up step,
``refiner.refine``) moves to the caught-up member with the fewest active tasks, else to the member
with the highest reported offset above the chosen one's; a standby of it in the receiving
process swaps to the member it left ("tryToSwapStandbyAndActiveOnCaughtUpClient"), else that
member warms it up while ``num.warmup.replicas`` allows ("moveActiveAndTryToWarmUp").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from kgspec.model.streams.assignor import TaskAssignment, TaskMemberSpec, assign_tasks

if TYPE_CHECKING:  # task_api registers this assignor
    from kgspec.model.streams.task_api import TaskGroupSpec

HIGHLY_AVAILABLE = "highly_available"
#: Keys the coordinator adds to the spec's configs for this assignor (kip).
LAG_CONFIG, WARMUPS_CONFIG = "acceptable.recovery.lag", "num.warmup.replicas"

Task = tuple[str, int]
_Roles = dict[str, dict[str, set[int]]]


class HighlyAvailableTaskAssignor:
    name = HIGHLY_AVAILABLE

    def assign_tasks(self, spec: TaskGroupSpec) -> TaskAssignment:
        base = assign_tasks(spec.members, spec.subtopologies, spec.num_standby_replicas)
        return place_on_caught_up(spec, base, int(spec.configs.get(LAG_CONFIG, "10000")),
                                  int(spec.configs.get(WARMUPS_CONFIG, "2")))


def place_on_caught_up(spec: TaskGroupSpec, base: TaskAssignment, lag: int, warmups: int) -> TaskAssignment:
    members = {m.member_id: m for m in spec.members}
    order = [m.member_id for m in spec.members]
    active, standby = _copy(base.active, order), _copy(base.standby, order)
    warm: _Roles = {m: {} for m in order}
    held = {(sid, p) for m in spec.members for sid, parts in m.active_tasks.items() for p in parts}
    for sub in sorted(spec.subtopologies, key=lambda s: s.subtopology_id):
        if not sub.stateful:
            continue
        sid = sub.subtopology_id
        for p in range(sub.num_tasks):
            dest = next((m for m in order if p in active[m].get(sid, ())), None)
            if dest is None or (sid, p) in held or _caught_up(spec.members, members[dest], sid, p, lag):
                continue
            source = _source(spec.members, order, active, dest, sid, p, lag)
            if source is None:
                continue
            active[dest][sid].discard(p)
            active[source].setdefault(sid, set()).add(p)
            process = members[source].process_id
            swapped = [m for m in order if members[m].process_id == process and p in standby[m].get(sid, ())]
            for m in swapped:
                standby[m][sid].discard(p)
            dest_process = members[dest].process_id
            if dest_process == process or _process_holds(members, order, (active, standby, warm), dest_process, sid, p):
                continue
            if swapped:
                standby[dest].setdefault(sid, set()).add(p)
            elif warmups > 0:
                warmups -= 1
                warm[dest].setdefault(sid, set()).add(p)
    return TaskAssignment(_frozen(active), _frozen(standby), _frozen(warm))


def _caught_up(specs: Sequence[TaskMemberSpec], m: TaskMemberSpec, sid: str, p: int, lag: int) -> bool:
    """Held as active before (a running task has no lag), or end offset - offset < ``lag``, the
    end offset the member's own, else the highest any member reported (unknown: never)."""
    if p in m.active_tasks.get(sid, ()):
        return True
    position = m.task_offsets.get(sid, {}).get(p)
    end = m.task_end_offsets.get(sid, {}).get(p)
    if end is None:
        known = [e for s in specs if (e := s.task_end_offsets.get(sid, {}).get(p)) is not None]
        end = max(known) if known else None
    return position is not None and end is not None and end - position < lag


def _source(specs: Sequence[TaskMemberSpec], order: list[str], active: _Roles, dest: str, sid: str, p: int,
            lag: int) -> str | None:
    by_id = {m.member_id: m for m in specs}
    load = {m: sum(len(ps) for ps in active[m].values()) for m in order}
    ready = [m for m in order if m != dest and _caught_up(specs, by_id[m], sid, p, lag)]
    if ready:
        return min(ready, key=lambda m: (load[m], order.index(m)))
    mine = by_id[dest].task_offsets.get(sid, {}).get(p, -1)
    ahead = [(o, m) for m in order if m != dest and (o := by_id[m].task_offsets.get(sid, {}).get(p, -1)) > mine]
    if not ahead:
        return None
    return min(ahead, key=lambda om: (-om[0], load[om[1]], order.index(om[1])))[1]


def _process_holds(members: Mapping[str, TaskMemberSpec], order: list[str], roles: tuple[_Roles, ...],
                   process: str, sid: str, p: int) -> bool:
    return any(p in r[m].get(sid, ()) for r in roles for m in order if members[m].process_id == process)


def _copy(assignment: Mapping[str, Mapping[str, frozenset[int]]], order: list[str]) -> _Roles:
    return {m: {sid: set(ps) for sid, ps in assignment.get(m, {}).items()} for m in order}


def _frozen(roles: _Roles) -> dict[str, dict[str, frozenset[int]]]:
    return {m: {sid: frozenset(ps) for sid, ps in t.items() if ps} for m, t in roles.items()}
