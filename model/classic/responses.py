"""Classic responses as Kafka's JSON converters print them, per API version.

Field presence follows ``{JoinGroup,SyncGroup,Heartbeat,LeaveGroup}Response.json`` (4.3);
``throttleTimeMs`` is printed as 0 where the version has it. Version quirks:

- ``JoinGroupResponse(data, version)``: below v7 a null ``protocolName`` is sent as "";
  from v7 an empty one is sent as null.
- ``LeaveGroupResponse(data, version)``: below v3 there is no member list; the top-level
  error is the first member's error (or the top-level error when set).
"""

from __future__ import annotations

from typing import Any

from kgspec.model.classic.apis import HEARTBEAT, JOIN_GROUP, LEAVE_GROUP, SYNC_GROUP

__all__ = ["HEARTBEAT", "JOIN_GROUP", "LEAVE_GROUP", "SYNC_GROUP", "heartbeat_response", "join_response",
           "leave_response", "sync_response"]
JoinMember = dict[str, Any]


def join_response(version: int, error: int = 0, *, member_id: str = "", generation_id: int = -1,
                  protocol_type: str | None = None, protocol_name: str | None = "",
                  leader: str | None = "", skip_assignment: bool = False,
                  members: list[JoinMember] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if version >= 2:
        out["throttleTimeMs"] = 0
    out["errorCode"] = error
    out["generationId"] = generation_id
    if version >= 7:
        out["protocolType"] = protocol_type
        out["protocolName"] = protocol_name or None
    else:
        out["protocolName"] = "" if protocol_name is None else protocol_name
    out["leader"] = leader
    if version >= 9:
        out["skipAssignment"] = skip_assignment
    out["memberId"] = member_id
    out["members"] = [_join_member(m, version) for m in members or []]
    return out


def _join_member(m: JoinMember, version: int) -> JoinMember:
    if version >= 5:
        return {"memberId": m["memberId"], "groupInstanceId": m["groupInstanceId"], "metadata": m["metadata"]}
    return {"memberId": m["memberId"], "metadata": m["metadata"]}


def sync_response(version: int, error: int = 0, *, protocol_type: str | None = None,
                  protocol_name: str | None = None, assignment: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if version >= 1:
        out["throttleTimeMs"] = 0
    out["errorCode"] = error
    if version >= 5:
        out["protocolType"] = protocol_type
        out["protocolName"] = protocol_name
    out["assignment"] = assignment
    return out


def heartbeat_response(version: int, error: int = 0) -> dict[str, Any]:
    return {"throttleTimeMs": 0, "errorCode": error} if version >= 1 else {"errorCode": error}


def leave_response(version: int, error: int = 0, members: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"throttleTimeMs": 0} if version >= 1 else {}
    members = members or []
    if version >= 3:
        out["errorCode"] = error
        out["members"] = members
    else:
        first = next((m["errorCode"] for m in members if m["errorCode"] != 0), 0)
        out["errorCode"] = error or first
    return out
