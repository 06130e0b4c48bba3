"""Recording scenarios: librdkafka KIP-848 consumers against librdkafka's mock cluster.

A :class:`Recording` starts a mock cluster (:mod:`.rdkafka_mock`), puts a decoding proxy
(:mod:`.proxy`) in front of every mock broker and makes the brokers advertise the proxy,
so every request of every client passes through it. :class:`ConsumerThread` runs one
confluent-kafka ``Consumer`` (``group.protocol=consumer``) in its own poll loop. The
scenarios in :data:`SCENARIOS` drive joins, leaves, session-timeout fencing and injected
errors; :func:`trace_events` turns what the proxy saw into a contract trace.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..readers.topics import METADATA, TopicTracker
from .proxy import Call, DecodingProxy
from .rdkafka_mock import MockCluster

CONSUMER_GROUP_HEARTBEAT = 68
SESSION_TIMED_OUT = re.compile(r"Member (\S+) session timed out for group (\S+)")
# Error codes injected into ConsumerGroupHeartbeat responses (Kafka's Errors.java).
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
UNKNOWN_MEMBER_ID = 25
FENCED_MEMBER_EPOCH = 110


@dataclass(slots=True)
class Settings:
    """The mock coordinator's consumer-group settings (also written to the trace header)."""

    heartbeat_interval_ms: int = 500
    session_timeout_ms: int = 3000
    partitions: int = 4
    topic: str = "t"
    brokers: int = 1


class ConsumerThread:
    """One KIP-848 consumer polling in its own thread until :meth:`close`."""

    def __init__(self, client_id: str, bootstrap: str, group: str, topics: list[str],
                 log: Callable[[str], None]) -> None:
        from confluent_kafka import Consumer

        self.client_id = client_id
        self.assigned: list[tuple[str, int]] = []
        self._log = log
        self._stop = threading.Event()
        self._consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
            "client.id": client_id, "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "log_level": 3,  # keep librdkafka's request-timeout notices (a held client) off stderr
        })
        self._consumer.subscribe(topics, on_assign=self._on_assign, on_revoke=self._on_revoke)
        self._thread = threading.Thread(target=self._run, name=client_id, daemon=True)
        self._thread.start()

    def _on_assign(self, consumer: Any, partitions: list[Any]) -> None:
        self.assigned = sorted(set(self.assigned) | {(p.topic, p.partition) for p in partitions})
        self._log(f"{self.client_id}: assigned {[p for _, p in self.assigned]}")

    def _on_revoke(self, consumer: Any, partitions: list[Any]) -> None:
        gone = {(p.topic, p.partition) for p in partitions}
        self.assigned = sorted(set(self.assigned) - gone)
        self._log(f"{self.client_id}: revoked {sorted(p for _, p in gone)}")

    def _run(self) -> None:
        while not self._stop.is_set():
            self._consumer.poll(0.05)
        self._consumer.close()  # a clean leave: ConsumerGroupHeartbeat with epoch -1

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


@dataclass
class Recording:
    """A mock cluster behind a decoding proxy; ``calls`` collects every decoded call."""

    settings: Settings
    log: Callable[[str], None] = print
    calls: list[Call] = field(default_factory=list)
    consumers: dict[str, ConsumerThread] = field(default_factory=dict)
    # (time, api key, error code) of every error pushed into the mock
    injections: list[tuple[float, int, int]] = field(default_factory=list)
    # (time, group id, member id) of every session the mock expired (from its debug log)
    expiries: list[tuple[float, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.proxy = DecodingProxy(self._sink)
        self.cluster = MockCluster(self.settings.brokers, on_log=self._mock_log)
        ports = []
        for broker_id, upstream in self.cluster.broker_addresses().items():
            port = self.proxy.listen(upstream)
            self.cluster.advertise(broker_id, "127.0.0.1", port)
            ports.append(port)
        self.bootstrap = ",".join(f"127.0.0.1:{p}" for p in ports)
        s = self.settings
        self.cluster.set_consumer_group_timeouts(session_ms=s.session_timeout_ms, heartbeat_ms=s.heartbeat_interval_ms)
        self.cluster.create_topic(s.topic, s.partitions)

    def _mock_log(self, line: str) -> None:
        m = SESSION_TIMED_OUT.search(line)
        if m:
            with self._lock:
                self.expiries.append((self.proxy.now_ms(), m.group(2), m.group(1)))

    def _sink(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    def start(self, client_id: str, group: str = "g") -> ConsumerThread:
        self.log(f"{self.proxy.now_ms() / 1000:6.2f}s start {client_id}")
        c = ConsumerThread(client_id, self.bootstrap, group, [self.settings.topic], self.log)
        self.consumers[client_id] = c
        return c

    def stop(self, client_id: str) -> None:
        self.log(f"{self.proxy.now_ms() / 1000:6.2f}s close {client_id}")
        self.consumers.pop(client_id).close()

    def inject(self, api_key: int, code: int) -> None:
        """The next request of ``api_key`` fails with ``code`` (the trace marks which one did)."""
        self.log(f"{self.proxy.now_ms() / 1000:6.2f}s inject {self.cluster.error_name(code)} ({code})")
        self.injections.append((self.proxy.now_ms(), api_key, code))
        self.cluster.push_request_errors(api_key, [code])

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def close(self) -> None:
        for cid in list(self.consumers):
            self.stop(cid)
        self.proxy.close()
        self.cluster.close()


def topic_events(calls: Iterable[Call]) -> list[dict[str, Any]]:
    """``topic`` bodies from the Metadata responses the clients received (first sighting of each),
    read as the request-log reader reads them (:class:`~kgspec.conformance.readers.topics.TopicTracker`)."""
    tracker = TopicTracker()
    seen: dict[str, dict[str, Any]] = {}
    for call in calls:
        if call.request.api_key == METADATA and call.response is not None:
            for body in tracker.topics_from_call(METADATA, call.request.body or {}, call.response):
                seen.setdefault(body["name"], body)
    return list(seen.values())


def injected_calls(calls: list[Call], injections: list[tuple[float, int, int]]) -> dict[int, int]:
    """id(call) -> error code, for the call that received each injected error: the first call
    of that API answered with that code after the injection (calls in time order)."""
    marked: dict[int, int] = {}
    for ts, api_key, code in injections:
        for call in calls:
            if (call.request.api_key == api_key and call.ts_ms + 50 >= ts and id(call) not in marked
                    and call.response is not None and call.response.get("errorCode") == code):
                marked[id(call)] = code
                break
    return marked


def call_event(call: Call, injected: int | None = None) -> dict[str, Any]:
    """One call in the shape of Kafka's request log (the contract's ``requestHeader`` event).

    ``injectedError`` (an extension: readers keep unknown keys of a call) marks a response
    whose error the recorder injected, so an allow-list can match exactly those."""
    req = call.request
    extra = {"injectedError": injected} if injected is not None else {}
    return {
        "tsMs": round(call.ts_ms, 1),
        "requestHeader": {"requestApiKey": req.api_key, "requestApiVersion": req.api_version,
                          "correlationId": req.correlation_id, "clientId": req.client_id,
                          "requestApiKeyName": req.api_name},
        "request": req.body,
        "response": call.response,
        "connection": call.connection,
        "totalTimeMs": round(call.total_ms, 1),
        **extra,
    }


def trace_events(calls: list[Call], settings: Settings, apis: frozenset[int] = frozenset({CONSUMER_GROUP_HEARTBEAT}),
                 profile: str = "kafka-4.3", injections: list[tuple[float, int, int]] | None = None,
                 expiries: list[tuple[float, str, str]] | None = None) -> list[dict[str, Any]]:
    """Header, the mock's topics (at time 0: the mock creates them first), the calls of ``apis``
    and, where the mock expired a session, a ``tick`` marking it (``peerSessionTimeout``, an
    extension of the tick event: the mock checks sessions only once a second)."""
    header = {"header": {"format": "kgspec-trace/1", "profile": profile, "configs": {
        "group.consumer.heartbeat.interval.ms": settings.heartbeat_interval_ms,
        "group.consumer.session.timeout.ms": settings.session_timeout_ms,
        "group.consumer.min.session.timeout.ms": min(settings.session_timeout_ms, 45000),
        # Kafka refuses to start with an interval under its minimum (GroupCoordinatorConfig)
        "group.consumer.min.heartbeat.interval.ms": min(settings.heartbeat_interval_ms, 5000),
        "group.consumer.assignors": "range",
        "group.consumer.assignment.interval.ms": 0,  # the mock recomputes the target at once
    }}}
    ordered = sorted((c for c in calls if c.request.api_key in apis and c.request.body is not None
                      and c.response is not None), key=lambda c: c.ts_ms)
    events: list[dict[str, Any]] = [header]
    events += [{"tsMs": 0, "topic": t} for t in topic_events(calls)]
    marked = injected_calls(ordered, injections or [])
    timed: list[tuple[float, int, dict[str, Any]]] = [(c.ts_ms, 1, call_event(c, marked.get(id(c)))) for c in ordered]
    timed += [(ts, 0, {"tsMs": round(ts, 1), "tick": {"peerSessionTimeout": {"groupId": gid, "memberId": mid}}})
              for ts, gid, mid in expiries or []]
    events += [e for _, _, e in sorted(timed, key=lambda x: (x[0], x[1]))]
    return events


# --- scenarios --------------------------------------------------------------------------

def join_revoke_leave(r: Recording) -> None:
    """c1 alone, c2 and c3 join (revocations), c1 leaves cleanly (epoch -1), the rest settle."""
    r.start("c1")
    r.sleep(2)
    r.start("c2")
    r.sleep(2)
    r.start("c3")
    r.sleep(2)
    r.stop("c1")
    r.sleep(2)


def session_timeout(r: Recording) -> None:
    """c2 goes silent (the proxy holds its requests) past the session timeout: the mock
    fences it and gives its partitions to c1; released, c2's late heartbeat is rejected
    and it rejoins."""
    r.start("c1")
    r.sleep(1.5)
    r.start("c2")
    r.sleep(2)
    r.log(f"{r.proxy.now_ms() / 1000:6.2f}s hold c2")
    r.proxy.hold("c2")
    r.sleep(r.settings.session_timeout_ms / 1000 + 1.5)
    r.log(f"{r.proxy.now_ms() / 1000:6.2f}s release c2")
    r.proxy.release("c2")
    r.sleep(3)


def injected_errors(r: Recording, codes: tuple[int, ...] = (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID,
                                                            COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR)) -> None:
    """Two stable members; each error in ``codes`` is injected into the next
    ConsumerGroupHeartbeat response (rd_kafka_mock_push_request_errors), one per second."""
    r.start("c1")
    r.sleep(1.5)
    r.start("c2")
    r.sleep(2)
    for code in codes:
        r.inject(CONSUMER_GROUP_HEARTBEAT, code)
        r.sleep(1.5)
    r.sleep(1)


SCENARIOS: dict[str, Callable[[Recording], None]] = {
    "join-revoke-leave": join_revoke_leave,
    "session-timeout": session_timeout,
    "injected-errors": injected_errors,
}
