"""kip: a different standing target the checker may adopt (seed 002's "something like this").

Seed 002 lets the assignor choose ("Which assignors are provided by the group coordinator is not
part of the protocol"); its rolling-bounce example lists one outcome and says "we should end up
with something like this". So under ``kip`` a trace may show a target the model did not compute,
and the checker adopts it when a member's answer reveals it (``Choices.task_current_target``), in
the call that answers, not only in the one that computed the target. The candidate moves the
member's observed tasks into its target (``alternatives.swap_towards``) and is legal when it keeps
the sticky guarantees, the seed's stale-topology rule (a member behind the group's topology epoch
gets no task it does not hold), and every answer already given at this assignment epoch: an
answer shows only the tasks a member holds, so another answered member's target may change only in
tasks it does not hold.
"""

from __future__ import annotations

from kgspec.model.streams.alternatives import swap_towards
from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignment, TaskMemberSpec
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import ACTIVE, STANDBY, WARMUP, TaskSets

Task = tuple[str, int]


def _flat(tasks: dict[str, frozenset[int]] | object) -> set[Task]:
    assert isinstance(tasks, dict)
    return {(s, p) for s, ps in tasks.items() for p in ps}


def _held(group: StreamsGroup, mid: str) -> set[Task]:
    m = group.members[mid]
    return set().union(*(_flat(m.assigned.get(r, {})) | _flat(m.pending_revocation.get(r, {}))
                         for r in (ACTIVE, STANDBY, WARMUP)))


def standing_alternative(group: StreamsGroup, member_id: str, wanted_active: frozenset[Task],
                         wanted_standby: frozenset[Task], answered: set[str]) -> dict[str, TaskSets] | None:
    """The group's target with ``member_id`` holding what it was observed with; None if not legal.
    ``answered``: members already answered at this assignment epoch."""
    configured = group.configured_topology
    topology = group.topology
    if configured is None or not configured.is_ready or topology is None or member_id not in group.members:
        return None
    order = list(group.members)
    target = {mid: group.target.get(mid, {}) for mid in order}
    specs = [TaskMemberSpec(mid, group.members[mid].process_id, target[mid].get(ACTIVE, {}),
                            target[mid].get(STANDBY, {})) for mid in order]
    subs = [SubtopologyTasks(sid, s.num_tasks, s.is_stateful) for sid, s in (configured.subtopologies or {}).items()]
    replicas = int(group.last_assignment_configs.get("num.standby.replicas", "0"))
    current = TaskAssignment({m: dict(target[m].get(ACTIVE, {})) for m in order},
                             {m: dict(target[m].get(STANDBY, {})) for m in order})
    candidate = swap_towards(specs, subs, replicas, current, member_id, wanted_active, wanted_standby, set())
    if candidate is None:
        return None
    out: dict[str, TaskSets] = {}
    for mid in order:
        new_a, new_s = _flat(candidate.active.get(mid, {})), _flat(candidate.standby.get(mid, {}))
        old_a, old_s = _flat(target[mid].get(ACTIVE, {})), _flat(target[mid].get(STANDBY, {}))
        if (new_a, new_s) != (old_a, old_s):
            if group.members[mid].topology_epoch < topology.epoch and not (new_a | new_s) <= _held(group, mid):
                return None  # seed: a stale member gets no new task
            if mid in answered and mid != member_id and (new_a ^ old_a | new_s ^ old_s) & _held(group, mid):
                return None  # its answer at this epoch showed what it holds: that may not change
        out[mid] = {ACTIVE: dict(candidate.active.get(mid, {})), STANDBY: dict(candidate.standby.get(mid, {})),
                    WARMUP: dict(target[mid].get(WARMUP, {}))}
    return out
