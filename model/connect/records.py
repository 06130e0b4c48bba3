"""Connect draft records (kgspec key types 1000-1004): builders and replay.

The draft ('Records') names five records for ``__worker_offsets``; it gives their value schemas
only in part (copied from the consumer's). kgspec's fields are the ones replay needs to rebuild
identical state (docs/connect.md, 'Records'):

- 1000 ConnectWorkerGroupMetadata {groupId}: ``epoch``
- 1001 ConnectWorkerGroupConnectorsTasksMetadata {groupId}: ``connectors`` [{name, tasks}]
- 1002 ConnectWorkerGroupMemberMetadata {groupId, memberId}: ``groupEpoch`` (join epoch),
  ``instanceId``, ``clientId``, ``clientHost``, ``rebalanceTimeoutMs``, ``assignors``, and for a
  worker still on the classic protocol ``classicMemberMetadata`` {sessionTimeoutMs,
  supportedProtocols [{name, metadata}]} (online migration; absent otherwise)
- 1003 ConnectWorkerGroupTargetAssignment {groupId}: one record for the whole target
  (draft: 'The target assignment is stored in a single record'): ``assignmentEpoch``, ``error``,
  ``delayedUntilMs``, ``members`` [{memberId, error, connectorsAndTasks, version, metadata}]
- 1004 ConnectWorkerGroupCurrentMemberAssignment {groupId, memberId}: ``memberEpoch``,
  ``previousMemberEpoch``, ``state``, ``error``, ``connectorsAndTasks``,
  ``connectorsAndTasksPendingRevocation``, ``version``, ``metadata``
"""

from __future__ import annotations

from typing import Any

from kgspec.model.connect.group import ConnectGroup, TargetEntry
from kgspec.model.connect.member import STATE_NAMES, Assignor, ConnectMember
from kgspec.model.connect.resources import (
    CONNECTORS,
    TASKS,
    Resources,
    config_resources,
    from_holdings,
    parse,
    to_holdings,
    to_json,
)
from kgspec.model.records import (
    CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA,
    CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONNECT_WORKER_GROUP_MEMBER_METADATA,
    CONNECT_WORKER_GROUP_METADATA,
    CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT,
    Record,
    ReplayError,
)

CONNECT_RECORD_TYPES = frozenset({
    CONNECT_WORKER_GROUP_METADATA, CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA,
    CONNECT_WORKER_GROUP_MEMBER_METADATA, CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT,
    CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
})


def group_metadata_record(group_id: str, epoch: int) -> Record:
    return Record(CONNECT_WORKER_GROUP_METADATA, {"groupId": group_id}, {"epoch": epoch})


def connectors_tasks_record(group_id: str, config: Resources) -> Record:
    tasks = config.get(TASKS, {})
    connectors = [{"name": c, "tasks": sorted(tasks.get(c, ()))} for c in sorted(config.get(CONNECTORS, {}))]
    return Record(CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA, {"groupId": group_id}, {"connectors": connectors})


def member_metadata_record(group_id: str, m: ConnectMember) -> Record:
    value: dict[str, Any] = {"groupEpoch": m.joined_epoch, "instanceId": m.instance_id, "clientId": m.client_id,
             "clientHost": m.client_host, "rebalanceTimeoutMs": m.rebalance_timeout_ms,
             "assignors": [a.to_json() for a in m.assignors]}
    if m.classic_member_metadata is not None:  # online migration: a worker on the classic protocol
        value["classicMemberMetadata"] = m.classic_member_metadata
    return Record(CONNECT_WORKER_GROUP_MEMBER_METADATA, {"groupId": group_id, "memberId": m.member_id}, value)


def member_metadata_tombstone(group_id: str, member_id: str) -> Record:
    return Record(CONNECT_WORKER_GROUP_MEMBER_METADATA, {"groupId": group_id, "memberId": member_id}, None)


def target_record(group_id: str, epoch: int, error: int, delayed_until: int,
                  target: dict[str, TargetEntry]) -> Record:
    members = [{"memberId": mid, "error": t.error, "connectorsAndTasks": to_json(t.resources),
                "version": t.version, "metadata": t.metadata} for mid, t in sorted(target.items())]
    value = {"assignmentEpoch": epoch, "error": error, "delayedUntilMs": delayed_until, "members": members}
    return Record(CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT, {"groupId": group_id}, value)


def current_assignment_record(group_id: str, m: ConnectMember) -> Record:
    value = {"memberEpoch": m.member_epoch, "previousMemberEpoch": m.previous_member_epoch, "state": m.state,
             "error": m.error, "connectorsAndTasks": to_json(from_holdings(m.assigned)),
             "connectorsAndTasksPendingRevocation": to_json(from_holdings(m.pending_revocation)),
             "version": m.version, "metadata": m.metadata}
    return Record(CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT, {"groupId": group_id, "memberId": m.member_id},
                  value)


def current_assignment_tombstone(group_id: str, member_id: str) -> Record:
    return Record(CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT, {"groupId": group_id, "memberId": member_id}, None)


def replay(groups: dict[str, ConnectGroup], record: Record) -> None:
    """Apply one record; a group comes into being with its first record (at epoch 0: the
    draft's case studies start an empty group there, not at 4.3's KAFKA-20268 epoch 1)."""
    gid = record.key["groupId"]
    value = record.value
    group = groups.get(gid)
    if group is None:
        if value is None:
            return  # a tombstone for a group that is gone
        group = groups[gid] = ConnectGroup(gid)
    rtype = record.type
    if rtype == CONNECT_WORKER_GROUP_METADATA:
        if value is None:
            del groups[gid]
            return
        group.group_epoch = int(value["epoch"])
    elif rtype == CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA:
        connectors = {} if value is None else {c["name"]: c["tasks"] for c in value["connectors"]}
        group.config = config_resources(connectors)
    elif rtype == CONNECT_WORKER_GROUP_MEMBER_METADATA:
        _replay_member(group, record.key["memberId"], value)
    elif rtype == CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT:
        _replay_target(group, value)
    elif rtype == CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        _replay_assignment(group, record.key["memberId"], value)
    else:
        raise ReplayError(f"record type {rtype} is not a Connect record")


def _replay_member(group: ConnectGroup, member_id: str, value: dict[str, Any] | None) -> None:
    if value is None:
        group.members.pop(member_id, None)
        return
    m = group.members.get(member_id) or ConnectMember(member_id)
    m.joined_epoch = int(value["groupEpoch"])
    m.instance_id = value.get("instanceId")
    m.client_id = value.get("clientId", "")
    m.client_host = value.get("clientHost", "")
    m.rebalance_timeout_ms = int(value.get("rebalanceTimeoutMs", -1))
    m.assignors = tuple(Assignor.from_json(a) for a in value.get("assignors") or [])
    m.classic_member_metadata = value.get("classicMemberMetadata")
    group.members[member_id] = m


def _replay_target(group: ConnectGroup, value: dict[str, Any] | None) -> None:
    if value is None:
        group.target, group.assignment_epoch, group.target_error, group.delayed_until = {}, 0, 0, -1
        return
    group.assignment_epoch = int(value["assignmentEpoch"])
    group.target_error = int(value.get("error", 0))
    group.delayed_until = int(value.get("delayedUntilMs", -1))
    group.target = {m["memberId"]: TargetEntry(_parsed(m["connectorsAndTasks"]), int(m.get("error", 0)),
                                               int(m.get("version", 0)), m.get("metadata"))
                    for m in value["members"]}


def _replay_assignment(group: ConnectGroup, member_id: str, value: dict[str, Any] | None) -> None:
    m = group.members.get(member_id)
    if m is None:
        if value is None:
            return
        raise ReplayError(f"current assignment of unknown member {member_id}")
    if value is None:
        m.member_epoch, m.previous_member_epoch, m.state = 0, 0, 1
        m.assigned, m.pending_revocation = to_holdings({}), to_holdings({})
        return
    state = int(value["state"])
    if state not in STATE_NAMES:
        raise ReplayError(f"unknown member state {state}")
    m.member_epoch = int(value["memberEpoch"])
    m.previous_member_epoch = int(value["previousMemberEpoch"])
    m.state = state
    m.error = int(value.get("error", 0))
    m.assigned = to_holdings(_parsed(value["connectorsAndTasks"]))
    m.pending_revocation = to_holdings(_parsed(value["connectorsAndTasksPendingRevocation"]))
    m.version = int(value.get("version", 0))
    m.metadata = value.get("metadata")


def _parsed(value: Any) -> Resources:
    """A record's ``connectorsAndTasks``; what ``parse`` refuses (an empty connector name, ...) the
    replay rejects."""
    try:
        return parse(value)
    except ValueError as exc:
        raise ReplayError(str(exc)) from exc
