"""kip profile (seed KIP-1071): topology epoch rules ("Request Handling" 2.3) and warm-up tasks
promoted through acceptable.recovery.lag ("Rebalance Process", "Assignment")."""

from __future__ import annotations

from kgspec.model.coordinator import Coordinator

from tests.streams.helpers import (
    S8_TOPOLOGY,
    codes,
    coordinator,
    hb,
    join,
    owned,
    record_types,
    sub,
    tasks,
    topology,
)

NEW = topology(sub("sub1", ["foo"]), epoch=1)
STATEFUL = topology(sub("0", ["bar"], ("app-store-changelog",)))


def _group_at_epoch_1() -> Coordinator:
    c = coordinator("kip")
    join(c, 0, "m1", "p1", NEW)
    return c


def test_older_topology_epoch_is_fenced() -> None:
    r = join(_group_at_epoch_1(), 100, "m2", "p2", S8_TOPOLOGY).response  # ER 0 < EG 1
    assert r is not None
    assert (r["errorCode"], r["errorMessage"]) == (132, "Topology epoch 0 is behind the group's topology epoch 1.")
    old = join(coordinator("kafka-trunk"), 0, "m1", "p1", NEW)  # Kafka: a stale epoch joins (STALE_TOPOLOGY)
    assert old.response is not None
    assert old.response["errorCode"] == 0


def test_same_epoch_other_topology_is_invalid_topology_epoch() -> None:
    other = topology(sub("sub1", ["bar"]), epoch=1)
    r = join(_group_at_epoch_1(), 100, "m2", "p2", other).response
    assert r is not None
    assert (r["errorCode"], r["errorMessage"]) == (131, "Topology epoch 1 is the group's, but the topology differs.")
    c = coordinator("kafka-trunk")
    join(c, 0, "m1", "p1", NEW)
    kafka = join(c, 100, "m2", "p2", other).response
    assert kafka is not None
    assert (kafka["errorCode"], kafka["errorMessage"]) == (42, "Topology updates are not supported yet.")


def test_epoch_skipping_ahead_is_invalid_topology_epoch() -> None:
    r = join(_group_at_epoch_1(), 100, "m2", "p2", topology(sub("sub1", ["foo"]), epoch=3)).response
    assert r is not None
    assert (r["errorCode"], r["errorMessage"]) == (131, "Topology epoch 3 skips ahead of the group's topology epoch 1.")


def test_next_epoch_updates_the_topology_and_stales_the_others() -> None:
    c = _group_at_epoch_1()
    first = hb(c, 50, "m1", 2, activeTasks=[{"subtopologyId": "sub1", "partitions": [0, 1, 2, 3, 4, 5]}],
               standbyTasks=[], warmupTasks=[]).response
    assert first is not None
    r = join(c, 100, "m2", "p2", topology(sub("sub1", ["foo"]), sub("sub2", ["bar"]), epoch=2))
    assert r.response is not None
    assert r.response["errorCode"] == 0
    assert record_types(r) == [19, 23, 18, 17, 21, 21, 20, 22]  # 18: the seed's partition metadata
    g = c.streams_groups["g"]
    assert g.topology is not None
    assert (g.topology.epoch, g.validated_topology_epoch, g.group_epoch) == (2, 2, 3)
    stale = hb(c, 200, "m1", 2, **owned(first)).response
    assert stale is not None
    assert codes(stale)[0] == 0  # STALE_TOPOLOGY: member epoch 1 < group's 2


def _stateful(num_warmups: int = 1) -> Coordinator:
    c = coordinator("kip", **{"group.streams.num.warmup.replicas": num_warmups})
    c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 3)
    return c


def test_moving_stateful_task_is_warmed_up_first() -> None:
    """The target moves 0_2 to m2 (process p2); m2 restores it as a warm-up, m1 keeps the active."""
    c = _stateful()
    join(c, 0, "m1", "p1", STATEFUL)
    r = join(c, 10, "m2", "p2", STATEFUL).response
    assert r is not None
    assert (r["memberEpoch"], tasks(r), tasks(r, "warmupTasks")) == (3, {}, {"0": [2]})
    m1 = hb(c, 2000, "m1", 2, activeTasks=[{"subtopologyId": "0", "partitions": [0, 1, 2]}], standbyTasks=[],
            warmupTasks=[]).response
    assert m1 is not None
    assert (m1["memberEpoch"], m1["activeTasks"]) == (3, None)
    g = c.streams_groups["g"]
    # the persisted target (record 21) holds the warm-up, as the seed's WarmupTasks field does:
    # m1 keeps 0_2 active meanwhile
    assert g.target["m2"] == {"active": {}, "standby": {}, "warmup": {"0": frozenset({2})}}
    assert g.target["m1"]["active"] == {"0": frozenset({0, 1, 2})}
    trunk = coordinator("kafka-trunk")
    trunk.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 3)
    join(trunk, 0, "m1", "p1", STATEFUL)
    t = join(trunk, 10, "m2", "p2", STATEFUL).response
    assert t is not None
    assert t["warmupTasks"] == []


def test_caught_up_warmup_is_promoted() -> None:
    """Lag 100 - 95 = 5 < acceptable.recovery.lag (10000): a group epoch bump (4) and a new target; seed 002
    "Reconciliation of the group": m2's warm-up, gone from its target, is revoked at once (m2 keeps
    epoch 3 until it confirms), m1 revokes 0_2; the active is granted to m2 once both confirmed
    ("assigned as soon as no other client owns it anymore"; no in-place role change)."""
    c = _stateful()
    join(c, 0, "m1", "p1", STATEFUL)
    join(c, 10, "m2", "p2", STATEFUL)
    m1_owned = {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 1, 2]}], "standbyTasks": [], "warmupTasks": []}
    m2_owned = {"activeTasks": [], "standbyTasks": [], "warmupTasks": [{"subtopologyId": "0", "partitions": [2]}]}
    hb(c, 2000, "m1", 2, **m1_owned)
    lagging = hb(c, 2100, "m2", 3, taskOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 10}],
                 taskEndOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 20000}], **m2_owned)
    assert lagging.records == []  # lag 19990 is not caught up
    step = hb(c, 2200, "m2", 3, taskOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 95}],
              taskEndOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 100}], **m2_owned)
    assert step.response is not None
    # a new target: m1 without 0_2, m2 with 0_2 active (records 21 for both), no warm-up left
    assert (step.response["memberEpoch"], record_types(step)) == (3, [17, 21, 21, 20, 22])
    assert [(r.key["memberId"], r.value) for r in step.records if r.type == 21] == [
        ("m1", {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}], "standbyTasks": [], "warmupTasks": []}),
        ("m2", {"activeTasks": [{"subtopologyId": "0", "partitions": [2]}], "standbyTasks": [], "warmupTasks": []})]
    assert (tasks(step.response), tasks(step.response, "warmupTasks")) == ({}, {})
    assert c.streams_groups["g"].group_epoch == 4
    revoke = hb(c, 2300, "m1", 3, **m1_owned).response
    assert revoke is not None
    assert (revoke["memberEpoch"], tasks(revoke)) == (3, {"0": [0, 1]})
    hb(c, 2400, "m1", 3, activeTasks=[{"subtopologyId": "0", "partitions": [0, 1]}], standbyTasks=[], warmupTasks=[])
    promoted = hb(c, 2500, "m2", 3, activeTasks=[], standbyTasks=[], warmupTasks=[]).response
    assert promoted is not None
    assert (promoted["memberEpoch"], tasks(promoted), tasks(promoted, "warmupTasks")) == (4, {"0": [2]}, {})
