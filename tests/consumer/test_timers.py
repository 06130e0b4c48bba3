"""Timers: rebalance timeout (S5), session timeout (S5b, 4.3 vs trunk), resets, cancellation, onLoaded."""

from __future__ import annotations

import pytest
from kgspec.model.consumer.member import UNRELEASED_PARTITIONS, UNREVOKED_PARTITIONS
from kgspec.model.coordinator import Coordinator

from tests.consumer.helpers import Harness, MockAssignor, assignment, epoch, member, types


def s5() -> tuple[Harness, MockAssignor]:
    mock = MockAssignor()
    h = Harness({"foo": 3}, mock=mock)
    h.now = 1_000_000
    mock.prepare({"m1": {"foo": [0, 1, 2]}})
    r = h.join("m1", ["foo"], rebalance_timeout=10_000)
    assert (epoch(r), assignment(r)) == (2, {"foo": [0, 1, 2]})
    h.sleep(5000)
    mock.prepare({"m1": {"foo": [0, 1]}, "m2": {"foo": [2]}})
    r = h.join("m2", ["foo"], rebalance_timeout=10_000)
    assert (epoch(r), assignment(r)) == (3, {})
    assert h.member("m2").state == UNRELEASED_PARTITIONS
    r = h.heartbeat("m1", 2)
    assert (epoch(r), assignment(r)) == (2, {"foo": [0, 1]})
    assert h.member("m1").state == UNREVOKED_PARTITIONS
    return h, mock


def test_s5_rebalance_timeout_fences() -> None:
    h, _ = s5()
    timer = h.coord.timers.get("rebalance-timeout-grp-m1")
    assert timer is not None
    assert (timer.deadline_ms, timer.epoch) == (1_015_000, 2)
    firings = h.sleep(10_001)
    assert [f.timer.key for f in firings] == ["rebalance-timeout-grp-m1"]
    recs = firings[0].records
    assert types(recs) == ["8-", "7-", "5-", "3"]
    assert [r.key.get("memberId") for r in recs[:3]] == ["m1", "m1", "m1"]
    assert recs[3].value is not None
    assert recs[3].value["epoch"] == 4
    assert not [t for t in h.timers() if t.endswith("-m1")]


def test_s5_rebalance_timeout_does_nothing_once_the_member_moved_on() -> None:
    h, _ = s5()
    r = h.heartbeat("m1", 2, {"foo": [0, 1]})
    assert epoch(r) == 3
    assert "rebalance-timeout-grp-m1" not in h.timers()  # cancelled on leaving UNREVOKED
    assert h.sleep(10_001) == []


def test_rebalance_timeout_fires_only_if_epoch_unchanged() -> None:
    h, _ = s5()
    # Simulate a stale timer: the member's epoch moves on but the timer stays.
    timer = h.coord.timers.get("rebalance-timeout-grp-m1")
    h.heartbeat("m1", 2, {"foo": [0, 1]})
    assert timer is not None
    h.coord.timers.schedule(timer)
    firings = h.sleep(10_001)
    assert [(f.timer.key, f.records) for f in firings] == [("rebalance-timeout-grp-m1", [])]
    assert "m1" in h.group.members


@pytest.mark.parametrize(("profile", "expected"), [("kafka-4.3", ["8-", "7-", "5-", "3"]),
                                                   ("kafka-trunk", ["8-", "7-", "5-", "3", "6"])])
def test_s5b_session_timeout(profile: str, expected: list[str]) -> None:
    # Trunk GMM.consumerGroupFenceMembers also writes TargetAssignmentMetadata(epoch, 0) when the group
    # becomes empty (trunk GMM:4940; GMMTest.testSessionTimeoutExpiration on trunk); 4.3 does not.
    h = Harness({"foo": 6}, profile=profile)
    h.now = 1_000
    assert epoch(h.join("m", ["foo"], assignor="range")) == 2
    assert h.coord.timers.get("session-timeout-grp-m").deadline_ms == 46_000  # type: ignore[union-attr]
    assert h.sleep(44_999) == []
    firings = h.sleep(1)  # fires at deadline <= now (MockCoordinatorTimer.poll)
    assert [f.timer.key for f in firings] == ["session-timeout-grp-m"]
    recs = firings[0].records
    assert types(recs) == expected
    assert recs[3].value == {"epoch": 3}  # metadataHash 0 (nothing subscribed any more) is omitted
    if profile == "kafka-trunk":
        assert recs[4].value == {"assignmentEpoch": 3}  # timestamp 0 omitted
        assert (h.group.group_epoch, h.group.assignment_epoch) == (3, 3)
    else:
        assert (h.group.group_epoch, h.group.assignment_epoch) == (3, 2)
    assert h.group.state == "EMPTY"
    assert h.timers() == []


def test_session_timer_reset_by_heartbeats() -> None:
    h = Harness({"foo": 6})
    h.now = 1_000
    h.join("m", ["foo"])
    for _ in range(5):
        assert h.sleep(40_000) == []
        h.heartbeat("m")
        assert h.coord.timers.get("session-timeout-grp-m").deadline_ms == h.now + 45_000  # type: ignore[union-attr]
    assert "m" in h.group.members


def test_timers_cancelled_on_leave() -> None:
    h, _ = s5()
    assert h.timers() == ["rebalance-timeout-grp-m1", "session-timeout-grp-m1", "session-timeout-grp-m2"]
    r = h.leave("m1")
    assert types(r.records) == ["8-", "7-", "5-", "3"]
    assert h.timers() == ["session-timeout-grp-m2"]


def test_static_temporary_leave_keeps_the_session_timer() -> None:
    h = Harness({"foo": 6})
    h.now = 1_000
    h.join("m", ["foo"], instance="i")
    h.sleep(10_000)
    h.leave("m", -2, instance="i")
    assert h.coord.timers.get("session-timeout-grp-m").deadline_ms == 46_000  # type: ignore[union-attr]
    firings = h.sleep(35_000)
    assert types(firings[0].records) == ["8-", "7-", "5-", "3"]


def test_on_loaded_rearms_session_and_rebalance_timers() -> None:
    h, _ = s5()
    fresh = Coordinator("kafka-4.3", {"group.consumer.assignors": "mock,uniform,range"})
    for name in ("foo",):
        info = h.coord.topics.by_name(name)
        assert info is not None
        fresh.update_topic(name, info.topic_id, info.partitions)
    for r in h.log:
        fresh.replay(r)
    assert fresh.timers.snapshot() == {}
    fresh.on_loaded(2_000_000)
    assert fresh.timers.snapshot() == {
        # GroupCoordinatorShard.onLoaded arms the offsets' cleanup (offsets.retention.check.interval.ms)
        "expire-group-metadata": {"deadlineMs": 2_600_000, "kind": "offsets-expire-group-metadata", "epoch": None},
        "rebalance-timeout-grp-m1": {"deadlineMs": 2_010_000, "kind": "consumer-rebalance", "epoch": 2},
        "session-timeout-grp-m1": {"deadlineMs": 2_045_000, "kind": "consumer-session", "epoch": None},
        "session-timeout-grp-m2": {"deadlineMs": 2_045_000, "kind": "consumer-session", "epoch": None},
    }


def test_on_loaded_arms_static_members_at_minus_two() -> None:
    h = Harness({"foo": 6})
    h.seed(5, [member("m", -2, {"foo": [0]}, prev=5, instance="i", topics=["foo"])], {"m": {"foo": [0]}})
    h.coord.on_loaded(7)
    assert h.timers() == ["expire-group-metadata", "session-timeout-grp-m"]  # and the offsets' cleanup


def test_dry_run_leaves_timers_and_state_untouched_until_commit() -> None:
    """decide must change nothing (the checker tries alternatives with it)."""
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.hashing import deterministic_topic_id

    coord = Coordinator("kafka-4.3", {"group.consumer.assignment.interval.ms": 0})
    coord.update_topic("foo", deterministic_topic_id("foo"), 2)
    request = {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
               "subscribedTopicNames": ["foo"], "topicPartitions": []}
    before = coord.snapshot()
    dry = coord.decide(68, 1, request, now=100)
    assert coord.snapshot() == before
    assert coord.timers.get("session-timeout-g-m1") is None
    assert [r.type for r in dry.records] == [5, 3, 7, 6, 8]
    coord.commit(dry)
    timer = coord.timers.get("session-timeout-g-m1")
    assert timer is not None
    assert timer.deadline_ms == 100 + 45000
    assert coord.groups["g"].members["m1"].member_epoch == 2
