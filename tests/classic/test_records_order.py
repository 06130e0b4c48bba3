"""GroupMetadata replay, failover, the classic state table, and Java HashMap order."""

from __future__ import annotations

import pytest
from kgspec.model.classic.javamap import JavaHashMap
from kgspec.model.coordinator import Coordinator
from kgspec.model.javaorder import java_hashmap_order
from kgspec.spec.classic import COMPLETING_REBALANCE, STABLE
from kgspec.spec.tables import InvalidTransition

from tests.classic.harness import Harness


def test_replay_rebuilds_the_persisted_group() -> None:
    """GroupMetadataManager.replay(GroupMetadataKey, GroupMetadataValue): STABLE with members."""
    h = Harness()
    h.stable_group(3)
    live = h.group()
    fresh = Coordinator()
    for record in h.coord.classic_log.values():
        fresh.replay(record)
    assert fresh.classic_groups["g"].snapshot() == live.snapshot()
    assert live.snapshot()["state"] == STABLE


def test_failover_answers_parked_calls_with_not_coordinator_and_reloads() -> None:
    """onUnloaded (COMPLETING_REBALANCE: pending syncs get NOT_COORDINATOR), then onLoaded."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    r = h.join(7000, m1, client_id="c0")
    h.join(7001, m2, client_id="c1")
    f = h.sync(7002, m2, 2)
    assert f.response is None
    assert h.group().state == COMPLETING_REBALANCE
    h.coord.failover(7003)
    h.advance(7003)
    assert h.done[f.pending] == {"throttleTimeMs": 0, "errorCode": 16, "protocolType": None,  # type: ignore[index]
                                 "protocolName": None, "assignment": ""}
    assert r.pending is not None
    g = h.group()
    assert g.state == STABLE
    assert g.generation_id == 1
    assert h.coord.timers.get(f"heartbeat-g-{m1}").deadline_ms == 17_003  # type: ignore[union-attr]


def test_transitions_follow_the_declared_table() -> None:
    h = Harness()
    h.stable_group(1)
    with pytest.raises(InvalidTransition):
        h.group().transition("join_completed", 0)  # STABLE -> COMPLETING is not a Kafka edge


def test_java_hashmap_order_survives_removals_and_growth() -> None:
    keys = [f"member-{i}" for i in range(20)]
    m: JavaHashMap[int] = JavaHashMap()
    for i, k in enumerate(keys):
        m[k] = i
    assert m.keys() == java_hashmap_order(keys)  # 20 keys: capacity 32
    for k in keys[:15]:
        del m[k]
    # Java never shrinks the table: the 5 left keep the 32-bucket order, not a fresh map's 16.
    left = keys[15:]
    assert m.keys() == sorted(left, key=lambda k: java_hashmap_order(keys).index(k))
    assert m.keys() == ["member-19", "member-18", "member-17", "member-16", "member-15"]
    m["member-0"] = 0  # re-inserted: last within its bucket (bucket 23, alone)
    assert m.keys() == ["member-19", "member-18", "member-17", "member-16", "member-15", "member-0"]
    # member-5 shares bucket 8 with member-15 and came first; re-inserted, it goes after it.
    m["member-5"] = 5
    assert m.keys() == ["member-19", "member-18", "member-17", "member-16", "member-15", "member-5", "member-0"]
