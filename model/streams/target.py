"""A streams group's target assignment (``maybeUpdateStreamsTargetAssignment`` and the
streams ``TargetAssignmentBuilder``): when to compute one, and the records it writes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.records import Record
from kgspec.model.streams import ops, refiner
from kgspec.model.streams import records as srec
from kgspec.model.streams.assignor import (
    SubtopologyTasks,
    TaskAssignment,
    TaskAssignorError,
    TaskMemberSpec,
    assign_tasks,
)
from kgspec.model.streams.configure import ConfiguredTopology, Status
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.highly_available import HIGHLY_AVAILABLE, LAG_CONFIG, WARMUPS_CONFIG
from kgspec.model.streams.member import ACTIVE, ROLES, STANDBY, WARMUP, StreamsMember, TaskSets
from kgspec.model.streams.stale import withhold_new_tasks
from kgspec.model.streams.task_api import STREAMS_ASSIGNOR_NAME, StickyTaskAssignor, TaskGroupSpec

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


def can_compute(coord: Coordinator, group: StreamsGroup, now: int) -> bool:
    """``canComputeNextTargetAssignment`` (4.3+, KAFKA-20291)."""
    if not coord.profile.assignment_batching or coord.profile.streams_kip_assign_on_every_bump:
        return True
    interval = coord.group_config_int(group.group_id, "group.streams.assignment.interval.ms")
    last = group.assignment_timestamp
    return last == 0 or interval == 0 or now >= last + interval


def maybe_update_target(coord: Coordinator, group: StreamsGroup, group_epoch: int,
                        updated: StreamsMember | None, configured: ConfiguredTopology,
                        records: list[Record], statuses: list[dict[str, Any]] | None,
                        configs: Mapping[str, str], now: int, *,
                        refine_only: bool = False) -> tuple[int, dict[str, TaskSets]]:
    """``maybeUpdateStreamsTargetAssignment``: (target epoch, every member's target).

    ``refine_only`` (trunk, KAFKA-20665 #22748): a refinement step only writes record 20 with the
    bumped epoch and the unchanged assignment timestamp; the assignor does not run.
    """
    if ops.initial_rebalance_key(group.group_id) in coord.timers:
        if statuses is not None:
            statuses.append({"statusCode": int(Status.ASSIGNMENT_DELAYED),
                             "statusDetail": "Assignment delayed due to the configured initial rebalance delay."})
        return group.assignment_epoch, {}
    _, view = ops.members_and_target_view(group, updated)
    if group.assignment_epoch >= group_epoch:
        standing = coord.choices.task_current_target
        if standing is not None:
            view = _adopt_standing(group.group_id, view, standing, records)
        return group.assignment_epoch, view
    if refine_only and group.assignment_epoch >= group.group_epoch:
        records.append(srec.target_metadata_record(group.group_id, group_epoch, group.assignment_timestamp))
        return group_epoch, view
    if not can_compute(coord, group, now):
        if statuses is not None:
            statuses.append({"statusCode": int(Status.ASSIGNMENT_DELAYED),
                             "statusDetail": "Assignment delayed due to the configured assignment interval."})
        return group.assignment_epoch, view
    new_records, result = compute_target(coord, group, group_epoch, updated, configured, configs, now)
    records.extend(new_records)
    return group_epoch, result


def compute_target(coord: Coordinator, group: StreamsGroup, group_epoch: int,
                   updated: StreamsMember | None, configured: ConfiguredTopology,
                   configs: Mapping[str, str], now: int) -> tuple[list[Record], dict[str, TaskSets]]:
    """``streams.TargetAssignmentBuilder.build()``: records for changed members, then record 20."""
    members, old_target = ops.members_and_target_view(group, updated)
    # memberSpecs (4.3) / memberMetadataMap (trunk) is a HashMap filled by walking the group's
    # members (a TimelineHashMap) and then the new member: keys of one bucket keep that order.
    walk = [m for m in group.member_order() if m in members] + [m for m in members if m not in group.members]
    order = java_hashmap_order(walk)
    replicas = int(configs.get("num.standby.replicas", "0"))
    result: dict[str, TaskSets]
    if configured.is_ready:
        subs = configured.subtopologies or {}
        current = coord.profile.streams_assignor_sees_current_tasks
        # kip: a target holds warm-ups (record 21); the assignor sees the output they were made from.
        previous = refiner.intended(old_target) if coord.profile.streams_kip_warmups_in_target else old_target
        held = {mid: members[mid].assigned_sets() if current else previous.get(mid, {}) for mid in order}
        seed = coord.profile.streams_kip_assignor_selection
        specs = [TaskMemberSpec(mid, members[mid].process_id, held[mid].get(ACTIVE, {}), held[mid].get(STANDBY, {}),
                                group.offsets_of(mid).task_offsets,
                                group.offsets_of(mid).task_end_offsets if seed else {}) for mid in order]
        subtasks = [SubtopologyTasks(sid, s.num_tasks, s.is_stateful) for sid, s in subs.items()]
        name = seed_assignor_name(coord, group.group_id, subtasks) if seed else STREAMS_ASSIGNOR_NAME
        assignor = coord.task_assignors.get(name)
        try:
            if name != STREAMS_ASSIGNOR_NAME and assignor is None:
                raise TaskAssignorError(f"group.streams.assignor.name {name!r} names no task assignor")
            if assignor is None or isinstance(assignor, StickyTaskAssignor):
                assignment = assign_tasks(specs, subtasks, replicas,
                                          allow_standby_on_active_process=coord.mutants.active("standby-on-active-process"),
                                          compute_if_absent=current)
            else:  # a registered replacement (Coordinator(task_assignors=...)), or kip's highly_available
                spec_configs = dict(configs)
                if seed:
                    spec_configs |= {LAG_CONFIG: str(coord.group_config_int(group.group_id, "group.streams.acceptable.recovery.lag")),
                                     WARMUPS_CONFIG: str(coord.group_config_int(group.group_id, "group.streams.num.warmup.replicas"))}
                assignment = assignor.assign_tasks(TaskGroupSpec(specs, subtasks, replicas, spec_configs))
        except TaskAssignorError as exc:
            raise CoordinatorError(Errors.UNKNOWN_SERVER_ERROR,
                                   f"Failed to compute a new target assignment for epoch {group_epoch}: {exc}") from None
        warmups = assignment.warmup  # kip: the highly_available assignor's own warm-ups
        choose = coord.choices.task_target
        if choose is not None:
            assignment = choose(specs, subtasks, replicas, assignment)
        if coord.profile.streams_kip_stale_members_keep_only:
            stale = frozenset(m for m in order if members[m].topology_epoch < configured.topology_epoch)
            assignment = withhold_new_tasks(specs, assignment, stale)
            warmups = {m: t for m, t in warmups.items() if m not in stale}
        result = {mid: {ACTIVE: dict(assignment.active.get(mid, {})), STANDBY: dict(assignment.standby.get(mid, {})),
                        WARMUP: dict(warmups.get(mid, {}))} for mid in order}
        if coord.profile.streams_kip_warmups_in_target:  # "assigning tasks as active, standby or warm-up tasks"
            result = refiner.refine(members, result, group.task_offsets, configured,
                                    coord.group_config_int(group.group_id, "group.streams.num.warmup.replicas"),
                                    coord.group_config_int(group.group_id, "group.streams.acceptable.recovery.lag"), True)
    else:
        result = {mid: {ACTIVE: {}, STANDBY: {}, WARMUP: {}} for mid in order}
    if coord.mutants.active("assignor-double-assign"):
        result = _double_assign(result, order)
    records: list[Record] = []
    gid = group.group_id
    for mid in order:
        new = {r: {s: frozenset(p) for s, p in result[mid].get(r, {}).items() if p} for r in ROLES}
        old = old_target.get(mid)
        if old is None or {r: {s: p for s, p in old.get(r, {}).items() if p} for r in ROLES} != new:
            records.append(srec.target_member_record(gid, mid, new))
        result[mid] = new
    # kip: the seed's StreamsGroupTargetAssignmentMetadataValue has only AssignmentEpoch (no batching).
    stamped = coord.profile.assignment_batching and not coord.profile.streams_kip_assign_on_every_bump
    records.append(srec.target_metadata_record(gid, group_epoch, now if stamped else 0))
    return records, result


def seed_assignor_name(coord: Coordinator, group_id: str, subtopologies: list[SubtopologyTasks]) -> str:
    """kip: the group's ``streams.assignor.name``, else the broker's ``group.streams.assignor.name``
    (read at each target computation: a change takes effect at the next one); else "the AK
    implementation will choose highly_available for stateful topologies and sticky for stateless
    topologies"."""
    configured = coord.group_config_str(group_id, "group.streams.assignor.name")
    if configured:
        return configured
    return HIGHLY_AVAILABLE if any(s.stateful for s in subtopologies) else STREAMS_ASSIGNOR_NAME


def _adopt_standing(gid: str, view: dict[str, TaskSets], standing: Mapping[str, TaskSets],
                    records: list[Record]) -> dict[str, TaskSets]:
    """``Choices.task_current_target``: the members' targets replaced, with their record 21."""
    out = dict(view)
    for mid in java_hashmap_order(standing):
        if mid not in out:
            continue
        new = {r: {s: frozenset(p) for s, p in standing[mid].get(r, {}).items() if p} for r in ROLES}
        old = {r: {s: p for s, p in out[mid].get(r, {}).items() if p} for r in ROLES}
        if new != old:
            records.append(srec.target_member_record(gid, mid, new))
            out[mid] = new
    return out


def _double_assign(result: dict[str, TaskSets], order: list[str]) -> dict[str, TaskSets]:
    owners = [m for m in order if any(result[m][ACTIVE].values())]
    if len(order) < 2 or not owners:
        return result
    first = owners[0]
    sid, parts = min((s, p) for s, p in result[first][ACTIVE].items() if p)  # no dict order decides
    other = next(m for m in order if m != first)
    patched = {m: {r: dict(t) for r, t in a.items()} for m, a in result.items()}
    patched[other][ACTIVE][sid] = frozenset(patched[other][ACTIVE].get(sid, frozenset()) | {min(parts)})
    return patched


def assignment_from(result: dict[str, TaskSets]) -> TaskAssignment:
    return TaskAssignment({m: dict(t[ACTIVE]) for m, t in result.items()},
                          {m: dict(t[STANDBY]) for m, t in result.items()})
