"""DescribeGroups (API 15, v0-v6): classic groups as ``GroupMetadataManager.describeGroups``
describes them, with ``GroupCoordinatorService``'s shard order and the converter's version
gating (a field outside the request's version is absent from the JSON).

- A STABLE group has ``protocolData`` (the chosen protocol) and each member's metadata for it;
  any other state has ``protocolData`` "" and every member's metadata empty
  (``describeNoMetadata``).
- A missing group, or one of another type ("Group g is not a classic group."), is described
  as state "Dead": with GROUP_ID_NOT_FOUND and the message from v6, with error code 0 before
  (Kafka's quirk: old clients see a dead group, not an error).
- A null group id gets INVALID_GROUP_ID with group id ""; the empty string is looked up as
  any other id ("for backwards compatibility").
- ``authorizedOperations`` is left at its default: authorization is not modelled (the
  checker does not compare it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.classic.apis import DESCRIBE_GROUPS
from kgspec.model.classic.apis import VERSIONS as CLASSIC_VERSIONS
from kgspec.model.errors import Errors, require_version
from kgspec.model.shards import by_shard
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE

if TYPE_CHECKING:
    from kgspec.model.classic.member import ClassicMember
    from kgspec.model.coordinator import Coordinator

VERSIONS = CLASSIC_VERSIONS[DESCRIBE_GROUPS]
AUTHORIZED_OPERATIONS_OMITTED = -2147483648
# ClassicGroupState.toString
STATE_NAMES = {EMPTY: "Empty", PREPARING_REBALANCE: "PreparingRebalance",
               COMPLETING_REBALANCE: "CompletingRebalance", STABLE: "Stable", DEAD: "Dead"}
NO_METADATA = ""  # DescribedGroupMember.memberMetadata's default, empty bytes (base64-printed)


def describe_groups(coord: Coordinator, request: dict[str, Any], version: int) -> dict[str, Any]:
    require_version(DESCRIBE_GROUPS, version, VERSIONS)
    ids = request.get("groups") or []
    groups = [_gated(_group_error("", Errors.INVALID_GROUP_ID), version) for gid in ids if gid is None]
    # Unlike the describes of the new protocols, "" is looked up (and not found) like any id.
    shards = by_shard((gid for gid in ids if gid is not None), coord.config.int("offsets.topic.num.partitions"))
    for shard in shards:
        groups.extend(_gated(_describe(coord, gid, version), version) for gid in shard)
    response: dict[str, Any] = {"groups": groups}
    if version >= 1:
        response = {"throttleTimeMs": 0, **response}
    return response


def _describe(coord: Coordinator, group_id: str, version: int) -> dict[str, Any]:
    group = coord.classic_groups.get(group_id)
    if group is None:
        other = (group_id in coord.groups or group_id in coord.streams_groups
                 or group_id in coord.connect_groups)
        message = f"Group {group_id} is not a classic group." if other else f"Group {group_id} not found."
        dead = _group_error(group_id, Errors.GROUP_ID_NOT_FOUND if version >= 6 else Errors.NONE,
                            message if version >= 6 else None)
        dead["groupState"] = STATE_NAMES[DEAD]
        return dead
    stable = group.state == STABLE
    if stable and not group.protocol_name:
        raise ValueError(f"Invalid null group protocol for stable group {group_id}")
    protocol = group.protocol_name if stable else None
    return {
        "errorCode": 0, "errorMessage": None, "groupId": group_id,
        "groupState": STATE_NAMES[group.state],
        "protocolType": group.protocol_type or "",
        "protocolData": protocol or "",
        "members": [_member(m, protocol) for m in group.members.values()],  # allMembers(): Java's order
        "authorizedOperations": AUTHORIZED_OPERATIONS_OMITTED,
    }


def _member(m: ClassicMember, protocol: str | None) -> dict[str, Any]:
    return {"memberId": m.member_id, "groupInstanceId": m.instance_id, "clientId": m.client_id,
            "clientHost": m.client_host,
            "memberMetadata": m.metadata(protocol) if protocol is not None else NO_METADATA,
            "memberAssignment": m.assignment}


def _group_error(group_id: str, error: Errors, message: str | None = None) -> dict[str, Any]:
    """A DescribedGroup with every other field at its default."""
    return {"errorCode": int(error), "errorMessage": message, "groupId": group_id, "groupState": "",
            "protocolType": "", "protocolData": "", "members": [],
            "authorizedOperations": AUTHORIZED_OPERATIONS_OMITTED}


def _gated(group: dict[str, Any], version: int) -> dict[str, Any]:
    """The fields the response's version carries."""
    if version < 6:
        group.pop("errorMessage")
    if version < 3:
        group.pop("authorizedOperations")
    if version < 4:
        for member in group["members"]:
            member.pop("groupInstanceId")
    return group
