"""ConnectGroupHeartbeat (draft 'ConnectGroupHeartbeat API'), in the draft's order.

Request Handling: (0) validation, (1) look up or create the group, (2) create the member on
epoch 0 or find it (UNKNOWN_MEMBER_ID), (3) check the epoch (FENCED_MEMBER_EPOCH, and the worker
is removed; the lost-response exception), (4) update the worker (group epoch + 1 on a change of
its assignors, reason or metadata), then the assignment process (COMPUTE_ASSIGNMENT to the
chosen worker) and (5) reconciliation through the shared engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgspec.model.connect import ops
from kgspec.model.connect import records as crec
from kgspec.model.connect.group import ConnectGroup, overlaps_everyone
from kgspec.model.connect.member import LEAVE_GROUP_MEMBER_EPOCH, UNREVOKED, Assignor, ConnectMember
from kgspec.model.connect.reconcile import reconcile
from kgspec.model.connect.resources import Resources, items, parse, to_json
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.records import Record
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


def _invalid(message: str) -> CoordinatorError:
    return CoordinatorError(Errors.INVALID_REQUEST, message)


def parse_assignors(value: Any) -> tuple[Assignor, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _invalid("ClientAssignors must be a list.")
    out = []
    for a in value:
        if not isinstance(a, dict):
            raise _invalid("ClientAssignors entries must be objects.")
        name = a.get("name")
        lo, hi, version = a.get("minimumVersion"), a.get("maximumVersion"), a.get("version", 0)
        if not isinstance(name, str) or not name:
            raise _invalid("Assignor.Name must be non-empty.")
        if not isinstance(lo, int) or lo < -1:
            raise _invalid("Assignor.MinimumVersion must be >= -1.")
        if not isinstance(hi, int) or hi < 0 or hi < lo:
            raise _invalid("Assignor.MaximumVersion must be >= 0 and >= Assignor.MinimumVersion.")
        if not isinstance(version, int) or not lo <= version <= hi:
            raise _invalid("Assignor.Version must be >= Assignor.MinimumVersion and <= Assignor.MaximumVersion.")
        out.append(Assignor(name, lo, hi, int(a.get("reason", 0)), version, a.get("metadata")))
    return tuple(out)


def validate(req: dict[str, Any]) -> tuple[tuple[Assignor, ...] | None, Resources | None]:
    """'Request Validation': INVALID_REQUEST, then UNSUPPORTED_ASSIGNOR for a server assignor."""
    if not req.get("groupId"):
        raise _invalid("GroupId can't be empty.")
    if not req.get("memberId"):
        raise _invalid("MemberId can't be empty.")
    epoch = req.get("memberEpoch")
    if not isinstance(epoch, int) or epoch < LEAVE_GROUP_MEMBER_EPOCH:
        raise _invalid("MemberEpoch must be >= -1.")
    if req.get("instanceId") is not None and not req["instanceId"]:
        raise _invalid("InstanceId can't be empty.")
    if epoch == 0 and not (isinstance(req.get("rebalanceTimeoutMs"), int) and req["rebalanceTimeoutMs"] > 0):
        raise _invalid("RebalanceTimeoutMs must be larger than zero in the first heartbeat request.")
    if req.get("serverAssignor") is not None and req.get("clientAssignors") is not None:
        raise _invalid("ServerAssignor and ClientAssignors cannot be used together.")
    assignors = parse_assignors(req.get("clientAssignors"))
    owned = None
    if req.get("connectorsAndTasks") is not None:
        try:
            owned = parse(req["connectorsAndTasks"])
        except ValueError as exc:
            raise _invalid(f"ConnectorsAndTasks: {exc}.") from None
    if req.get("serverAssignor") is not None:
        raise CoordinatorError(Errors.UNSUPPORTED_ASSIGNOR,
                               f"ServerAssignor {req['serverAssignor']} is not supported: Connect groups use "
                               "client-side assignors.")
    return assignors, owned


def heartbeat(coord: Coordinator, req: dict[str, Any], now: int, client_id: str, client_host: str,
              classic_metadata: dict[str, Any] | None = None) -> Decision:
    """``classic_metadata``: the call is a classic JoinGroup translated by the online migration
    (``model/migration/connect_mixed.py``); the worker stays on the classic protocol."""
    records: list[Record] = []
    explain: list[str] = []
    effects: list[Callable[[], None]] = []

    def emit(new: list[Record]) -> None:
        coord.apply(new)
        records.extend(new)
        while effects:  # online migration: in-memory work after the records (timers, parked calls)
            effects.pop(0)()

    try:
        assignors, owned = validate(req)
        gid, mid, epoch = req["groupId"], req["memberId"], req["memberEpoch"]
        classic = coord.classic_groups.get(gid)
        if classic is not None and coord.profile.connect_online_migration:  # seed 001 "Migration"
            joining = ConnectMember(mid, assignors=assignors or ())
            emit(coord.migration.connect_records_for_join(coord, classic, joining, epoch, effects, now))
            explain.append(f"classic group {gid} converted to a connect group at generation {classic.generation_id}"
                           if classic.members else f"empty classic group {gid} deleted")
        ops.check_namespace(coord, gid)
        group = coord.connect_groups.get(gid)
        member = group.members.get(mid) if group is not None else None
        if epoch == LEAVE_GROUP_MEMBER_EPOCH:
            if group is None or member is None:
                raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {mid} is not a member of group {gid}.")
            emit(ops.fence_records(coord, group, mid, "left", effects))
            ops.sync(coord, group)
            explain.append(f"worker {mid} left: group epoch bumped to {group.group_epoch}")
            return Decision({"errorCode": 0, "errorMessage": None, "memberEpoch": LEAVE_GROUP_MEMBER_EPOCH,
                                "heartbeatIntervalMs": 0, "assignment": None}, records, explain)
        if member is None:
            if epoch != 0:
                raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {mid} is not a member of group {gid}.")
            member = ConnectMember(mid)
        elif epoch != 0 and epoch != member.member_epoch:
            assert group is not None
            if not _lost_response(member, epoch, owned):
                emit(ops.fence_records(coord, group, mid, effects=effects))
                ops.sync(coord, group)
                explain.append(f"worker {mid} sent epoch {epoch}, its epoch is {member.member_epoch}: removed")
                raise CoordinatorError(Errors.FENCED_MEMBER_EPOCH,
                                       f"The member epoch {epoch} does not match the expected {member.member_epoch}.")
            explain.append(f"epoch {epoch} accepted: the response moving worker {mid} to "
                           f"{member.member_epoch} was lost and it owns a subset of its assignment")
        group = _update_member(coord, gid, group, member, req, assignors, client_id, client_host, emit, explain,
                               classic_metadata)
        member = group.members[mid]
        compute = ops.select_on_heartbeat(coord, group, member, now, explain)
        before = member.copy()  # replay updates the stored worker in place
        updated = reconcile(group, member, owned, coord.mutants)
        if not updated.assignment_equals(member):
            emit([crec.current_assignment_record(gid, updated)])
        member = group.members[mid]
        ops.schedule_session(coord, gid, mid, now)
        if member.state == UNREVOKED:
            if before.state != UNREVOKED or before.member_epoch != member.member_epoch:
                ops.schedule_rebalance(coord, gid, member, now)
        else:
            coord.timers.cancel(ops.rebalance_timer_key(gid, mid))
    except CoordinatorError as exc:
        return Decision({**ops.error_response(exc), "memberEpoch": 0, "heartbeatIntervalMs": 0,
                            "assignment": None}, records, [*explain, exc.message or ""], exc)
    changed = items(before.assigned) != items(member.assigned) or before.member_epoch != member.member_epoch
    give = epoch == 0 or epoch != member.member_epoch or changed
    assignment = None if not give else {
        "error": member.error, "connectorsAndTasks": to_json(member.assigned_resources()),
        "version": member.version, "metadata": member.metadata}
    response = {"errorCode": int(Errors.COMPUTE_ASSIGNMENT) if compute else 0,
                "errorMessage": "The member has been selected to compute the new target assignment." if compute
                else None,
                "memberEpoch": member.member_epoch,
                "heartbeatIntervalMs": coord.config.int("group.connect.heartbeat.interval.ms"),
                "assignment": assignment}
    return Decision(response, records, explain)


def _lost_response(member: ConnectMember, epoch: int, owned: Resources | None) -> bool:
    """Request Handling 3, the edge case: the previous epoch, owning a subset of the assignment."""
    return (epoch == member.previous_member_epoch and owned is not None
            and items(owned) <= items(member.assigned_resources()))


def _update_member(coord: Coordinator, gid: str, group: ConnectGroup | None, member: ConnectMember,
                   req: dict[str, Any], assignors: tuple[Assignor, ...] | None, client_id: str, client_host: str,
                   emit: Any, explain: list[str], classic_metadata: dict[str, Any] | None = None) -> ConnectGroup:
    """Step 4: new worker or changed assignors/reason/metadata: group epoch + 1."""
    is_new = group is None or member.member_id not in group.members
    updated = member.copy()
    if assignors is not None:
        updated.assignors = assignors
    if req.get("rebalanceTimeoutMs", -1) != -1:
        updated.rebalance_timeout_ms = int(req["rebalanceTimeoutMs"])
    if req.get("instanceId") is not None:
        updated.instance_id = req["instanceId"]
    updated.client_id, updated.client_host = client_id, client_host
    if req["memberEpoch"] == 0:  # a join says which protocol the worker speaks now
        updated.classic_member_metadata = classic_metadata
    bump = is_new or updated.assignors != member.assignors
    others = [] if group is None else [m for k, m in group.members.items() if k != member.member_id]
    if bump and not overlaps_everyone(updated, others):
        raise CoordinatorError(Errors.UNSUPPORTED_ASSIGNOR,
                               "The ClientAssignors' version ranges do not overlap with the other members'.")
    epoch = (group.group_epoch if group is not None else 0) + (1 if bump else 0)
    if is_new:
        updated.joined_epoch = epoch
    new: list[Record] = []
    if is_new or not updated.metadata_equals(member):
        new.append(crec.member_metadata_record(gid, updated))
    if bump:
        new.append(crec.group_metadata_record(gid, epoch))
        explain.append(f"worker {member.member_id} {'joined' if is_new else 'changed its assignors'}: "
                       f"group epoch bumped to {epoch}")
    emit(new)
    return coord.connect_groups[gid]
