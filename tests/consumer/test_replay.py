"""Replay equivalence (every record the model wrote rebuilds the same groups) and replay errors."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.records import ReplayError
from kgspec.model.coordinator import Coordinator

from tests.consumer.helpers import Harness, member, tid

MEMBERS = ["m1", "m2", "m3", "m4"]
TOPIC_SETS = [["foo"], ["foo", "bar"], ["bar"], []]

op = st.one_of(
    st.tuples(st.just("join"), st.sampled_from(MEMBERS), st.sampled_from(range(len(TOPIC_SETS))),
              st.sampled_from([None, "range", "uniform"])),
    st.tuples(st.just("ack"), st.sampled_from(MEMBERS)),
    st.tuples(st.just("hb"), st.sampled_from(MEMBERS)),
    st.tuples(st.just("resubscribe"), st.sampled_from(MEMBERS), st.sampled_from(range(len(TOPIC_SETS)))),
    st.tuples(st.just("leave"), st.sampled_from(MEMBERS)),
    st.tuples(st.just("static"), st.sampled_from(MEMBERS)),
    st.tuples(st.just("sleep"), st.sampled_from([100, 1000, 6000, 46000])),
    st.tuples(st.just("grow"), st.sampled_from(["foo", "bar"])),
)


def run(h: Harness, step: tuple) -> None:  # type: ignore[type-arg]
    kind, *args = step
    members = h.coord.groups.get("grp")
    known = members.members if members else {}
    if kind == "join":
        mid, ts, assignor = args
        instance = f"i-{mid}" if mid in ("m3", "m4") else None
        h.join(mid if mid not in known or known[mid].member_epoch != -2 else mid + "x",
               TOPIC_SETS[ts], assignor=assignor, instance=instance)
    elif kind == "ack" and args[0] in known and known[args[0]].member_epoch > 0:
        h.ack(args[0])
    elif kind == "hb" and args[0] in known and known[args[0]].member_epoch > 0:
        h.heartbeat(args[0])
    elif kind == "resubscribe" and args[0] in known and known[args[0]].member_epoch > 0:
        h.heartbeat(args[0], subscribedTopicNames=TOPIC_SETS[args[1]])
    elif kind == "leave" and args[0] in known:
        h.leave(args[0], -1, instance=known[args[0]].instance_id)
    elif kind == "static" and args[0] in known and known[args[0]].instance_id is not None:
        h.leave(args[0], -2, instance=known[args[0]].instance_id)
    elif kind == "sleep":
        h.sleep(args[0])
    elif kind == "grow":
        info = h.coord.topics.by_name(args[0])
        assert info is not None
        h.coord.update_topic(args[0], info.topic_id, info.partitions + 1)


def fresh_replay(h: Harness) -> Coordinator:
    fresh = Coordinator(h.coord.profile)
    for r in h.log:
        fresh.replay(r)
    return fresh


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["kafka-4.3", "kafka-4.1", "kafka-trunk"]), st.lists(op, min_size=1, max_size=25))
def test_replay_rebuilds_the_same_groups(profile: str, steps: list) -> None:  # type: ignore[type-arg]
    h = Harness({"foo": 4, "bar": 2}, profile=profile)
    h.now = 1_000
    for step in steps:
        run(h, step)
        assert fresh_replay(h).snapshot()["groups"] == h.coord.snapshot()["groups"]


def test_replay_of_a_full_scenario() -> None:
    h = Harness({"foo": 6, "bar": 3})
    h.now = 1_000
    h.join("a", ["foo", "bar"])
    h.sleep(1000)
    h.join("b", ["foo"])
    h.heartbeat("a")
    h.ack("a")
    h.heartbeat("b")
    h.ack("b")
    h.sleep(50_000)  # everyone's session expires
    snap = h.coord.snapshot()["groups"]
    assert snap["grp"]["members"] == {}
    assert fresh_replay(h).snapshot()["groups"] == snap


def test_member_tombstone_before_assignment_tombstone_is_rejected() -> None:
    h = Harness({"foo": 2})
    h.seed(5, [member("m", 5, {"foo": [0]}, topics=["foo"])], {})
    with pytest.raises(ReplayError, match="before its assignment tombstone"):
        h.coord.replay(rec.member_metadata_tombstone("grp", "m"))


def test_member_tombstone_before_target_tombstone_is_rejected() -> None:
    h = Harness({"foo": 2})
    h.seed(5, [member("m", 5, {"foo": [0]}, topics=["foo"])], {"m": {"foo": [0]}})
    h.coord.replay(rec.current_assignment_tombstone("grp", "m"))
    with pytest.raises(ReplayError, match="before its target tombstone"):
        h.coord.replay(rec.member_metadata_tombstone("grp", "m"))


def test_group_tombstone_with_members_is_rejected() -> None:
    h = Harness({"foo": 2})
    h.seed(5, [member("m", 5, {"foo": [0]}, topics=["foo"])], {"m": {"foo": [0]}})
    with pytest.raises(ReplayError, match="cannot be deleted"):
        h.coord.replay(rec.group_epoch_tombstone("grp"))


def test_group_tombstone_needs_the_target_metadata_tombstone() -> None:
    h = Harness({"foo": 2})
    h.seed(5, [member("m", 5, {"foo": [0]}, topics=["foo"])], {"m": {"foo": [0]}})
    h.replay([rec.current_assignment_tombstone("grp", "m"), rec.target_member_tombstone("grp", "m"),
              rec.member_metadata_tombstone("grp", "m")])
    with pytest.raises(ReplayError):
        h.coord.replay(rec.group_epoch_tombstone("grp"))
    # ConsumerGroup.createGroupTombstoneRecords order: ..., 6 tombstone, ..., 3 tombstone.
    h.replay([rec.target_metadata_tombstone("grp"), rec.group_epoch_tombstone("grp")])
    assert h.coord.groups == {}


def test_target_metadata_tombstone_with_targets_is_rejected() -> None:
    h = Harness({"foo": 2})
    h.seed(5, [member("m", 5, {"foo": [0]}, topics=["foo"])], {"m": {"foo": [0]}})
    with pytest.raises(ReplayError):
        h.coord.replay(rec.target_metadata_tombstone("grp"))


def test_missing_assignment_epochs_default_to_member_epoch() -> None:
    h = Harness({"foo": 2})
    h.seed(5, [member("m", 5, {}, topics=["foo"])], {})
    value = {"memberEpoch": 7, "previousMemberEpoch": 6, "state": 0,
             "assignedPartitions": [{"topicId": tid("foo"), "partitions": [0, 1]}], "partitionsPendingRevocation": []}
    h.coord.replay(rec.Record(8, {"groupId": "grp", "memberId": "m"}, value))
    assert h.assigned("m") == {"foo": {0: 7, 1: 7}}
