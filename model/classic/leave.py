"""Heartbeat (API 12, v0-4) and LeaveGroup (API 13, v0-5) to a classic group:
GroupMetadataManager 4.3 ``classicGroupHeartbeatToClassicGroup``,
``classicGroupLeaveToClassicGroup``, ``removeCurrentMemberFromClassicGroup``; the service's
group-not-found answers (GroupCoordinatorService ``heartbeat`` / ``leaveGroup``)."""

from __future__ import annotations

from typing import Any

from kgspec.model.classic.rebalance import (
    maybe_complete_join_phase,
    maybe_prepare_rebalance_or_complete_join,
)
from kgspec.model.classic.responses import heartbeat_response, leave_response
from kgspec.model.classic.step import Step
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE


def heartbeat(step: Step, req: dict[str, Any], version: int) -> dict[str, Any]:
    group_id = req.get("groupId") or ""
    if not group_id:
        return heartbeat_response(version, int(Errors.INVALID_GROUP_ID))
    mixed = step.modern_answer(group_id, "heartbeat", req, version)  # online migration
    if mixed is not None:
        return mixed
    group = step.groups.get(group_id)
    if group is None:
        return heartbeat_response(version, int(Errors.UNKNOWN_MEMBER_ID))
    member_id: str = req.get("memberId") or ""
    instance_id = req.get("groupInstanceId") if version >= 3 else None
    if group.state == DEAD:
        return heartbeat_response(version, int(Errors.COORDINATOR_NOT_AVAILABLE))
    try:
        group.validate_member(member_id, instance_id)
    except CoordinatorError as exc:
        step.why(exc.message or exc.error.name)
        return heartbeat_response(version, int(exc.error))
    if int(req["generationId"]) != group.generation_id:
        step.why(f"generation {req['generationId']} is not the group's {group.generation_id}")
        return heartbeat_response(version, int(Errors.ILLEGAL_GENERATION))
    if group.state == EMPTY:
        return heartbeat_response(version, int(Errors.UNKNOWN_MEMBER_ID))
    member = group.members[member_id]
    step.schedule_heartbeat(group, member_id, member.session_timeout_ms)
    if group.state == PREPARING_REBALANCE:
        return heartbeat_response(version, int(Errors.REBALANCE_IN_PROGRESS))
    return heartbeat_response(version)


def leave(step: Step, req: dict[str, Any], version: int) -> dict[str, Any]:
    group_id = req.get("groupId") or ""
    if not group_id:
        return leave_response(version, int(Errors.INVALID_GROUP_ID))
    if version >= 3:
        identities = [(m.get("memberId") or "", m.get("groupInstanceId"), m.get("reason") if version >= 5 else None)
                      for m in req.get("members") or []]
    else:
        identities = [(req.get("memberId") or "", None, None)]  # LeaveGroupRequest.normalizedData
    mixed = step.modern_answer(group_id, "leave", identities, version)  # online migration
    if mixed is not None:
        return mixed
    group = step.groups.get(group_id)
    if group is None:
        return leave_response(version, 0, [_member(mid, iid, int(Errors.UNKNOWN_MEMBER_ID)) for mid, iid, _ in identities])
    if group.state == DEAD:
        return leave_response(version, int(Errors.COORDINATOR_NOT_AVAILABLE))
    answers: list[dict[str, Any]] = []
    for member_id, instance_id, reason in identities:
        why = reason or "not provided"
        if member_id == "":
            # Administrative removal by group instance id.
            if instance_id is not None and instance_id in group.static_members:
                _remove_member(step, group, group.static_members[instance_id], why)
                answers.append(_member(member_id, instance_id, 0))
            else:
                answers.append(_member(member_id, instance_id, int(Errors.UNKNOWN_MEMBER_ID)))
        elif member_id in group.pending_join:
            group.remove(member_id)
            step.cancel_heartbeat(group, member_id)
            step.why(f"pending member {member_id} left; client reason: {why}")
            answers.append(_member(member_id, instance_id, 0))
        else:
            try:
                group.validate_member(member_id, instance_id)
            except CoordinatorError as exc:
                answers.append(_member(member_id, instance_id, int(exc.error)))
                continue
            _remove_member(step, group, member_id, why)
            answers.append(_member(member_id, instance_id, 0))
    left = [a["memberId"] for a in answers if a["errorCode"] == 0]
    if left:
        if group.state in (STABLE, COMPLETING_REBALANCE):
            maybe_prepare_rebalance_or_complete_join(step, group, f"explicit LeaveGroup request for ({', '.join(left)})")
        elif group.state == PREPARING_REBALANCE:
            maybe_complete_join_phase(step, group)
    return leave_response(version, 0, answers)


def _member(member_id: str, instance_id: str | None, error: int) -> dict[str, Any]:
    return {"memberId": member_id, "groupInstanceId": instance_id, "errorCode": error}


def _remove_member(step: Step, group: Any, member_id: str, reason: str) -> None:
    member = group.members[member_id]
    step.cancel_heartbeat(group, member_id)
    step.why(f"member {member_id} left; client reason: {reason}")
    step.complete_join(group, member, int(Errors.UNKNOWN_MEMBER_ID))
    group.remove(member_id)
