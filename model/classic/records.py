"""The GroupMetadata record (type 2): builders and replay.

Builders follow ``GroupCoordinatorRecordHelpers.newGroupMetadataRecord`` /
``newEmptyGroupMetadataRecord`` / ``newGroupMetadataTombstoneRecord`` (value version 3,
``GROUP_METADATA_VALUE_VERSION``); replay follows ``GroupMetadataManager.replay(GroupMetadataKey,
GroupMetadataValue)``: the group is rebuilt from the record alone, STABLE with members or
EMPTY without, each member supporting only the group's protocol.

Kafka appends classic records with ``replayRecords = false``: the handlers change the
in-memory group directly and the record only persists it, so the model does the same and
replays type 2 only when loading (a failover, or a trace of records alone).
"""

from __future__ import annotations

from collections.abc import Mapping

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.records import GROUP_METADATA, Record, ReplayError
from kgspec.spec.classic import EMPTY, STABLE

VALUE_VERSION = 3


class ClassicReplayError(ValueError):
    """A GroupMetadata record Kafka's write path would never produce (e.g. no assignment)."""


def group_metadata_record(group: ClassicGroup, assignment: Mapping[str, str]) -> Record:
    members = []
    for m in group.members.values():
        if group.protocol_name is None:
            raise ClassicReplayError("Attempted to write non-empty group metadata with no defined protocol.")
        if m.member_id not in assignment:
            raise ClassicReplayError(f"Attempted to write member {m.member_id} of group {group.group_id} "
                                     "with no assignment.")
        members.append({"memberId": m.member_id, "groupInstanceId": m.instance_id, "clientId": m.client_id,
                        "clientHost": m.client_host, "rebalanceTimeout": m.rebalance_timeout_ms,
                        "sessionTimeout": m.session_timeout_ms, "subscription": m.metadata(group.protocol_name),
                        "assignment": assignment[m.member_id]})
    return Record(GROUP_METADATA, {"group": group.group_id}, {
        "protocolType": group.protocol_type or "", "generation": group.generation_id,
        "protocol": group.protocol_name, "leader": group.leader_id,
        "currentStateTimestamp": _timestamp(group), "members": members}, VALUE_VERSION)


def empty_group_metadata_record(group: ClassicGroup) -> Record:
    """Written when a JoinGroup creates the group and nothing else is written."""
    return Record(GROUP_METADATA, {"group": group.group_id}, {
        "protocolType": "", "generation": 0, "protocol": None, "leader": None,
        "currentStateTimestamp": _timestamp(group), "members": []}, VALUE_VERSION)


def group_metadata_tombstone(group_id: str) -> Record:
    return Record(GROUP_METADATA, {"group": group_id}, None, VALUE_VERSION)


def _timestamp(group: ClassicGroup) -> int:
    return -1 if group.state_timestamp is None else group.state_timestamp


def replay(groups: dict[str, ClassicGroup], record: Record) -> None:
    group_id = record.key["group"]
    value = record.value
    if value is None:
        groups.pop(group_id, None)
        return
    protocol = value.get("protocol")
    protocol_type = value.get("protocolType") or None
    members: list[ClassicMember] = []
    for m in value.get("members", []):
        rebalance = m.get("rebalanceTimeout", -1)
        session = m["sessionTimeout"]
        members.append(ClassicMember(
            m["memberId"], m.get("groupInstanceId"), m["clientId"], m["clientHost"],
            session if rebalance == -1 else rebalance, session, protocol_type or "",
            ((protocol or "", m["subscription"]),), m["assignment"]))
    stamp = value.get("currentStateTimestamp", -1)
    group = ClassicGroup(group_id, None if stamp == -1 else stamp, state=STABLE if members else EMPTY,
                      generation_id=value["generation"], protocol_type=protocol_type,
                      protocol_name=protocol, leader_id=value.get("leader"))
    for member in members:
        try:
            group.add(member)
        except ValueError as exc:  # two members of one static instance id: the model stops there
            raise ReplayError(str(exc)) from exc
    groups[group_id] = group

