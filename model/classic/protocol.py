"""The classic protocol behind the one protocol interface (``model/protocol.py``).

JoinGroup, SyncGroup, Heartbeat and LeaveGroup change the group in memory as Kafka's do (its
GroupMetadata record persists what is there, ``replayRecords = false``), so they are applied
as they go; DescribeGroups only reads, and is decided like any call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.classic import offsets as commits
from kgspec.model.classic import ops
from kgspec.model.classic.apis import DESCRIBE_GROUPS
from kgspec.model.classic.describe import describe_groups
from kgspec.model.classic.step import CLASSIC_TIMER_KINDS
from kgspec.model.protocol import OwnsGroups
from kgspec.model.records import GROUP_METADATA
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call
    from kgspec.model.records import Record
    from kgspec.model.timers import Timer


class ClassicProtocol(OwnsGroups):
    name = "classic"
    rules = commits
    apis: frozenset[int | str] = frozenset({*ops.CLASSIC_APIS, DESCRIBE_GROUPS})
    applied_as_they_go: frozenset[int | str] = frozenset(ops.CLASSIC_APIS)
    record_types = frozenset({GROUP_METADATA})
    timer_kinds = CLASSIC_TIMER_KINDS

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        assert call.api_key == DESCRIBE_GROUPS
        return Decision(describe_groups(coord, call.request, call.version))

    def handle(self, coord: Coordinator, call: Call) -> Decision:
        assert isinstance(call.api_key, int)
        return ops.handle(coord, call.api_key, call.version, call.request, call.now, call.client_id,
                          call.client_host, call.choices.member_id)

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        return ops.fire(coord, timer)

    def replay(self, coord: Coordinator, record: Record) -> None:
        ops.replay(coord, record)

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        ops.on_loaded(coord, now)

    def unload(self, coord: Coordinator, now: int) -> None:
        ops.unload(coord, now)

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        commits.validate_offset_delete(coord, group_id)


PROTOCOL = ClassicProtocol()
