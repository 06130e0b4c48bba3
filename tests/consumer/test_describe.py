"""ConsumerGroupDescribe (API 69): known and unknown groups (CG.asDescribedGroup, CGM.asConsumerGroupDescribeMember)."""

from __future__ import annotations

from kgspec.model.consumer.member import UNREVOKED_PARTITIONS

from tests.consumer.helpers import Harness, MockAssignor, canon, member, tid


def test_unknown_group() -> None:
    h = Harness({"foo": 1})
    assert h.describe("nope") == {"throttleTimeMs": 0, "groups": [{
        "errorCode": 69, "errorMessage": "Group nope not found.", "groupId": "nope", "groupState": "",
        "groupEpoch": 0, "assignmentEpoch": 0, "assignorName": "", "members": [],
        "authorizedOperations": -2147483648}]}


def test_states() -> None:
    mock = MockAssignor()
    h = Harness({"foo": 2}, mock=mock, configs={"group.consumer.assignment.interval.ms": 5000})
    h.now = 10_000
    mock.prepare({"a": {"foo": [0, 1]}})
    h.join("a", ["foo"])
    g = h.describe()["groups"][0]
    assert (g["groupState"], g["groupEpoch"], g["assignmentEpoch"], g["assignorName"]) == ("Stable", 2, 2, "mock")
    h.sleep(1)
    h.join("b", ["foo"])
    g = h.describe()["groups"][0]
    assert (g["groupState"], g["groupEpoch"], g["assignmentEpoch"]) == ("Assigning", 3, 2)
    h.sleep(5000)
    mock.prepare({"a": {"foo": [0]}, "b": {"foo": [1]}})
    h.heartbeat("b")
    g = h.describe()["groups"][0]
    assert (g["groupState"], g["groupEpoch"], g["assignmentEpoch"]) == ("Reconciling", 3, 3)
    h.heartbeat("a")
    h.ack("a")
    h.heartbeat("b")
    h.ack("b")
    assert h.describe()["groups"][0]["groupState"] == "Stable"
    h.leave("a")
    h.leave("b")
    g = h.describe()["groups"][0]
    assert (g["groupState"], g["members"]) == ("Empty", [])


def test_member_with_pending_revocation_v0_and_v1() -> None:
    h = Harness({"foo": 4})
    h.seed(11, [member("m", 10, {"foo": [0]}, prev=10, state=UNREVOKED_PARTITIONS, pending={"foo": [1]},
                       topics=["foo"], instance="i", assignor="range")],
           {"m": {"foo": [0, 2]}}, assignment_epoch=11)
    h.member("m").rack_id = "r1"
    v1 = h.describe(version=1)["groups"][0]
    assert (v1["groupState"], v1["groupEpoch"], v1["assignmentEpoch"], v1["assignorName"]) == (
        "Reconciling", 11, 11, "range")
    assert canon(v1["members"]) == [{
        "memberId": "m", "instanceId": "i", "rackId": "r1", "memberEpoch": 10, "clientId": "client",
        "clientHost": "/127.0.0.1", "subscribedTopicNames": ["foo"], "subscribedTopicRegex": "",
        # 4.3: assigned ∪ pending revocation (CGM 4.3:479-507).
        "assignment": {"topicPartitions": [{"topicId": tid("foo"), "topicName": "foo", "partitions": [0, 1]}]},
        "targetAssignment": {"topicPartitions": [{"topicId": tid("foo"), "topicName": "foo", "partitions": [0, 2]}]},
        "memberType": 1}]
    v0 = h.describe(version=0)["groups"][0]
    assert "memberType" not in v0["members"][0]


def test_member_with_pending_revocation_on_41_and_42() -> None:
    """4.1/4.2 (ConsumerGroupMember.asConsumerGroupDescribeMember): the assigned partitions only."""
    for profile in ("kafka-4.1", "kafka-4.2"):
        h = Harness({"foo": 4}, profile=profile)
        h.seed(11, [member("m", 10, {"foo": [0]}, prev=10, state=UNREVOKED_PARTITIONS, pending={"foo": [1]},
                           topics=["foo"], assignor="range")],
               {"m": {"foo": [0, 2]}}, assignment_epoch=11)
        described = canon(h.describe(version=1)["groups"][0]["members"])[0]
        assert described["assignment"] == {"topicPartitions": [{"topicId": tid("foo"), "topicName": "foo",
                                                                "partitions": [0]}]}


def test_default_assignor_name_is_uniform() -> None:
    h = Harness({"foo": 2})
    h.join("a", ["foo"])
    assert h.describe()["groups"][0]["assignorName"] == "uniform"


def test_deleted_topics_are_dropped() -> None:
    h = Harness({"foo": 2, "bar": 1})
    h.join("a", ["foo", "bar"], assignor="range")
    h.coord.delete_topic("bar")
    m = h.describe()["groups"][0]["members"][0]
    assert m["assignment"] == {"topicPartitions": [{"topicId": tid("foo"), "topicName": "foo", "partitions": [0, 1]}]}
    assert m["targetAssignment"] == m["assignment"]
