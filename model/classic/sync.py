"""SyncGroup (API 14, v0-5) to a classic group: GroupMetadataManager 4.3
``classicGroupSyncToClassicGroup``, ``validateSyncGroup``, ``removePendingSyncMember``."""

from __future__ import annotations

from typing import Any

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import EMPTY_ASSIGNMENT
from kgspec.model.classic.parked import ParkedCall
from kgspec.model.classic.rebalance import set_and_propagate_assignment
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.classic.responses import sync_response
from kgspec.model.classic.step import Step
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, PREPARING_REBALANCE, STABLE


def sync(step: Step, call: ParkedCall, req: dict[str, Any], version: int) -> None:
    group_id = req.get("groupId") or ""
    member_id: str = req.get("memberId") or ""
    instance_id = req.get("groupInstanceId") if version >= 3 else None
    protocol_type = req.get("protocolType") if version >= 5 else None
    protocol_name = req.get("protocolName") if version >= 5 else None
    if version >= 5 and (protocol_type is None or protocol_name is None):
        # KafkaApis: from v5 both are mandatory.
        step.answer(call, sync_response(version, int(Errors.INCONSISTENT_GROUP_PROTOCOL)))
        return
    if not group_id:
        step.answer(call, sync_response(version, int(Errors.INVALID_GROUP_ID)))
        return
    mixed = step.modern_answer(group_id, "sync", req, version)  # online migration
    if mixed is not None:
        step.answer(call, mixed)
        return
    group = step.groups.get(group_id)
    if group is None or group.is_empty:
        step.answer(call, sync_response(version, int(Errors.UNKNOWN_MEMBER_ID)))
        return
    error = _validate(group, member_id, instance_id, int(req["generationId"]), protocol_type, protocol_name)
    if error is not None:
        step.why(f"SyncGroup rejected: {error.name}")
        step.answer(call, sync_response(version, int(error)))
    elif group.state == PREPARING_REBALANCE:
        step.answer(call, sync_response(version, int(Errors.REBALANCE_IN_PROGRESS)))
    elif group.state == COMPLETING_REBALANCE:
        group.members[member_id].sync_call = call
        _remove_pending_sync_member(step, group, member_id)
        if group.is_leader(member_id):
            _leader_sync(step, group, req)
    elif group.state == STABLE:
        _remove_pending_sync_member(step, group, member_id)
        member = group.members[member_id]
        step.answer(call, sync_response(version, protocol_type=group.protocol_type,
                                        protocol_name=group.protocol_name, assignment=member.assignment))
    else:
        raise CoordinatorError(Errors.UNKNOWN_SERVER_ERROR, f"Reached unexpected condition for Dead group {group_id}")


def _validate(group: ClassicGroup, member_id: str, instance_id: str | None, generation_id: int,
              protocol_type: str | None, protocol_name: str | None) -> Errors | None:
    if group.state == DEAD:
        return Errors.COORDINATOR_NOT_AVAILABLE
    try:
        group.validate_member(member_id, instance_id)
    except CoordinatorError as exc:
        return exc.error
    if generation_id != group.generation_id:
        return Errors.ILLEGAL_GENERATION
    if _inconsistent(protocol_type, group.protocol_type) or _inconsistent(protocol_name, group.protocol_name):
        return Errors.INCONSISTENT_GROUP_PROTOCOL
    return None


def _inconsistent(requested: str | None, current: str | None) -> bool:
    return requested is not None and current is not None and requested != current


def _leader_sync(step: Step, group: ClassicGroup, req: dict[str, Any]) -> None:
    """Store the leader's assignment (members it left out get an empty one), then go STABLE."""
    assignment: dict[str, str] = {}
    for entry in req.get("assignments") or []:
        assignment[entry["memberId"]] = entry.get("assignment") or EMPTY_ASSIGNMENT
    missing = [m.member_id for m in group.members.values() if m.member_id not in assignment]
    for member_id in missing:
        assignment[member_id] = EMPTY_ASSIGNMENT
    if missing:
        step.why(f"the leader's assignment omits {sorted(missing)}: they get an empty assignment")
    # Written before the transition, so the record keeps COMPLETING_REBALANCE's timestamp.
    step.records.append(group_metadata_record(group, assignment))
    # The append succeeds at once in the model: propagate and stabilize.
    set_and_propagate_assignment(step, group, assignment)
    group.transition("leader_synced", step.now)
    step.why(f"leader {group.leader_id} synced generation {group.generation_id}: group STABLE")


def _remove_pending_sync_member(step: Step, group: ClassicGroup, member_id: str) -> None:
    group.pending_sync.discard(member_id)
    if group.state in (COMPLETING_REBALANCE, STABLE) and group.pending_sync:
        return
    step.cancel_sync(group)
