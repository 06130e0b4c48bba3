"""DeleteGroups (API 42) rules, named after Kafka's GroupCoordinatorShardTest /
GroupMetadataManagerTest / OffsetMetadataManagerTest cases (4.3), with exact responses and records.

Kafka's ``GroupCoordinatorShard.deleteGroups``: per group ``validateDeleteGroup`` (unknown:
GROUP_ID_NOT_FOUND; classic DEAD: GROUP_ID_NOT_FOUND; not EMPTY: NON_EMPTY_GROUP), then
``deleteAllOffsets`` (offset tombstones), then ``createGroupTombstoneRecords`` of the group's type.
"""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.apis import LIST_GROUPS
from kgspec.model.classic.apis import DESCRIBE_GROUPS
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.offsets.apis import DELETE_GROUPS, OFFSET_FETCH
from kgspec.model.offsets.groups import delete_order
from kgspec.model.records import Record
from kgspec.model.streams.ops import schedule_initial_rebalance
from kgspec.model.timers import Timer
from kgspec.spec.classic import DEAD, EMPTY, PREPARING_REBALANCE, STABLE

from tests.offsets.test_offset_rules import (
    NOW,
    classic_group,
    commit,
    consumer_group,
    coordinator,
    streams_group,
)


def delete_groups(coord: Coordinator, *group_ids: str, version: int = 2) -> Any:
    return coord.decide(DELETE_GROUPS, version, {"groupsNames": list(group_ids)}, now=NOW)


def results(d: Any) -> list[tuple[str, int]]:
    return [(r["groupId"], r["errorCode"]) for r in d.response["results"]]


def records(d: Any) -> list[dict[str, Any]]:
    return [r.to_json() for r in d.records]


def offset_tombstone(partition: int, group: str = "foo") -> dict[str, Any]:
    return {"key": {"type": 1, "data": {"group": group, "topic": "bar", "partition": partition}}, "value": None}


def tombstone(rtype: int, **key: str) -> dict[str, Any]:
    return {"key": {"type": rtype, "data": key}, "value": None}


def simple_commits(coord: Coordinator, *partitions: int) -> None:
    coord.commit(commit(coord, 9, -1, member="", partitions=[
        {"partitionIndex": p, "committedOffset": 100 + p} for p in partitions]))


# --- GroupCoordinatorShardTest ---------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 1, 2])
def test_delete_groups(version: int) -> None:
    """testDeleteGroups: the offsets' tombstones, then the group's; the result NONE."""
    coord = coordinator()
    simple_commits(coord, 0, 1)
    d = delete_groups(coord, "foo", version=version)
    assert d.response == {"throttleTimeMs": 0, "results": [{"groupId": "foo", "errorCode": 0}]}
    assert records(d) == [offset_tombstone(0), offset_tombstone(1),
                          {"key": {"type": 2, "data": {"group": "foo"}}, "value": None}]
    coord.commit(d)
    assert coord.offsets.group("foo") == {}
    assert coord.offsets.simple_groups == set()


def test_delete_groups_of_an_unknown_group() -> None:
    """testDeleteGroups' GroupIdNotFoundException: GROUP_ID_NOT_FOUND, nothing written."""
    d = delete_groups(coordinator(), "foo")
    assert results(d) == [("foo", Errors.GROUP_ID_NOT_FOUND)]
    assert d.records == []


def test_delete_groups_answers_each_group() -> None:
    """One group's error does not stop the others (the shard's loop catches ApiException)."""
    coord = coordinator(**{"offsets.topic.num.partitions": 1})
    simple_commits(coord, 0)
    classic_group(coord)  # STABLE, but under another id below
    coord.classic_groups["busy"] = coord.classic_groups.pop("foo")
    coord.offsets.simple_groups.add("foo")
    d = delete_groups(coord, "busy", "foo", "gone")
    assert sorted(results(d)) == [("busy", Errors.NON_EMPTY_GROUP), ("foo", 0), ("gone", Errors.GROUP_ID_NOT_FOUND)]
    assert records(d) == [offset_tombstone(0), {"key": {"type": 2, "data": {"group": "foo"}}, "value": None}]


def test_delete_groups_order_is_kafkas_hash_set_order() -> None:
    """``new HashSet<>(groupList)`` per shard (one shard here): buckets of String.hashCode in a
    table of 16 — "a" and "q" (97, 113) share bucket 1 in insertion order, "b" 2, "c" 3; a
    duplicate is answered once (KafkaApis' ``distinct``)."""
    coord = coordinator(**{"offsets.topic.num.partitions": 1})
    d = delete_groups(coord, "c", "q", "a", "b", "q")
    assert [g for g, _ in results(d)] == ["q", "a", "b", "c"]
    assert delete_order(coord, ["c", "q", "a", "b", "q"]) == ["q", "a", "b", "c"]


# --- GroupMetadataManagerTest ----------------------------------------------------------------------


def test_classic_group_delete() -> None:
    """testClassicGroupDelete: an EMPTY classic group goes with one GroupMetadata tombstone."""
    coord = coordinator()
    coord.classic_groups["foo"] = ClassicGroup("foo", 0, state=EMPTY, protocol_type="consumer")
    d = delete_groups(coord, "foo")
    assert results(d) == [("foo", 0)]
    assert records(d) == [{"key": {"type": 2, "data": {"group": "foo"}}, "value": None}]
    coord.commit(d)
    assert "foo" not in coord.classic_groups


@pytest.mark.parametrize(("state", "error"), [(STABLE, Errors.NON_EMPTY_GROUP),
                                              (PREPARING_REBALANCE, Errors.NON_EMPTY_GROUP),
                                              (DEAD, Errors.GROUP_ID_NOT_FOUND)])
def test_classic_group_validate_delete_group(state: str, error: Errors) -> None:
    """ClassicGroupTest.testValidateDeleteGroup."""
    coord = coordinator()
    classic_group(coord, state=state)
    d = delete_groups(coord, "foo")
    assert results(d) == [("foo", error)]
    assert d.records == []


def test_consumer_group_delete() -> None:
    """testConsumerGroupDelete: an empty consumer group's tombstones, after its offsets'."""
    coord = coordinator()
    consumer_group(coord)
    coord.commit(commit(coord, 9, -1, member=""))
    d = delete_groups(coord, "foo")
    assert results(d) == [("foo", 0)]
    assert records(d) == [offset_tombstone(0), tombstone(6, groupId="foo"), tombstone(4, groupId="foo"),
                          tombstone(3, groupId="foo")]
    coord.commit(d)
    assert "foo" not in coord.groups
    assert coord.offsets.group("foo") == {}


def test_consumer_group_validate_delete_group() -> None:
    """ConsumerGroupTest.testValidateDeleteGroup: a group with members is NON_EMPTY_GROUP."""
    coord = coordinator()
    consumer_group(coord, ConsumerMember("member", member_epoch=10, previous_member_epoch=10))
    assert results(delete_groups(coord, "foo")) == [("foo", Errors.NON_EMPTY_GROUP)]


def test_streams_group_delete_cancels_initial_rebalance_timer() -> None:
    """testStreamsGroupDeleteCancelsInitialRebalanceTimer: the tombstones, and the timer cancelled."""
    coord = coordinator()
    group = streams_group(coord)
    group.members.clear()
    schedule_initial_rebalance(coord, "foo", NOW + 3000)
    d = delete_groups(coord, "foo")
    assert results(d) == [("foo", 0)]
    assert records(d) == [tombstone(20, groupId="foo"), tombstone(17, groupId="foo"),
                          tombstone(23, groupId="foo")]
    assert ("cancel", "initial-rebalance-timeout-foo") in d.timer_ops
    coord.commit(d)
    assert "initial-rebalance-timeout-foo" not in coord.timers


def test_streams_group_validate_delete_group() -> None:
    coord = coordinator()
    streams_group(coord)
    assert results(delete_groups(coord, "foo")) == [("foo", Errors.NON_EMPTY_GROUP)]


# --- the group is gone afterwards, and replay rebuilds it ---------------------------------------


def test_deleted_group_is_gone_for_fetch_list_and_describe() -> None:
    coord = coordinator()
    coord.classic_groups["foo"] = ClassicGroup("foo", 0, state=EMPTY, protocol_type="consumer")
    simple_commits(coord, 0)
    coord.commit(delete_groups(coord, "foo"))
    fetched = coord.decide(OFFSET_FETCH, 9, {"groups": [{"groupId": "foo", "topics": None}]}, now=NOW)
    assert fetched.response["groups"] == [{"groupId": "foo", "topics": [], "errorCode": 0}]
    listed = coord.decide(LIST_GROUPS, 5, {"statesFilter": [], "typesFilter": []}, now=NOW)
    assert listed.response["groups"] == []
    described = coord.decide(DESCRIBE_GROUPS, 5, {"groups": ["foo"], "includeAuthorizedOperations": False}, now=NOW)
    assert described.response["groups"][0]["groupState"] == "Dead"


def test_replay_of_a_delete_rebuilds_identical_state() -> None:
    """Records are the state: every record of the session replayed into a fresh coordinator gives
    the same groups and offsets as the coordinator that wrote them (the id then commits again as
    a simple group)."""
    coord = coordinator()
    log = [Record(3, {"groupId": "foo"}, {"epoch": 5, "metadataHash": 0}), Record(4, {"groupId": "foo"}, {}),
           Record(6, {"groupId": "foo"}, {"assignmentEpoch": 5, "assignmentTimestamp": 0})]
    coord.apply(log)
    for step in (lambda: commit(coord, 9, -1, member=""), lambda: delete_groups(coord, "foo"),
                 lambda: commit(coord, 9, -1, member="", partitions=[{"partitionIndex": 2, "committedOffset": 7}])):
        d = step()
        coord.commit(d)
        log += d.records
    assert "foo" not in coord.groups
    assert coord.offsets.simple_groups == {"foo"}
    fresh = coordinator()
    fresh.apply(Record.from_json(r.to_json()) for r in log)
    assert fresh.snapshot() == coord.snapshot()


def test_timer_kind_of_the_offsets() -> None:
    """The offsets protocol declares the cleanup timer's kind (``model/timers.py`` routes it)."""
    from kgspec.model.coordinator import BY_TIMER
    from kgspec.model.offsets.groups import EXPIRE_TIMER
    assert BY_TIMER[EXPIRE_TIMER].name == "offsets"
    assert Timer("expire-group-metadata", 1, EXPIRE_TIMER, "").kind == EXPIRE_TIMER
