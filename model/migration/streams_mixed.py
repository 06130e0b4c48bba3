"""Classic calls to a non-empty streams group: classic Streams members (profile ``kip`` only).

The seed (KIP-1071, "Online Migration ..."): "During the migration, all the JoinGroup, SyncGroup
and Heartbeat calls from the non-upgraded consumers are translated to the new Streams protocol";
"The JoinGroup API updates the group state and provides the active and standby tasks owned
(warm-ups are standby tasks in the classic protocol), the SyncGroup API gets back the task
assignment, and the Heartbeat API updates the session"; the coordinator asks for a rejoin "by
returning the REBALANCE_IN_PROGRESS error in the heartbeat response". Kafka never implemented
this; everything the seed leaves open is decided as Kafka's consumer-group mixed mode does it
(``model/migration/mixed.py``) and listed in ``docs/migration.md`` ("Streams groups (kip)"):

- **JoinGroup** is translated into a joining StreamsGroupHeartbeat (epoch 0, no topology) of the
  member, with process id, topology epoch, endpoint, tags and owned tasks from kgspec's Streams
  user data (:mod:`kgspec.model.migration.streams_protocol`); a reported standby the member
  holds as a warm-up is reported as that warm-up. The heartbeat does everything else (record 19
  with ``classicMemberMetadata``, epoch bump, target, reconciliation). The response: generation =
  member epoch, protocol type ``consumer``, protocol name = the member's first protocol, leader "",
  no members. A new dynamic member on v4+ gets MEMBER_ID_REQUIRED (no pending member); then the
  classic session timeout and ``sync-{g}-{m}`` (rebalance timeout) are armed.
- **SyncGroup** answers the member's *current* tasks (warm-ups with the standbys), or
  REBALANCE_IN_PROGRESS when its target epoch moved past its epoch (and ``join-{g}-{m}``).
- **Heartbeat** asks for a rejoin (REBALANCE_IN_PROGRESS) when the member's assignment would move
  on: its epoch is behind the assignment epoch, it has tasks to revoke (UNREVOKED_TASKS), or a task
  it waits for was released (UNRELEASED_TASKS and the reconciler would now grant something).
- **LeaveGroup** fences every named member at once, or downgrades (``streams_downgrade.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.classic.join import JoinRequest
from kgspec.model.classic.responses import (
    heartbeat_response,
    join_response,
    leave_response,
    sync_response,
)
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import members as mm
from kgspec.model.migration import streams_downgrade
from kgspec.model.migration.mixed import Effects, Outcome, join_key, sync_key
from kgspec.model.migration.protocol import SchemaError, read_version
from kgspec.model.migration.streams_protocol import (
    decode_streams_subscription,
    encode_role_assignment,
)
from kgspec.model.streams import ops
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.heartbeat import StreamsHeartbeat
from kgspec.model.streams.member import (
    UNRELEASED_TASKS,
    UNREVOKED_TASKS,
    WARMUP,
    StreamsMember,
)
from kgspec.model.streams.reconcile import build_current_assignment
from kgspec.model.streams.records import tasks_json

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


# --- JoinGroup ---------------------------------------------------------------------------


def join(coord: Coordinator, group: StreamsGroup, req: JoinRequest, now: int) -> Outcome:
    try:
        return _join(coord, group, req, now)
    except CoordinatorError as exc:
        return Outcome(join_response(req.version, int(exc.error)), explain=[exc.message or exc.error.name])


def _join(coord: Coordinator, group: StreamsGroup, req: JoinRequest, now: int) -> Outcome:
    gid = group.group_id
    unknown = req.member_id == ""
    member_id = (req.chosen_member_id or coord.new_member_id()) if unknown else req.member_id  # a UUID
    existing = group.members.get(member_id)
    max_size = coord.config.int("group.streams.max.size")
    if existing is None and len(group.members) >= max_size:
        raise CoordinatorError(Errors.GROUP_MAX_SIZE_REACHED,
                               f"The streams group has reached its maximum capacity of {max_size} members.")
    if not mm.supports_protocols(group.members.values(), req.protocol_type, req.names()):
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"Member {member_id}'s protocols are not supported.")
    if existing is not None and not existing.uses_classic():
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} does not use the classic protocol.")
    if req.version >= 4 and unknown and req.instance_id is None:
        return Outcome(join_response(req.version, int(Errors.MEMBER_ID_REQUIRED), member_id=member_id),
                       explain=[f"new dynamic classic member: pending as {member_id} until it rejoins with that id"])
    try:
        sub = decode_streams_subscription(req.protocols[0][1])
    except SchemaError:
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL,
                               "Malformed embedded streams protocol in subscription deserialization.") from None
    held_warmups = existing.assigned.get(WARMUP, {}) if existing is not None else {}
    standby: dict[str, frozenset[int]] = {}
    warmup: dict[str, frozenset[int]] = {}
    for sid, parts in sub.standby.items():
        as_warmup = frozenset(p for p in parts if p in held_warmups.get(sid, {}))
        if as_warmup:
            warmup[sid] = as_warmup
        if parts - as_warmup:
            standby[sid] = parts - as_warmup
    request: dict[str, Any] = {
        "groupId": gid, "memberId": member_id, "memberEpoch": 0, "instanceId": req.instance_id,
        "rackId": sub.rack_id, "rebalanceTimeoutMs": req.rebalance_timeout_ms, "topology": None,
        "processId": sub.process_id,
        "userEndpoint": None if sub.user_endpoint is None else {"host": sub.user_endpoint[0],
                                                                "port": sub.user_endpoint[1]},
        "clientTags": [{"key": k, "value": v} for k, v in sorted(sub.client_tags.items())],
        "activeTasks": tasks_json(sub.active), "standbyTasks": tasks_json(standby), "warmupTasks": tasks_json(warmup),
        "shutdownApplication": False, "endpointInformationEpoch": group.endpoint_information_epoch,
    }
    step = StreamsHeartbeat(coord, request, None, req.client_id, req.client_host, now,
                            classic_metadata=mm.classic_metadata(req.session_timeout_ms, req.protocols),
                            classic_topology_epoch=sub.topology_epoch)
    answer = step.run()
    epoch = int(answer["memberEpoch"])
    coord.timers.cancel(join_key(gid, member_id))
    ops.schedule_classic_timer(coord, gid, member_id, "sync", now + req.rebalance_timeout_ms)
    step.explain.append(f"classic Streams member {member_id} joined streams group {gid} at epoch {epoch}")
    return Outcome(join_response(req.version, member_id=member_id, generation_id=epoch,
                                 protocol_type=mm.CONSUMER_PROTOCOL_TYPE, protocol_name=req.protocols[0][0]),
                   step.records, step.effects, step.explain)


# --- SyncGroup / Heartbeat -------------------------------------------------------------------


def _rejoin(coord: Coordinator, group: StreamsGroup, member: StreamsMember, now: int) -> CoordinatorError:
    ops.schedule_classic_timer(coord, group.group_id, member.member_id, "join", now + member.rebalance_timeout_ms,
                               if_absent=True)
    return mm.rebalance_in_progress(group.group_id, member.member_id)


def sync(coord: Coordinator, group: StreamsGroup, req: dict[str, Any], version: int, now: int) -> Outcome:
    protocol_type = req.get("protocolType") if version >= 5 else None
    protocol_name = req.get("protocolName") if version >= 5 else None
    member_id = req.get("memberId") or ""
    gid = group.group_id
    try:
        member = mm.calling_member_or_throw(group, req, version)
        name, metadata = mm.first_protocol(member)
        mm.check_sync_protocol(member_id, protocol_type, protocol_name, name)
        if group.assignment_epoch > member.member_epoch and member.state != UNREVOKED_TASKS:
            raise _rejoin(coord, group, member, now)
        protocol_version = read_version(metadata)
    except SchemaError:
        return Outcome(sync_response(version, int(Errors.UNKNOWN_SERVER_ERROR)),
                       explain=["Malformed embedded consumer protocol in version deserialization."])
    except CoordinatorError as exc:
        return Outcome(sync_response(version, int(exc.error)), explain=[exc.message or exc.error.name])
    coord.timers.cancel(sync_key(gid, member_id))
    ops.schedule_session_timeout(coord, gid, member_id, now, mm.session_timeout(member))
    assignment = encode_role_assignment(member.assigned_sets(), protocol_version)
    return Outcome(sync_response(version, protocol_type=protocol_type, protocol_name=protocol_name,
                                 assignment=assignment),
                   explain=[f"classic Streams member {member_id} gets its tasks at epoch {member.member_epoch}"])


def heartbeat(coord: Coordinator, group: StreamsGroup, req: dict[str, Any], version: int, now: int) -> Outcome:
    member_id = req.get("memberId") or ""
    try:
        member = mm.calling_member_or_throw(group, req, version)
        ops.schedule_session_timeout(coord, group.group_id, member_id, now, mm.session_timeout(member))
        if must_rejoin(coord, group, member):
            raise _rejoin(coord, group, member, now)
    except CoordinatorError as exc:
        return Outcome(heartbeat_response(version, int(exc.error)), explain=[exc.message or exc.error.name])
    return Outcome(heartbeat_response(version))


def must_rejoin(coord: Coordinator, group: StreamsGroup, member: StreamsMember) -> bool:
    """Whether a heartbeat with the member's current tasks would move its assignment on."""
    if member.member_epoch < group.assignment_epoch or member.state == UNREVOKED_TASKS:
        return True
    if member.state != UNRELEASED_TASKS:
        return False
    targets = group.refined_for(group.assignment_epoch) or group.target
    moved = build_current_assignment(group, member, group.assignment_epoch, targets.get(member.member_id, {}),
                                     member.assigned_sets(), coord.mutants,
                                     in_place=coord.profile.streams_in_place_role_changes,
                                     seed=coord.profile.streams_kip_seed_reconciliation)
    return not moved.assignment_equals(member)


# --- LeaveGroup --------------------------------------------------------------------------------


def leave(coord: Coordinator, group: StreamsGroup, identities: list[tuple[str, str | None, str | None]],
          version: int, now: int) -> Outcome:
    answers, leaving = mm.leaving_members(group, identities)
    effects: Effects = []
    records = streams_downgrade.fence(coord, group, leaving, effects, now, "left")
    explain = [f"members {sorted(m.member_id for m in leaving)} left through LeaveGroup"] if leaving else []
    return Outcome(leave_response(version, 0, answers), records, effects, explain)
