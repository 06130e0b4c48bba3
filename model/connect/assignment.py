"""ConnectGroupPrepareAssignment and ConnectGroupInstallAssignment (draft APIs of the same names).

Prepare hands the chosen worker the group metadata and the current target; Install validates
the worker's assignment against *that* metadata ('Assignment Validation': the group may have
moved on meanwhile) and installs it as the target at the prepared group epoch.

Validation (each rule answers INVALID_ASSIGNMENT):
- 'All workers exists': every worker in the install was a member when it was prepared;
- 'A connector/task is assigned only once';
- kgspec: only configured connectors/tasks are assigned;
- 'All connectors/tasks are assigned', except, during the incremental cooperative delay
  (``group.connect.scheduled.rebalance.max.delay.ms``), those no prepared worker holds in the
  current target (a departed worker's, case 'Worker Leaving the Group'). The first install that
  leaves some out starts the delay; when it ends the coordinator bumps the group epoch (the
  chosen worker may do it earlier through its assignor's reason, as the case studies do), and an
  install after it must assign everything.
'Assignment Error': an install whose Error is not 0 retains the current assignments.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from kgspec.model.connect import ops
from kgspec.model.connect import records as crec
from kgspec.model.connect.group import ConnectGroup, Snapshot, TargetEntry, selected_assignor
from kgspec.model.connect.resources import items, label, parse, to_json
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


def _invalid(message: str) -> CoordinatorError:
    return CoordinatorError(Errors.INVALID_REQUEST, message)


def _check_common(coord: Coordinator, req: dict[str, Any]) -> tuple[ConnectGroup, str]:
    """Validation and Request Handling steps 1-4, shared by both APIs."""
    if not req.get("groupId"):
        raise _invalid("GroupId can't be empty.")
    if not req.get("memberId"):
        raise _invalid("MemberId can't be empty.")
    epoch = req.get("memberEpoch")
    if not isinstance(epoch, int) or epoch < 0:
        raise _invalid("MemberEpoch must be >= 0.")
    gid, mid = req["groupId"], req["memberId"]
    ops.check_namespace(coord, gid)
    group = coord.connect_groups.get(gid)
    if group is None:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {gid} not found.")
    member = group.members.get(mid)
    if member is None:
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {mid} is not a member of group {gid}.")
    if epoch != member.member_epoch:
        raise CoordinatorError(Errors.FENCED_MEMBER_EPOCH,
                               f"The member epoch {epoch} does not match the expected {member.member_epoch}.")
    ops.sync(coord, group)
    if not ops.is_chosen(group, mid):
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {mid} is not the one chosen to compute the "
                                                         "assignment.")
    return group, mid


def prepare(coord: Coordinator, req: dict[str, Any], now: int) -> Decision:
    try:
        group, mid = _check_common(coord, req)
    except CoordinatorError as exc:
        return Decision(ops.error_response(exc), [], [exc.message or ""], exc)
    comp = group.computation
    comp.snapshot = Snapshot(group.group_epoch, frozenset(group.members), group.config, dict(group.target))
    ops.fire(comp, "prepared")
    name = selected_assignor(group.members) or ""
    members = []
    for m in sorted(group.members.values(), key=lambda m: m.member_id):
        a = m.assignor(name)
        members.append({
            "memberId": m.member_id, "memberEpoch": m.member_epoch, "instanceId": m.instance_id,
            "assignor": {"version": a.version if a else 0, "reason": a.reason if a else 0,
                         "metadata": a.metadata if a else None},
            "connectorsAndTasks": to_json(group.target_of(m.member_id).resources)})
    response = {"errorCode": 0, "errorMessage": None, "groupEpoch": group.group_epoch, "assignorName": name,
                "members": members}
    return Decision(response, [], [f"worker {mid} prepared the assignment at group epoch {group.group_epoch}"])


def install(coord: Coordinator, req: dict[str, Any], now: int) -> Decision:
    explain: list[str] = []
    try:
        entries = _parse_members(req)
        group, mid = _check_common(coord, req)
    except CoordinatorError as exc:
        return Decision(ops.error_response(exc), [], [exc.message or ""], exc)
    comp = group.computation
    try:
        snapshot = _snapshot_for(group, req.get("groupEpoch"))
        error = req.get("error", 0)
        if error:
            target = {m: t for m, t in snapshot.target.items() if m in snapshot.members}
            delayed_until = group.delayed_until
            explain.append(f"the assignor failed (error {error}): the current assignments are retained")
        else:
            delayed_until = _validate(coord, group, snapshot, entries, now)
            target = entries
    except CoordinatorError as exc:
        ops.fire(comp, "install_rejected")
        comp.snapshot = None
        coord.timers.cancel(ops.assignment_timer_key(group.group_id))
        return Decision(ops.error_response(exc), [], [exc.message or ""], exc)
    gid, epoch = group.group_id, snapshot.group_epoch
    # Workers that left during the computation drop out of the target.
    installed = {m: t for m, t in target.items() if m in group.members}
    records = [crec.target_record(gid, epoch, int(error), delayed_until, installed)]
    coord.apply(records)
    coord.timers.cancel(ops.assignment_timer_key(gid))
    if delayed_until >= 0:
        ops.schedule_delay(coord, gid, delayed_until)
    else:
        coord.timers.cancel(ops.delay_timer_key(gid))
    ops.fire(comp, "installed" if epoch == group.group_epoch else "installed_stale")
    comp.sticky, comp.member_id, comp.snapshot = mid, None, None
    comp.declined.clear()
    if comp.phase != "IDLE":
        comp.member_id = mid  # the group moved on: the same worker computes again (sticky)
    explain.append(f"target assignment installed at epoch {epoch}")
    return Decision({"errorCode": 0, "errorMessage": None}, records, explain)


def _parse_members(req: dict[str, Any]) -> dict[str, TargetEntry]:
    members = req.get("members")
    if not isinstance(members, list):
        raise _invalid("Members must be a list.")
    out: dict[str, TargetEntry] = {}
    for m in members:
        if not isinstance(m, dict) or not isinstance(m.get("memberId"), str):
            raise _invalid("Members entries need a memberId.")
        if m.get("topicPartitions") is not None and m.get("connectorsAndTasks") is not None:
            raise _invalid("Both Partitions and ConnectorsAndTasks are set.")
        try:
            resources = parse(m.get("connectorsAndTasks") or [])
        except ValueError as exc:
            raise _invalid(f"ConnectorsAndTasks: {exc}.") from None
        if m["memberId"] in out:
            raise CoordinatorError(Errors.INVALID_ASSIGNMENT, f"Worker {m['memberId']} is listed twice.")
        out[m["memberId"]] = TargetEntry(resources, int(m.get("error", 0)), int(m.get("version", 0)),
                                         m.get("metadata"))
    return out


def _snapshot_for(group: ConnectGroup, epoch: Any) -> Snapshot:
    prepared = group.computation.snapshot
    if not isinstance(epoch, int) or epoch <= group.assignment_epoch:
        raise CoordinatorError(Errors.INVALID_ASSIGNMENT,
                               f"GroupEpoch {epoch} is not newer than the assignment epoch {group.assignment_epoch}.")
    if prepared is not None and prepared.group_epoch == epoch:
        return prepared
    if epoch == group.group_epoch:
        return Snapshot(epoch, frozenset(group.members), group.config, dict(group.target))
    raise CoordinatorError(Errors.INVALID_ASSIGNMENT, f"No group metadata was prepared at group epoch {epoch}.")


def _validate(coord: Coordinator, group: ConnectGroup, snapshot: Snapshot, entries: dict[str, TargetEntry],
              now: int) -> int:
    """The draft's invariants; returns the end of the scheduled rebalance delay (-1: none)."""
    unknown = sorted(set(entries) - snapshot.members)
    if unknown:
        raise CoordinatorError(Errors.INVALID_ASSIGNMENT, f"Workers {unknown} do not exist.")
    counts = Counter(x for t in entries.values() for x in items(t.resources))
    twice = sorted(label(x) for x, n in counts.items() if n > 1)
    if twice:
        raise CoordinatorError(Errors.INVALID_ASSIGNMENT, f"{twice} are assigned more than once.")
    configured = items(snapshot.config)
    extra = sorted(label(x) for x in set(counts) - configured)
    if extra:
        raise CoordinatorError(Errors.INVALID_ASSIGNMENT, f"{extra} are not configured connectors/tasks.")
    missing = configured - set(counts)
    if not missing:
        return -1
    held = {x for m, t in snapshot.target.items() if m in snapshot.members for x in items(t.resources)}
    not_lost = sorted(label(x) for x in missing & held)
    if not_lost:
        raise CoordinatorError(Errors.INVALID_ASSIGNMENT, f"{not_lost} are not assigned.")
    delay = coord.config.int("group.connect.scheduled.rebalance.max.delay.ms")
    if group.delayed_until < 0 and delay > 0:
        return now + delay
    if group.delayed_until >= 0 and now < group.delayed_until:
        return group.delayed_until
    raise CoordinatorError(Errors.INVALID_ASSIGNMENT,
                           f"{sorted(label(x) for x in missing)} are not assigned and no scheduled rebalance "
                           "delay allows it.")

