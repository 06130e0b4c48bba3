"""Classic calls to a Connect group of the draft: workers not upgraded yet (profile ``kip`` only).

Seed 001, "Migration To the New Protocol": "JoinGroup, SyncGroup and Heartbeat calls need to be
translated into the new protocol. We will rely on ConnectGroupHeartbeat API for the translation
of the 3 APIs. Concretely, the API updates the group state, provides the connectors/tasks owned by
the worker, gets back the assignment, and updates the session. … The group coordinator has to
trigger it when needed by returning the REBALANCE_IN_PROGRESS error in the heartbeat response."
The headings "JoinGroup Handling", "SyncGroup Handling", "Heartbeat Handling" are empty; kgspec
fills them as Kafka's consumer-group mixed mode does (``model/migration/mixed.py``), docs/kip.md:

- **JoinGroup** (protocol type ``connect``, a protocol every classic worker lists, else
  INCONSISTENT_GROUP_PROTOCOL) is a joining ConnectGroupHeartbeat (epoch 0) of the worker (a
  member id the group does not know is created, as Kafka's ``getOrMaybeCreateMember(id, true)``): its
  protocols as one client assignor (``connect_upgrade.translate_assignor``), the connectors and
  tasks its first protocol's metadata says it owns, and ``classicMemberMetadata``. The response:
  generation = the worker's epoch, protocol type ``connect``, protocol name = its first protocol,
  leader "" and no members (a follower: the coordinator assigns). A new dynamic worker on v4+ gets
  MEMBER_ID_REQUIRED first; a translated join that fails answers the heartbeat's error.
- **SyncGroup** answers the worker's *current* connectors and tasks as a Connect Assignment at its
  protocol's version, or REBALANCE_IN_PROGRESS when its epoch is behind the assignment epoch.
  Version 0 (eager): the full assignment. Versions 1-2 (incremental cooperative): ``assignment``
  = what it holds now and did not report at its join, ``revoked`` = what it reported and no
  longer holds (the client applies them as changes).
- **Heartbeat** refreshes the session and answers REBALANCE_IN_PROGRESS when the worker's
  assignment would move on (its epoch is behind the assignment epoch, it must revoke, or work it
  waits for was released).
- **LeaveGroup** removes each named worker (``fence_records``: may switch the group back).

Connect handlers apply their records as they go, so an outcome here is ``applied``: the classic
step adopts its records without replaying them.
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
from kgspec.model.connect import ops as connect_ops
from kgspec.model.connect.group import ConnectGroup
from kgspec.model.connect.heartbeat import heartbeat as connect_heartbeat
from kgspec.model.connect.member import STATE_NAMES, UNRELEASED, UNREVOKED, ConnectMember
from kgspec.model.connect.reconcile import reconcile
from kgspec.model.connect.resources import from_items, items, to_json
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import connect_downgrade
from kgspec.model.migration import members as mm
from kgspec.model.migration.connect_protocol import (
    CONNECT_PROTOCOL_TYPE,
    ConnectAssignment,
    decode_worker_state,
    encode_connect_assignment,
    protocol_version,
)
from kgspec.model.migration.connect_upgrade import owned_at_join, translate_assignor
from kgspec.model.migration.mixed import Outcome
from kgspec.model.migration.protocol import SchemaError
from kgspec.model.records import Record
from kgspec.spec import tables

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


class Applied(Outcome):
    """An outcome whose records the Connect handlers already applied (the classic step adopts
    them without replaying)."""

    __slots__ = ()
    applied = True


def _applied(response: dict[str, Any], records: list[Record] | None = None,
             explain: list[str] | None = None) -> Outcome:
    return Applied(response, records, None, explain)


def _classic_workers(group: ConnectGroup) -> list[ConnectMember]:
    return [m for m in group.members.values() if m.classic_member_metadata is not None]


def supports_protocols(group: ConnectGroup, protocol_type: str, names: set[str]) -> bool:
    """Type ``connect`` and a protocol name every classic worker lists (``supportsClassicProtocols``)."""
    if protocol_type != CONNECT_PROTOCOL_TYPE:
        return False
    listed = [{n for n, _ in mm.protocols(m)} for m in _classic_workers(group)]
    return any(all(name in ps for ps in listed) for name in names) if listed else bool(names)


# --- JoinGroup ---------------------------------------------------------------------------


def join(coord: Coordinator, group: ConnectGroup, req: JoinRequest, now: int) -> Outcome:
    gid = group.group_id
    unknown = req.member_id == ""
    member_id = (req.chosen_member_id or coord.new_member_id()) if unknown else req.member_id
    existing = group.members.get(member_id)
    if not supports_protocols(group, req.protocol_type, req.names()):
        return _applied(join_response(req.version, int(Errors.INCONSISTENT_GROUP_PROTOCOL)),
                        explain=[f"Member {member_id}'s protocols are not supported."])
    if existing is not None and existing.classic_member_metadata is None:
        return _applied(join_response(req.version, int(Errors.UNKNOWN_MEMBER_ID)),
                        explain=[f"Member {member_id} does not use the classic protocol."])
    if req.version >= 4 and unknown and req.instance_id is None:
        return _applied(join_response(req.version, int(Errors.MEMBER_ID_REQUIRED), member_id=member_id),
                        explain=[f"new dynamic classic worker: pending as {member_id} until it rejoins with that id"])
    try:
        assignor = translate_assignor(req.protocols)
        owned = owned_at_join(req.protocols)
    except SchemaError:
        return _applied(join_response(req.version, int(Errors.INCONSISTENT_GROUP_PROTOCOL)),
                        explain=["Malformed embedded connect protocol in the JoinGroup metadata."])
    request = {"groupId": gid, "memberId": member_id, "memberEpoch": 0, "instanceId": req.instance_id,
               "rebalanceTimeoutMs": req.rebalance_timeout_ms, "serverAssignor": None,
               "clientAssignors": [assignor.to_json()], "connectorsAndTasks": to_json(owned)}
    decision = connect_heartbeat(coord, request, now, req.client_id, req.client_host,
                                 classic_metadata=mm.classic_metadata(req.session_timeout_ms, req.protocols))
    answer = decision.response or {}
    error = int(answer.get("errorCode", 0))
    if error not in (0, int(Errors.COMPUTE_ASSIGNMENT)):
        return _applied(join_response(req.version, error), decision.records, [*decision.explain])
    epoch = int(answer["memberEpoch"])
    worker = coord.connect_groups[gid].members[member_id]
    coord.timers.cancel(connect_ops.classic_timer_key("join", gid, member_id))
    connect_ops.schedule_classic(coord, gid, worker, "sync", now)
    return _applied(join_response(req.version, member_id=member_id, generation_id=epoch,
                                  protocol_type=CONNECT_PROTOCOL_TYPE, protocol_name=req.protocols[0][0]),
                    decision.records, [*decision.explain, f"classic worker {member_id} joined at epoch {epoch}"])


# --- SyncGroup / Heartbeat -------------------------------------------------------------------


def _calling_worker(group: ConnectGroup, req: dict[str, Any]) -> ConnectMember:
    member_id = req.get("memberId") or ""
    generation = int(req["generationId"])
    member = group.members.get(member_id)
    if member is None:
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group "
                                                         f"{group.group_id}.")
    if member.classic_member_metadata is None:
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} does not use the classic protocol.")
    if member.member_epoch != generation:
        raise CoordinatorError(Errors.ILLEGAL_GENERATION, f"The request generation id {generation} is not equal to "
                               f"the member epoch {member.member_epoch} of member {member_id}.")
    return member


def _rejoin(coord: Coordinator, group: ConnectGroup, member: ConnectMember, now: int) -> CoordinatorError:
    connect_ops.schedule_classic(coord, group.group_id, member, "join", now, if_absent=True)
    return mm.rebalance_in_progress(group.group_id, member.member_id)


def config_offset(group: ConnectGroup) -> int:
    """The config topic offset an assignment carries: the highest the classic workers reported
    (a Connect leader's ``maxOffset``; the draft's workers report none)."""
    offsets = [decode_worker_state(mm.first_protocol(m)[1]).config_offset for m in _classic_workers(group)]
    return max(offsets, default=0)


def sync_assignment(group: ConnectGroup, member: ConnectMember) -> str:
    """The worker's current connectors and tasks in its protocol's Assignment format (no leader:
    leader and leader URL are empty)."""
    name, metadata = mm.first_protocol(member)
    version = protocol_version(name)
    offset = config_offset(group)
    now_held = member.assigned_resources()
    if version == 0:
        return encode_connect_assignment(ConnectAssignment(0, config_offset=offset, assigned=now_held))
    reported = items(owned_at_join(((name, metadata),)))
    held = items(now_held)
    return encode_connect_assignment(ConnectAssignment(version, config_offset=offset,
                                                       assigned=from_items(held - reported),
                                                       revoked=from_items(reported - held)))


def sync(coord: Coordinator, group: ConnectGroup, req: dict[str, Any], version: int, now: int) -> Outcome:
    protocol_type = req.get("protocolType") if version >= 5 else None
    protocol_name = req.get("protocolName") if version >= 5 else None
    try:
        member = _calling_worker(group, req)
        name, _ = mm.first_protocol(member)
        if protocol_type is not None and protocol_type != CONNECT_PROTOCOL_TYPE:
            raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"The protocol type {protocol_type} is "
                                   "not the group's protocol type connect.")
        if protocol_name is not None and protocol_name != name:
            raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"The protocol name {protocol_name} is not "
                                   f"the protocol name {name} returned in the join response.")
        if group.assignment_epoch > member.member_epoch and member.state != UNREVOKED:
            raise _rejoin(coord, group, member, now)
        assignment = sync_assignment(group, member)
    except SchemaError:
        return _applied(sync_response(version, int(Errors.UNKNOWN_SERVER_ERROR)),
                        explain=["Malformed embedded connect protocol."])
    except CoordinatorError as exc:
        return _applied(sync_response(version, int(exc.error)), explain=[exc.message or exc.error.name])
    coord.timers.cancel(connect_ops.classic_timer_key("sync", group.group_id, member.member_id))
    connect_ops.schedule_session(coord, group.group_id, member.member_id, now)
    return _applied(sync_response(version, protocol_type=protocol_type, protocol_name=protocol_name,
                                  assignment=assignment),
                    explain=[f"classic worker {member.member_id} gets its connectors and tasks at epoch "
                             f"{member.member_epoch}"])


def heartbeat(coord: Coordinator, group: ConnectGroup, req: dict[str, Any], version: int, now: int) -> Outcome:
    try:
        member = _calling_worker(group, req)
        connect_ops.schedule_session(coord, group.group_id, member.member_id, now)
        if must_rejoin(coord, group, member):
            raise _rejoin(coord, group, member, now)
    except CoordinatorError as exc:
        return _applied(heartbeat_response(version, int(exc.error)), explain=[exc.message or exc.error.name])
    return _applied(heartbeat_response(version))


def must_rejoin(coord: Coordinator, group: ConnectGroup, member: ConnectMember) -> bool:
    """Whether a heartbeat with the worker's current holdings would move its assignment on."""
    if member.member_epoch < group.assignment_epoch or member.state == UNREVOKED:
        return True
    if member.state != UNRELEASED:
        return False
    moved = reconcile(group, member, member.assigned_resources(), coord.mutants)
    return moved.state != member.state or items(moved.assigned_resources()) != items(member.assigned_resources())


# --- LeaveGroup --------------------------------------------------------------------------------


def leave(coord: Coordinator, group: ConnectGroup, identities: list[tuple[str, str | None, str | None]],
          version: int, now: int) -> Outcome:
    answers: list[dict[str, Any]] = []
    records: list[Record] = []
    explain: list[str] = []
    leaving: list[str] = []
    for member_id, instance_id, _reason in identities:
        if instance_id is None:
            found = group.members.get(member_id)
        else:
            found = next((m for m in group.members.values() if m.instance_id == instance_id), None)
        error = 0 if found is not None else int(Errors.UNKNOWN_MEMBER_ID)
        answers.append({"memberId": member_id, "groupInstanceId": instance_id, "errorCode": error})
        if found is not None and found.member_id not in leaving:
            leaving.append(found.member_id)
    effects: list[Any] = []
    together = connect_downgrade.downgrade_records(coord, group, leaving, effects) if leaving else None
    if together is not None:  # the last worker on the draft's protocol is among them: back to classic
        for mid in leaving:
            tables.fire("connect-member", STATE_NAMES[group.members[mid].state], "left")
        records = together
        coord.apply(records)
        for effect in effects:
            effect()
        explain.append(f"workers {leaving} left through LeaveGroup: group {group.group_id} is classic again")
        return _applied(leave_response(version, 0, answers), records, explain)
    # One at a time, classic workers first: the group keeps a worker on the draft's protocol until
    # the end, so none of these removals switches it back half-way.
    for mid in sorted(leaving, key=lambda m: group.members[m].classic_member_metadata is None):
        new = connect_ops.fence_records(coord, group, mid, "left", effects)
        coord.apply(new)
        records.extend(new)
        explain.append(f"worker {mid} left through LeaveGroup")
    connect_ops.sync(coord, group)
    return _applied(leave_response(version, 0, answers), records, explain)
