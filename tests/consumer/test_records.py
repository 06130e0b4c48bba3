"""Record order and contents: join, leave, static leave and replacement, regex; field names; tagged fields.

Oracle: GroupMetadataManagerTest (testMemberJoinsEmptyConsumerGroup, testLeavingMemberBumpsGroupEpoch,
regex tests) and GroupCoordinatorRecordHelpersTest; JSON conventions from JsonConverterGenerator.
"""

from __future__ import annotations

from kgspec.model.consumer import records as rec
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.hashing import compute_group_hash, compute_topic_hash
from kgspec.model.profiles import get_profile

from tests.consumer.helpers import Harness, canon, tid, types


def test_s1_join_records_exact() -> None:
    h = Harness({"foo": 6, "bar": 3})
    h.now = 5_000
    r = h.join("m", ["foo", "bar"], assignor="range")
    assert types(r.records) == ["5", "3", "7", "6", "8"]
    meta, epoch3, target, tmeta, current = r.records
    assert meta.key == {"groupId": "grp", "memberId": "m"}
    assert meta.value == {"instanceId": None, "rackId": None, "clientId": "client", "clientHost": "/127.0.0.1",
                          "subscribedTopicNames": ["bar", "foo"], "subscribedTopicRegex": "",
                          "rebalanceTimeoutMs": 5000, "serverAssignor": "range"}
    expected_hash = compute_group_hash({"foo": compute_topic_hash(tid("foo"), "foo", 6),
                                        "bar": compute_topic_hash(tid("bar"), "bar", 3)})
    assert epoch3.key == {"groupId": "grp"}
    assert epoch3.value == {"epoch": 2, "metadataHash": expected_hash}
    assert canon(target.value) == canon({"topicPartitions": [{"topicId": tid("foo"), "partitions": [0, 1, 2, 3, 4, 5]},
                                                             {"topicId": tid("bar"), "partitions": [0, 1, 2]}]})
    assert tmeta.value == {"assignmentEpoch": 2, "assignmentTimestamp": 5_000}
    assert canon(current.value) == canon({
        "memberEpoch": 2, "previousMemberEpoch": 0, "state": 0,
        "assignedPartitions": [
            {"topicId": tid("foo"), "partitions": [0, 1, 2, 3, 4, 5], "assignmentEpochs": [2] * 6},
            {"topicId": tid("bar"), "partitions": [0, 1, 2], "assignmentEpochs": [2] * 3}],
        "partitionsPendingRevocation": []})
    assert all(rec_.version == 0 for rec_ in r.records)


def test_join_records_in_4_1() -> None:
    h = Harness({"foo": 2}, profile="kafka-4.1")
    h.now = 5_000
    r = h.join("m", ["foo"], assignor="range")
    assert types(r.records) == ["5", "3", "7", "6", "8"]
    assert r.records[3].value == {"assignmentEpoch": 1}
    # 4.1 has no AssignmentEpochs tagged field.
    assert r.records[4].value == {"memberEpoch": 1, "previousMemberEpoch": 0, "state": 0,
                                  "assignedPartitions": [{"topicId": tid("foo"), "partitions": [0, 1]}],
                                  "partitionsPendingRevocation": []}


def test_second_join_and_leave_order() -> None:
    h = Harness({"foo": 4})
    h.now = 5_000
    h.join("a", ["foo"], assignor="range")
    h.sleep(1000)  # past group.consumer.assignment.interval.ms (1000)
    r = h.join("b", ["foo"], assignor="range")
    assert types(r.records)[:2] == ["5", "3"]
    assert sorted(types(r.records)[2:4]) == ["7", "7"]
    assert types(r.records)[4:] == ["6", "8"]
    r = h.leave("b")
    assert types(r.records) == ["8-", "7-", "5-", "3"]
    assert [x.key for x in r.records[:3]] == [{"groupId": "grp", "memberId": "b"}] * 3
    assert r.records[3].value is not None
    assert r.records[3].value["epoch"] == 4
    assert r.response == {"errorCode": 0, "errorMessage": None, "memberId": "b", "memberEpoch": -1,
                          "heartbeatIntervalMs": 0, "assignment": None}


def test_last_member_leaving_4_3_and_trunk() -> None:
    for profile, expected in (("kafka-4.3", ["8-", "7-", "5-", "3"]), ("kafka-trunk", ["8-", "7-", "5-", "3", "6"])):
        h = Harness({"foo": 4}, profile=profile)
        h.now = 5_000
        h.join("a", ["foo"])
        r = h.leave("a")
        assert types(r.records) == expected, profile
        assert r.records[3].value == {"epoch": 3}


def test_metadata_hash_is_omitted_when_zero() -> None:
    assert rec.group_epoch_record("g", 4, 0).value == {"epoch": 4}
    assert rec.group_epoch_record("g", 4, -7).value == {"epoch": 4, "metadataHash": -7}


def test_assignment_timestamp_is_omitted_when_zero() -> None:
    assert rec.target_metadata_record("g", 3, 0).value == {"assignmentEpoch": 3}
    assert rec.target_metadata_record("g", 3, 9).value == {"assignmentEpoch": 3, "assignmentTimestamp": 9}


def test_classic_member_metadata_is_omitted_when_null() -> None:
    # Tagged field (tag 0, default null) of ConsumerGroupMemberMetadataValue.
    value = rec.member_metadata_record("g", ConsumerMember("m")).value
    assert value is not None
    assert "classicMemberMetadata" not in value
    assert value["subscribedTopicRegex"] == ""


def test_assignment_epochs_only_from_4_3() -> None:
    m = ConsumerMember("m", member_epoch=5, previous_member_epoch=4,
                       assigned={tid("foo"): {0: 3, 1: 5}}, pending_revocation={tid("bar"): {2: 4}})
    v43 = rec.current_assignment_record("g", m, get_profile("kafka-4.3")).value
    assert v43 == {"memberEpoch": 5, "previousMemberEpoch": 4, "state": 0,
                   "assignedPartitions": [{"topicId": tid("foo"), "partitions": [0, 1], "assignmentEpochs": [3, 5]}],
                   "partitionsPendingRevocation": [{"topicId": tid("bar"), "partitions": [2], "assignmentEpochs": [4]}]}
    v41 = rec.current_assignment_record("g", m, get_profile("kafka-4.1")).value
    assert v41 == {"memberEpoch": 5, "previousMemberEpoch": 4, "state": 0,
                   "assignedPartitions": [{"topicId": tid("foo"), "partitions": [0, 1]}],
                   "partitionsPendingRevocation": [{"topicId": tid("bar"), "partitions": [2]}]}


def test_tombstone_keys() -> None:
    assert rec.current_assignment_tombstone("g", "m").to_json() == {
        "key": {"type": 8, "data": {"groupId": "g", "memberId": "m"}}, "value": None}
    assert rec.target_member_tombstone("g", "m").to_json()["key"] == {"type": 7, "data": {"groupId": "g", "memberId": "m"}}
    assert rec.member_metadata_tombstone("g", "m").to_json()["key"] == {"type": 5, "data": {"groupId": "g", "memberId": "m"}}
    assert rec.regex_tombstone("g", "f.*").to_json()["key"] == {
        "type": 16, "data": {"groupId": "g", "regularExpression": "f.*"}}


def test_regex_records_and_tombstone() -> None:
    h = Harness({"foo": 2, "fob": 1, "bar": 1})
    h.now = 5_000
    r = h.join("m", regex="fo.*", assignor="range")
    assert types(r.records) == ["5", "8"]  # unresolved regex: no bump, nothing to assign yet
    assert r.records[0].value is not None
    assert r.records[0].value["subscribedTopicRegex"] == "fo.*"
    assert r.records[0].value["subscribedTopicNames"] == []
    firings = h.sleep(0)
    assert [f.timer.key for f in firings] == ["grp-regex"]
    recs = firings[0].records
    assert types(recs) == ["16", "3"]
    assert recs[0].key == {"groupId": "grp", "regularExpression": "fo.*"}
    assert recs[0].value == {"topics": ["fob", "foo"], "version": h.coord.topics.version, "timestamp": 5_000}
    assert recs[1].value is not None
    assert recs[1].value["epoch"] == 2
    # Switching to names: the regex's last subscriber leaves it -> tombstone, then the bump.
    h.sleep(100)
    r = h.heartbeat("m", subscribedTopicNames=["bar"], subscribedTopicRegex="")
    assert types(r.records)[:3] == ["5", "16-", "3"]
    assert r.records[1].key == {"groupId": "grp", "regularExpression": "fo.*"}


def test_leave_tombstones_unused_regex() -> None:
    h = Harness({"foo": 2})
    h.join("m", regex="fo.*")
    h.sleep(0)
    r = h.leave("m")
    assert types(r.records) == ["8-", "7-", "5-", "16-", "3"]
