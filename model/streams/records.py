"""Streams group records (types 17, 19-23): builders and replay.

Builders follow ``streams/StreamsCoordinatorRecordHelpers.java`` (4.3); replay follows the
streams ``GroupMetadataManager.replay(...)`` overloads. Field names are Kafka's JSON-converter
names; tagged fields at their default are omitted, as the converters omit them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from kgspec.model.profiles import Profile
from kgspec.model.reconcile import Holdings
from kgspec.model.records import (
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    STREAMS_GROUP_MEMBER_METADATA,
    STREAMS_GROUP_METADATA,
    STREAMS_GROUP_PARTITION_METADATA,
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER,
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA,
    STREAMS_GROUP_TOPOLOGY,
    Record,
    ReplayError,
    partition_entries,
)
from kgspec.model.streams import seed_records
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import (
    ACTIVE,
    LEAVE_GROUP_MEMBER_EPOCH,
    ROLE_FIELDS,
    ROLES,
    STANDBY,
    WARMUP,
    StreamsMember,
    TaskSets,
    empty_holdings,
    state_from_code,
)
from kgspec.model.streams.topology import Topology, from_record_value, to_record_value

# 18 is the seed's (kip only: StreamsProtocol.replay refuses it under Kafka's profiles).
STREAMS_RECORD_TYPES = frozenset({
    STREAMS_GROUP_METADATA, STREAMS_GROUP_PARTITION_METADATA, STREAMS_GROUP_MEMBER_METADATA, STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA,
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, STREAMS_GROUP_TOPOLOGY,
})

_PENDING_FIELDS = {ACTIVE: "activeTasksPendingRevocation", STANDBY: "standbyTasksPendingRevocation",
                   WARMUP: "warmupTasksPendingRevocation"}


# --- builders -------------------------------------------------------------------------------


def group_metadata_record(group_id: str, epoch: int, metadata_hash: int, validated_topology_epoch: int,
                          assignment_configs: Mapping[str, str], *, seed: bool = False) -> Record:
    """``newStreamsGroupMetadataRecord``; ``lastAssignmentConfigs`` from a TreeMap (sorted).
    ``seed`` (kip): the seed's value, the epoch alone."""
    if seed:
        return seed_records.group_metadata_record(group_id, epoch)
    value: dict[str, Any] = {"epoch": epoch, "metadataHash": metadata_hash}
    if validated_topology_epoch != -1:
        value["validatedTopologyEpoch"] = validated_topology_epoch  # tagged, default -1
    value["lastAssignmentConfigs"] = [{"key": k, "value": v} for k, v in sorted(assignment_configs.items())]
    return Record(STREAMS_GROUP_METADATA, {"groupId": group_id}, value)


def group_metadata_tombstone(group_id: str) -> Record:
    return Record(STREAMS_GROUP_METADATA, {"groupId": group_id}, None)


def member_metadata_record(group_id: str, m: StreamsMember) -> Record:
    value: dict[str, Any] = {
        "instanceId": m.instance_id,
        "rackId": m.rack_id,
        "clientId": m.client_id,
        "clientHost": m.client_host,
        "rebalanceTimeoutMs": m.rebalance_timeout_ms,
        "topologyEpoch": m.topology_epoch,
        "processId": m.process_id,
        "userEndpoint": None if m.user_endpoint is None else {"host": m.user_endpoint[0], "port": m.user_endpoint[1]},
        "clientTags": [{"key": k, "value": v} for k, v in sorted(m.client_tags.items())],
    }
    if m.classic_member_metadata is not None:  # kip: kgspec's tagged field (model/migration/streams_*.py)
        value["classicMemberMetadata"] = m.classic_member_metadata
    return Record(STREAMS_GROUP_MEMBER_METADATA, {"groupId": group_id, "memberId": m.member_id}, value)


def member_metadata_tombstone(group_id: str, member_id: str) -> Record:
    return Record(STREAMS_GROUP_MEMBER_METADATA, {"groupId": group_id, "memberId": member_id}, None)


def tasks_json(tasks: Mapping[str, Collection[int]], epochs: bool = False) -> list[dict[str, Any]]:
    """A role's ``[]TaskIds`` (records, heartbeat and describe responses): by subtopology id,
    partitions sorted, empty entries left out; ``epochs``: with ``assignmentEpochs`` (record 22)."""
    return partition_entries(sorted(tasks.items()), "subtopologyId", epochs)


def target_member_record(group_id: str, member_id: str, target: TaskSets) -> Record:
    value = {ROLE_FIELDS[r]: tasks_json(target.get(r, {})) for r in ROLES}
    return Record(STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, {"groupId": group_id, "memberId": member_id}, value)


def target_member_tombstone(group_id: str, member_id: str) -> Record:
    return Record(STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, {"groupId": group_id, "memberId": member_id}, None)


def target_metadata_record(group_id: str, epoch: int, timestamp: int) -> Record:
    value: dict[str, Any] = {"assignmentEpoch": epoch}
    if timestamp != 0:
        value["assignmentTimestamp"] = timestamp  # tagged, default 0
    return Record(STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA, {"groupId": group_id}, value)


def target_metadata_tombstone(group_id: str) -> Record:
    return Record(STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA, {"groupId": group_id}, None)


def current_assignment_record(group_id: str, m: StreamsMember, profile: Profile) -> Record:
    """``newStreamsGroupCurrentAssignmentRecord``: active tasks carry ``assignmentEpochs`` (4.3+)."""
    epochs = profile.per_partition_assignment_epochs
    value: dict[str, Any] = {"memberEpoch": m.member_epoch, "previousMemberEpoch": m.previous_member_epoch,
                             "state": m.state}
    for role in ROLES:
        value[ROLE_FIELDS[role]] = tasks_json(m.assigned.get(role, {}), epochs and role == ACTIVE)
    for role in ROLES:
        value[_PENDING_FIELDS[role]] = tasks_json(m.pending_revocation.get(role, {}), epochs and role == ACTIVE)
    return Record(STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, {"groupId": group_id, "memberId": m.member_id}, value)


def current_assignment_tombstone(group_id: str, member_id: str) -> Record:
    return Record(STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, {"groupId": group_id, "memberId": member_id}, None)


def topology_record(group_id: str, topology: Topology) -> Record:
    return Record(STREAMS_GROUP_TOPOLOGY, {"groupId": group_id}, to_record_value(topology))


def topology_tombstone(group_id: str) -> Record:
    return Record(STREAMS_GROUP_TOPOLOGY, {"groupId": group_id}, None)


# --- replay ----------------------------------------------------------------------------------


def _parse_sets(entries: Any, field: str) -> dict[str, frozenset[int]]:
    if not isinstance(entries, list):
        raise ReplayError(f"{field} must be a list")
    out: dict[str, frozenset[int]] = {}
    for e in entries:
        if not isinstance(e, dict) or "subtopologyId" not in e or "partitions" not in e:
            raise ReplayError(f"{field} entries need subtopologyId and partitions")
        out[str(e["subtopologyId"])] = frozenset(int(p) for p in e["partitions"])
    return out


def _parse_holding(value: Mapping[str, Any], fields: Mapping[str, str], member_epoch: int) -> Holdings:
    """``TasksTupleWithEpochs.fromCurrentAssignmentRecord``: missing (or mis-sized) epochs
    default to the member epoch."""
    h = empty_holdings()
    for role in ROLES:
        entries = value.get(fields[role], [])
        if not isinstance(entries, list):
            raise ReplayError(f"{fields[role]} must be a list")
        for e in entries:
            if not isinstance(e, dict) or "subtopologyId" not in e or "partitions" not in e:
                raise ReplayError(f"{fields[role]} entries need subtopologyId and partitions")
            parts = [int(p) for p in e["partitions"]]
            epochs = e.get("assignmentEpochs")
            if role != ACTIVE:
                h[role][str(e["subtopologyId"])] = dict.fromkeys(parts, 0)
            elif isinstance(epochs, list) and len(epochs) == len(parts):
                h[role][str(e["subtopologyId"])] = {p: int(x) for p, x in zip(parts, epochs, strict=True)}
            else:
                h[role][str(e["subtopologyId"])] = dict.fromkeys(parts, member_epoch)
    return h


def replay(groups: dict[str, StreamsGroup], record: Record, new_group: Callable[[str], StreamsGroup]) -> None:
    """Apply one streams record (``GroupMetadataManager.replay``) to the streams groups."""
    gid = record.key.get("groupId")
    if not isinstance(gid, str):
        raise ReplayError(f"{record.name} key has no groupId")
    value = record.value
    rtype = record.type
    group = groups.get(gid)

    if group is None:
        if value is None:
            return  # a tombstone for a group that is gone
        group = new_group(gid)
        groups[gid] = group

    if rtype == STREAMS_GROUP_METADATA:
        if value is None:
            if group.members:
                raise ReplayError(f"Received a tombstone record to delete group {gid} but the group still has "
                                  f"{len(group.members)} members.")
            if group.assignment_epoch != -1:
                raise ReplayError(f"Received a tombstone record to delete group {gid} but did not receive "
                                  "StreamsGroupTargetAssignmentMetadataValue tombstone.")
            del groups[gid]
            return
        group.group_epoch = int(value["epoch"])
        group.metadata_hash = int(value.get("metadataHash", 0))
        group.validated_topology_epoch = int(value.get("validatedTopologyEpoch", -1))
        configs = value.get("lastAssignmentConfigs")
        group.last_assignment_configs = {} if configs is None else {str(c["key"]): str(c["value"]) for c in configs}
        return

    if rtype == STREAMS_GROUP_PARTITION_METADATA:
        group.partition_metadata = None if value is None else seed_records.parse(value)
        return

    if rtype == STREAMS_GROUP_TOPOLOGY:
        group.topology = None if value is None else from_record_value(value)
        return

    if rtype == STREAMS_GROUP_MEMBER_METADATA:
        mid = str(record.key["memberId"])
        if value is None:
            old = group.members.get(mid)
            if old is None:
                return
            if old.member_epoch != LEAVE_GROUP_MEMBER_EPOCH:
                raise ReplayError(f"Received a tombstone record to delete member {mid} but did not receive "
                                  "StreamsGroupCurrentMemberAssignmentValue tombstone.")
            if mid in group.target:
                raise ReplayError(f"Received a tombstone record to delete member {mid} but did not receive "
                                  "StreamsGroupTargetAssignmentMetadataValue tombstone.")
            group.remove_member(mid)
            return
        prev = group.members.get(mid)
        m = prev.copy() if prev is not None else StreamsMember(mid)
        m.instance_id = value.get("instanceId")
        m.rack_id = value.get("rackId")
        m.client_id = str(value.get("clientId", ""))
        m.client_host = str(value.get("clientHost", ""))
        m.rebalance_timeout_ms = int(value.get("rebalanceTimeoutMs", -1))
        m.topology_epoch = int(value.get("topologyEpoch", 0))
        m.process_id = str(value.get("processId", ""))
        ep = value.get("userEndpoint")
        m.user_endpoint = None if ep is None else (str(ep["host"]), int(ep["port"]))
        m.client_tags = {str(t["key"]): str(t["value"]) for t in value.get("clientTags") or []}
        m.classic_member_metadata = value.get("classicMemberMetadata")
        group.put_member(m)
        return

    if rtype == STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA:
        if value is None:
            if group.target:
                raise ReplayError(f"Received a tombstone record to delete target assignment of {gid} but the "
                                  f"assignment still has {len(group.target)} members.")
            group.assignment_epoch, group.assignment_timestamp = -1, 0
        else:
            group.assignment_epoch = int(value["assignmentEpoch"])
            group.assignment_timestamp = int(value.get("assignmentTimestamp", 0))
        return

    if rtype == STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER:
        mid = str(record.key["memberId"])
        if value is None:
            group.target.pop(mid, None)
        else:
            group.target[mid] = {r: _parse_sets(value.get(ROLE_FIELDS[r], []), ROLE_FIELDS[r]) for r in ROLES}
        return

    if rtype == STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        mid = str(record.key["memberId"])
        prev = group.members.get(mid)
        if value is None:
            if prev is None:
                return
            m = prev.copy()
            m.member_epoch = LEAVE_GROUP_MEMBER_EPOCH
            m.previous_member_epoch = LEAVE_GROUP_MEMBER_EPOCH
            m.assigned = empty_holdings()
            m.pending_revocation = empty_holdings()
            group.put_member(m)
            return
        m = prev.copy() if prev is not None else StreamsMember(mid)
        m.member_epoch = int(value["memberEpoch"])
        m.previous_member_epoch = int(value["previousMemberEpoch"])
        m.state = state_from_code(int(value["state"]))
        m.assigned = _parse_holding(value, ROLE_FIELDS, m.member_epoch)
        m.pending_revocation = _parse_holding(value, _PENDING_FIELDS, m.member_epoch)
        group.put_member(m)
        return

    raise ReplayError(f"record type {rtype} is not a streams group record")
