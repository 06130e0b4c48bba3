"""Consumer group records (types 3-8, 16): builders and replay.

Builders follow ``GroupCoordinatorRecordHelpers``; replay follows
``GroupMetadataManager.replay(...)``. The live model applies its own records through
:func:`replay`, as Kafka's runtime does, so replaying a trace's records rebuilds
exactly the state the handlers produced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgspec.model.consumer.group import ConsumerGroup, ResolvedRegex
from kgspec.model.consumer.member import ConsumerMember, state_from_code
from kgspec.model.javaorder import topic_order
from kgspec.model.profiles import Profile
from kgspec.model.reconcile import Holding
from kgspec.model.records import (
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONSUMER_GROUP_MEMBER_METADATA,
    CONSUMER_GROUP_METADATA,
    CONSUMER_GROUP_PARTITION_METADATA,
    CONSUMER_GROUP_REGULAR_EXPRESSION,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    Record,
    partition_entries,
)
from kgspec.model.records import (
    ReplayError as ReplayError,  # re-export: conformance imports it here
)

CONSUMER_RECORD_TYPES = frozenset({
    CONSUMER_GROUP_METADATA, CONSUMER_GROUP_PARTITION_METADATA, CONSUMER_GROUP_MEMBER_METADATA,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, CONSUMER_GROUP_REGULAR_EXPRESSION,
})


# --- builders -------------------------------------------------------------------------


def group_epoch_record(group_id: str, epoch: int, metadata_hash: int) -> Record:
    value: dict[str, Any] = {"epoch": epoch}
    if metadata_hash != 0:
        value["metadataHash"] = metadata_hash  # tagged, default 0
    return Record(CONSUMER_GROUP_METADATA, {"groupId": group_id}, value)


def group_epoch_tombstone(group_id: str) -> Record:
    return Record(CONSUMER_GROUP_METADATA, {"groupId": group_id}, None)


def partition_metadata_tombstone(group_id: str) -> Record:
    return Record(CONSUMER_GROUP_PARTITION_METADATA, {"groupId": group_id}, None)


def member_metadata_record(group_id: str, m: ConsumerMember) -> Record:
    value: dict[str, Any] = {
        "instanceId": m.instance_id,
        "rackId": m.rack_id,
        "clientId": m.client_id,
        "clientHost": m.client_host,
        "subscribedTopicNames": list(m.subscribed_topic_names),
        "subscribedTopicRegex": m.subscribed_topic_regex,
        "rebalanceTimeoutMs": m.rebalance_timeout_ms,
        "serverAssignor": m.server_assignor,
    }
    if m.classic_member_metadata is not None:
        value["classicMemberMetadata"] = m.classic_member_metadata  # tagged, default null
    return Record(CONSUMER_GROUP_MEMBER_METADATA, {"groupId": group_id, "memberId": m.member_id}, value)


def member_metadata_tombstone(group_id: str, member_id: str) -> Record:
    return Record(CONSUMER_GROUP_MEMBER_METADATA, {"groupId": group_id, "memberId": member_id}, None)


def target_metadata_record(group_id: str, epoch: int, timestamp: int) -> Record:
    value: dict[str, Any] = {"assignmentEpoch": epoch}
    if timestamp != 0:
        value["assignmentTimestamp"] = timestamp  # tagged, default 0
    return Record(CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, {"groupId": group_id}, value)


def target_metadata_tombstone(group_id: str) -> Record:
    return Record(CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, {"groupId": group_id}, None)


def target_member_record(group_id: str, member_id: str, target: dict[str, frozenset[int]]) -> Record:
    value = {"topicPartitions": [{"topicId": t, "partitions": sorted(target[t])} for t in topic_order(target)]}
    return Record(CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, {"groupId": group_id, "memberId": member_id}, value)


def target_member_tombstone(group_id: str, member_id: str) -> Record:
    return Record(CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, {"groupId": group_id, "memberId": member_id}, None)


def _in_topic_order(holding: Holding) -> list[tuple[str, Any]]:
    return [(t, holding[t]) for t in topic_order(holding)]


def current_assignment_record(group_id: str, m: ConsumerMember, profile: Profile) -> Record:
    epochs = profile.per_partition_assignment_epochs
    value = {
        "memberEpoch": m.member_epoch,
        "previousMemberEpoch": m.previous_member_epoch,
        "state": m.state,
        "assignedPartitions": partition_entries(_in_topic_order(m.assigned), "topicId", epochs),
        "partitionsPendingRevocation": partition_entries(_in_topic_order(m.pending_revocation), "topicId", epochs),
    }
    return Record(CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, {"groupId": group_id, "memberId": m.member_id}, value)


def current_assignment_tombstone(group_id: str, member_id: str) -> Record:
    return Record(CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, {"groupId": group_id, "memberId": member_id}, None)


def regex_record(group_id: str, regex: str, resolved: ResolvedRegex) -> Record:
    value = {"topics": sorted(resolved.topics), "version": resolved.version, "timestamp": resolved.timestamp}
    return Record(CONSUMER_GROUP_REGULAR_EXPRESSION, {"groupId": group_id, "regularExpression": regex}, value)


def regex_tombstone(group_id: str, regex: str) -> Record:
    return Record(CONSUMER_GROUP_REGULAR_EXPRESSION, {"groupId": group_id, "regularExpression": regex}, None)


# --- replay ---------------------------------------------------------------------------


def _parse_holding(entries: Any, member_epoch: int, field: str) -> Holding:
    """A missing ``assignmentEpochs`` defaults every partition to max(memberEpoch, 0)."""
    holding: Holding = {}
    if not isinstance(entries, list):
        raise ReplayError(f"{field} must be a list")
    default = max(member_epoch, 0)
    for entry in entries:
        if not isinstance(entry, dict) or "topicId" not in entry or "partitions" not in entry:
            raise ReplayError(f"{field} entries need topicId and partitions")
        parts = entry["partitions"]
        epochs = entry.get("assignmentEpochs")
        if epochs is not None and len(epochs) != len(parts):
            raise ReplayError(f"{field}: assignmentEpochs and partitions differ in length")
        slot = holding.setdefault(entry["topicId"], {})
        for i, p in enumerate(parts):
            epoch = epochs[i] if epochs is not None else default
            # int(x) of an int is x itself: only what is not one is converted (epoch first, as
            # slot[int(p)] = int(epoch) evaluates it)
            slot[p if type(p) is int else int(p)] = epoch if type(epoch) is int else int(epoch)
    return holding


def replay(groups: dict[str, ConsumerGroup], record: Record,
           new_group: Callable[[str], ConsumerGroup], profile: Profile) -> None:
    """Apply one consumer record to ``groups`` (GroupMetadataManager.replay)."""
    gid = record.key.get("groupId")
    if not isinstance(gid, str):
        raise ReplayError(f"{record.name} key has no groupId")
    value = record.value
    rtype = record.type

    if rtype == CONSUMER_GROUP_METADATA:
        if value is None:
            group = groups.get(gid)
            if group is None:
                return
            if group.members or group.target or group.assignment_epoch != -1:
                raise ReplayError(
                    f"group {gid} cannot be deleted: members, targets or an assignment epoch remain")
            del groups[gid]
            return
        group = groups.get(gid) or groups.setdefault(gid, new_group(gid))
        group.group_epoch = int(value["epoch"])
        group.metadata_hash = int(value.get("metadataHash", 0))
        return

    group_or_none = groups.get(gid)
    if group_or_none is None:
        if value is None:
            return  # tombstone for a group already gone
        if rtype == CONSUMER_GROUP_PARTITION_METADATA:
            return
        group_or_none = groups.setdefault(gid, new_group(gid))
    group = group_or_none

    if rtype == CONSUMER_GROUP_MEMBER_METADATA:
        mid = record.key["memberId"]
        if value is None:
            old = group.members.get(mid)
            if old is None:
                return
            if old.member_epoch != -1:
                raise ReplayError(f"member {mid} metadata tombstone before its assignment tombstone")
            if mid in group.target:
                raise ReplayError(f"member {mid} metadata tombstone before its target tombstone")
            group.remove_member(mid)
            return
        existing = group.members.get(mid)
        m = existing.copy() if existing else ConsumerMember(mid)
        m.instance_id = value.get("instanceId")
        m.rack_id = value.get("rackId")
        m.client_id = value.get("clientId", "")
        m.client_host = value.get("clientHost", "")
        m.subscribed_topic_names = tuple(sorted(value.get("subscribedTopicNames") or ()))
        m.subscribed_topic_regex = value.get("subscribedTopicRegex")
        m.rebalance_timeout_ms = int(value.get("rebalanceTimeoutMs", -1))
        m.server_assignor = value.get("serverAssignor")
        m.classic_member_metadata = value.get("classicMemberMetadata")
        group.put_member(m)
        return

    if rtype == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA:
        if value is None:
            if group.target:
                raise ReplayError(f"group {gid}: target metadata tombstone while targets remain")
            group.set_assignment_metadata(-1, 0)
        else:
            group.set_assignment_metadata(int(value["assignmentEpoch"]), int(value.get("assignmentTimestamp", 0)))
        return

    if rtype == CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER:
        mid = record.key["memberId"]
        if value is None:
            group.target.pop(mid, None)
        else:
            group.target[mid] = {
                e["topicId"]: frozenset(map(int, e["partitions"]))
                for e in value.get("topicPartitions", [])
            }
        return

    if rtype == CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        mid = record.key["memberId"]
        existing = group.members.get(mid)
        if existing is None:
            if value is None:
                return
            raise ReplayError(f"current assignment for unknown member {mid}")
        if value is None:
            m = existing.with_assignment(-1, -1, existing.state, {}, {})
        else:
            epoch = int(value["memberEpoch"])
            previous_epoch = int(value["previousMemberEpoch"])
            state = state_from_code(int(value["state"]))
            assigned = _parse_holding(value.get("assignedPartitions", []), epoch, "assignedPartitions")
            pending = _parse_holding(value.get("partitionsPendingRevocation", []), epoch, "partitionsPendingRevocation")
            if not profile.per_partition_assignment_epochs:
                _zero_epochs(assigned)
                _zero_epochs(pending)
            m = existing.with_assignment(epoch, previous_epoch, state, assigned, pending)
        group.put_member(m)
        return

    if rtype == CONSUMER_GROUP_REGULAR_EXPRESSION:
        regex = record.key["regularExpression"]
        if value is None:
            group.resolved_regexes.pop(regex, None)
        else:
            group.resolved_regexes[regex] = ResolvedRegex(
                frozenset(value.get("topics", [])), int(value.get("version", 0)), int(value.get("timestamp", 0)))
        return

    if rtype == CONSUMER_GROUP_PARTITION_METADATA:
        group.has_partition_metadata_record = value is not None
        return

    raise ReplayError(f"record type {rtype} is not a consumer group record")


def _zero_epochs(holding: Holding) -> None:
    """Before KIP-1251 (4.3) partitions carry no assignment epoch; the model stores 0."""
    for parts in holding.values():
        for p in parts:
            parts[p] = 0
