"""Adopting a different legal ``uniform`` target from the trace.

The ``uniform`` assignor's output is not fully determined by the protocol: any target
meeting its guarantees (every subscribed partition in exactly one subscriber's target,
sizes within one for homogeneous groups) is legal. When a member's observed assignment
differs from the model's, the checker looks for a legal target that explains it: the
member takes the partitions it was observed with, handing partitions it did not get to
the members that lose them (members whose own response was already observed at this
assignment epoch are never changed). If the adjusted target meets the guarantees and
the model then answers exactly what was observed, the checker continues from it.

A null assignment is an observation too: "unchanged" says the member keeps exactly what it
holds (often with an epoch bump the model's own target would have withheld while it revokes),
so that holding is what the member is observed with. When a one-for-one swap cannot explain
it, ``rebalance_towards`` evens the other targets out around it; a pinned member still waiting
for partitions keeps what it holds and may only be given partitions others still hold.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgspec.conformance.compare import assignment_set, heartbeat_differences
from kgspec.model.assignors.api import GroupAssignment, GroupSpec
from kgspec.model.assignors.guarantees import uniform_guarantee_problems
from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer.member import UNRELEASED_PARTITIONS
from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.step import NO_CHOICES, Choices, Decision


def swap_towards(result: GroupAssignment, member_id: str, wanted: frozenset[tuple[str, int]],
                 frozen: set[str]) -> GroupAssignment | None:
    """Move ``wanted`` partitions into ``member_id``'s target, giving back one-for-one."""
    patched = {m: {t: set(p) for t, p in a.items()} for m, a in result.items()}
    mine = patched.setdefault(member_id, {})
    owner_of = {(t, p): m for m, a in patched.items() for t, ps in a.items() for p in ps}
    spare = sorted((t, p) for t, ps in mine.items() for p in ps if (t, p) not in wanted)
    for tp in sorted(wanted):
        owner = owner_of.get(tp)
        if owner == member_id:
            continue
        if owner is None or owner in frozen:
            return None
        patched[owner][tp[0]].discard(tp[1])
        mine.setdefault(tp[0], set()).add(tp[1])
        if spare:
            give = spare.pop(0)
            mine[give[0]].discard(give[1])
            patched[owner].setdefault(give[0], set()).add(give[1])
    out = {m: {t: frozenset(p) for t, p in a.items() if p} for m, a in patched.items()}
    if _spread(out) > max(_spread(result), 1):
        return None  # the swap would unbalance the target
    return out


def rebalance_towards(result: GroupAssignment, member_id: str, wanted: frozenset[tuple[str, int]],
                      frozen: set[str], keep: dict[str, set[tuple[str, int]]],
                      held: set[tuple[str, int]]) -> GroupAssignment | None:
    """Give ``member_id`` exactly ``wanted``, then even out the others (a shuffle ``swap_towards``
    cannot make: A takes from B, B from C).

    ``frozen`` members keep their targets. A member in ``keep`` keeps those partitions and may gain
    only partitions in ``held`` (still owned by another member): its observed answer had nothing
    more, so nothing free can have been in its target. Partitions go, in order, to the smallest
    eligible member; then the largest movable member hands its extras to the smallest. The caller
    checks the guarantees.
    """
    patched = {m: {(t, p) for t, ps in a.items() for p in ps} for m, a in result.items()}
    if any(tp in patched[m] for m in frozen if m in patched for tp in wanted):
        return None
    free = sorted(patched.get(member_id, set()) - wanted)
    for m, tps in patched.items():
        if m != member_id:
            tps -= wanted
    patched[member_id] = set(wanted)
    movable = sorted(m for m in patched if m != member_id and m not in frozen)

    def takes(m: str, tp: tuple[str, int]) -> bool:
        return m not in keep or tp in held

    for tp in free:
        eligible = [m for m in movable if takes(m, tp)]
        if not eligible:
            return None
        patched[min(eligible, key=lambda m: len(patched[m]))].add(tp)
    for _ in range(sum(len(v) for v in patched.values())):
        big = max(movable, key=lambda m: len(patched[m]), default=None)
        small = min(movable, key=lambda m: len(patched[m]), default=None)
        if big is None or small is None or len(patched[big]) - len(patched[small]) <= 1:
            break
        spare = sorted(tp for tp in patched[big] - keep.get(big, set()) if takes(small, tp))
        if not spare:
            return None
        patched[big].discard(spare[0])
        patched[small].add(spare[0])
    out: dict[str, dict[str, frozenset[int]]] = {}
    for m, tps in patched.items():
        grouped: dict[str, set[int]] = {}
        for t, p in tps:
            grouped.setdefault(t, set()).add(p)
        out[m] = {t: frozenset(ps) for t, ps in grouped.items()}
    if _spread(out) > max(_spread(result), 1):
        return None
    return out


def _spread(assignment: GroupAssignment) -> int:
    sizes = [sum(len(p) for p in a.values()) for a in assignment.values()]
    return max(sizes) - min(sizes) if sizes else 0


def adopt_observed_target(coord: Coordinator, pinned: dict[str, int], group_id: str,
                          request: dict[str, Any], version: int, kwargs: dict[str, Any],
                          result: Decision, observed: dict[str, Any],
                          choices: Choices = NO_CHOICES) -> Decision | None:
    """Decide the heartbeat again with a legal alternative target; None if none explains the trace.

    ``result`` is the model's own decision (not committed); ``choices`` the ones it was made with.
    """
    member_id = observed.get("memberId") or request.get("memberId") or ""
    group = coord.groups.get(group_id)
    wanted = assignment_set(observed.get("assignment"))
    if wanted is None:
        # Null: the assignment is unchanged, so the member keeps exactly what it holds.
        member = group.members.get(member_id) if group is not None else None
        if member is None:
            return None
        wanted = frozenset((t, p) for t, ps in member.assigned.items() for p in ps)
    computes_target = any(r.type == 6 for r in result.records)
    if computes_target:
        def override(spec: GroupSpec, assignor: str, computed: GroupAssignment) -> GroupAssignment:
            if choices.target is not None:
                computed = choices.target(spec, assignor, computed)
            if assignor != "uniform":
                return computed
            # Nobody is reconciled to the epoch being computed yet: every target may move.
            for candidate in (swap_towards(computed, member_id, wanted, set()),
                              rebalance_towards(computed, member_id, wanted, set(), {}, set())):
                if candidate is not None and not uniform_guarantee_problems(spec, coord.topics, candidate):
                    return candidate
            return computed

        retry = coord.decide(CONSUMER_GROUP_HEARTBEAT, version, request, choices=replace(choices, target=override),
                             **kwargs)
    else:
        if group is None or consumer_ops.preferred_assignor_of(coord, group) != "uniform":
            return None
        pinned_now = {m for m, epoch in pinned.items() if m != member_id and epoch == group.assignment_epoch}
        candidate = swap_towards(group.target, member_id, wanted, pinned_now)
        if candidate is None:
            # A pinned member still waiting for partitions was shown only what it holds: its
            # target may change among partitions other members still hold.
            waiting = {m for m in pinned_now if m in group.members and group.members[m].state == UNRELEASED_PARTITIONS}
            keep = {m: {(t, p) for t, ps in group.members[m].assigned.items() for p in ps} for m in waiting}
            held = {(t, p) for m in group.members.values() for h in (m.assigned, m.pending_revocation)
                    for t, ps in h.items() for p in ps}
            candidate = rebalance_towards(group.target, member_id, wanted, pinned_now - waiting, keep, held)
        if candidate is None:
            return None
        # The target records for the adopted choice come with it, so a replay rebuilds it.
        retry = coord.decide(CONSUMER_GROUP_HEARTBEAT, version, request,
                             choices=replace(choices, current_target=candidate), **kwargs)
    if retry.response is None or heartbeat_differences(retry.response, observed):
        return None
    retry.explain.append("adopted the trace's uniform target (it meets the assignor's guarantees)")
    return retry
