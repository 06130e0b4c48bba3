"""The classic side of the coordinator: dispatch of APIs 11-14, timers, replay, loading.

:class:`kgspec.model.coordinator.Coordinator` keeps classic groups in ``coord.classic_groups``
(one namespace with consumer and streams groups) and the parked-call outbox in
``coord.classic_outbox`` (:mod:`kgspec.model.classic.parked`), and delegates here, so its
own edits stay small.

Unlike consumer and streams groups, Kafka mutates classic groups in memory and appends their
GroupMetadata records with ``replayRecords = false``; the model does the same (see
:mod:`kgspec.model.classic.records`). Classic calls therefore have no dry run.
"""

from __future__ import annotations

from typing import Any

from kgspec.model.classic import records as crec
from kgspec.model.classic.apis import VERSIONS
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.join import JoinRequest, join
from kgspec.model.classic.leave import heartbeat, leave
from kgspec.model.classic.rebalance import (
    complete_join,
    expire_heartbeat,
    expire_pending_sync,
    prepare_rebalance,
    try_complete_initial_rebalance,
)
from kgspec.model.classic.responses import HEARTBEAT, JOIN_GROUP, LEAVE_GROUP, SYNC_GROUP
from kgspec.model.classic.step import (
    HEARTBEAT_TIMER,
    INITIAL_JOIN_TIMER,
    JOIN_TIMER,
    SYNC_TIMER,
    Step,
)
from kgspec.model.classic.sync import sync
from kgspec.model.errors import Errors, require_version
from kgspec.model.records import GROUP_METADATA, Record
from kgspec.model.step import Decision
from kgspec.model.timers import Timer

CLASSIC_APIS = {key: VERSIONS[key] for key in (JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP)}
CLASSIC_API_NAMES = {"JOIN_GROUP": JOIN_GROUP, "HEARTBEAT": HEARTBEAT, "LEAVE_GROUP": LEAVE_GROUP,
                     "SYNC_GROUP": SYNC_GROUP}


def handle(coord: Any, api_key: int, version: int, request: dict[str, Any], now: int, client_id: str,
           client_host: str, member_id: str | None = None) -> Decision:
    """One classic call. A JoinGroup or SyncGroup that must wait returns ``response=None`` and
    ``pending=<call id>``; its response later comes out of ``Coordinator.take_completed()``."""
    require_version(api_key, version, CLASSIC_APIS[api_key])
    step = Step(coord, now)
    outbox = coord.classic_outbox
    if api_key in (JOIN_GROUP, SYNC_GROUP):
        call = outbox.park(api_key, version, request.get("groupId") or "", now)
        if api_key == JOIN_GROUP:
            join(step, call, JoinRequest(request, version, client_id, client_host, member_id))
        else:
            sync(step, call, request, version)
        response = outbox.take(call)
        _finish(coord, step)
        return Decision(response, step.records, step.explain, pending=None if response is not None else call.call_id)
    response = heartbeat(step, request, version) if api_key == HEARTBEAT else leave(step, request, version)
    _finish(coord, step)
    return Decision(response, step.records, step.explain)


def _finish(coord: Any, step: Step) -> None:
    if step.replay:  # a consumer group answered (online migration): its records are replayed
        coord.apply(step.records)
        for effect in step.effects:
            effect()
    _persist(coord, step.records)


def _persist(coord: Any, records: list[Record]) -> None:
    """Remember what the log holds for each group: a failover reloads exactly that."""
    for record in records:
        if record.type == GROUP_METADATA:
            if record.value is None:
                coord.classic_log.pop(record.key["group"], None)
            else:
                coord.classic_log[record.key["group"]] = record


def fire(coord: Any, timer: Timer) -> tuple[list[Record], str]:
    group: ClassicGroup | None = coord.classic_groups.get(timer.group_id)
    if group is None:
        return [], f"{timer.key}: group is gone"
    step = Step(coord, timer.deadline_ms)
    if timer.kind == HEARTBEAT_TIMER:
        expire_heartbeat(step, group, timer.member_id or "")
    elif timer.kind == JOIN_TIMER:
        complete_join(step, group)
    elif timer.kind == INITIAL_JOIN_TIMER:
        try_complete_initial_rebalance(step, group)
    elif timer.kind == SYNC_TIMER:
        expire_pending_sync(step, group, timer.epoch if timer.epoch is not None else -1)
    else:
        raise ValueError(f"unknown timer kind {timer.kind}")
    _persist(coord, step.records)
    return step.records, "; ".join(step.explain) or f"{timer.key} fired: nothing to do"


def replay(coord: Any, record: Record) -> None:
    crec.replay(coord.classic_groups, record)
    if record.value is None:  # a simple group (model/offsets/store.py) is a classic group: it goes too
        coord.offsets.simple_groups.discard(record.key["group"])
    _persist(coord, [record])


def unload(coord: Any, now: int) -> None:
    """``onUnloaded`` then a reload: each group goes DEAD (``classicGroup.transitionTo(DEAD)``,
    the ``unloaded`` transition), parked calls get NOT_COORDINATOR and each group becomes what
    its last GroupMetadata record says (in-memory progress since then is lost)."""
    step = Step(coord, now)
    for group in coord.classic_groups.values():
        group.transition("unloaded", now)
        for member in group.members.values():
            step.complete_join(group, member, int(Errors.NOT_COORDINATOR))
            step.complete_sync(member, int(Errors.NOT_COORDINATOR))
    coord.classic_groups.clear()
    for record in list(coord.classic_log.values()):
        crec.replay(coord.classic_groups, record)


def on_loaded(coord: Any, now: int) -> None:
    """``onLoaded``: heartbeats re-armed from load time; an over-capacity group rebalances."""
    step = Step(coord, now)
    for group in coord.classic_groups.values():
        for member in group.members.values():
            step.schedule_heartbeat(group, member.member_id, member.session_timeout_ms)
        if len(group.members) > step.config_int("group.max.size"):
            prepare_rebalance(step, group, "freshly-loaded group is over capacity")
