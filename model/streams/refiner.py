"""The assignment refiner: the *intermediate* assignment members reconcile towards.

Trunk (``streams/AssignmentRefiner.java``, KAFKA-20665): the scaffolding is in place — the
heartbeat takes a refinement step when a STABLE group's intermediate assignment differs from
a member's tasks, the step is frozen per assignment epoch and relabelled on static
replacement — but ``AssignmentRefiner.refine`` returns the target unchanged, so trunk never
hands out warm-up tasks. With ``num.warmup.replicas`` = 0 nothing is refined or cached.

``kip`` (seed KIP-1071, "Rebalance Process" and "Assignment"; kgspec's reading, Kafka never
implemented it): a stateful active task that the target moves to a member of another process
stays with its current owner while the new owner restores it as a warm-up task, at most
``num.warmup.replicas`` at a time (tasks in (subtopology, partition) order). The warm-up is
*caught up* when the new owner's reported changelog offset is less than
``acceptable.recovery.lag`` behind the task's end offset (the new owner's reported end offset,
else the highest any member reported); unknown end offsets never count as caught up. Then the
intermediate assignment is the target for that task: a refinement step bumps the group epoch
and the warm-up is promoted in place once the old owner has released the active task.
Under ``kip`` the step runs when a target is computed (``target.compute_target``) and its
warm-ups are the target's (record 21, the seed's ``WarmupTasks``); a held warm-up that is caught
up bumps the group epoch (``caught_up_warmups``) and the new target promotes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from kgspec.model.streams.configure import ConfiguredTopology
from kgspec.model.streams.member import ACTIVE, ROLES, STANDBY, WARMUP, StreamsMember, TaskSets
from kgspec.model.streams.offsets import MemberTaskOffsets


def same_tasks(tasks: TaskSets, member: StreamsMember) -> bool:
    """``TasksTuple.sameTasks``: the three roles' task sets, epochs ignored."""
    have = member.assigned_sets()
    return all({s: p for s, p in tasks.get(r, {}).items() if p} == have[r] for r in ROLES)


def active_count(assignment: Mapping[str, TaskSets]) -> int:
    return sum(len(p) for t in assignment.values() for p in t.get(ACTIVE, {}).values())


def refine(members: Mapping[str, StreamsMember], target: Mapping[str, TaskSets],
           offsets: Mapping[str, MemberTaskOffsets], configured: ConfiguredTopology,
           num_warmup_replicas: int, acceptable_recovery_lag: int, warm_up: bool) -> dict[str, TaskSets]:
    """``refineAssignment``: the target itself on trunk (``warm_up=False``) or with 0 warm-ups."""
    if num_warmup_replicas == 0 or not warm_up:
        return dict(target)
    refined = {m: {r: dict(t.get(r, {})) for r in ROLES} for m, t in target.items()}
    subs = configured.subtopologies or {}
    owner: dict[tuple[str, int], str] = {}
    for mid, m in members.items():
        for sid, held in m.assigned.get(ACTIVE, {}).items():
            for p in held:
                owner[(sid, p)] = mid
    moves: list[tuple[str, int, str, str]] = []
    for new_id, t in target.items():
        new_member = members.get(new_id)
        for sid, parts in t.get(ACTIVE, {}).items():
            sub = subs.get(sid)
            if sub is None or not sub.is_stateful:
                continue
            for p in parts:
                old_id = owner.get((sid, p))
                if old_id is None or old_id == new_id or old_id not in refined:
                    continue
                if new_member is not None and members[old_id].process_id == new_member.process_id:
                    continue
                moves.append((sid, p, old_id, new_id))
    budget = num_warmup_replicas - sum(len(ps) for t in target.values() for ps in t.get(WARMUP, {}).values())
    for sid, p, old_id, new_id in sorted(moves):
        if _caught_up(offsets, new_id, sid, p, acceptable_recovery_lag):
            continue
        if budget <= 0:
            break
        budget -= 1
        _move(refined[new_id], ACTIVE, WARMUP, sid, p)
        refined[old_id][ACTIVE][sid] = frozenset(refined[old_id][ACTIVE].get(sid, frozenset()) | {p})
        old_process = members[old_id].process_id
        for mid, slot in refined.items():  # the old owner's process may not also hold it as standby
            if mid in members and members[mid].process_id == old_process:
                _discard(slot, STANDBY, sid, p)
    return {m: {r: {s: frozenset(ps) for s, ps in t[r].items() if ps} for r in ROLES} for m, t in refined.items()}


def caught_up_warmups(member: StreamsMember, target: TaskSets, offsets: Mapping[str, MemberTaskOffsets],
                      lag: int) -> list[tuple[str, int]]:
    """kip: the warm-up tasks ``member`` holds, still in its target, whose reported lag is below
    ``lag`` ("When a member with an assigned warm-up task reports a task changelog offset and task
    changelog end offset whose difference is less than acceptable.recovery.lag", a bump)."""
    targeted = target.get(WARMUP, {})
    return [(sid, p) for sid, parts in sorted(member.assigned.get(WARMUP, {}).items()) for p in sorted(parts)
            if p in targeted.get(sid, frozenset()) and _caught_up(offsets, member.member_id, sid, p, lag)]


def intended(target: Mapping[str, TaskSets]) -> dict[str, TaskSets]:
    """kip: the assignor's own previous output behind a target the warm-up step changed: each
    warm-up is its holder's active task again, no longer the active task the previous owner keeps
    meanwhile (the sticky assignor's input, so that a warm-up's task stays meant for its holder)."""
    warm = {(sid, p): mid for mid, t in target.items() for sid, parts in t.get(WARMUP, {}).items() for p in parts}
    if not warm:
        return dict(target)
    out: dict[str, TaskSets] = {}
    for mid, t in target.items():
        active = {sid: frozenset(p for p in parts if warm.get((sid, p), mid) == mid)
                  for sid, parts in t.get(ACTIVE, {}).items()}
        for sid, parts in t.get(WARMUP, {}).items():
            active[sid] = active.get(sid, frozenset()) | parts
        out[mid] = {ACTIVE: {s: p for s, p in active.items() if p}, STANDBY: dict(t.get(STANDBY, {})), WARMUP: {}}
    return out


def _caught_up(offsets: Mapping[str, MemberTaskOffsets], member_id: str, sid: str, p: int, lag: int) -> bool:
    mine = offsets.get(member_id, MemberTaskOffsets.EMPTY)
    position = mine.offset(sid, p)
    end = mine.end_offset(sid, p)
    if end is None:
        known = [e for o in offsets.values() if (e := o.end_offset(sid, p)) is not None]
        end = max(known) if known else None
    return position is not None and end is not None and end - position < lag


def _move(slot: dict[str, dict[str, frozenset[int]]], source: str, dest: str, sid: str, p: int) -> None:
    _discard(slot, source, sid, p)
    slot[dest][sid] = frozenset(slot[dest].get(sid, frozenset()) | {p})


def _discard(slot: dict[str, dict[str, frozenset[int]]], role: str, sid: str, p: int) -> None:
    parts = slot[role].get(sid)
    if parts is not None and p in parts:
        slot[role][sid] = parts - {p}
