"""One classic operation in progress: the coordinator, the time, what it wrote and why.

Also the three things every handler does to a parked call or a timer: complete a member's
JoinGroup or SyncGroup (``ClassicGroup.completeJoinFuture`` / ``completeSyncFuture``) and
(re)schedule the classic timers, keyed like Kafka's (``heartbeat-{g}-{m}``, ``join-{g}``,
``sync-{g}``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.parked import Outbox, ParkedCall
from kgspec.model.classic.responses import join_response, sync_response
from kgspec.model.records import Record
from kgspec.model.timers import Timer

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

HEARTBEAT_TIMER, JOIN_TIMER, INITIAL_JOIN_TIMER, SYNC_TIMER = (
    "classic-heartbeat", "classic-join", "classic-initial-join", "classic-sync")
CLASSIC_TIMER_KINDS = frozenset({HEARTBEAT_TIMER, JOIN_TIMER, INITIAL_JOIN_TIMER, SYNC_TIMER})
# GroupCoordinatorConfig.CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS (not a broker config).
NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000


@dataclass(slots=True)
class Step:
    coord: Coordinator
    now: int
    records: list[Record] = field(default_factory=list)
    explain: list[str] = field(default_factory=list)
    # A classic call answered by a consumer group (online migration): its consumer records are
    # replayed like any consumer group's, then ``effects`` run (model/migration/mixed.py).
    replay: bool = False
    effects: list[Callable[[], None]] = field(default_factory=list)

    @property
    def groups(self) -> dict[str, ClassicGroup]:
        groups: dict[str, ClassicGroup] = self.coord.classic_groups
        return groups

    @property
    def outbox(self) -> Outbox:
        outbox: Outbox = self.coord.classic_outbox
        return outbox

    def config_int(self, name: str) -> int:
        return self.coord.config.int(name)

    def why(self, text: str) -> None:
        self.explain.append(text)

    def take(self, outcome: Any) -> None:
        """Adopt a mixed-group outcome (``model/migration/mixed.Outcome``)."""
        if getattr(outcome, "applied", False):  # a Connect group's: applied as it went (kip)
            self.records.extend(outcome.records)
            self.explain.extend(outcome.explain)
            return
        self.records.extend(outcome.records)
        self.effects.extend(outcome.effects)
        self.explain.extend(outcome.explain)
        self.replay = True

    def modern_answer(self, group_id: str, api: str, *args: Any) -> dict[str, Any] | None:
        """A classic call to a consumer group, or to a non-empty streams group under online
        migration (kip), is answered by ``model/migration/mixed`` (``streams_mixed``): the
        response of its ``api`` handler, whose outcome is adopted. None: no such group (Kafka
        answers a streams group otherwise as an unknown group, "Group g not found."). The
        routing rule decides (``coord.migration``): the classic model imports no other protocol."""
        outcome = self.coord.migration.classic_call_to_modern_group(self.coord, group_id, api, args, self.now)
        if outcome is None:
            return None
        self.take(outcome)
        response: dict[str, Any] = outcome.response
        return response

    # --- parked calls --------------------------------------------------------------------

    def answer(self, call: ParkedCall, response: dict[str, Any]) -> None:
        self.outbox.complete(call, response, self.now)

    def complete_join(self, group: ClassicGroup, member: ClassicMember, error: int = 0, **fields: Any) -> bool:
        call = member.join_call
        if call is None:
            return False
        self.answer(call, join_response(call.api_version, error, **fields))
        member.join_call = None
        group.num_awaiting_join -= 1
        return True

    def complete_sync(self, member: ClassicMember, error: int = 0, **fields: Any) -> bool:
        call = member.sync_call
        if call is None:
            return False
        self.answer(call, sync_response(call.api_version, error, **fields))
        member.sync_call = None
        return True

    # --- timers --------------------------------------------------------------------------

    def schedule_heartbeat(self, group: ClassicGroup, member_id: str, timeout_ms: int) -> None:
        self.coord.timers.schedule(Timer(f"heartbeat-{group.group_id}-{member_id}", self.now + timeout_ms,
                                         HEARTBEAT_TIMER, group.group_id, member_id))

    def cancel_heartbeat(self, group: ClassicGroup, member_id: str) -> None:
        self.coord.timers.cancel(f"heartbeat-{group.group_id}-{member_id}")

    def schedule_join(self, group: ClassicGroup, delay_ms: int, kind: str = JOIN_TIMER) -> None:
        self.coord.timers.schedule(Timer(f"join-{group.group_id}", self.now + delay_ms, kind, group.group_id))

    def cancel_join(self, group: ClassicGroup) -> None:
        self.coord.timers.cancel(f"join-{group.group_id}")

    def schedule_sync(self, group: ClassicGroup, delay_ms: int) -> None:
        self.coord.timers.schedule(Timer(f"sync-{group.group_id}", self.now + delay_ms, SYNC_TIMER,
                                         group.group_id, epoch=group.generation_id))

    def cancel_sync(self, group: ClassicGroup) -> None:
        self.coord.timers.cancel(f"sync-{group.group_id}")
