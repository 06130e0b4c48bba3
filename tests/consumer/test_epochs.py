"""Member and group epochs: fencing, the lost-response rule, rejoin with epoch 0, first epochs, batching.

Oracle: GroupMetadataManagerTest testConsumerGroupMemberEpochValidation (S3),
testMemberCanRejoinWithEpochZero* (KAFKA-19233, 4.2+), testMemberJoinsEmptyConsumerGroup
(first epoch 2 in 4.3, KAFKA-20268; 1 before), CurrentAssignmentBuilderTest (KAFKA-19974) and
testConsumerGroupAssignmentInterval (S6, KAFKA-20291, 4.3).
"""

from __future__ import annotations

import pytest
from kgspec.model.consumer.member import STABLE, UNRELEASED_PARTITIONS, UNREVOKED_PARTITIONS

from tests.consumer.helpers import (
    Harness,
    MockAssignor,
    assignment,
    code,
    epoch,
    member,
    tid,
    types,
)

FENCED_MEMBER_EPOCH = 110


def s3_group(profile: str = "kafka-4.3") -> Harness:
    """The member at epoch 100 (previous 99) owning foo{1,2,3}; group and assignment epoch 100."""
    h = Harness({"foo": 6, "bar": 3}, profile=profile)
    h.seed(100, [member("m", 100, {"foo": [1, 2, 3]}, prev=99)], {"m": {"foo": [1, 2, 3]}})
    return h


def test_s3_greater_epoch_is_fenced() -> None:
    h = s3_group()
    r = h.hb("m", 200, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo", "bar"])
    assert code(r) == FENCED_MEMBER_EPOCH
    assert r.response is not None
    assert r.response["errorMessage"] == (
        "The consumer group member has a greater member epoch (200) than the one known by the group "
        "coordinator (100). The member must abandon all its partitions and rejoin.")
    assert r.records == []


def test_s3_smaller_epoch_is_fenced() -> None:
    h = s3_group()
    r = h.hb("m", 50, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo", "bar"])
    assert code(r) == FENCED_MEMBER_EPOCH
    assert r.response is not None
    assert r.response["errorMessage"] == (
        "The consumer group member has a smaller member epoch (50) than the one known by the group "
        "coordinator (100). The member must abandon all its partitions and rejoin.")


def test_s3_previous_epoch_without_owned_partitions_is_fenced() -> None:
    h = s3_group()
    r = h.hb("m", 99, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo", "bar"])
    assert code(r) == FENCED_MEMBER_EPOCH


def test_s3_previous_epoch_with_partitions_outside_the_assignment_is_fenced() -> None:
    h = s3_group()
    assert code(h.heartbeat("m", 99, {"foo": [1, 4]})) == FENCED_MEMBER_EPOCH
    assert code(h.heartbeat("m", 99, {"bar": [0]})) == FENCED_MEMBER_EPOCH


def test_s3_previous_epoch_with_a_subset_is_accepted() -> None:
    h = s3_group()
    r = h.heartbeat("m", 99, {"foo": [1, 2]}, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo", "bar"])
    assert code(r) == 0
    assert epoch(r) == 100
    # A full request (rebalance timeout, names, owned) gets the assignment back.
    assert assignment(r) == {"foo": [1, 2, 3]}
    assert r.records == []
    # The empty owned list is a subset too.
    assert epoch(h.heartbeat("m", 99, {})) == 100


def test_s3_in_4_1_too() -> None:
    h = s3_group("kafka-4.1")
    assert code(h.hb("m", 200)) == FENCED_MEMBER_EPOCH
    assert code(h.hb("m", 50)) == FENCED_MEMBER_EPOCH
    assert epoch(h.heartbeat("m", 99, {"foo": [1, 2]})) == 100


# --- KAFKA-19233: rejoin with epoch 0 -------------------------------------------------------------


def _rejoin(h: Harness) -> object:
    return h.hb("m", 0, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo"], topicPartitions=[])


def test_rejoin_epoch_zero_stable_4_3() -> None:
    h = Harness({"foo": 3})
    h.seed(100, [member("m", 100, {"foo": [0, 1, 2]}, prev=99, topics=["foo"])], {"m": {"foo": [0, 1, 2]}})
    r = h.hb("m", 0, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo"], topicPartitions=[])
    assert r.response == {"errorCode": 0, "errorMessage": None, "memberId": "m", "memberEpoch": 100,
                          "heartbeatIntervalMs": 5000,
                          "assignment": {"topicPartitions": [{"topicId": tid("foo"), "partitions": [0, 1, 2]}]}}
    assert r.records == []  # same subscription, same assignment: no epoch bump, nothing written
    assert h.group.group_epoch == 100


def test_rejoin_epoch_zero_unrevoked_4_3() -> None:
    h = Harness({"foo": 3})
    h.seed(101, [member("m", 100, {"foo": [0, 1]}, prev=99, topics=["foo"], state=UNREVOKED_PARTITIONS,
                        pending={"foo": [2]}, assigned_epoch=11)], {"m": {"foo": [0, 1]}})
    r = h.hb("m", 0, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo"], topicPartitions=[])
    assert epoch(r) == 101
    assert assignment(r) == {"foo": [0, 1]}
    m = h.member("m")
    assert (m.state, m.member_epoch, m.previous_member_epoch) == (STABLE, 101, 100)
    assert h.assigned("m") == {"foo": {0: 11, 1: 11}}
    assert h.pending("m") == {}


def test_rejoin_epoch_zero_unreleased_4_3() -> None:
    h = Harness({"foo": 3})
    h.seed(100, [member("m", 100, {"foo": [0]}, prev=99, topics=["foo"], state=UNRELEASED_PARTITIONS,
                        assigned_epoch=11)], {"m": {"foo": [0, 1, 2]}})
    r = h.hb("m", 0, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo"], topicPartitions=[])
    assert epoch(r) == 100
    assert assignment(r) == {"foo": [0, 1, 2]}
    assert h.assigned("m") == {"foo": {0: 11, 1: 100, 2: 100}}
    assert h.member("m").state == STABLE


def test_rejoin_epoch_zero_is_fenced_in_4_1() -> None:
    # 4.1 throwIfConsumerGroupMemberEpochIsInvalid has no early return for epoch 0 (4.1:1540):
    # 0 < 100 and 0 != previous epoch 99.
    h = Harness({"foo": 3}, profile="kafka-4.1")
    h.seed(100, [member("m", 100, {"foo": [0, 1, 2]}, prev=99, topics=["foo"])], {"m": {"foo": [0, 1, 2]}})
    r = h.hb("m", 0, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo"], topicPartitions=[])
    assert code(r) == FENCED_MEMBER_EPOCH
    assert r.response is not None
    assert r.response["errorMessage"] == (
        "The consumer group member has a smaller member epoch (0) than the one known by the group "
        "coordinator (100). The member must abandon all its partitions and rejoin.")


def test_rejoin_epoch_zero_in_4_1_passes_when_previous_epoch_is_zero() -> None:
    # The lost-response rule: 0 == previousMemberEpoch and [] is a subset of anything.
    h = Harness({"foo": 3}, profile="kafka-4.1")
    h.join("m", ["foo"], assignor="range")
    assert (h.member("m").member_epoch, h.member("m").previous_member_epoch) == (1, 0)
    r = h.join("m", ["foo"], assignor="range")
    assert code(r) == 0
    assert epoch(r) == 1


# --- KAFKA-20268: first epoch ---------------------------------------------------------------------


@pytest.mark.parametrize(("profile", "first"), [("kafka-4.3", 2), ("kafka-trunk", 2), ("kafka-4.1", 1),
                                                ("kafka-4.2", 1)])
def test_first_group_epoch(profile: str, first: int) -> None:
    h = Harness({"foo": 6, "bar": 3}, profile=profile)
    r = h.join("m", ["foo", "bar"], assignor="range")
    assert epoch(r) == first
    assert types(r.records) == ["5", "3", "7", "6", "8"]
    assert r.records[1].value is not None
    assert r.records[1].value["epoch"] == first
    assert r.records[3].value is not None
    assert r.records[3].value["assignmentEpoch"] == first
    m = h.member("m")
    assert (m.state, m.member_epoch, m.previous_member_epoch) == (STABLE, first, 0)
    assert (h.group.group_epoch, h.group.assignment_epoch) == (first, first)


@pytest.mark.parametrize(("profile", "expected_epoch", "expected_types"),
                         [("kafka-4.3", 1, ["5", "8"]), ("kafka-4.1", 1, ["5", "3", "7", "6", "8"])])
def test_first_join_with_empty_subscription(profile: str, expected_epoch: int, expected_types: list[str]) -> None:
    # 4.3: the group starts at 1 and nothing changes the hash, so no record 3 and no target (epoch 1 == 1).
    # 4.1: bumpGroupEpoch = groupEpoch == 0 (4.1:2268) moves the group to epoch 1 and computes a target
    # (record 7 too: TargetAssignmentBuilder writes it when the old target is absent, even if empty).
    h = Harness({"foo": 6}, profile=profile)
    r = h.join("m", [])
    assert epoch(r) == expected_epoch
    assert types(r.records) == expected_types
    assert assignment(r) == {}


# --- KAFKA-19974: leaving UNREVOKED_PARTITIONS -----------------------------------------------------


@pytest.mark.parametrize(("profile", "final_epoch"), [("kafka-4.3", 10), ("kafka-4.1", 11)])
def test_unrevoked_exit_epoch(profile: str, final_epoch: int) -> None:
    """S7c: UNREVOKED@10 revokes into a target that shrinks again at 12 while it still owns the rest.

    4.1: computeNextAssignment(memberEpoch + 1, ...) -> the member sits at 11 while revoking
    (4.1 CurrentAssignmentBuilderTest.testUnrevokedPartitionsToUnrevokedPartitions expects 11);
    4.3: the member keeps its epoch 10.
    """
    mock = MockAssignor()
    h = Harness({"foo": 6, "bar": 3}, profile=profile, mock=mock)
    h.now = 100_000
    h.seed(11, [member("m", 10, {"foo": [2, 3], "bar": [1]}, prev=9, state=UNREVOKED_PARTITIONS,
                       pending={"foo": [1]}, assignor="mock"),
                member("o", 11, {}, prev=10, assignor="mock")],
           {"m": {"foo": [2, 3], "bar": [1]}, "o": {}})
    # The target moves to epoch 12 and shrinks to foo{3}: the member acks the revocation of foo1 but
    # still owns foo2 and bar1, which it must now revoke.
    mock.prepare({"m": {"foo": [3]}, "o": {"foo": [0, 1, 2, 4, 5], "bar": [0, 1, 2]}})
    h.hb("o", 11, subscribedTopicNames=["foo", "bar", "baz"])  # a subscription change bumps the group to 12
    assert (h.group.group_epoch, h.group.assignment_epoch) == (12, 12)
    r = h.heartbeat("m", 10, {"foo": [2, 3], "bar": [1]})
    assert code(r) == 0
    m = h.member("m")
    assert m.state == UNREVOKED_PARTITIONS
    assert m.member_epoch == final_epoch
    assert m.previous_member_epoch == 10
    e = 10 if profile == "kafka-4.3" else 0  # 4.1 has no per-partition assignment epochs (the model stores 0)
    assert h.assigned("m") == {"foo": {3: e}}
    assert h.pending("m") == {"foo": {2: e}, "bar": {1: e}}


# --- S6: assignment batching (KAFKA-20291) ---------------------------------------------------------


def test_s6_assignment_interval() -> None:
    mock = MockAssignor()
    h = Harness({"foo": 6}, configs={"group.consumer.assignment.interval.ms": 5000}, mock=mock)
    h.now = 1_000_000
    mock.prepare({"m1": {"foo": [0, 1, 2, 3, 4, 5]}})
    r1 = h.join("m1", ["foo"], assignor="mock")
    assert epoch(r1) == 2
    assert assignment(r1) == {"foo": [0, 1, 2, 3, 4, 5]}
    assert types(r1.records) == ["5", "3", "7", "6", "8"]
    assert r1.records[3].value == {"assignmentEpoch": 2, "assignmentTimestamp": 1_000_000}

    h.sleep(4995)
    mock.prepare({"m1": {"foo": [0, 1, 2]}, "m2": {"foo": [3, 4, 5]}})
    r2 = h.join("m2", ["foo"], assignor="mock")
    assert r2.response is not None
    assert (r2.response["memberEpoch"], assignment(r2)) == (2, {})
    assert types(r2.records) == ["5", "3", "8"]
    assert r2.records[1].value is not None
    assert r2.records[1].value["epoch"] == 3
    assert r2.records[2].value == {"memberEpoch": 2, "previousMemberEpoch": 0, "state": 0,
                                   "assignedPartitions": [], "partitionsPendingRevocation": []}
    assert h.group.state == "ASSIGNING"
    assert mock.calls == 1

    h.sleep(10)
    r3 = h.hb("m2", 2)
    assert r3.response is not None
    assert (r3.response["memberEpoch"], r3.response["assignment"]) == (3, None)
    assert sorted(types(r3.records)) == ["6", "7", "7", "8"]
    assert types(r3.records)[-2:] == ["6", "8"]
    assert r3.records[-2].value == {"assignmentEpoch": 3, "assignmentTimestamp": 1_005_005}
    m2 = h.member("m2")
    assert (m2.state, m2.member_epoch, m2.previous_member_epoch) == (UNRELEASED_PARTITIONS, 3, 2)


def test_assignment_interval_absent_in_4_1() -> None:
    mock = MockAssignor()
    h = Harness({"foo": 6}, profile="kafka-4.1", configs={"group.consumer.assignment.interval.ms": 5000},
                mock=mock)
    h.now = 1_000_000
    mock.prepare({"m1": {"foo": [0, 1, 2, 3, 4, 5]}})
    assert epoch(h.join("m1", ["foo"], assignor="mock")) == 1
    h.sleep(1)
    mock.prepare({"m1": {"foo": [0, 1, 2]}, "m2": {"foo": [3, 4, 5]}})
    r2 = h.join("m2", ["foo"], assignor="mock")
    assert epoch(r2) == 2
    assert sorted(types(r2.records)) == ["3", "5", "6", "7", "7", "8"]
    assert r2.records[-2].value == {"assignmentEpoch": 2}  # no timestamp field before 4.3
    assert h.member("m2").state == UNRELEASED_PARTITIONS


def test_zero_interval_always_computes() -> None:
    mock = MockAssignor()
    h = Harness({"foo": 6}, configs={"group.consumer.assignment.interval.ms": 0}, mock=mock)
    h.now = 1_000_000
    mock.prepare({"m1": {"foo": [0, 1, 2, 3, 4, 5]}})
    h.join("m1", ["foo"])
    mock.prepare({"m1": {"foo": [0, 1, 2]}, "m2": {"foo": [3, 4, 5]}})
    assert epoch(h.join("m2", ["foo"])) == 3
