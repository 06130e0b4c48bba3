"""TxnOffsetCommit (API 28) and transaction end markers, named after Kafka's
OffsetMetadataManagerTest cases (4.3) with the values they assert (group "foo", topic "bar",
member "member", epoch / generation 10).

The offsets of a transactional batch are pending until the end marker (WriteTxnMarkers for the
group's ``__consumer_offsets`` partition): COMMIT moves them in unless a later record committed
the partition, ABORT drops them.
"""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.offsets.apis import (
    DELETE_GROUPS,
    OFFSET_FETCH,
    TXN_OFFSET_COMMIT,
    WRITE_TXN_MARKERS,
)
from kgspec.model.offsets.groups import cleanup_expired_offsets
from kgspec.model.offsets.records import Committed
from kgspec.model.records import Record
from kgspec.model.shards import partition_for
from kgspec.spec.classic import EMPTY

from tests.offsets.test_offset_rules import (
    NOW,
    classic_group,
    commit,
    consumer_group,
    coordinator,
    kip1251_member,
    streams_group,
)

PRODUCER = 5


def txn_commit(coord: Coordinator, version: int = 3, generation: int = 10, member: str = "member",
               partitions: list[dict[str, Any]] | None = None, **fields: Any) -> Any:
    request: dict[str, Any] = {"transactionalId": "txn", "groupId": "foo", "producerId": PRODUCER,
                               "producerEpoch": 0, "topics": [{"name": "bar", "partitions": partitions or [
                                   {"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 10,
                                    "committedMetadata": "metadata"}]}], **fields}
    if version >= 3:
        request.update(generationId=generation, memberId=member, groupInstanceId=None)
    return coord.decide(TXN_OFFSET_COMMIT, version, request, now=NOW)


def codes(d: Any) -> list[int]:
    return [p["errorCode"] for t in d.response["topics"] for p in t["partitions"]]


def marker(coord: Coordinator, committed: bool, group: str = "foo") -> Any:
    shard = partition_for(group, coord.config.int("offsets.topic.num.partitions"))
    return coord.decide(WRITE_TXN_MARKERS, 1, {"markers": [{
        "producerId": PRODUCER, "producerEpoch": 0, "transactionResult": committed, "coordinatorEpoch": 0,
        "topics": [{"name": "__consumer_offsets", "partitionIndexes": [shard]}]}]}, now=NOW)


def fetched(coord: Coordinator, stable: bool) -> dict[str, Any]:
    d = coord.decide(OFFSET_FETCH, 9, {"requireStable": stable, "groups": [
        {"groupId": "foo", "memberId": None, "memberEpoch": -1,
         "topics": [{"name": "bar", "partitionIndexes": [0]}]}]}, now=NOW)
    entry: dict[str, Any] = d.response["groups"][0]["topics"][0]["partitions"][0]
    return entry


TXN_RECORD = {"key": {"type": 1, "data": {"group": "foo", "topic": "bar", "partition": 0}},
              "value": {"version": 4, "data": {"offset": 100, "leaderEpoch": 10, "metadata": "metadata",
                                               "commitTimestamp": NOW}},
              "producerId": PRODUCER}


# --- validation (validateTransactionalOffsetCommit) -------------------------------------------------


def test_consumer_group_transactional_offset_commit() -> None:
    """verifyTransactionalOffsetCommit: NONE, one record without topic id, in producer 5's batch."""
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    d = txn_commit(coord)
    assert d.response == {"throttleTimeMs": 0, "topics": [{"name": "bar", "partitions": [
        {"partitionIndex": 0, "errorCode": 0}]}]}
    assert [r.to_json() for r in d.records] == [TXN_RECORD]


def test_streams_group_transactional_offset_commit() -> None:
    coord = coordinator()
    streams_group(coord)
    d = txn_commit(coord)
    assert codes(d) == [0]
    assert [r.to_json() for r in d.records] == [TXN_RECORD]


@pytest.mark.parametrize("version", range(6))
def test_transactional_offset_commit_with_unknown_group_id(version: int) -> None:
    """A generation >= 0 for a group no one has: ILLEGAL_GENERATION (v0-2 carry no generation:
    -1, a simple group is created)."""
    d = txn_commit(coordinator(), version)
    assert codes(d) == ([Errors.ILLEGAL_GENERATION] if version >= 3 else [0])


def test_consumer_group_transactional_offset_commit_with_unknown_member_id() -> None:
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert codes(txn_commit(coord, member="unknown")) == [Errors.UNKNOWN_MEMBER_ID]


def test_streams_group_transactional_offset_commit_with_unknown_member_id() -> None:
    coord = coordinator()
    streams_group(coord)
    assert codes(txn_commit(coord, member="unknown")) == [Errors.UNKNOWN_MEMBER_ID]


@pytest.mark.parametrize("make", [consumer_group, streams_group])
def test_transactional_offset_commit_with_stale_member_epoch(make: Any) -> None:
    """verifyTransactionalOffsetCommitWithStaleMemberEpoch: generation 100 > 10 →
    STALE_MEMBER_EPOCH, answered ILLEGAL_GENERATION."""
    coord = coordinator()
    if make is consumer_group:
        consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    else:
        streams_group(coord)
    assert codes(txn_commit(coord, generation=100)) == [Errors.ILLEGAL_GENERATION]


def test_transactional_commit_without_member_fields_skips_the_member() -> None:
    """TxnOffsetCommit does not require the member id, generation and instance id: none given →
    no member check, even on a group with members (unlike OffsetCommit)."""
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert codes(txn_commit(coord, generation=-1, member="")) == [0]
    assert codes(commit(coord, 9, -1, member="")) == [Errors.UNKNOWN_MEMBER_ID]


def test_consumer_group_transactional_offset_commit_at_older_epoch_resolves_topic_id() -> None:
    """testConsumerGroupTransactionalOffsetCommitResolvesTopicId (4.3): the validator gets bar's
    id from the metadata image; 4.2 and trunk pass the zero id, which no assignment holds."""
    coord = coordinator()
    consumer_group(coord, kip1251_member())
    d = txn_commit(coord, generation=9)
    assert codes(d) == [0]
    trunk = coordinator("kafka-trunk")
    consumer_group(trunk, kip1251_member())
    assert codes(txn_commit(trunk, generation=9)) == [Errors.ILLEGAL_GENERATION]


def test_generic_group_transactional_offset_commit() -> None:
    coord = coordinator()
    classic_group(coord, generation=1)
    d = txn_commit(coord, generation=1)
    assert codes(d) == [0]
    assert [r.to_json() for r in d.records] == [TXN_RECORD]
    assert d.timer_ops == []  # a transactional commit does not keep the member's session alive


def test_generic_group_transactional_offset_commit_with_unknown_member_id() -> None:
    coord = coordinator()
    coord.classic_groups["foo"] = ClassicGroup("foo", 0, state=EMPTY)
    assert codes(txn_commit(coord)) == [Errors.UNKNOWN_MEMBER_ID]


def test_generic_group_transactional_offset_commit_with_illegal_generation_id() -> None:
    coord = coordinator()
    classic_group(coord, generation=1)
    assert codes(txn_commit(coord, generation=10)) == [Errors.ILLEGAL_GENERATION]


def test_generic_group_transactional_commit_ignores_the_group_state() -> None:
    """No REBALANCE_IN_PROGRESS, and no member fields accepted in a non-empty group."""
    from kgspec.spec.classic import COMPLETING_REBALANCE
    coord = coordinator()
    classic_group(coord, state=COMPLETING_REBALANCE, generation=1)
    assert codes(txn_commit(coord, generation=1)) == [0]
    assert codes(txn_commit(coord, generation=-1, member="")) == [0]


def test_transactional_commit_errors() -> None:
    """The broker's unknown partition stays; a coordinator error goes to every forwarded
    partition; metadata too large is the partition's own error."""
    coord = coordinator(**{"offset.metadata.max.bytes": 5})
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    parts = [{"partitionIndex": 0, "committedOffset": 1, "committedMetadata": "toolarge"},
             {"partitionIndex": 1, "committedOffset": 2, "committedMetadata": "small"},
             {"partitionIndex": 9, "committedOffset": 3}]
    d = txn_commit(coord, partitions=parts)
    assert codes(d) == [Errors.OFFSET_METADATA_TOO_LARGE, 0, Errors.UNKNOWN_TOPIC_OR_PARTITION]
    assert [r.key["partition"] for r in d.records] == [1]
    d = txn_commit(coord, generation=100, partitions=parts)
    assert codes(d) == [Errors.ILLEGAL_GENERATION, Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_TOPIC_OR_PARTITION]
    d = coord.decide(TXN_OFFSET_COMMIT, 0, {"transactionalId": "txn", "groupId": "", "producerId": PRODUCER,
                                            "producerEpoch": 0, "topics": [{"name": "bar", "partitions": parts[1:2]}]},
                     now=NOW)
    assert codes(d) == [Errors.INVALID_GROUP_ID]


# --- pending offsets and end markers --------------------------------------------------------------


def test_fetch_offsets_with_pending_transactional_offsets() -> None:
    """testFetchOffsetsWithPendingTransactionalOffsets: requireStable sees UNSTABLE_OFFSET_COMMIT,
    without it the committed offset (none yet)."""
    coord = coordinator()
    coord.commit(txn_commit(coord, generation=-1, member=""))
    assert fetched(coord, True) == {"partitionIndex": 0, "committedOffset": -1, "committedLeaderEpoch": -1,
                                    "metadata": "", "errorCode": Errors.UNSTABLE_OFFSET_COMMIT}
    assert fetched(coord, False)["committedOffset"] == -1
    assert fetched(coord, False)["errorCode"] == 0


def test_replay_transaction_end_marker_with_commit() -> None:
    coord = coordinator()
    coord.commit(txn_commit(coord, generation=-1, member=""))
    d = marker(coord, True)
    assert d.response["markers"][0]["topics"][0]["partitions"][0]["errorCode"] == 0
    coord.commit(d)
    assert coord.offsets.pending == {}
    assert coord.offsets.get("foo", "bar", 0) == Committed(100, 10, "metadata", NOW, None)
    assert fetched(coord, True)["committedOffset"] == 100


def test_replay_transaction_end_marker_with_abort() -> None:
    coord = coordinator()
    coord.commit(txn_commit(coord, generation=-1, member=""))
    coord.commit(marker(coord, False))
    assert coord.offsets.pending == {}
    assert coord.offsets.get("foo", "bar", 0) is None


def test_a_marker_of_another_partition_leaves_the_offsets_pending() -> None:
    coord = coordinator()
    coord.commit(txn_commit(coord, generation=-1, member=""))
    coord.commit(marker(coord, True, group="not-foo-shard-" + "x" * 3))
    assert coord.offsets.has_pending("foo", "bar", 0)


def test_replay_transaction_end_marker_keeps_the_most_recent_committed_offset() -> None:
    coord = coordinator()
    coord.commit(txn_commit(coord, generation=-1, member=""))  # pending 100
    coord.commit(commit(coord, 9, -1, member="", partitions=[{"partitionIndex": 0, "committedOffset": 101}]))
    coord.commit(marker(coord, True))
    c = coord.offsets.get("foo", "bar", 0)
    assert c is not None
    assert c.offset == 101


def test_replay_with_tombstone_and_pending_transactional_offsets() -> None:
    coord = coordinator()
    coord.commit(txn_commit(coord, generation=-1, member=""))
    coord.replay(Record(1, {"group": "foo", "topic": "bar", "partition": 0}, None))
    assert coord.offsets.pending == {}


def test_delete_group_all_offsets_with_pending_transactional_offsets() -> None:
    """testDeleteGroupAllOffsetsWithPendingTransactionalOffsets: a tombstone for the committed
    offsets, and one for a partition with only a pending offset."""
    coord = coordinator()
    coord.commit(commit(coord, 9, -1, member=""))  # bar-0 committed
    coord.commit(txn_commit(coord, generation=-1, member="", partitions=[
        {"partitionIndex": 0, "committedOffset": 5}, {"partitionIndex": 1, "committedOffset": 6}]))
    d = coord.decide(DELETE_GROUPS, 2, {"groupsNames": ["foo"]}, now=NOW)
    assert [(r.type, r.key.get("partition"), r.value) for r in d.records] == [(1, 0, None), (1, 1, None),
                                                                              (2, None, None)]
    coord.commit(d)
    assert coord.offsets.pending == {}


def test_cleanup_expired_offsets_with_pending_transactional_offsets() -> None:
    """testCleanupExpiredOffsetsWithPendingTransactionalOffsets: foo-0 is kept while a pending
    transactional offset exists."""
    coord = Coordinator("kafka-4.3", {"offsets.retention.minutes": 1})
    coord.replay(Record(1, {"group": "foo", "topic": "bar", "partition": 0},
                        {"offset": 100, "leaderEpoch": 0, "metadata": "", "commitTimestamp": 0}, 4))
    coord.replay(Record(1, {"group": "foo", "topic": "bar", "partition": 0},
                        {"offset": 101, "leaderEpoch": 0, "metadata": "", "commitTimestamp": 500}, 4, producer_id=10))
    assert coord.offsets.simple_groups == {"foo"}  # retention counts from each commit
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "foo", 60_000, records) is False
    assert records == []


def test_transactional_records_replay_to_the_same_state() -> None:
    coord = coordinator()
    log: list[Record] = []
    for d in (txn_commit(coord, generation=-1, member=""), commit(coord, 9, -1, member=""), marker(coord, True)):
        coord.commit(d)
        log += d.records
    fresh = coordinator()
    fresh.apply(Record.from_json(r.to_json()) for r in log)
    fresh.offsets.end_transaction(PRODUCER, True, lambda _gid: True)  # the marker, from the log
    assert fresh.offsets.snapshot() == coord.offsets.snapshot()


def test_a_transactional_record_body_names_a_bad_producer_id() -> None:
    with pytest.raises(ValueError, match="producerId"):
        Record.from_json({**TXN_RECORD, "producerId": "5"})
    assert Record.from_json(TXN_RECORD).producer_id == PRODUCER
