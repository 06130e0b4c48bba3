"""StreamsGroupHeartbeat (Kafka 4.3): S8 join order and epochs, every status, every NOT_READY
reason, the initial rebalance delay, the assignment interval, leave and shutdown."""

from __future__ import annotations

from kgspec.model.streams.group import NOT_READY, RECONCILING, STABLE_STATE
from kgspec.model.streams.ops import initial_rebalance_key

from tests.streams.helpers import (
    STATEFUL,
    codes,
    coordinator,
    hb,
    join,
    owned,
    record_types,
    sub,
    tasks,
    topic,
    topology,
)


def test_s8_join_records_and_epochs() -> None:
    c = coordinator()
    r = join(c, 0, "m1", "p1")
    assert r.response is not None
    assert record_types(r) == [19, 23, 17, 21, 20, 22]
    assert r.response["memberEpoch"] == 2
    assert tasks(r.response) == {"sub1": [0, 1, 2, 3, 4, 5], "sub2": [0, 1, 2]}
    assert r.response["standbyTasks"] == []
    assert r.response["warmupTasks"] == []
    assert r.response["status"] == []
    assert r.response["heartbeatIntervalMs"] == 5000
    assert r.response["endpointInformationEpoch"] == 0  # the group did not exist before this call
    g = c.streams_groups["g"]
    assert (g.group_epoch, g.assignment_epoch, g.validated_topology_epoch, g.state) == (2, 2, 0, STABLE_STATE)
    assert r.records[2].value is not None
    assert r.records[2].value["lastAssignmentConfigs"] == [{"key": "num.standby.replicas", "value": "0"}]


def test_s8_on_41_has_no_delay_and_epoch_1() -> None:
    c = coordinator("kafka-4.1", delay=3000)
    r = join(c, 0, "m1", "p1")
    assert r.response is not None
    assert r.response["memberEpoch"] == 1
    assert codes(r.response) == []


def test_steady_heartbeat_returns_null_tasks() -> None:
    c = coordinator()
    first = join(c, 0, "m1", "p1").response
    assert first is not None
    r = hb(c, 100, "m1", 2, **owned(first))
    assert r.response is not None
    assert r.records == []
    assert (r.response["activeTasks"], r.response["standbyTasks"], r.response["warmupTasks"]) == (None, None, None)
    assert r.response["status"] == []


def test_initial_delay_assignment_delayed_then_tasks_after_timer() -> None:
    c = coordinator(delay=1000)
    r = join(c, 0, "m1", "p1")
    assert r.response is not None
    assert r.response["memberEpoch"] == 1
    assert codes(r.response) == [5]
    assert r.response["status"][0]["statusDetail"] == "Assignment delayed due to the configured initial rebalance delay."
    assert tasks(r.response) == {}
    assert initial_rebalance_key("g") in c.timers
    fired = c.advance(1000)
    assert [f.timer.kind for f in fired] == ["streams-initial-rebalance"]
    r = hb(c, 1500, "m1", 1, activeTasks=[], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert r.response["memberEpoch"] == 2
    assert codes(r.response) == []
    assert tasks(r.response) == {"sub1": [0, 1, 2, 3, 4, 5], "sub2": [0, 1, 2]}


def test_assignment_interval_delays_the_next_target() -> None:
    c = coordinator()
    join(c, 100, "m1", "p1")  # target computed at t=100 (a timestamp of 0 means "unknown")
    r = join(c, 600, "m2", "p2")
    assert r.response is not None
    assert codes(r.response) == [5]
    assert r.response["status"][0]["statusDetail"] == "Assignment delayed due to the configured assignment interval."
    assert r.response["memberEpoch"] == 2
    assert tasks(r.response) == {}
    r = hb(c, 1100, "m2", 2, activeTasks=[], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert codes(r.response) == []
    assert r.response["memberEpoch"] == 3


def test_stale_topology_status() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1", topology(sub("sub1", ["foo"]), epoch=1))
    r = join(c, 10, "m2", "p2", topology(sub("sub1", ["foo"]), epoch=0))
    assert r.response is not None
    assert r.response["errorCode"] == 0
    assert codes(r.response)[0] == 0
    assert r.response["status"][0]["statusDetail"] == "The member's topology epoch 0 is behind the group's topology epoch 1."


def test_topology_updates_are_not_supported() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")
    r = join(c, 10, "m2", "p2", topology(sub("sub1", ["foo"])))
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (42, "Topology updates are not supported yet.")
    r = join(c, 10, "m2", "p2", topology(sub("sub1", ["foo"]), sub("sub2", ["bar"]), epoch=1))
    assert r.response is not None
    assert r.response["errorCode"] == 42


def test_missing_source_topics_not_ready_and_no_tasks() -> None:
    c = coordinator()
    r = join(c, 0, "m1", "p1", topology(sub("s", ["nope"])))
    assert r.response is not None
    assert codes(r.response) == [1]
    assert tasks(r.response) == {}
    assert c.streams_groups["g"].state == NOT_READY
    assert c.streams_groups["g"].validated_topology_epoch == -1


def test_missing_internal_topics_status_and_topics_to_create() -> None:
    c = coordinator()
    r = join(c, 0, "m1", "p1", STATEFUL)
    assert r.response is not None
    assert codes(r.response) == [3]
    assert tasks(r.response) == {}
    assert list(c.last_streams_topics_to_create) == ["app-store-changelog"]
    assert c.streams_groups["g"].state == NOT_READY
    c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 6)
    r = hb(c, 2000, "m1", 2, activeTasks=[], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert codes(r.response) == []
    assert r.response["memberEpoch"] == 3
    assert tasks(r.response) == {"0": [0, 1, 2, 3, 4, 5]}


def test_incorrectly_partitioned_topics() -> None:
    copart = sub("s", ["foo", "bar"], copartitionGroups=[{"sourceTopics": [0, 1], "sourceTopicRegex": [],
                                                           "repartitionSourceTopics": []}])
    c = coordinator()
    r = join(c, 0, "m1", "p1", topology(copart))
    assert r.response is not None
    assert codes(r.response) == [2]
    assert c.streams_groups["g"].state == NOT_READY


def test_invalid_topology_from_configure() -> None:
    # A repartition source that no subtopology writes to: its partition count cannot be derived.
    c = coordinator()
    r = join(c, 0, "m1", "p1", topology(sub("s", ["foo"], repartitionSourceTopics=[topic("rep")])))
    assert r.response is not None
    assert r.response["errorCode"] == 130
    assert r.records == []
    assert c.streams_groups == {}


def test_shutdown_application_status_for_every_member() -> None:
    c = coordinator()
    a = join(c, 0, "m1", "p1").response
    b = join(c, 1000, "m2", "p2").response
    assert a is not None
    assert b is not None
    r = hb(c, 1100, "m1", 2, shutdownApplication=True, **owned(a))
    assert r.response is not None
    assert codes(r.response)[-1] == 4
    detail = r.response["status"][-1]["statusDetail"]
    assert detail == ("Streams group member m1 encountered a fatal error and requested a shutdown for the "
                      "entire application.")
    r = hb(c, 1200, "m2", b["memberEpoch"], **owned(b))
    assert r.response is not None
    assert 4 in codes(r.response)


def test_leave_fences_and_bumps() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")
    r = hb(c, 100, "m1", -1)
    assert r.response is not None
    assert (r.response["memberId"], r.response["memberEpoch"], r.response["status"]) == ("m1", -1, [])
    assert r.response["activeTasks"] is None
    assert record_types(r) == [22, 21, 19, 17]
    g = c.streams_groups["g"]
    assert (g.group_epoch, g.members) == (3, {})
    assert "session-timeout-g-m1" not in c.timers


def test_session_timeout_fences() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")
    fired = c.advance(45000)
    assert [f.timer.kind for f in fired] == ["streams-session"]
    assert [r.type for r in fired[0].records] == [22, 21, 19, 17]
    assert c.streams_groups["g"].members == {}


def test_endpoint_information() -> None:
    c = coordinator()
    r = join(c, 0, "m1", "p1", userEndpoint={"host": "h1", "port": 8080})
    assert r.response is not None
    assert r.response["endpointInformationEpoch"] == 0
    r = hb(c, 100, "m1", 2, **owned(r.response))
    assert r.response is not None
    # The bump on join was made on the transient group: the persisted group is at 0.
    assert r.response["endpointInformationEpoch"] == 0
    assert r.response["partitionsByUserEndpoint"] is None
    a = join(c, 1000, "m2", "p2", userEndpoint={"host": "h2", "port": 8080}).response
    assert a is not None
    assert a["endpointInformationEpoch"] == 1
    eps = a["partitionsByUserEndpoint"]
    assert [e["userEndpoint"]["host"] for e in eps] == ["h1", "h2"]
    assert eps[0]["activePartitions"] == [{"topic": "foo", "partitions": [0, 1, 2, 3, 4, 5]},
                                          {"topic": "bar", "partitions": [0, 1, 2]}]
    assert eps[1] == {"userEndpoint": {"host": "h2", "port": 8080}, "activePartitions": [], "standbyPartitions": []}


def test_reconciling_state_until_revoked() -> None:
    c = coordinator()
    a = join(c, 0, "m1", "p1").response
    assert a is not None
    join(c, 1000, "m2", "p2")
    assert c.streams_groups["g"].state == RECONCILING
