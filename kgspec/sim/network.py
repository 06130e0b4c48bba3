"""A lossy network between clients and the coordinator: seeded, no wall clock, no threads.

Each message is lost, delivered once or delivered twice, after a random delay. Messages
of different clients are reordered freely. Messages of one client's connection stay in
order (Kafka runs over TCP and processes a connection's requests in order; the client
keeps one heartbeat in flight), so a duplicate follows its original directly, like a
retransmission; breaking that order would break assumptions Kafka's protocol relies on
rather than find bugs in it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(slots=True)
class NetworkConfig:
    loss: float = 0.0  # probability a message is lost
    duplicate: float = 0.0  # probability a delivered message is delivered twice
    min_delay_ms: int = 1
    max_delay_ms: int = 20

    @property
    def fair(self) -> bool:
        return self.loss == 0.0


class Network:
    """Decides the fate of each message; the simulator queues the deliveries."""

    __slots__ = ("_isolated_until", "_last", "config", "rng")

    def __init__(self, rng: random.Random, config: NetworkConfig | None = None) -> None:
        self.rng = rng
        self.config = config or NetworkConfig()
        self._last: dict[str, int] = {}  # channel -> last delivery time (FIFO per channel)
        self._isolated_until: dict[str, int] = {}  # client -> messages lost until then

    def isolate(self, client: str, until_ms: int) -> None:
        """Lose every message to or from ``client`` until ``until_ms`` (a network partition)."""
        self._isolated_until[client] = max(until_ms, self._isolated_until.get(client, 0))

    def heal(self) -> None:
        self._isolated_until.clear()

    def send(self, client: str, channel: str, now: int) -> list[int]:
        """Delivery times for one message on ``channel`` (empty when lost)."""
        cfg = self.config
        if now < self._isolated_until.get(client, -1):
            return []
        if cfg.loss and self.rng.random() < cfg.loss:
            return []
        at = max(now + self.rng.randint(cfg.min_delay_ms, cfg.max_delay_ms), self._last.get(channel, 0))
        self._last[channel] = at
        if cfg.duplicate and self.rng.random() < cfg.duplicate:
            return [at, at]
        return [at]
