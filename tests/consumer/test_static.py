"""Static membership: S4 (testStaticMemberGetsBackAssignmentUponRejoin), UNRELEASED_INSTANCE_ID,
FENCED_INSTANCE_ID, unknown instance ids."""

from __future__ import annotations

from kgspec.model.consumer.member import STABLE

from tests.consumer.helpers import (
    Harness,
    MockAssignor,
    assignment,
    canon,
    code,
    epoch,
    member,
    tid,
    types,
)

UNKNOWN_MEMBER_ID = 25
FENCED_INSTANCE_ID = 82
UNRELEASED_INSTANCE_ID = 111


def s4_group() -> Harness:
    mock = MockAssignor()
    h = Harness({"foo": 6, "bar": 3}, mock=mock)
    h.now = 100_000
    h.seed(10, [member("m1", 10, {"foo": [0, 1, 2], "bar": [0, 1]}, prev=9, instance="m1", assignor=None),
                member("m2", 10, {"foo": [3, 4, 5], "bar": [2]}, prev=9, instance="m2", assignor=None)],
           {"m1": {"foo": [0, 1, 2], "bar": [0, 1]}, "m2": {"foo": [3, 4, 5], "bar": [2]}})
    return h


def test_s4_temporary_leave_writes_one_record() -> None:
    h = s4_group()
    r = h.hb("m2", -2, instanceId="m2", subscribedTopicNames=["foo", "bar"], topicPartitions=[])
    assert r.response == {"errorCode": 0, "errorMessage": None, "memberId": "m2", "memberEpoch": -2,
                          "heartbeatIntervalMs": 0, "assignment": None}
    assert types(r.records) == ["8"]
    assert canon(r.records[0].value) == canon({
        "memberEpoch": -2, "previousMemberEpoch": 9, "state": 0,
        "assignedPartitions": [{"topicId": tid("foo"), "partitions": [3, 4, 5], "assignmentEpochs": [0, 0, 0]},
                               {"topicId": tid("bar"), "partitions": [2], "assignmentEpochs": [0]}],
        "partitionsPendingRevocation": []})
    assert h.group.group_epoch == 10
    assert "m2" in h.group.members


def test_s4_rejoin_gets_its_assignment_back() -> None:
    h = s4_group()
    h.hb("m2", -2, instanceId="m2")
    r = h.join("m2b", ["foo", "bar"], instance="m2")
    assert r.response is not None
    assert {k: v for k, v in r.response.items() if k != "assignment"} == {
        "errorCode": 0, "errorMessage": None, "memberId": "m2b", "memberEpoch": 10, "heartbeatIntervalMs": 5000}
    # Topic order in the response is Kafka's HashMap order (its tests compare it unordered).
    assert assignment(r) == {"foo": [3, 4, 5], "bar": [2]}
    assert types(r.records) == ["8-", "7-", "5-", "5", "7", "8", "8"]
    assert [rec.key["memberId"] for rec in r.records] == ["m2", "m2", "m2", "m2b", "m2b", "m2b", "m2b"]
    copied, rejoined = r.records[5].value, r.records[6].value
    foo0 = {"topicId": tid("foo"), "partitions": [3, 4, 5], "assignmentEpochs": [0, 0, 0]}
    bar0 = {"topicId": tid("bar"), "partitions": [2], "assignmentEpochs": [0]}
    assert canon(copied) == canon({"memberEpoch": 0, "previousMemberEpoch": 0, "state": 0,
                      "assignedPartitions": [foo0, bar0], "partitionsPendingRevocation": []})
    assert canon(rejoined) == canon({"memberEpoch": 10, "previousMemberEpoch": 0, "state": 0,
                        "assignedPartitions": [foo0, bar0], "partitionsPendingRevocation": []})
    assert canon(r.records[4].value) == canon({"topicPartitions": [{"topicId": tid("foo"), "partitions": [3, 4, 5]},
                                                                  {"topicId": tid("bar"), "partitions": [2]}]})
    meta = r.records[3].value
    assert meta is not None
    assert meta["instanceId"] == "m2"
    assert meta["subscribedTopicNames"] == ["bar", "foo"]
    # No group epoch bump, no timers for the old member.
    assert h.group.group_epoch == 10
    assert h.group.static_members == {"m1": "m1", "m2": "m2b"}
    assert not [t for t in h.timers() if t.endswith("-m2")]
    m = h.member("m2b")
    assert (m.state, m.member_epoch, m.previous_member_epoch) == (STABLE, 10, 0)


def test_rejoin_before_temporary_leave_is_unreleased_instance_id() -> None:
    h = s4_group()
    r = h.join("m2b", ["foo", "bar"], instance="m2")
    assert code(r) == UNRELEASED_INSTANCE_ID
    assert r.response is not None
    assert r.response["errorMessage"] == (
        "Static member m2b with instance id m2 cannot join the group because the instance id is owned by m2 member.")
    assert r.records == []


def test_heartbeat_with_another_member_id_is_fenced_instance_id() -> None:
    h = s4_group()
    r = h.hb("m3", 10, instanceId="m2")
    assert code(r) == FENCED_INSTANCE_ID
    r = h.leave("m3", -1, instance="m2")
    assert code(r) == FENCED_INSTANCE_ID
    r = h.leave("m3", -2, instance="m2")
    assert code(r) == FENCED_INSTANCE_ID


def test_unknown_instance_id() -> None:
    h = s4_group()
    assert code(h.hb("m9", 10, instanceId="nope")) == UNKNOWN_MEMBER_ID
    assert code(h.leave("m9", -1, instance="nope")) == UNKNOWN_MEMBER_ID
    assert code(h.leave("m9", -2, instance="nope")) == UNKNOWN_MEMBER_ID


def test_static_member_leaving_for_good_is_fenced() -> None:
    h = s4_group()
    r = h.leave("m2", -1, instance="m2")
    assert r.response is not None
    assert r.response["memberEpoch"] == -1
    assert types(r.records) == ["8-", "7-", "5-", "3"]
    assert r.records[3].value is not None
    assert r.records[3].value["epoch"] == 11
    assert h.group.static_members == {"m1": "m1"}


def test_old_member_timers_fire_without_effect_after_replacement() -> None:
    h = Harness({"foo": 6})
    h.now = 1_000
    h.join("a", ["foo"], instance="i", assignor="range")
    assert h.timers() == ["session-timeout-grp-a"]
    h.sleep(1000)
    h.leave("a", -2, instance="i")
    h.sleep(1000)
    r = h.join("b", ["foo"], instance="i", assignor="range")
    assert (epoch(r), assignment(r)) == (2, {"foo": [0, 1, 2, 3, 4, 5]})
    # Kafka's replaceMember keeps the old member's timers (GMM 4.3:4443).
    assert h.timers() == ["session-timeout-grp-a", "session-timeout-grp-b"]
    firings = h.sleep(43_001)  # a's deadline (1000 + 45000) passes; b's (3000 + 45000) does not
    assert [(f.timer.key, f.records) for f in firings] == [("session-timeout-grp-a", [])]
    assert list(h.group.members) == ["b"]
