"""OffsetCommit / OffsetFetch rules, named after Kafka's OffsetMetadataManagerTest (4.3) cases,
with the values those tests assert (group "foo", topic "bar", member "member", epoch 10).

Kafka's test drives ``OffsetMetadataManager`` directly; here the whole decision runs, so topic
"bar" exists in the model's metadata (the broker layer, KafkaApis, would answer
UNKNOWN_TOPIC_OR_PARTITION otherwise: ``test_commit_to_unknown_topic_...``).
"""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.invariants.offsets import commit_fencing
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.step import HEARTBEAT_TIMER
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.offsets.apis import OFFSET_COMMIT, OFFSET_DELETE, OFFSET_FETCH
from kgspec.model.offsets.records import ZERO_UUID, Committed
from kgspec.model.records import Record
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import ACTIVE, STANDBY, StreamsMember
from kgspec.model.streams.topology import Subtopology, TopicInfo, Topology
from kgspec.model.timers import Timer
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, STABLE

BAR = "AAAAAAAAAAAAAAAAAAAAAQ"  # topic bar's id
NOW = 1000


def coordinator(profile: str = "kafka-4.3", **configs: Any) -> Coordinator:
    coord = Coordinator(profile, configs)
    coord.update_topic("bar", BAR, 3)
    coord.now = NOW
    return coord


def consumer_group(coord: Coordinator, *members: ConsumerMember) -> ConsumerGroup:
    group = ConsumerGroup("foo", 1)
    for m in members:
        group.put_member(m)
    coord.groups["foo"] = group
    return group


def classic_group(coord: Coordinator, state: str = STABLE, generation: int = 1,
                  instance_id: str | None = None) -> ClassicGroup:
    group = ClassicGroup("foo", 0, state=state, generation_id=generation)
    group.add(ClassicMember("member", instance_id, "client", "/127.0.0.1", 300000, 45000, "consumer",
                            (("range", b""),)))  # type: ignore[arg-type]
    coord.classic_groups["foo"] = group
    return group


def commit(coord: Coordinator, version: int = 9, epoch: int = 10, member: str = "member",
           partitions: list[dict[str, Any]] | None = None, **fields: Any) -> Any:
    request = {"groupId": "foo", "memberId": member, "generationIdOrMemberEpoch": epoch,
               "topics": [{"name": "bar", "partitions": partitions or [{"partitionIndex": 0, "committedOffset": 100}]}],
               **fields}
    return coord.decide(OFFSET_COMMIT, version, request, now=NOW)


def errors(decision: Any) -> list[int]:
    return [p["errorCode"] for t in decision.response["topics"] for p in t["partitions"]]


# --- OffsetCommit ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(2, 11))
def test_offset_commit_with_unknown_group(version: int) -> None:
    coord = coordinator()
    request = {"groupId": "foo", "memberId": "member", "generationIdOrMemberEpoch": 10,
               "topics": [{"name": "bar", "topicId": BAR, "partitions": [{"partitionIndex": 0, "committedOffset": 100}]}]}
    d = coord.decide(OFFSET_COMMIT, version, request, now=NOW)
    expected = Errors.GROUP_ID_NOT_FOUND if version >= 9 else Errors.ILLEGAL_GENERATION
    assert errors(d) == [expected]
    assert d.records == []


def test_generic_group_offset_commit_with_dead_group() -> None:
    coord = coordinator()
    classic_group(coord, state=DEAD)
    assert errors(commit(coord, 8)) == [Errors.COORDINATOR_NOT_AVAILABLE]


def test_generic_group_offset_commit_with_unknown_member_id() -> None:
    coord = coordinator()
    classic_group(coord)
    assert errors(commit(coord, 8, 10, member="member2")) == [Errors.UNKNOWN_MEMBER_ID]


def test_generic_group_offset_commit_with_illegal_generation() -> None:
    coord = coordinator()
    classic_group(coord)
    assert errors(commit(coord, 8, 10)) == [Errors.ILLEGAL_GENERATION]


def test_generic_group_offset_commit_with_unknown_instance_id() -> None:
    coord = coordinator()
    classic_group(coord)
    assert errors(commit(coord, 8, 1, groupInstanceId="unknown-instance-id")) == [Errors.UNKNOWN_MEMBER_ID]


def test_generic_group_offset_commit_with_fenced_instance_id() -> None:
    coord = coordinator()
    classic_group(coord, instance_id="old-instance-id")
    coord.classic_groups["foo"].static_members["new-instance-id"] = "other"
    assert errors(commit(coord, 8, 1, groupInstanceId="new-instance-id")) == [Errors.FENCED_INSTANCE_ID]


def test_generic_group_offset_commit_while_in_completing_rebalance_state() -> None:
    coord = coordinator()
    classic_group(coord, state=COMPLETING_REBALANCE)
    assert errors(commit(coord, 8, 1)) == [Errors.REBALANCE_IN_PROGRESS]


def test_generic_group_offset_commit_without_member_id_and_generation() -> None:
    coord = coordinator()
    classic_group(coord)
    assert errors(commit(coord, 8, -1, member="")) == [Errors.UNKNOWN_MEMBER_ID]


def test_generic_group_offset_commit_with_retention_time() -> None:
    coord = coordinator()
    classic_group(coord)
    d = commit(coord, 4, 1, retentionTimeMs=1234)
    assert errors(d) == [0]
    # value v1: an expire timestamp, no leader epoch; the zero topic id
    assert [r.to_json() for r in d.records] == [{
        "key": {"type": 1, "data": {"group": "foo", "topic": "bar", "partition": 0}},
        "value": {"version": 1, "data": {"offset": 100, "metadata": "", "commitTimestamp": NOW,
                                         "expireTimestamp": NOW + 1234}}}]


def test_generic_group_offset_commit_maintains_session() -> None:
    coord = coordinator()
    classic_group(coord)
    d = commit(coord, 8, 1)
    assert errors(d) == [0]
    (op, timer), = d.timer_ops
    assert op == "schedule"
    assert timer.key == "heartbeat-foo-member"
    assert timer.deadline_ms == NOW + 45000
    # the very timer a heartbeat re-arms (rescheduleClassicGroupMemberHeartbeat): the same key replaces it
    assert timer == Timer("heartbeat-foo-member", NOW + 45000, HEARTBEAT_TIMER, "foo", "member")


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.3"])
def test_simple_group_offset_commit(profile: str) -> None:
    coord = coordinator(profile)
    d = commit(coord, 8, -1, member="")
    assert errors(d) == [0]
    coord.commit(d)
    assert "foo" in coord.offsets.simple_groups
    # 4.3 resolves the topic id by name below v10 (KafkaApis), 4.1 keeps the zero id
    assert coord.offsets.get("foo", "bar", 0).topic_id == (BAR if profile == "kafka-4.3" else ZERO_UUID)
    # a second commit at generation -1 is accepted by the (empty) simple group; one at 0 has no member
    assert errors(commit(coord, 8, -1, member="")) == [0]
    assert errors(commit(coord, 8, 0, member="member")) == [Errors.UNKNOWN_MEMBER_ID]


def test_simple_group_offset_commit_with_instance_id() -> None:
    coord = coordinator()
    coord.commit(commit(coord, 8, -1, member=""))
    assert errors(commit(coord, 8, -1, member="", groupInstanceId="instance-id")) == [0]  # generation < 0, EMPTY
    # generation >= 0: validateMember finds no static member either
    assert errors(commit(coord, 8, 1, member="", groupInstanceId="instance-id")) == [Errors.UNKNOWN_MEMBER_ID]


def test_consumer_group_offset_commit_with_unknown_member_id() -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert errors(commit(coord, member="member1")) == [Errors.UNKNOWN_MEMBER_ID]


@pytest.mark.parametrize("epoch", [9, 11])
def test_consumer_group_offset_commit_with_stale_member_epoch(epoch: int) -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert errors(commit(coord, epoch=epoch)) == [Errors.STALE_MEMBER_EPOCH]


@pytest.mark.parametrize("epoch", [9, 11])
def test_consumer_group_offset_commit_with_illegal_generation_id(epoch: int) -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10,
                                         classic_member_metadata={"sessionTimeoutMs": 45000, "supportedProtocols": []}))
    assert errors(commit(coord, epoch=epoch)) == [Errors.ILLEGAL_GENERATION]


def admin_client_commit_record() -> dict[str, Any]:
    """verifyOffsetCommitFromAdminClient's record: offset 100, no leader epoch, no metadata, no
    expiry (Kafka's test drives OMM with the zero topic id; here 4.3's broker resolves bar's)."""
    return {"key": {"type": 1, "data": {"group": "foo", "topic": "bar", "partition": 0}},
            "value": {"version": 4, "data": {"offset": 100, "leaderEpoch": -1, "metadata": "", "commitTimestamp": NOW,
                                             "topicId": BAR}}}


def assert_admin_client_commit(coord: Coordinator) -> Any:
    """verifyOffsetCommitFromAdminClient: epoch -1 and no member id commits bar-0 at 100, one
    record (:func:`admin_client_commit_record`). Returns the decision."""
    d = commit(coord, epoch=-1, member="")
    assert errors(d) == [0]
    assert [r.to_json() for r in d.records] == [admin_client_commit_record()]
    return d


def assert_member_commit(coord: Coordinator) -> None:
    """verifyOffsetCommit: member "member" at epoch 10 commits bar-0 at 100, leader epoch 10,
    metadata "metadata": accepted, one record carrying all three."""
    d = commit(coord, partitions=[{"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 10,
                                   "committedMetadata": "metadata"}])
    assert errors(d) == [0]
    assert [r.to_json() for r in d.records] == [{
        "key": {"type": 1, "data": {"group": "foo", "topic": "bar", "partition": 0}},
        "value": {"version": 4, "data": {"offset": 100, "leaderEpoch": 10, "metadata": "metadata",
                                         "commitTimestamp": NOW, "topicId": BAR}}}]


def assert_metadata_too_large_fails_its_partition_only(coord: Coordinator) -> None:
    """Under offset.metadata.max.bytes 5, a commit of bar-0 with "toolarge" and bar-1 with "small":
    bar-0 is OFFSET_METADATA_TOO_LARGE, bar-1 is accepted and is the only record."""
    d = commit(coord, partitions=[
        {"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 10, "committedMetadata": "toolarge"},
        {"partitionIndex": 1, "committedOffset": 100, "committedLeaderEpoch": 10, "committedMetadata": "small"}])
    assert errors(d) == [Errors.OFFSET_METADATA_TOO_LARGE, 0]
    assert [(r.key["partition"], r.value) for r in d.records] == [
        (1, {"offset": 100, "leaderEpoch": 10, "metadata": "small", "commitTimestamp": NOW, "topicId": BAR})]


def test_consumer_group_offset_commit_from_admin_client() -> None:
    coord = coordinator()
    consumer_group(coord)
    d = assert_admin_client_commit(coord)
    assert len(d.records) == 1
    assert d.response == {"throttleTimeMs": 0, "topics": [{"name": "bar", "partitions": [
        {"partitionIndex": 0, "errorCode": 0}]}]}


def test_consumer_group_offset_commit() -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert_member_commit(coord)


def test_consumer_group_offset_commit_with_offset_metadata_too_large() -> None:
    coord = coordinator(**{"offset.metadata.max.bytes": 5})
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert_metadata_too_large_fails_its_partition_only(coord)


def test_consumer_group_offset_commit_below_v9_is_unsupported() -> None:
    """ConsumerGroup.validateOffsetCommit: "OffsetCommit version 9 or above must be used by
    members using the consumer group protocol" (a KIP-848 member on v8)."""
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert errors(commit(coord, 8)) == [Errors.UNSUPPORTED_VERSION]


# --- KIP-1251 (4.3): commits at an older epoch, per partition ---------------------------------


def kip1251_member() -> ConsumerMember:
    # bar-0 assigned since epoch 8, bar-1 pending revocation since epoch 5; member epoch 10
    return ConsumerMember("member", member_epoch=10, previous_member_epoch=9,
                          assigned={BAR: {0: 8}}, pending_revocation={BAR: {1: 5}})


@pytest.mark.parametrize(("partition", "epoch", "expected"), [
    (0, 9, 0), (0, 8, 0), (0, 7, Errors.STALE_MEMBER_EPOCH),  # assigned at 8
    (1, 5, 0), (1, 4, Errors.STALE_MEMBER_EPOCH),  # pending revocation, at 5
    (2, 9, Errors.STALE_MEMBER_EPOCH),  # not held
])
def test_consumer_group_offset_commit_at_older_epoch_kip_1251(partition: int, epoch: int, expected: int) -> None:
    coord = coordinator()
    consumer_group(coord, kip1251_member())
    assert errors(commit(coord, epoch=epoch, partitions=[{"partitionIndex": partition, "committedOffset": 1}])) == [expected]


def test_kip_1251_one_failing_partition_fails_the_whole_commit() -> None:
    coord = coordinator()
    consumer_group(coord, kip1251_member())
    d = commit(coord, epoch=9, partitions=[{"partitionIndex": 0, "committedOffset": 1},
                                           {"partitionIndex": 2, "committedOffset": 1}])
    assert errors(d) == [Errors.STALE_MEMBER_EPOCH] * 2
    assert d.records == []


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.2"])
def test_consumer_group_commit_at_older_epoch_is_strict_before_4_3(profile: str) -> None:
    coord = coordinator(profile)
    consumer_group(coord, kip1251_member())
    assert errors(commit(coord, epoch=9)) == [Errors.STALE_MEMBER_EPOCH]


# --- streams ---------------------------------------------------------------------------------------


def streams_group(coord: Coordinator) -> StreamsGroup:
    group = StreamsGroup("foo", 1)
    group.members["member"] = StreamsMember("member", member_epoch=10, previous_member_epoch=10)
    coord.streams_groups["foo"] = group
    return group


def test_streams_group_offset_commit_with_unknown_member_id() -> None:
    coord = coordinator()
    streams_group(coord)
    assert errors(commit(coord, member="member1")) == [Errors.UNKNOWN_MEMBER_ID]


@pytest.mark.parametrize("epoch", [9, 11])
def test_streams_group_offset_commit_with_stale_member_epoch(epoch: int) -> None:
    coord = coordinator()
    streams_group(coord)  # no topology: an older epoch is "Topology is not available"
    assert errors(commit(coord, epoch=epoch)) == [Errors.STALE_MEMBER_EPOCH]


def test_streams_group_offset_commit_from_admin_client() -> None:
    coord = coordinator()
    coord.streams_groups["foo"] = StreamsGroup("foo", 1)
    assert_admin_client_commit(coord)


def test_streams_group_offset_commit() -> None:
    """verifyOffsetCommit (testStreamsGroupOffsetCommit): a member at its epoch."""
    coord = coordinator()
    streams_group(coord)
    assert_member_commit(coord)


def test_streams_group_offset_commit_with_offset_metadata_too_large() -> None:
    coord = coordinator(**{"offset.metadata.max.bytes": 5})
    streams_group(coord)
    assert_metadata_too_large_fails_its_partition_only(coord)


def kafka_19779_group(coord: Coordinator) -> StreamsGroup:
    """Active task 0-0 (source topic bar) assigned since epoch 8, task 1-1 (repartition source
    topic rep) pending revocation since epoch 5; standby task 0-2; member epoch 10."""
    coord.update_topic("rep", "AAAAAAAAAAAAAAAAAAAAAg", 3)
    group = streams_group(coord)
    group.topology = Topology(0, (Subtopology("0", source_topics=("bar",)),
                                  Subtopology("1", repartition_source_topics=(TopicInfo("rep"),))))
    group.members["member"] = StreamsMember("member", member_epoch=10, previous_member_epoch=9,
                                            assigned={ACTIVE: {"0": {0: 8}}, STANDBY: {"0": {2: 0}}},
                                            pending_revocation={ACTIVE: {"1": {1: 5}}})
    return group


@pytest.mark.parametrize(("topic", "partition", "epoch", "expected"), [
    ("bar", 0, 9, 0), ("bar", 0, 8, 0), ("bar", 0, 7, Errors.STALE_MEMBER_EPOCH),  # assigned at 8
    ("rep", 1, 5, 0), ("rep", 1, 4, Errors.STALE_MEMBER_EPOCH),  # a repartition source topic, pending at 5
    ("bar", 2, 9, Errors.STALE_MEMBER_EPOCH),  # a standby task is not an active one
    ("bar", 1, 9, Errors.STALE_MEMBER_EPOCH),  # not held
])
def test_streams_group_offset_commit_at_older_epoch_kafka_19779(topic: str, partition: int, epoch: int,
                                                                 expected: int) -> None:
    """``StreamsGroup.createAssignmentEpochValidator``: the topic's subtopology (``sourceTopicMap``),
    then the member's active task, assigned or pending revocation, at an epoch not above the commit's."""
    coord = coordinator()
    kafka_19779_group(coord)
    d = coord.decide(OFFSET_COMMIT, 9, {"groupId": "foo", "memberId": "member", "generationIdOrMemberEpoch": epoch,
                                        "topics": [{"name": topic, "partitions": [
                                            {"partitionIndex": partition, "committedOffset": 1}]}]}, now=NOW)
    assert errors(d) == [expected]
    assert len(d.records) == (1 if expected == 0 else 0)


def test_streams_group_offset_commit_of_a_topic_outside_the_topology() -> None:
    coord = coordinator()
    kafka_19779_group(coord)
    coord.update_topic("other", "AAAAAAAAAAAAAAAAAAAAAw", 1)
    d = coord.decide(OFFSET_COMMIT, 9, {"groupId": "foo", "memberId": "member", "generationIdOrMemberEpoch": 9,
                                        "topics": [{"name": "other", "partitions": [
                                            {"partitionIndex": 0, "committedOffset": 1}]}]}, now=NOW)
    assert errors(d) == [Errors.STALE_MEMBER_EPOCH]
    assert d.error is not None
    assert d.error.message == "Topic other is not in the topology."


def test_streams_group_commit_at_older_epoch_is_strict_on_4_1() -> None:
    coord = coordinator("kafka-4.1")
    kafka_19779_group(coord)
    assert errors(commit(coord, epoch=9)) == [Errors.STALE_MEMBER_EPOCH]


# --- the broker's topic checks ------------------------------------------------------------------


def test_commit_to_unknown_topic_or_partition_never_reaches_the_group() -> None:
    coord = coordinator()  # no group "foo": the coordinator is never asked
    d = coord.decide(OFFSET_COMMIT, 9, {"groupId": "foo", "memberId": "m", "generationIdOrMemberEpoch": 5, "topics": [
        {"name": "nope", "partitions": [{"partitionIndex": 0, "committedOffset": 1}]},
        {"name": "bar", "partitions": [{"partitionIndex": 3, "committedOffset": 1}]}]}, now=NOW)
    assert errors(d) == [Errors.UNKNOWN_TOPIC_OR_PARTITION] * 2


def test_commit_v10_with_unknown_topic_id() -> None:
    coord = coordinator()
    consumer_group(coord)
    d = coord.decide(OFFSET_COMMIT, 10, {"groupId": "foo", "memberId": "", "generationIdOrMemberEpoch": -1, "topics": [
        {"topicId": "AAAAAAAAAAAAAAAAAAAAAg", "partitions": [{"partitionIndex": 0, "committedOffset": 1}]},
        {"topicId": BAR, "partitions": [{"partitionIndex": 0, "committedOffset": 1}]}]}, now=NOW)
    assert errors(d) == [Errors.UNKNOWN_TOPIC_ID, 0]


def test_a_coordinator_error_is_every_partitions_error() -> None:
    """OffsetCommitRequest.getErrorResponse: the broker's per-partition errors are replaced too."""
    d = coordinator().decide(OFFSET_COMMIT, 9, {"groupId": "foo", "memberId": "m", "generationIdOrMemberEpoch": 5,
                                                "topics": [{"name": "bar", "partitions": [
                                                    {"partitionIndex": 0, "committedOffset": 1},
                                                    {"partitionIndex": 7, "committedOffset": 1}]}]}, now=NOW)
    assert errors(d) == [Errors.GROUP_ID_NOT_FOUND] * 2


# --- OffsetFetch -----------------------------------------------------------------------------------


def fetch(coord: Coordinator, topics: Any, version: int = 9, member: str | None = None, epoch: int = -1) -> Any:
    request = {"groups": [{"groupId": "foo", "memberId": member, "memberEpoch": epoch, "topics": topics}]}
    response = coord.decide(OFFSET_FETCH, version, request, now=NOW).response
    assert response is not None
    return response["groups"][0]


def invalid(p: int) -> dict[str, Any]:
    """mkInvalidOffsetPartitionResponse."""
    return {"partitionIndex": p, "committedOffset": -1, "committedLeaderEpoch": -1, "metadata": "", "errorCode": 0}


def test_fetch_offsets_with_unknown_group() -> None:
    got = fetch(coordinator(), [{"name": "foo", "partitionIndexes": [0, 1]}, {"name": "bar", "partitionIndexes": [0]}])
    assert got == {"groupId": "foo", "errorCode": 0, "topics": [
        {"name": "foo", "partitions": [invalid(0), invalid(1)]}, {"name": "bar", "partitions": [invalid(0)]}]}


def test_fetch_all_offsets_with_unknown_group() -> None:
    assert fetch(coordinator(), None)["topics"] == []


def test_generic_group_fetch_offsets_with_dead_group() -> None:
    coord = coordinator()
    classic_group(coord, state=DEAD)
    assert fetch(coord, [{"name": "bar", "partitionIndexes": [0]}])["topics"] == [{"name": "bar", "partitions": [invalid(0)]}]


def test_consumer_group_offset_fetch_with_member_id_and_epoch() -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    coord.commit(commit(coord, partitions=[{"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 1,
                                            "committedMetadata": "m"}]))
    got = fetch(coord, [{"name": "bar", "partitionIndexes": [0, 1]}], member="member", epoch=10)
    assert got["errorCode"] == 0
    assert got["topics"] == [{"name": "bar", "partitions": [
        {"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 1, "metadata": "m", "errorCode": 0},
        invalid(1)]}]


def test_consumer_group_offset_fetch_with_unknown_member_id() -> None:
    coord = coordinator()
    consumer_group(coord)
    assert fetch(coord, None, member="member", epoch=10)["errorCode"] == Errors.UNKNOWN_MEMBER_ID


def test_consumer_group_offset_fetch_with_stale_member_epoch() -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert fetch(coord, None, member="member", epoch=9)["errorCode"] == Errors.STALE_MEMBER_EPOCH  # strict on 4.3 too


def test_consumer_group_offset_fetch_with_illegal_generation_id() -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10,
                                         classic_member_metadata={"sessionTimeoutMs": 45000, "supportedProtocols": []}))
    assert fetch(coord, None, member="member", epoch=9)["errorCode"] == Errors.ILLEGAL_GENERATION


def test_streams_group_offset_fetch_with_stale_member_epoch() -> None:
    coord = coordinator()
    streams_group(coord)
    assert fetch(coord, None, member="member", epoch=9)["errorCode"] == Errors.STALE_MEMBER_EPOCH
    assert fetch(coord, None, member="member", epoch=10)["errorCode"] == 0


def test_fetch_offsets_with_topic_ids() -> None:
    coord = coordinator()
    coord.commit(commit(coord, 9, -1, member=""))
    got = fetch(coord, [{"topicId": BAR, "partitionIndexes": [0]},
                        {"topicId": "AAAAAAAAAAAAAAAAAAAAAg", "partitionIndexes": [0]}], version=10)
    assert got["topics"][0]["topicId"] == BAR
    assert got["topics"][0]["partitions"][0]["committedOffset"] == 100
    assert got["topics"][1]["partitions"] == [{**invalid(0), "errorCode": Errors.UNKNOWN_TOPIC_ID}]
    assert got == {"groupId": "foo", "errorCode": 0, "topics": [
        {"topicId": BAR, "partitions": [{**invalid(0), "committedOffset": 100}]},
        {"topicId": "AAAAAAAAAAAAAAAAAAAAAg", "partitions": [{**invalid(0), "errorCode": Errors.UNKNOWN_TOPIC_ID}]}]}


def test_fetch_offsets_with_recreated_topic() -> None:
    """A stored non-zero topic id that differs from the requested one is "no offset"."""
    coord = coordinator()
    coord.commit(commit(coord, 9, -1, member=""))
    coord.update_topic("bar", "AAAAAAAAAAAAAAAAAAAAAw", 3)  # recreated
    got = fetch(coord, [{"topicId": "AAAAAAAAAAAAAAAAAAAAAw", "partitionIndexes": [0]}], version=10)
    assert got["topics"][0]["partitions"] == [invalid(0)]


def test_single_group_fetch_v7_shape() -> None:
    coord = coordinator()
    coord.commit(commit(coord, 9, -1, member=""))
    d = coord.decide(OFFSET_FETCH, 7, {"groupId": "foo", "topics": None, "requireStable": False}, now=NOW)
    assert d.response == {"throttleTimeMs": 0, "errorCode": 0, "topics": [{"name": "bar", "partitions": [
        {"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": -1, "metadata": "", "errorCode": 0}]}]}


# --- replay ----------------------------------------------------------------------------------------


def test_replay() -> None:
    """OMM.replay: a value puts the offset (and a simple group), a tombstone removes it; replaying
    a decision's records into a fresh coordinator rebuilds the same offsets."""
    coord = coordinator()
    d = commit(coord, 9, -1, member="", partitions=[{"partitionIndex": 0, "committedOffset": 100},
                                                    {"partitionIndex": 1, "committedOffset": 7}])
    coord.commit(d)
    fresh = coordinator()
    fresh.apply(Record.from_json(r.to_json()) for r in d.records)
    assert fresh.offsets.snapshot() == coord.offsets.snapshot()
    fresh.replay(Record(1, {"group": "foo", "topic": "bar", "partition": 0}, None))
    assert fresh.offsets.get("foo", "bar", 0) is None
    assert fresh.offsets.get("foo", "bar", 1) is not None
    assert fresh.offsets.get("foo", "bar", 1) == Committed(7, -1, "", NOW, None, BAR)
    assert fresh.offsets.simple_groups == {"foo"}


# --- OffsetDelete (API 47, v0) -------------------------------------------------------------------


def delete(coord: Coordinator, topic: str = "bar", partition: int = 0, group: str = "foo") -> Any:
    return coord.decide(OFFSET_DELETE, 0, {"groupId": group, "topics": [
        {"name": topic, "partitions": [{"partitionIndex": partition}]}]}, now=NOW)


def delete_codes(d: Any) -> list[int]:
    return [p["errorCode"] for t in d.response["topics"] for p in t["partitions"]]


def test_generic_group_offset_delete() -> None:
    coord = coordinator()
    coord.commit(commit(coord, 8, -1, member=""))  # a simple group: no protocol type, no subscription
    d = delete(coord)
    assert d.response["errorCode"] == 0
    assert delete_codes(d) == [0]
    assert [r.to_json() for r in d.records] == [
        {"key": {"type": 1, "data": {"group": "foo", "topic": "bar", "partition": 0}}, "value": None}]
    coord.commit(d)
    assert coord.offsets.get("foo", "bar", 0) is None


def test_generic_group_offset_delete_with_errors() -> None:
    coord = coordinator()
    coord.update_topic("bar1", "AAAAAAAAAAAAAAAAAAAAAg", 1)
    classic_group(coord)  # protocol type consumer, no protocol selected: subscribed topics unknown, "all"
    d = delete(coord, "bar1")
    assert delete_codes(d) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC]
    coord.classic_groups["foo"].protocol_type = "other"
    assert delete(coord).response["errorCode"] == Errors.NON_EMPTY_GROUP  # STABLE, not a consumer group


def test_consumer_group_offset_delete() -> None:
    coord = coordinator()
    consumer_group(coord)
    coord.commit(commit(coord, 9, -1, member=""))
    d = delete(coord)
    assert delete_codes(d) == [0]
    assert len(d.records) == 1
    assert d.response == {"throttleTimeMs": 0, "errorCode": 0, "topics": [
        {"name": "bar", "partitions": [{"partitionIndex": 0, "errorCode": 0}]}]}
    assert [r.to_json() for r in d.records] == [
        {"key": {"type": 1, "data": {"group": "foo", "topic": "bar", "partition": 0}}, "value": None}]


def test_consumer_group_offset_delete_with_errors() -> None:
    coord = coordinator()
    coord.update_topic("bar1", "AAAAAAAAAAAAAAAAAAAAAg", 1)
    consumer_group(coord, ConsumerMember("member1", subscribed_topic_names=("bar",)))
    assert delete_codes(delete(coord, "bar1")) == [0]  # no offset: NONE, no tombstone
    d = delete(coord, "bar")
    assert delete_codes(d) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC]
    assert d.records == []


def test_streams_group_offset_delete_with_errors() -> None:
    coord = coordinator()
    group = streams_group(coord)
    group.topology = Topology(0, (Subtopology("subtopology", source_topics=("bar",)),))
    assert delete_codes(delete(coord)) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC]


def test_streams_group_offset_delete_of_a_repartition_source_topic() -> None:
    """``StreamsGroup.isSubscribedToTopic``: source and repartition source topics, never when EMPTY."""
    coord = coordinator()
    group = kafka_19779_group(coord)
    coord.update_topic("other", "AAAAAAAAAAAAAAAAAAAAAw", 1)
    assert delete_codes(delete(coord, "rep")) == [Errors.GROUP_SUBSCRIBED_TO_TOPIC]
    assert delete_codes(delete(coord, "other")) == [0]
    group.members.clear()
    assert delete_codes(delete(coord, "rep")) == [0]


def test_offset_delete_of_an_unknown_group() -> None:
    d = delete(coordinator())
    assert d.response == {"throttleTimeMs": 0, "errorCode": Errors.GROUP_ID_NOT_FOUND, "topics": []}


def test_offset_delete_unknown_topic_still_asks_the_group() -> None:
    """KafkaApis calls the coordinator even when no topic is left: the group is checked anyway."""
    assert delete(coordinator(), "nope").response["errorCode"] == Errors.GROUP_ID_NOT_FOUND
    coord = coordinator()
    consumer_group(coord)
    assert delete_codes(delete(coord, "nope")) == [Errors.UNKNOWN_TOPIC_OR_PARTITION]


# --- commit-fencing (invariants/offsets.py) ---------------------------------------------------------


def test_commit_fencing_of_a_consumer_commit() -> None:
    coord = coordinator()
    consumer_group(coord, kip1251_member())
    assert commit_fencing(coord, "foo", "member", 9, [("bar", 0), ("bar", 1)]) == []
    assert commit_fencing(coord, "foo", "member", 7, [("bar", 0), ("bar", 2)]) == [
        "member member committed bar-0 at epoch 7 and was accepted, but holds it only since epoch 8",
        "member member committed bar-2 at epoch 7 and was accepted, but does not hold it"]
    assert commit_fencing(coord, "foo", "nobody", 9, [("bar", 0)]) == [
        "an OffsetCommit from nobody, not a member of group foo, was accepted"]
    assert commit_fencing(coord, "foo", "member", 11, [("bar", 0)]) == [
        "an OffsetCommit at epoch 11, newer than member member's 10, was accepted"]
    assert commit_fencing(coord, "foo", "member", -1, [("bar", 2)]) == []  # not a member's commit


def test_commit_fencing_of_a_streams_commit() -> None:
    coord = coordinator()
    kafka_19779_group(coord)
    assert commit_fencing(coord, "foo", "member", 9, [("bar", 0), ("rep", 1)]) == []
    assert commit_fencing(coord, "foo", "member", 4, [("rep", 1), ("bar", 2)]) == [
        "member member committed rep-1 at epoch 4 and was accepted, but holds its task only since epoch 5",
        "member member committed bar-2 at epoch 4 and was accepted, but does not hold its active task"]
    assert commit_fencing(coord, "foo", "nobody", 9, [("bar", 0)]) == [
        "an OffsetCommit from nobody, not a member of group foo, was accepted"]
    assert commit_fencing(coord, "foo", "member", 11, [("bar", 0)]) == [
        "an OffsetCommit at epoch 11, newer than member member's 10, was accepted"]
