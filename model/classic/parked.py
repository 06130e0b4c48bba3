"""Parked responses: JoinGroup and SyncGroup calls that Kafka answers later.

Kafka keeps a ``CompletableFuture`` per waiting member and completes it when the group is
ready (join phase complete, leader's assignment stored, member fenced, ...), possibly from a
timer. The model gives each parked call a :class:`ParkedCall` (a call id from the
coordinator) and, when Kafka would complete the future, puts a :class:`Completion` into the
coordinator's outbox:

- ``Coordinator.handle`` returns the response directly when the call completes within its
  own step; otherwise ``Decision.response`` is None and ``Decision.pending`` is the call id;
- every completion of a *parked* call (by a later request or by a timer fired in
  ``Coordinator.advance``) is queued; ``Coordinator.take_completed()`` drains the queue in
  completion order. A completion carries the call id, API, version, group, the time the
  response left (``completed_ms``) and the response itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ParkedCall:
    call_id: int
    api_key: int
    api_version: int
    group_id: str
    arrived_ms: int


@dataclass(frozen=True, slots=True)
class Completion:
    call: ParkedCall
    completed_ms: int
    response: dict[str, Any]


@dataclass(slots=True)
class Outbox:
    """Call ids and completed parked responses (soft state: a failover drops parked calls)."""

    next_id: int = 0
    completed: list[Completion] = field(default_factory=list)

    def park(self, api_key: int, api_version: int, group_id: str, now: int) -> ParkedCall:
        self.next_id += 1
        return ParkedCall(self.next_id, api_key, api_version, group_id, now)

    def complete(self, call: ParkedCall, response: dict[str, Any], now: int) -> None:
        self.completed.append(Completion(call, now, response))

    def take(self, call: ParkedCall) -> dict[str, Any] | None:
        """Remove and return ``call``'s response if it has completed."""
        for i, c in enumerate(self.completed):
            if c.call.call_id == call.call_id:
                del self.completed[i]
                return c.response
        return None

    def drain(self) -> list[Completion]:
        out, self.completed = self.completed, []
        return out
