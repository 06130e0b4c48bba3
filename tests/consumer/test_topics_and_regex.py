"""Metadata changes bump the group epoch on the next heartbeat; regex subscriptions resolve."""

from __future__ import annotations

from kgspec.model.consumer.member import STABLE

from tests.consumer.helpers import Harness, assignment, code, epoch, tid, types

INVALID_REGULAR_EXPRESSION = 128


def stable_group() -> Harness:
    h = Harness({"foo": 2, "bar": 2})
    h.now = 10_000
    h.join("m", ["foo"], assignor="range")
    h.sleep(2000)
    return h


def test_partitions_added_bump_on_next_heartbeat() -> None:
    h = stable_group()
    h.coord.update_topic("foo", tid("foo"), 3)
    assert h.group.group_epoch == 2  # nothing written until the member heartbeats
    r = h.heartbeat("m")
    assert types(r.records) == ["3", "7", "6", "8"]
    assert r.records[0].value is not None
    assert r.records[0].value["epoch"] == 3
    assert (epoch(r), assignment(r)) == (3, {"foo": [0, 1, 2]})


def test_subscribed_topic_deleted_bumps() -> None:
    h = stable_group()
    h.coord.delete_topic("foo")
    r = h.heartbeat("m")
    assert types(r.records)[:1] == ["3"]
    assert r.records[0].value == {"epoch": 3}  # no subscribed topic exists: hash 0, omitted
    assert h.member("m").member_epoch == 2  # must revoke foo 0, 1 first (no owned list)


def test_subscribed_topic_created_bumps() -> None:
    h = Harness({"foo": 2})
    h.now = 10_000
    h.join("m", ["foo", "baz"], assignor="range")
    h.sleep(2000)
    h.coord.update_topic("baz", tid("baz"), 1)
    r = h.heartbeat("m")
    assert types(r.records) == ["3", "7", "6", "8"]
    assert (epoch(r), assignment(r)) == (3, {"foo": [0, 1], "baz": [0]})


def test_unrelated_topic_change_does_not_bump() -> None:
    h = stable_group()
    h.coord.update_topic("bar", tid("bar"), 5)
    r = h.heartbeat("m")
    assert r.records == []
    assert epoch(r) == 2


def test_regex_resolves_and_bumps() -> None:
    h = Harness({"foo": 2, "fob": 1, "bar": 1})
    h.now = 10_000
    r = h.join("m", regex="fo.*", assignor="range")
    assert (epoch(r), assignment(r)) == (1, {})
    firings = h.sleep(0)
    assert types(firings[0].records) == ["16", "3"]
    assert h.group.group_epoch == 2
    h.sleep(2000)
    r = h.heartbeat("m")
    assert (epoch(r), assignment(r)) == (2, {"foo": [0, 1], "fob": [0]})
    assert h.member("m").state == STABLE


def test_new_topic_matching_regex_is_picked_up() -> None:
    h = Harness({"foo": 1})
    h.now = 10_000
    h.join("m", regex="fo.*")
    h.sleep(0)
    h.sleep(2000)
    h.heartbeat("m")
    h.coord.update_topic("fox", tid("fox"), 1)
    firings = h.sleep(0)
    assert [types(f.records) for f in firings] == [["16", "3"]]
    assert firings[0].records[0].value is not None
    assert firings[0].records[0].value["topics"] == ["foo", "fox"]


def test_invalid_regex() -> None:
    h = Harness({"foo": 1})
    r = h.join("m", regex="[")
    assert code(r) == INVALID_REGULAR_EXPRESSION
    assert r.response is not None
    assert r.response["errorMessage"].startswith("SubscribedTopicRegex `[` is not a valid regular expression: ")
    assert r.records == []
    assert h.coord.groups == {}
