"""Offset and group expiry, named after Kafka's OffsetMetadataManagerTest / GroupCoordinatorShardTest /
GroupMetadataManagerTest cases (4.3), with the values they assert.

``GroupCoordinatorShard.cleanupGroupMetadata`` runs every ``offsets.retention.check.interval.ms``
from the load of the partition (``onLoaded``): per group that may expire, ``cleanupExpiredOffsets``
(tombstones for the expired offsets of the topics the group is not subscribed to), and when no
offset is left and the group is empty, ``maybeDeleteGroup`` (the group's tombstones).
"""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.offsets.groups import EXPIRE_KEY, EXPIRE_TIMER, cleanup_expired_offsets
from kgspec.model.records import Record
from kgspec.spec.classic import EMPTY, PREPARING_REBALANCE, STABLE

from tests.offsets.test_offset_rules import streams_group

MINUTE = 60_000


def coordinator(**configs: Any) -> Coordinator:
    return Coordinator("kafka-4.3", {"offsets.retention.minutes": 1, **configs})


def committed(coord: Coordinator, group: str, topic: str, partition: int, offset: int, at: int,
              expire: int | None = None) -> None:
    """Replay one OffsetCommit record (``context.commitOffset`` of Kafka's test)."""
    value: dict[str, Any] = {"offset": offset, "leaderEpoch": 0, "metadata": "", "commitTimestamp": at}
    if expire is not None:
        value = {"offset": offset, "metadata": "", "commitTimestamp": at, "expireTimestamp": expire}
    coord.replay(Record(1, {"group": group, "topic": topic, "partition": partition}, value, 1 if expire else 4))


def tombstone(group: str, topic: str, partition: int) -> dict[str, Any]:
    return {"key": {"type": 1, "data": {"group": group, "topic": topic, "partition": partition}}, "value": None}


def as_json(records: list[Record]) -> list[dict[str, Any]]:
    return [r.to_json() for r in records]


def consumer_group(coord: Coordinator, group_id: str, *subscribed: str) -> ConsumerGroup:
    group = ConsumerGroup(group_id, 1)
    if subscribed:
        group.put_member(ConsumerMember("member", member_epoch=1, previous_member_epoch=1,
                                        subscribed_topic_names=tuple(subscribed)))
    coord.groups[group_id] = group
    return group


# --- OffsetMetadataManagerTest ---------------------------------------------------------------------


def test_cleanup_expired_offsets() -> None:
    coord = coordinator()
    group = consumer_group(coord, "group-id", "firstTopic")
    t = 0
    committed(coord, "group-id", "firstTopic", 0, 100, t)
    committed(coord, "group-id", "secondTopic", 0, 100, t)
    committed(coord, "group-id", "secondTopic", 1, 100, t + 500)
    now = t + MINUTE
    # firstTopic-0: subscribed, kept; secondTopic-0: retention passed; secondTopic-1: not yet
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "group-id", now, records) is False
    assert as_json(records) == [tombstone("group-id", "secondTopic", 0)]
    coord.apply(records)
    now += 500
    records = []
    assert cleanup_expired_offsets(coord, "group-id", now, records) is False
    assert as_json(records) == [tombstone("group-id", "secondTopic", 1)]
    coord.apply(records)
    # unsubscribed from firstTopic, two more commits: every offset expires
    group.put_member(ConsumerMember("member", member_epoch=1, previous_member_epoch=1, subscribed_topic_names=()))
    committed(coord, "group-id", "firstTopic", 1, 100, t + 500)
    committed(coord, "group-id", "secondTopic", 0, 101, t + 500)
    records = []
    assert cleanup_expired_offsets(coord, "group-id", now, records) is True
    assert as_json(records) == [tombstone("group-id", "firstTopic", 0), tombstone("group-id", "firstTopic", 1),
                                tombstone("group-id", "secondTopic", 0)]


def test_cleanup_expired_offsets_group_has_no_offsets() -> None:
    coord = coordinator()
    consumer_group(coord, "group-id")
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "group-id", MINUTE, records) is True
    assert records == []


def test_cleanup_expired_offsets_empty_offset_expiration_condition() -> None:
    """A classic group with a protocol type, neither EMPTY nor a STABLE consumer group whose
    subscriptions are known: ``offsetExpirationCondition`` is empty, nothing expires."""
    coord = coordinator()
    coord.classic_groups["group-id"] = ClassicGroup("group-id", 0, state=PREPARING_REBALANCE,
                                                    protocol_type="consumer")
    committed(coord, "group-id", "foo", 0, 100, 0)
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "group-id", 10 * MINUTE, records) is False
    assert records == []


def test_an_explicit_expire_timestamp_wins() -> None:
    """``isOffsetExpired``: a v1 value's expireTimestamp (OffsetCommit v2-4 retention) decides alone."""
    coord = coordinator()
    consumer_group(coord, "group-id")
    committed(coord, "group-id", "foo", 0, 100, 0, expire=5_000)
    committed(coord, "group-id", "foo", 1, 100, 0)
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "group-id", 5_000, records) is False
    assert as_json(records) == [tombstone("group-id", "foo", 0)]


def test_empty_classic_group_counts_from_its_current_state_timestamp() -> None:
    """ClassicGroup.offsetExpirationCondition: EMPTY counts from currentStateTimestamp, not the commit."""
    coord = coordinator()
    coord.classic_groups["group-id"] = ClassicGroup("group-id", 50_000, state=EMPTY, protocol_type="consumer")
    committed(coord, "group-id", "foo", 0, 100, 0)
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "group-id", 50_000 + MINUTE - 1, records) is False
    assert records == []
    assert cleanup_expired_offsets(coord, "group-id", 50_000 + MINUTE, records) is True
    assert as_json(records) == [tombstone("group-id", "foo", 0)]


@pytest.mark.parametrize(("state_timestamp", "expired"), [(None, True), (50_000, False)])
def test_classic_group_without_state_timestamp_counts_from_the_commit(state_timestamp: int | None,
                                                                      expired: bool) -> None:
    coord = coordinator()
    coord.classic_groups["group-id"] = ClassicGroup("group-id", state_timestamp, state=EMPTY, protocol_type="consumer")
    committed(coord, "group-id", "foo", 0, 100, 0)
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "group-id", MINUTE, records) is expired
    assert len(records) == int(expired)


def test_streams_group_keeps_the_offsets_of_its_source_topics() -> None:
    """StreamsGroup.isSubscribedToTopic: a non-empty group keeps its source topics' offsets."""
    from kgspec.model.streams.topology import Subtopology, Topology
    coord = coordinator()
    group = streams_group(coord)
    group.topology = Topology(0, (Subtopology("0", source_topics=("bar",)),))
    committed(coord, "foo", "bar", 0, 100, 0)
    committed(coord, "foo", "other", 0, 100, 0)
    records: list[Record] = []
    assert cleanup_expired_offsets(coord, "foo", MINUTE, records) is False
    assert as_json(records) == [tombstone("foo", "other", 0)]


# --- GroupCoordinatorShardTest / GroupMetadataManagerTest --------------------------------------------


def test_schedule_cleanup_group_metadata() -> None:
    """testScheduleCleanupGroupMetadata: armed on load, re-armed after each run, gone on unload."""
    coord = coordinator(**{"offsets.retention.check.interval.ms": 1000})
    coord.on_loaded(0)
    timer = coord.timers.get(EXPIRE_KEY)
    assert timer is not None
    assert (timer.deadline_ms, timer.kind) == (1000, EXPIRE_TIMER)
    firings = coord.advance(1000)
    assert [f.timer.key for f in firings] == [EXPIRE_KEY]
    assert coord.timers.get(EXPIRE_KEY).deadline_ms == 2000  # type: ignore[union-attr]
    coord.failover(1500)  # onUnloaded cancels it, the new load arms it from its own time
    assert coord.timers.get(EXPIRE_KEY).deadline_ms == 2500  # type: ignore[union-attr]


def test_a_fresh_coordinator_arms_no_cleanup() -> None:
    """The cleanup's phase is the partition's load time: a coordinator never told it loaded runs none."""
    coord = coordinator()
    assert coord.timers.get(EXPIRE_KEY) is None


def test_cleanup_group_metadata_deletes_an_expired_simple_group() -> None:
    """testCleanupGroupMetadataForConsumerGroup's sequence, end to end: the offset tombstone, then
    the group's (a simple group is an EMPTY classic group: one GroupMetadata tombstone)."""
    coord = coordinator(**{"offsets.retention.check.interval.ms": 10_000})
    committed(coord, "group-id", "topic", 0, 100, 0)
    committed(coord, "other-group-id", "topic", 0, 100, 55_000)
    coord.on_loaded(0)
    firings = coord.advance(MINUTE)
    assert [f.timer.deadline_ms for f in firings] == [10_000, 20_000, 30_000, 40_000, 50_000, 60_000]
    assert [as_json(f.records) for f in firings[:5]] == [[]] * 5
    assert as_json(firings[5].records) == [tombstone("group-id", "topic", 0),
                                           {"key": {"type": 2, "data": {"group": "group-id"}}, "value": None}]
    assert coord.offsets.simple_groups == {"other-group-id"}
    assert coord.offsets.group("group-id") == {}


def test_consumer_group_maybe_delete() -> None:
    """testConsumerGroupMaybeDelete: an empty consumer group without offsets goes at the next run;
    one with a member stays."""
    coord = coordinator(**{"offsets.retention.check.interval.ms": 1000})
    coord.apply([Record(3, {"groupId": "empty"}, {"epoch": 2, "metadataHash": 0})])
    consumer_group(coord, "busy", "foo")
    coord.on_loaded(0)
    (firing,) = coord.advance(1000)
    assert as_json(firing.records) == [
        {"key": {"type": 6, "data": {"groupId": "empty"}}, "value": None},
        {"key": {"type": 4, "data": {"groupId": "empty"}}, "value": None},
        {"key": {"type": 3, "data": {"groupId": "empty"}}, "value": None}]
    assert sorted(coord.groups) == ["busy"]


def test_classic_group_maybe_delete() -> None:
    """testClassicGroupMaybeDelete: an EMPTY classic group goes, a STABLE one stays."""
    coord = coordinator(**{"offsets.retention.check.interval.ms": 1000})
    coord.classic_groups["empty"] = ClassicGroup("empty", 0, state=EMPTY, protocol_type="consumer")
    coord.classic_groups["stable"] = ClassicGroup("stable", 0, state=STABLE, protocol_type="consumer")
    coord.on_loaded(0)
    (firing,) = coord.advance(1000)
    assert as_json(firing.records) == [{"key": {"type": 2, "data": {"group": "empty"}}, "value": None}]
    assert sorted(coord.classic_groups) == ["stable"]


def test_expiry_replays_to_the_same_state() -> None:
    """Records are the state: the cleanup's tombstones replayed into a fresh coordinator."""
    coord = coordinator(**{"offsets.retention.check.interval.ms": 1000})
    log = [Record(1, {"group": "s", "topic": "t", "partition": 0},
                  {"offset": 1, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 0}, 4),
           Record(3, {"groupId": "c"}, {"epoch": 2, "metadataHash": 0})]
    coord.apply(log)
    coord.on_loaded(0)
    for firing in coord.advance(2 * MINUTE):
        log += firing.records
    fresh = coordinator()
    fresh.apply(Record.from_json(r.to_json()) for r in log)
    assert fresh.offsets.snapshot() == coord.offsets.snapshot() == {"offsets": {}, "simpleGroups": [], "pending": {}}
    assert fresh.groups == coord.groups == {}
