"""Legal alternatives of the sticky task assignor, for adopting an implementation's choice.

The streams assignor's output is not fully determined by the protocol: any assignment that keeps
its documented guarantees (:func:`kgspec.model.streams.guarantees.sticky_guarantee_problems`) is
legal. :func:`swap_towards` moves the tasks a member was observed with into its target, handing
its other tasks to the members that lose them, then evens out the other members' active counts
(a member that keeps all its tasks leaves the newcomer to be served by someone else); the
candidate is used only if it keeps every guarantee.
"""

from __future__ import annotations

from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignment, TaskMemberSpec
from kgspec.model.streams.guarantees import sticky_guarantee_problems

Tasks = frozenset[tuple[str, int]]


def _flat(tasks: dict[str, frozenset[int]]) -> set[tuple[str, int]]:
    return {(s, p) for s, ps in tasks.items() for p in ps}


def _group(tasks: set[tuple[str, int]]) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = {}
    for s, p in tasks:
        out.setdefault(s, set()).add(p)
    return {s: frozenset(ps) for s, ps in sorted(out.items())}


def _spread(by_member: dict[str, dict[str, frozenset[int]]]) -> int:
    sizes = [sum(len(p) for p in t.values()) for t in by_member.values()]
    return max(sizes) - min(sizes) if sizes else 0


def _even_out(by_member: dict[str, set[tuple[str, int]]], spread: int, member_id: str, frozen: set[str]) -> None:
    """Move active tasks from the fullest movable member to the emptiest until the counts are as even
    as the computed target's: its highest task, as the assignor's partition-ordered passes drop the
    tasks a member holds beyond its quota last-first."""
    movable = sorted(m for m in by_member if m != member_id and m not in frozen)
    for _ in range(sum(len(t) for t in by_member.values())):
        if len(movable) < 2:
            return
        big = max(movable, key=lambda m: len(by_member[m]))
        small = min(movable, key=lambda m: len(by_member[m]))
        if len(by_member[big]) - len(by_member[small]) <= max(spread, 1):
            return
        task = max(by_member[big], key=lambda t: (t[1], t[0]))
        by_member[big].discard(task)
        by_member[small].add(task)


def swap_towards(members: list[TaskMemberSpec], subtopologies: list[SubtopologyTasks], replicas: int,
                 computed: TaskAssignment, member_id: str, wanted_active: Tasks,
                 wanted_standby: Tasks, frozen: set[str]) -> TaskAssignment | None:
    roles = {"active": {m: _flat(t) for m, t in computed.active.items()},
             "standby": {m: _flat(t) for m, t in computed.standby.items()}}
    for role, wanted in (("active", wanted_active), ("standby", wanted_standby)):
        by_member = roles[role]
        mine = by_member.setdefault(member_id, set())
        spare = sorted(mine - wanted)
        for task in sorted(wanted - mine):
            owners = sorted(m for m, ts in by_member.items() if m != member_id and task in ts)
            if any(o in frozen for o in owners):
                return None
            if owners:
                owner = owners[0]
                by_member[owner].discard(task)
                if spare:
                    give = spare.pop(0)
                    mine.discard(give)
                    by_member[owner].add(give)
            mine.add(task)
        for task in spare:
            mine.discard(task)
            others = sorted((len(ts), m) for m, ts in by_member.items() if m != member_id and m not in frozen)
            if not others:
                return None
            by_member[others[0][1]].add(task)
    _even_out(roles["active"], _spread(computed.active), member_id, frozen)
    candidate = TaskAssignment({m: _group(t) for m, t in roles["active"].items()},
                               {m: _group(t) for m, t in roles["standby"].items()})
    if sticky_guarantee_problems(members, subtopologies, replicas, candidate):
        return None
    return candidate
