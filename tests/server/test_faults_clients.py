"""Fault rules against real clients: librdkafka recovers from each, and the trace (the
coordinator's) still passes ``kgspec check --clients``.

The NOT_COORDINATOR session runs in the default suite (a few seconds); the rest are marked
``clients``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kgspec

from .clients import FAST_CONFIGS, RdConsumer, disjoint_cover, wait_for
from .helpers import calls, check, events, findings_text

pytest.importorskip("confluent_kafka")
pytest.importorskip("kio")

CONSUMER_GROUP_HEARTBEAT = 68


def _two_members(broker: Any) -> tuple[RdConsumer, RdConsumer]:
    c1 = RdConsumer(broker.bootstrap, "c1")
    c2 = RdConsumer(broker.bootstrap, "c2")
    wait_for(lambda: disjoint_cover([c1, c2], 4) and bool(c1.assigned) and bool(c2.assigned), 30,
             "c1 and c2 share 4 partitions")
    return c1, c2


def _session(tmp_path: Path, rule: dict[str, Any], settle: Any = None) -> tuple[Any, Path]:
    """Two stable KIP-848 members; ``rule`` added at run time; the group must settle again."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 4}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        c1, c2 = _two_members(broker)
        broker.add_fault(rule)
        times = rule.get("times", 1)  # wait until the rule has acted on every call it names
        wait_for(lambda: broker._server is not None and len(broker._server.broker.faults.fired) >= times, 20,
                 f"the rule to act {times} time(s)")
        if settle is not None:
            settle(broker, c1, c2)
        wait_for(lambda: disjoint_cover([c1, c2], 4) and bool(c1.assigned) and bool(c2.assigned), 30,
                 "the group to settle again")
        c1.close()
        c2.close()
    report = check(trace)
    assert report.findings == [], findings_text(report)
    assert broker.findings == []
    return broker, trace


def test_not_coordinator_answer_is_outside_the_trace_and_the_client_rediscovers(tmp_path: Path) -> None:
    """The 2nd heartbeat of c1 from now on is answered NOT_COORDINATOR by the fault, not the
    model: librdkafka looks the coordinator up again (FindCoordinator) and heartbeats on."""
    broker, trace = _session(tmp_path, {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c1", "nth": 2},
                                        "action": "error", "error": "NOT_COORDINATOR"})
    assert broker.summary.faults == 1
    assert all(c["response"]["errorCode"] != 16 for c in calls(trace, CONSUMER_GROUP_HEARTBEAT))
    assert broker.summary.calls > 0


@pytest.mark.clients
def test_coordinator_load_in_progress_is_retried(tmp_path: Path) -> None:
    broker, _ = _session(tmp_path, {"match": {"api": 68, "clientId": "c2"}, "action": "error",
                                    "error": "COORDINATOR_LOAD_IN_PROGRESS", "times": 3})
    assert broker.summary.faults == 3


@pytest.mark.clients
def test_closed_connection_then_the_client_reconnects(tmp_path: Path) -> None:
    def reconnected(broker: Any, c1: RdConsumer, c2: RdConsumer) -> None:
        wait_for(lambda: len({c["connection"] for c in calls(broker.trace_path, CONSUMER_GROUP_HEARTBEAT, "c1")}) >= 2,
                 30, "c1 heartbeating on a new connection")

    broker, trace = _session(tmp_path, {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c1"},
                                        "action": "close"}, reconnected)
    assert broker.summary.faults == 1
    connections = {c["connection"] for c in calls(trace, CONSUMER_GROUP_HEARTBEAT, "c1")}
    assert len(connections) >= 2  # c1 heartbeats on a new connection after the close


@pytest.mark.clients
def test_delayed_response_is_still_the_models(tmp_path: Path) -> None:
    _session(tmp_path, {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c2"}, "action": "delay",
                        "delayMs": 1000})


@pytest.mark.clients
def test_dropped_response_the_call_is_served_and_traced(tmp_path: Path) -> None:
    """c2's heartbeat is handled by the model but its response never leaves; librdkafka times the
    request out and heartbeats again (the lost-response rule lets it keep its epoch)."""
    before = 0

    def settle(broker: Any, c1: RdConsumer, c2: RdConsumer) -> None:
        nonlocal before
        before = broker._server.broker.stats.calls["ConsumerGroupHeartbeat"]
        wait_for(lambda: broker._server.broker.stats.calls["ConsumerGroupHeartbeat"] > before + 4, 30,
                 "heartbeats after the dropped one")

    broker, _ = _session(tmp_path, {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c2"}, "action": "drop"},
                         settle)
    assert broker.summary.faults == 1


@pytest.mark.clients
def test_clock_jump_expires_the_sessions_and_members_rejoin(tmp_path: Path) -> None:
    """The clock jumps 10 s at c1's next heartbeat: both 6 s sessions expire (the timers fire
    before the call is handled), c1's heartbeat is answered UNKNOWN_MEMBER_ID and both rejoin."""
    broker, trace = _session(tmp_path, {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c1"},
                                        "action": "clock", "advanceMs": 10000})
    assert broker.summary.faults == 1
    fenced = [c for c in calls(trace, CONSUMER_GROUP_HEARTBEAT) if c["response"]["errorCode"] == 25]
    assert fenced, "a heartbeat after the jump is answered UNKNOWN_MEMBER_ID"


@pytest.mark.clients
def test_failover_reloads_from_records_and_the_group_goes_on(tmp_path: Path) -> None:
    broker, trace = _session(tmp_path, {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c2"},
                                        "action": "failover"})
    assert broker.summary.faults == 1
    ticks = [e for e in events(trace) if e.get("tick", {}).get("coordinatorFailover")]
    assert len(ticks) == 1


@pytest.mark.clients
def test_failover_from_the_python_api(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 4}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        c1, c2 = _two_members(broker)
        broker.failover()
        broker.advance_clock(100)
        wait_for(lambda: len(calls(trace, CONSUMER_GROUP_HEARTBEAT)) > 10, 20, "heartbeats after the failover")
        c1.close()
        c2.close()
    report = check(trace)
    assert report.findings == [], findings_text(report)
