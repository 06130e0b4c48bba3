"""Adopting a different legal ``uniform`` target from the trace.

The ``uniform`` assignor's output is not fully determined by the protocol: any target
meeting its guarantees (every subscribed partition in exactly one subscriber's target,
sizes within one for homogeneous groups) is legal. When a member's observed assignment
differs from the model's, the checker looks for a legal target that explains it: the
member takes the partitions it was observed with, handing partitions it did not get to
the members that lose them (members whose own response was already observed at this
assignment epoch are never changed). If the adjusted target meets the guarantees and
the model then answers exactly what was observed, the checker continues from it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgspec.conformance.compare import assignment_set, heartbeat_differences
from kgspec.model.assignors.api import GroupAssignment, GroupSpec
from kgspec.model.assignors.guarantees import uniform_guarantee_problems
from kgspec.model.consumer import ops as consumer_ops
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
    wanted = assignment_set(observed.get("assignment"))
    if wanted is None:
        return None
    member_id = observed.get("memberId") or request.get("memberId") or ""
    computes_target = any(r.type == 6 for r in result.records)
    group = coord.groups.get(group_id)
    if computes_target:
        def override(spec: GroupSpec, assignor: str, computed: GroupAssignment) -> GroupAssignment:
            if choices.target is not None:
                computed = choices.target(spec, assignor, computed)
            if assignor != "uniform":
                return computed
            # Nobody is reconciled to the epoch being computed yet: every target may move.
            frozen: set[str] = set()
            candidate = swap_towards(computed, member_id, wanted, frozen)
            if candidate is None or uniform_guarantee_problems(spec, coord.topics, candidate):
                return computed
            return candidate

        retry = coord.decide(CONSUMER_GROUP_HEARTBEAT, version, request, choices=replace(choices, target=override),
                             **kwargs)
    else:
        if group is None or consumer_ops.preferred_assignor_of(coord, group) != "uniform":
            return None
        frozen = {m for m, epoch in pinned.items()
                  if m != member_id and epoch == group.assignment_epoch}
        candidate = swap_towards(group.target, member_id, wanted, frozen)
        if candidate is None:
            return None
        # The target records for the adopted choice come with it, so a replay rebuilds it.
        retry = coord.decide(CONSUMER_GROUP_HEARTBEAT, version, request,
                             choices=replace(choices, current_target=candidate), **kwargs)
    if retry.response is None or heartbeat_differences(retry.response, observed):
        return None
    retry.explain.append("adopted the trace's uniform target (it meets the assignor's guarantees)")
    return retry
