"""ConsumerGroupDescribe (API 69), answered from the model (``ConsumerGroup.asDescribedGroup``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.errors import Errors
from kgspec.model.shards import ordered_ids
from kgspec.spec.groups import DESCRIBED_NAMES

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

AUTHORIZED_OPERATIONS_OMITTED = -2147483648


def _topic_partitions(coord: Coordinator, holdings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Topics missing from the metadata image are left out, as Kafka does."""
    merged: dict[str, set[int]] = {}
    for holding in holdings:
        for topic_id, parts in holding.items():
            if parts and coord.topics.by_id(topic_id) is not None:
                merged.setdefault(topic_id, set()).update(parts)
    return [
        {"topicId": t, "topicName": coord.topics.name_of(t), "partitions": sorted(p)}
        for t, p in merged.items()
    ]


def describe_member(coord: Coordinator, group: ConsumerGroup, m: ConsumerMember, api_version: int) -> dict[str, Any]:
    described: dict[str, Any] = {
        "memberId": m.member_id,
        "instanceId": m.instance_id,
        "rackId": m.rack_id,
        "memberEpoch": m.member_epoch,
        "clientId": m.client_id,
        "clientHost": m.client_host,
        "subscribedTopicNames": list(m.subscribed_topic_names),
        "subscribedTopicRegex": m.subscribed_topic_regex,
        # 4.3+: the member still answers for partitions pending revocation (4.1/4.2: assigned only).
        "assignment": {"topicPartitions": _topic_partitions(
            coord, [m.assigned, m.pending_revocation] if coord.profile.describe_includes_pending_revocation
            else [m.assigned])},
        "targetAssignment": {"topicPartitions": _topic_partitions(coord, [dict(group.target.get(m.member_id, {}))])},
    }
    if api_version >= 1:
        described["memberType"] = 0 if m.classic_member_metadata is not None else 1
    return described


def _error_entry(group_id: str, error: Errors, message: str | None) -> dict[str, Any]:
    """A DescribedGroup with every other field at its default."""
    return {"errorCode": int(error), "errorMessage": message, "groupId": group_id, "groupState": "",
            "groupEpoch": 0, "assignmentEpoch": 0, "assignorName": "", "members": [],
            "authorizedOperations": AUTHORIZED_OPERATIONS_OMITTED}


def describe_consumer_groups(coord: Coordinator, request: dict[str, Any], api_version: int) -> dict[str, Any]:
    ids = request.get("groupIds") or []
    # GroupCoordinatorService: a null or empty id is INVALID_GROUP_ID, listed first; the rest
    # shard by shard (model/shards.py).
    groups = [_error_entry("", Errors.INVALID_GROUP_ID, None) for gid in ids if not gid]
    for group_id in ordered_ids(ids, coord.config.int("offsets.topic.num.partitions")):
        group = coord.groups.get(group_id)
        if group is None:
            # GMM.consumerGroup(groupId, offset): another type is "not a consumer group".
            other = group_id in coord.streams_groups or group_id in coord.classic_groups
            groups.append(_error_entry(group_id, Errors.GROUP_ID_NOT_FOUND,
                                       f"Group {group_id} is not a consumer group." if other
                                       else f"Group {group_id} not found."))
            continue
        assignor = consumer_ops.preferred_assignor_of(coord, group)
        groups.append({
            "errorCode": 0,
            "errorMessage": None,
            "groupId": group_id,
            "groupState": DESCRIBED_NAMES[group.state],
            "groupEpoch": group.group_epoch,
            "assignmentEpoch": group.assignment_epoch,
            "assignorName": assignor,
            "members": [describe_member(coord, group, m, api_version) for m in group.members.values()],
            "authorizedOperations": AUTHORIZED_OPERATIONS_OMITTED,
        })
    return {"throttleTimeMs": 0, "groups": groups}
