"""Real Kafka clients for the ``kgspec serve`` tests: each consumer polls in its own thread.

- :class:`RdConsumer`: confluent-kafka (librdkafka), ``group.protocol=consumer`` (KIP-848) or
  ``classic``;
- :class:`PyConsumer`: kafka-python, a pure-Python classic consumer.

Every consumer records what it was assigned (``assigned``) and what it read (``values``);
``close()`` leaves cleanly; :class:`RdProcess` is a librdkafka consumer in its own process, for a real
crash (``kill()``: SIGKILL, no leave, no more heartbeats).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FAST_CLASSIC = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 300}
# Coordinator configs that keep sessions short: KIP-848 members heartbeat every 300 ms and a
# silent one is fenced after 6 s (Kafka's minimum session timeout and heartbeat interval are
# lowered to allow it: Kafka refuses to start with a value below its minimum).
FAST_CONFIGS: dict[str, Any] = {
    "group.consumer.heartbeat.interval.ms": 300,
    "group.consumer.min.heartbeat.interval.ms": 300,
    "group.consumer.session.timeout.ms": 6000,
    "group.consumer.min.session.timeout.ms": 6000,
    "group.consumer.assignment.interval.ms": 0,
    "group.initial.rebalance.delay.ms": 0,
    "group.min.session.timeout.ms": 6000,
}


class _Polling:
    client_id: str

    def __init__(self) -> None:
        self.values: list[bytes] = []
        self.assigned: set[int] = set()
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=self.client_id, daemon=True)

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                self.poll_once()
        except Exception as exc:  # seen by the test through .errors
            self.errors.append(repr(exc))
        self.leave()

    def poll_once(self) -> None:
        raise NotImplementedError

    def leave(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Leave the group cleanly and stop."""
        self._stop.set()
        self._thread.join(timeout=30)



class RdConsumer(_Polling):
    def __init__(self, bootstrap: str, client_id: str, group: str = "g", topics: tuple[str, ...] = ("t",),
                 protocol: str = "consumer", **extra: Any) -> None:
        from confluent_kafka import Consumer

        self.client_id = client_id
        super().__init__()
        conf: dict[str, Any] = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": client_id,
                                "group.protocol": protocol, "auto.offset.reset": "earliest", "log_level": 2,
                                "enable.auto.commit": True, "auto.commit.interval.ms": 500}
        if protocol == "classic":
            conf.update(FAST_CLASSIC)
        conf.update(extra)
        self._consumer = Consumer(conf)
        self._consumer.subscribe(list(topics), on_assign=self._on_assign, on_revoke=self._on_revoke,
                                 on_lost=self._on_revoke)
        self._thread.start()

    def _on_assign(self, consumer: Any, partitions: list[Any]) -> None:
        self.assigned |= {p.partition for p in partitions}

    def _on_revoke(self, consumer: Any, partitions: list[Any]) -> None:
        self.assigned -= {p.partition for p in partitions}

    def poll_once(self) -> None:
        message = self._consumer.poll(0.05)
        if message is not None and message.error() is None:
            self.values.append(message.value())

    def leave(self) -> None:
        self._consumer.close()


class PyConsumer(_Polling):
    """kafka-python's KafkaConsumer (classic protocol only)."""

    def __init__(self, bootstrap: str, client_id: str, group: str = "g", topics: tuple[str, ...] = ("t",)) -> None:
        from kafka import KafkaConsumer
        from kafka.consumer.subscription_state import ConsumerRebalanceListener

        self.client_id = client_id
        super().__init__()
        owner = self

        class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
            def on_partitions_revoked(self, revoked: Any) -> None:
                owner.assigned -= {tp.partition for tp in revoked}

            def on_partitions_assigned(self, assigned: Any) -> None:
                owner.assigned |= {tp.partition for tp in assigned}

        self._consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, client_id=client_id,
                                       auto_offset_reset="earliest", session_timeout_ms=6000,
                                       heartbeat_interval_ms=300, auto_commit_interval_ms=500)
        self._consumer.subscribe(list(topics), listener=Listener())
        self._thread.start()

    def poll_once(self) -> None:
        for records in self._consumer.poll(timeout_ms=50).values():
            self.values.extend(r.value for r in records)

    def leave(self) -> None:
        self._consumer.close()


def produce(bootstrap: str, topic: str, count: int, partitions: int, prefix: str = "m") -> list[bytes]:
    """``count`` messages round-robin over the partitions, acknowledged; returns their values."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "log_level": 2})
    values = [f"{prefix}{i}".encode() for i in range(count)]
    for i, value in enumerate(values):
        producer.produce(topic, value=value, partition=i % partitions)
    left = producer.flush(15)
    assert left == 0, f"{left} message(s) not acknowledged"
    return values


def wait_for(condition: Callable[[], bool], timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def disjoint_cover(consumers: list[Any], partitions: int) -> bool:
    """Each partition owned by exactly one consumer."""
    owned = [p for c in consumers for p in c.assigned]
    return sorted(owned) == list(range(partitions))


class RdProcess:
    """A librdkafka consumer in a child process (``consumer_proc.py``); ``kill()`` crashes it."""

    def __init__(self, bootstrap: str, client_id: str, group: str = "g", topic: str = "t",
                 protocol: str = "consumer") -> None:
        self.client_id = client_id
        self.assigned: set[int] = set()
        script = Path(__file__).with_name("consumer_proc.py")
        self._proc = subprocess.Popen([sys.executable, str(script), bootstrap, client_id, group, topic, protocol],
                                      stdout=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            if line.startswith("assigned"):
                parts = line.split()[1:]
                self.assigned = {int(p) for p in parts[0].split(",")} if parts else set()

    def kill(self) -> None:
        self._proc.kill()
        self._proc.wait(timeout=10)
        self._reader.join(timeout=5)
