"""The consumer protocol (KIP-848) behind the one protocol interface (``model/protocol.py``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kgspec.model.consumer import offsets as commits
from kgspec.model.consumer import ops
from kgspec.model.consumer.apis import CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT
from kgspec.model.consumer.describe import describe_consumer_groups
from kgspec.model.consumer.heartbeat import ConsumerHeartbeat, validate
from kgspec.model.consumer.records import CONSUMER_RECORD_TYPES
from kgspec.model.errors import CoordinatorError
from kgspec.model.protocol import OwnsGroups
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call
    from kgspec.model.records import Record
    from kgspec.model.timers import Timer


def error_response(error: CoordinatorError) -> dict[str, Any]:
    """A ConsumerGroupHeartbeat's error response."""
    return {"errorCode": int(error.error), "errorMessage": error.message, "memberId": None,
            "memberEpoch": 0, "heartbeatIntervalMs": 0, "assignment": None}


class ConsumerProtocol(OwnsGroups):
    name = "consumer"
    rules = commits
    apis: frozenset[int | str] = frozenset({CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_DESCRIBE})
    record_types = frozenset(CONSUMER_RECORD_TYPES)
    timer_kinds = frozenset({"consumer-session", "consumer-rebalance", "consumer-regex",
                             "consumer-classic-join", "consumer-classic-sync"})

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        request = call.request
        if call.api_key == CONSUMER_GROUP_DESCRIBE:
            return Decision(describe_consumer_groups(coord, request, call.version))
        step = ConsumerHeartbeat(coord, request, call.client_id, call.client_host, call.now)
        decision = coord.run_step(step, lambda: validate(request, call.version, coord.config.assignors()),
                                  error_response)
        decision.fast_path = step.fast_path
        return decision

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        return ops.fire(coord, timer)

    def replay(self, coord: Coordinator, record: Record) -> None:
        ops.replay(coord, record)

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        ops.on_loaded(coord, now)

    def metadata_changed(self, coord: Coordinator, names: Iterable[str], new_topic: bool) -> None:
        ops.metadata_changed(coord, names, new_topic)

    def followed_topics(self, coord: Coordinator) -> tuple[set[str], bool]:
        return ops.followed_topics(coord)


PROTOCOL = ConsumerProtocol()
