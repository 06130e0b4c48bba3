"""The steady Heartbeat: what a checker may replay without running the handler again.

A Heartbeat (API 12) that the classic group itself answered with NONE, in STABLE or
COMPLETING_REBALANCE, did one thing: it re-armed its member's session timer
(``heartbeat-{g}-{m}`` at ``now + sessionTimeoutMs``, ``classicGroupHeartbeatToClassicGroup``).
It wrote no record and changed no group field, so until something else changes the group the
same request gets the same answer and the same timer. :func:`steady_heartbeat_timer` says so
after the fact, from the state the call left; the checker's cache (``conformance/classic_steady.py``)
keeps the answer and must drop it on any other change to the group (a record, a timer firing,
another classic call, a failover, a config).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.classic.step import HEARTBEAT_TIMER
from kgspec.spec.classic import COMPLETING_REBALANCE, STABLE

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.timers import Timer


def steady_heartbeat_timer(coord: Coordinator, group_id: str, member_id: str, now: int) -> Timer | None:
    """The session timer a NONE Heartbeat of ``member_id`` just re-armed at ``now``; None when the
    call was not the steady one (a consumer or streams group answered it, online migration; the
    group is rebalancing or gone; the member or its timer is not as that call leaves them)."""
    if group_id in coord.groups or group_id in coord.streams_groups:
        return None
    group = coord.classic_groups.get(group_id)
    if group is None or group.state not in (STABLE, COMPLETING_REBALANCE):
        return None
    member = group.members.get(member_id)
    timer = coord.timers.get(f"heartbeat-{group_id}-{member_id}")
    if member is None or timer is None or timer.kind != HEARTBEAT_TIMER \
            or timer.deadline_ms != now + member.session_timeout_ms:
        return None
    return timer
