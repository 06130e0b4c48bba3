"""What a group config change does to a live group (GroupMetadataManagerTest's dynamic-config
cases): the next heartbeat answers the new interval and re-arms the session with the new
timeout; a new ``streams.num.standby.replicas`` bumps the group epoch and computes a new target."""

from __future__ import annotations

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.streams.ops import STANDBY
from kgspec.model.timers import session_key

from tests.consumer.helpers import Harness, MockAssignor, assignment, epoch
from tests.group_configs.helpers import alter, op
from tests.streams.helpers import STATEFUL, hb, join, record_types


def deadline(c: Coordinator, group: str, member: str) -> int | None:
    """The member's session-timeout deadline (None: no session timer)."""
    timer = c.timers.get(session_key(group, member))
    return None if timer is None else timer.deadline_ms


def test_consumer_group_dynamic_configs() -> None:
    mock = MockAssignor()
    h = Harness({"foo": 6}, mock=mock)
    mock.prepare({"m1": {"foo": [0, 1, 2, 3, 4, 5]}})
    r = h.join("m1", ["foo"], rebalance_timeout=90000)
    assert r.response is not None
    assert (epoch(r), r.response["heartbeatIntervalMs"]) == (2, 5000)
    assert deadline(h.coord, "grp", "m1") == h.now + 45000
    h.sleep(5000)
    assert alter(h.coord, "grp", op("consumer.session.timeout.ms", "50000"),
                 op("consumer.heartbeat.interval.ms", "10000"), now=h.now)[0]["errorCode"] == 0
    # the change alone re-arms nothing (GroupCoordinatorService.updateGroupConfig only stores it)
    assert deadline(h.coord, "grp", "m1") == 45000
    r = h.heartbeat("m1", 2)
    assert r.response is not None
    assert (epoch(r), r.response["heartbeatIntervalMs"]) == (2, 10000)
    assert deadline(h.coord, "grp", "m1") == h.now + 50000
    assert assignment(r) is None


def test_consumer_group_config_survives_failover() -> None:
    """The metadata log keeps group configs: a new coordinator re-arms sessions with them."""
    mock = MockAssignor()
    h = Harness({"foo": 1}, mock=mock)
    mock.prepare({"m1": {"foo": [0]}})
    h.join("m1", ["foo"])
    alter(h.coord, "grp", op("consumer.session.timeout.ms", "55000"), now=h.now)
    h.coord.failover(1000)
    assert deadline(h.coord, "grp", "m1") == 1000 + 55000


def test_streams_group_dynamic_configs() -> None:
    c = Coordinator("kafka-4.3", {"group.streams.initial.rebalance.delay.ms": 0})
    c.update_topic("foo", "AAAAAAAAAAAAAAAAAAAAAA", 6)
    r = join(c, 0, "m1", "p1", topo=STATEFUL)
    assert r.response is not None
    assert (r.response["memberEpoch"], r.response["heartbeatIntervalMs"]) == (2, 5000)
    assert deadline(c, "g", "m1") == 45000
    assert alter(c, "g", op("streams.session.timeout.ms", "50000"), op("streams.heartbeat.interval.ms", "10000"),
                 op("streams.num.standby.replicas", "2"), now=5000)[0]["errorCode"] == 0
    r = hb(c, 5000, "m1", 2, activeTasks=r.response["activeTasks"], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    # the assignment configs changed: epoch bump (records 17 with the new configs, then the target)
    assert r.response["memberEpoch"] == 3
    assert r.response["heartbeatIntervalMs"] == 10000
    assert record_types(r)[0] == 17
    assert r.records[0].value is not None
    assert r.records[0].value["lastAssignmentConfigs"] == [{"key": "num.standby.replicas", "value": "2"}]
    assert deadline(c, "g", "m1") == 5000 + 50000


def test_streams_group_epoch_increase_with_assignment_config_changes() -> None:
    """A new ``streams.num.standby.replicas`` bumps the epoch at the next heartbeat and the new
    target gives each of the six stateful tasks one standby on the other process."""
    c = Coordinator("kafka-4.3", {"group.streams.initial.rebalance.delay.ms": 0})
    c.update_topic("foo", "AAAAAAAAAAAAAAAAAAAAAA", 6)
    c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 6)
    join(c, 0, "m1", "p1", topo=STATEFUL)
    r2 = join(c, 2000, "m2", "p2", topo=STATEFUL)
    assert r2.response is not None
    group = c.streams_groups["g"]
    epoch_before = group.group_epoch
    assert sum(len(p) for sets in group.target.values() for p in sets[STANDBY].values()) == 0
    alter(c, "g", op("streams.num.standby.replicas", "1"), now=4000)
    r = hb(c, 4000, "m2", r2.response["memberEpoch"])
    assert r.response is not None
    assert (group.group_epoch, group.assignment_epoch) == (epoch_before + 1, epoch_before + 1)
    assert group.last_assignment_configs == {"num.standby.replicas": "1"}
    assert sum(len(p) for sets in group.target.values() for p in sets[STANDBY].values()) == 6


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.2"])
def test_streams_group_with_a_config_runs_on_groupconfig_defaults(profile: str) -> None:
    """4.1/4.2's extractGroupConfigMap copies no streams config (extractStreamsGroupConfigMap is
    4.3's): once a group has any config, GroupMetadataManager.streamsGroupSessionTimeoutMs(groupId)
    is its GroupConfig's 45000, not the broker's 50000 (Kafka 4.1's GroupMetadataManager, run,
    re-arms the session at 45000 too)."""
    c = Coordinator(profile, {"group.streams.initial.rebalance.delay.ms": 0,
                              "group.streams.session.timeout.ms": 50000})
    c.update_topic("foo", "AAAAAAAAAAAAAAAAAAAAAA", 6)
    r = join(c, 0, "m1", "p1", topo=STATEFUL)
    assert r.response is not None
    assert deadline(c, "g", "m1") == 50000
    assert alter(c, "g", op("consumer.heartbeat.interval.ms", "6000"), now=1000)[0]["errorCode"] == 0
    hb(c, 1000, "m1", r.response["memberEpoch"])
    assert deadline(c, "g", "m1") == 1000 + 45000
    c43 = Coordinator("kafka-4.3", {"group.streams.initial.rebalance.delay.ms": 0,
                                    "group.streams.session.timeout.ms": 50000})
    c43.update_topic("foo", "AAAAAAAAAAAAAAAAAAAAAA", 6)
    r = join(c43, 0, "m1", "p1", topo=STATEFUL)
    assert r.response is not None
    alter(c43, "g", op("consumer.heartbeat.interval.ms", "6000"), now=1000)
    hb(c43, 1000, "m1", r.response["memberEpoch"])
    assert deadline(c43, "g", "m1") == 1000 + 50000  # 4.3 copies the broker's streams values
