"""The Connect side of the coordinator: dispatch, fencing, the computation's soft state, timers.

:class:`kgspec.model.coordinator.Coordinator` keeps Connect groups in ``coord.connect_groups``
(one namespace with the other group types) and delegates here by API *name*: the draft's APIs
have no Kafka key (contract: ``requestHeader.requestApiKeyName``).

Profiles: only ``kip`` models the draft. Every Kafka release answers as a broker that does not
know these APIs: the client never sends them (``NetworkClient`` aborts a request whose API the
broker's ApiVersions lacks with ``UnsupportedVersionException``), so the caller sees
UNSUPPORTED_VERSION (35) and the coordinator writes nothing (docs/connect.md, 'Profiles').

Connect handlers apply their records as they go (each step's records through
``Coordinator.apply``, i.e. replay) and have no dry run, like classic calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kgspec.model.connect import records as crec
from kgspec.model.connect.group import Computation, ConnectGroup, eligible_workers
from kgspec.model.connect.member import STATE_NAMES, UNREVOKED, ConnectMember
from kgspec.model.connect.resources import config_resources, items
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.records import (
    CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA,
    CONNECT_WORKER_GROUP_METADATA,
    CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT,
    Record,
)
from kgspec.model.timers import Timer
from kgspec.spec import tables
from kgspec.spec.connect import IDLE, NOTIFIED, PREPARED, REQUESTED

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

CONNECT_GROUP_HEARTBEAT = "CONNECT_GROUP_HEARTBEAT"
CONNECT_GROUP_PREPARE_ASSIGNMENT = "CONNECT_GROUP_PREPARE_ASSIGNMENT"
CONNECT_GROUP_INSTALL_ASSIGNMENT = "CONNECT_GROUP_INSTALL_ASSIGNMENT"
CONNECT_APIS = frozenset({CONNECT_GROUP_HEARTBEAT, CONNECT_GROUP_PREPARE_ASSIGNMENT, CONNECT_GROUP_INSTALL_ASSIGNMENT})
CONNECT_TIMER_KINDS = frozenset({"connect-session", "connect-rebalance", "connect-assignment", "connect-delay",
                                 "connect-classic-join", "connect-classic-sync"})
CONNECT_RECORD_TYPES = crec.CONNECT_RECORD_TYPES



def error_response(error: CoordinatorError) -> dict[str, Any]:
    return {"errorCode": int(error.error), "errorMessage": error.message}


def check_namespace(coord: Coordinator, group_id: str) -> None:
    """A group id names one group of one type (Kafka's 'is not a ... group' answer)."""
    if group_id in coord.groups or group_id in coord.streams_groups or group_id in coord.classic_groups:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a connect group.")


def replay(coord: Coordinator, record: Record) -> None:
    crec.replay(coord.connect_groups, record)


# --- the computation's soft state (the connect-assignment lifecycle) ---------------------------


def fire(comp: Computation, trigger: str) -> None:
    comp.phase = tables.fire("connect-assignment", comp.phase, trigger)


def sync(coord: Coordinator, group: ConnectGroup) -> Computation:
    """Bring the soft state up to date with the hard state (records applied, timers fired)."""
    comp = group.computation
    if not group.members:
        if comp.phase != IDLE:
            fire(comp, "group_emptied")
        comp.member_id, comp.snapshot = None, None
        coord.timers.cancel(assignment_timer_key(group.group_id))
        return comp
    if comp.phase != IDLE and comp.member_id is not None and comp.member_id not in group.members:
        fire(comp, "computing_worker_left")
        comp.member_id, comp.snapshot = None, None
        coord.timers.cancel(assignment_timer_key(group.group_id))
    if comp.phase == IDLE and group.group_epoch > group.assignment_epoch:
        fire(comp, "group_epoch_ahead")
        comp.declined.clear()
        comp.member_id = comp.sticky if comp.sticky in eligible_workers(group.members) else None
    return comp


def select_on_heartbeat(coord: Coordinator, group: ConnectGroup, member: ConnectMember, now: int,
                        explain: list[str]) -> bool:
    """'Worker Selection': True when this heartbeat must answer COMPUTE_ASSIGNMENT."""
    comp = sync(coord, group)
    if comp.phase != REQUESTED:
        return False
    eligible = eligible_workers(group.members)
    if comp.member_id is not None and comp.member_id not in eligible:
        comp.member_id = None  # the sticky worker no longer covers every version range
    if not eligible:
        fire(comp, "no_eligible_worker")
        explain.append("FATAL: no worker's version range covers every worker's; nobody computes the assignment")
        return False
    mid = member.member_id
    if comp.member_id != mid and (comp.member_id is not None or mid not in eligible or mid in comp.declined):
        return False
    fire(comp, "worker_notified")
    comp.member_id = mid
    coord.timers.schedule(Timer(assignment_timer_key(group.group_id), now + member.rebalance_timeout_ms,
                                "connect-assignment", group.group_id, mid, group.group_epoch))
    explain.append(f"worker {mid} is chosen to compute the assignment for group epoch {group.group_epoch}")
    return True


def is_chosen(group: ConnectGroup, member_id: str) -> bool:
    comp = group.computation
    return comp.phase != IDLE and comp.member_id == member_id


def adopt_selection(coord: Coordinator, group_id: str, member_id: str, chosen: bool) -> None:
    """The checker adopts the trace's choice of computing worker (any eligible worker is legal)."""
    group = coord.connect_groups.get(group_id)
    if group is None or member_id not in group.members:
        return
    comp = sync(coord, group)
    if comp.phase != REQUESTED:
        return
    if chosen and member_id in eligible_workers(group.members):
        comp.member_id = member_id
    elif not chosen and comp.member_id in (None, member_id):
        comp.member_id = None
        comp.declined.add(member_id)


# --- membership ----------------------------------------------------------------------------------


def fence_records(coord: Coordinator, group: ConnectGroup, member_id: str,
                  trigger: str = "fenced", effects: list[Callable[[], None]] | None = None) -> list[Record]:
    """Remove a worker: tombstones, then the group epoch + 1 ('A worker is fenced or removed').

    ``trigger`` is the worker's ``connect-member`` transition: ``fenced`` (timers, a fenced
    epoch) or ``left`` (a heartbeat with epoch -1). Under online migration, the last worker on
    the draft's protocol leaving turns the group back into a classic group: the routing rule's
    records, and ``effects`` (the timers' own list when None) to run once they are applied."""
    tables.fire("connect-member", STATE_NAMES[group.members[member_id].state], trigger)
    gid = group.group_id
    cancel_member_timers(coord, gid, member_id)
    if coord.profile.connect_online_migration:
        downgrade = coord.migration.connect_downgrade_records(
            coord, group, [member_id], coord.timer_effects if effects is None else effects)
        if downgrade is not None:
            return downgrade
    return [crec.current_assignment_tombstone(gid, member_id), crec.member_metadata_tombstone(gid, member_id),
            crec.group_metadata_record(gid, group.group_epoch + 1)]


def configure(coord: Coordinator, group_id: str, connectors: Mapping[str, Iterable[int]]) -> list[Record]:
    """The connectors and tasks the group must run changed ('Connectors are added or removed').

    kgspec's input path (the draft does not say how the coordinator learns them): the
    ConnectorsTasks record, then the group epoch + 1 if workers are there to reassign."""
    check_namespace(coord, group_id)
    config = config_resources(connectors)
    group = coord.connect_groups.get(group_id)
    if group is not None and items(group.config) == items(config):
        return []
    records = [crec.connectors_tasks_record(group_id, config)]
    if group is not None and group.members:
        records.append(crec.group_metadata_record(group_id, group.group_epoch + 1))
    coord.apply(records)
    return records


# --- timers ----------------------------------------------------------------------------------------


def session_timer_key(group_id: str, member_id: str) -> str:
    return f"connect-session-{group_id}-{member_id}"


def rebalance_timer_key(group_id: str, member_id: str) -> str:
    return f"connect-rebalance-{group_id}-{member_id}"


def assignment_timer_key(group_id: str) -> str:
    return f"connect-assignment-{group_id}"


def classic_timer_key(what: str, group_id: str, member_id: str) -> str:
    """A worker on the classic protocol (online migration): its JoinGroup (``join``, after a
    REBALANCE_IN_PROGRESS) or SyncGroup (``sync``, after its JoinGroup) must come within its
    rebalance timeout, or it is removed (the draft: "kicked out of the group")."""
    return f"connect-classic-{what}-{group_id}-{member_id}"


def schedule_classic(coord: Coordinator, group_id: str, member: ConnectMember, what: str, now: int,
                     if_absent: bool = False) -> None:
    timer = Timer(classic_timer_key(what, group_id, member.member_id), now + member.rebalance_timeout_ms,
                  f"connect-classic-{what}", group_id, member.member_id)
    if if_absent:
        coord.timers.schedule_if_absent(timer)
    else:
        coord.timers.schedule(timer)


def delay_timer_key(group_id: str) -> str:
    return f"connect-delay-{group_id}"


def schedule_session(coord: Coordinator, group_id: str, member_id: str, now: int) -> None:
    """A worker on the classic protocol keeps its JoinGroup's session timeout (online migration)."""
    group = coord.connect_groups.get(group_id)
    member = group.members.get(member_id) if group is not None else None
    classic = member.classic_member_metadata if member is not None else None
    timeout = int(classic["sessionTimeoutMs"]) if classic is not None else \
        coord.config.int("group.connect.session.timeout.ms")
    coord.timers.schedule(Timer(session_timer_key(group_id, member_id), now + timeout,
                                "connect-session", group_id, member_id))


def schedule_rebalance(coord: Coordinator, group_id: str, member: ConnectMember, now: int) -> None:
    coord.timers.schedule(Timer(rebalance_timer_key(group_id, member.member_id), now + member.rebalance_timeout_ms,
                                "connect-rebalance", group_id, member.member_id, member.member_epoch))


def schedule_delay(coord: Coordinator, group_id: str, deadline: int) -> None:
    coord.timers.schedule(Timer(delay_timer_key(group_id), deadline, "connect-delay", group_id))


def cancel_member_timers(coord: Coordinator, group_id: str, member_id: str) -> None:
    coord.timers.cancel(session_timer_key(group_id, member_id))
    coord.timers.cancel(rebalance_timer_key(group_id, member_id))
    coord.timers.cancel(classic_timer_key("join", group_id, member_id))
    coord.timers.cancel(classic_timer_key("sync", group_id, member_id))


def fire_timer(coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
    group = coord.connect_groups.get(timer.group_id)
    if group is None:
        return [], f"{timer.key}: group is gone"
    comp = sync(coord, group)
    if timer.kind == "connect-delay":
        if group.delayed_until < 0 or timer.deadline_ms < group.delayed_until or not group.members:
            return [], "scheduled rebalance delay over: nothing to do"
        if group.group_epoch > group.assignment_epoch:
            return [], "scheduled rebalance delay over: a new assignment is already being computed"
        return ([crec.group_metadata_record(group.group_id, group.group_epoch + 1)],
                "scheduled rebalance delay over: group epoch bumped so the lost connectors/tasks are reassigned")
    member = group.members.get(timer.member_id or "")
    if member is None:
        return [], f"{timer.key}: worker is gone"
    mid = member.member_id
    if timer.kind == "connect-session":
        if coord.mutants.active("no-session-fencing"):
            return [], f"worker {mid}'s session expired (mutant: not fenced)"
        return fence_records(coord, group, mid), f"worker {mid} fenced: its session expired"
    if timer.kind in ("connect-classic-join", "connect-classic-sync"):
        what = timer.kind.rsplit("-", 1)[1]
        return fence_records(coord, group, mid), f"classic worker {mid} fenced: no {what} within its rebalance timeout"
    if timer.kind == "connect-rebalance":
        if member.member_epoch != timer.epoch or member.state != UNREVOKED:
            return [], f"worker {mid} revoked in time"
        return fence_records(coord, group, mid), f"worker {mid} fenced: it did not revoke within its rebalance timeout"
    if comp.member_id != mid or comp.phase not in (NOTIFIED, PREPARED):
        return [], f"worker {mid} is no longer computing the assignment"
    return (fence_records(coord, group, mid),
            f"worker {mid} fenced: it did not install an assignment within its rebalance timeout")


def on_loaded(coord: Coordinator, now: int) -> None:
    """Re-arm timers; the computation's soft state starts over (``sync`` re-requests it)."""
    for gid, group in coord.connect_groups.items():
        group.computation = Computation()
        for member in group.members.values():
            schedule_session(coord, gid, member.member_id, now)
            if member.state == UNREVOKED:
                schedule_rebalance(coord, gid, member, now)
        if group.delayed_until >= 0:
            schedule_delay(coord, gid, max(group.delayed_until, now))


def delete_group_records(coord: Coordinator, group_id: str) -> list[Record]:
    """An empty group's tombstones (DeleteGroups, kgspec's reading of the draft, in the order of
    ``ConsumerGroup.createGroupTombstoneRecords``: target, connectors and tasks, the group), and
    its group timers cancelled."""
    coord.timers.cancel(assignment_timer_key(group_id))
    coord.timers.cancel(delay_timer_key(group_id))
    return [Record(CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT, {"groupId": group_id}, None),
            Record(CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA, {"groupId": group_id}, None),
            Record(CONNECT_WORKER_GROUP_METADATA, {"groupId": group_id}, None)]
