"""A group's state in the model, as rows a person reads: ``kgspec check --explain`` prints one
before and one after an event, in the style of ``kafka-consumer-groups --describe --members
--verbose`` (Kafka's ``ConsumerGroupCommand``: ``-`` for a missing value, assignments as
``topic:0,1,2;other:3`` with topic names, sorted), plus what the model adds: each member's
state and what it is still revoking. Reading only; nothing here changes the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kgspec.model.consumer.member import STATE_NAMES as CONSUMER_STATES
from kgspec.model.coordinator import Coordinator
from kgspec.model.streams.member import STATE_NAMES as STREAMS_STATES

MISSING: Final = "-"  # ConsumerGroupCommand's MISSING_COLUMN_VALUE
MEMBER_COLUMNS: Final = ("CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "STATE",
                         "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "PENDING-REVOCATION", "TARGET-EPOCH",
                         "TARGET-ASSIGNMENT")


@dataclass(slots=True)
class GroupSnapshot:
    group_id: str
    type: str  # consumer, streams, classic, connect, or "absent" (the model has no such group)
    facts: dict[str, Any] = field(default_factory=dict)  # group-level: state, epochs, generation, ...
    members: list[dict[str, str]] = field(default_factory=list)  # one row per member, MEMBER_COLUMNS keys

    def to_json(self) -> dict[str, Any]:
        return {"groupId": self.group_id, "type": self.type, "group": self.facts, "members": self.members}


def assignment_string(parts: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """``getAssignmentString``: ``topic:0,1,2;other:3``, topics by name, sorted; ``-`` when empty."""
    grouped: dict[str, list[int]] = {}
    for topic, ps in parts.items():
        if ps:
            grouped.setdefault((names or {}).get(topic, topic), []).extend(int(p) for p in ps)
    if not grouped:
        return MISSING
    return ";".join(sorted(f"{t}:{','.join(str(p) for p in sorted(ps))}" for t, ps in grouped.items()))


def task_string(roles: Mapping[str, Mapping[str, Any]]) -> str:
    """Streams tasks by role: ``active 0_1,0_2; standby 1_0``; ``-`` when none."""
    out = []
    for role, tasks in roles.items():
        ids = [f"{s}_{p}" for s, ps in sorted(tasks.items()) for p in sorted(ps)]
        if ids:
            out.append(f"{role} {','.join(ids)}")
    return "; ".join(out) if out else MISSING


def snapshot(coord: Coordinator, group_id: str, names: Mapping[str, str] | None = None) -> GroupSnapshot:
    """The group ``group_id`` of ``coord``'s model as it is now."""
    consumer = coord.groups.get(group_id)
    if consumer is not None:
        snap = GroupSnapshot(group_id, "consumer", {
            "state": consumer.state, "groupEpoch": consumer.group_epoch,
            "assignmentEpoch": consumer.assignment_epoch})
        for mid, m in sorted(consumer.members.items()):
            target = consumer.target.get(mid, {})
            snap.members.append(_row(mid, m.instance_id, m.client_host, m.client_id,
                                     sum(len(p) for p in m.assigned.values()),
                                     CONSUMER_STATES.get(m.state, str(m.state)), m.member_epoch,
                                     assignment_string(m.assigned, names),
                                     assignment_string(m.pending_revocation, names), consumer.assignment_epoch,
                                     assignment_string(target, names)))
        return snap
    streams = coord.streams_groups.get(group_id)
    if streams is not None:
        snap = GroupSnapshot(group_id, "streams", {
            "state": getattr(streams, "state", MISSING), "groupEpoch": streams.group_epoch,
            "assignmentEpoch": streams.assignment_epoch})
        for mid, sm in sorted(streams.members.items()):
            roles = streams.target.get(mid, {})
            snap.members.append(_row(mid, sm.instance_id, sm.client_host, sm.client_id,
                                     sum(len(p) for p in sm.assigned.get("active", {}).values()),
                                     STREAMS_STATES.get(sm.state, str(sm.state)), sm.member_epoch,
                                     task_string(sm.assigned), task_string(sm.pending_revocation),
                                     streams.assignment_epoch, task_string(roles)))
        return snap
    classic = coord.classic_groups.get(group_id)
    if classic is not None:
        snap = GroupSnapshot(group_id, "classic", {
            "state": str(classic.state), "generationId": classic.generation_id,
            "protocol": classic.protocol_name or MISSING, "leader": classic.leader_id or MISSING})
        for mid, cm in sorted(classic.members.items()):
            snap.members.append(_row(mid, cm.instance_id, cm.client_host, cm.client_id, None,
                                     "joining" if mid in classic.pending_join else
                                     "awaiting sync" if mid in classic.pending_sync else MISSING,
                                     classic.generation_id, MISSING, MISSING, None, MISSING))
        return snap
    connect = coord.connect_groups.get(group_id)
    if connect is not None:
        members = getattr(connect, "members", {})
        snap = GroupSnapshot(group_id, "connect", {"groupEpoch": getattr(connect, "group_epoch", MISSING)})
        for mid, member in sorted(members.items()):
            snap.members.append(_row(mid, getattr(member, "instance_id", None), getattr(member, "client_host", ""),
                                     getattr(member, "client_id", ""), None, MISSING,
                                     getattr(member, "member_epoch", None), MISSING, MISSING, None, MISSING))
        return snap
    return GroupSnapshot(group_id, "absent")


def _row(member_id: str, instance_id: str | None, host: str, client_id: str, partitions: int | None, state: str,
         epoch: int | None, current: str, pending: str, target_epoch: int | None, target: str) -> dict[str, str]:
    values = (member_id, instance_id or MISSING, host or MISSING, client_id or MISSING,
              MISSING if partitions is None else str(partitions), state,
              MISSING if epoch is None else str(epoch), current, pending,
              MISSING if target_epoch is None else str(target_epoch), target)
    return dict(zip(MEMBER_COLUMNS, values, strict=True))
