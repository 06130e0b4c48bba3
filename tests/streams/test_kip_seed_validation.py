"""kip: StreamsGroupHeartbeat validation as seed 002 "Request Validation" writes it, each rule with
the error code the seed names; Kafka 4.3's answer to the same request beside it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.streams.helpers import S8_TOPOLOGY, coordinator, hb, join, sub, topic, topology

REP = topology(sub("0", ["foo"], repartitionSinkTopics=["rep"]),
               sub("1", [], repartitionSourceTopics=[topic("rep")]))


def _join(profile: str, **fields: Any) -> tuple[int, str | None]:
    r = join(coordinator(profile), 0, "m1", "p1", **fields).response
    assert r is not None
    return r["errorCode"], r["errorMessage"]


# (id, join fields, kip (code, message), kafka-4.3 code)
CASES: list[tuple[str, dict[str, Any], tuple[int, str], int]] = [
    ("rebalance-timeout-zero", {"rebalanceTimeoutMs": 0},
     (42, "RebalanceTimeoutMs must be larger than zero in the first heartbeat request."), 0),
    ("null-tasks-on-join", {"activeTasks": None, "standbyTasks": None, "warmupTasks": None},
     (42, "ActiveTasks, StandbyTasks and WarmupTasks have to be non-null and empty when joining."), 0),
    ("empty-topology", {"topology": topology()}, (42, "Topology must be non-empty."), 0),
    ("repartition-source-is-a-source",
     {"topology": topology(sub("0", ["foo", "rep"], repartitionSinkTopics=["rep"]),
                           sub("1", [], repartitionSourceTopics=[topic("rep")]))},
     (130, "A RepartitionSourceTopic cannot be in SourceTopics or StateChangelogTopics of any subtopology: rep."),
     0),
    ("changelog-is-a-source", {"topology": topology(sub("0", ["foo", "app-changelog"], ("app-changelog",)))},
     (130, "A StateChangelogTopic cannot be in SourceTopics or RepartitionSinkTopic or RepartitionSourceTopics "
           "of any subtopology: app-changelog."), 0),
    ("repartition-source-sunk-only-by-itself",
     {"topology": topology(sub("0", ["foo"], repartitionSinkTopics=["rep"], repartitionSourceTopics=[topic("rep")]))},
     (130, "A RepartitionSourceTopic of one subtopology must be a RepartitionSinkTopic of at least one other "
           "subtopology: rep of subtopology 0."), 0),
    ("copartition-index-out-of-range",
     {"topology": topology(sub("0", ["foo"], copartitionGroups=[
         {"sourceTopics": [3], "sourceTopicRegex": [], "repartitionSourceTopics": []}]))},
     (130, "All indices in CopartitionGroups must be valid indices in the corresponding topic arrays: "
           "SourceTopics index 3 of subtopology 0 (size 1)."), -1),
]


@pytest.mark.parametrize(("fields", "kip", "kafka"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_seed_validation_rule(fields: dict[str, Any], kip: tuple[int, str], kafka: int) -> None:
    assert _join("kip", **fields) == kip
    assert _join("kafka-4.3", **fields)[0] == kafka


def test_rep_topology_is_valid_under_both() -> None:
    assert _join("kip", topology=REP) == (0, None)
    assert _join("kafka-4.3", topology=REP) == (0, None)


def test_disjoint_task_sets() -> None:
    """"ActiveTasks, StandbyTasks and WarmupTasks have to be disjoint sets"; Kafka does not check it."""
    for profile, code in (("kip", 42), ("kafka-4.3", 0)):
        c = coordinator(profile)
        first = join(c, 0, "m1", "p1", topology=S8_TOPOLOGY).response
        assert first is not None
        r = hb(c, 10, "m1", first["memberEpoch"], activeTasks=[{"subtopologyId": "sub1", "partitions": [0]}],
               standbyTasks=[{"subtopologyId": "sub1", "partitions": [0]}], warmupTasks=[]).response
        assert r is not None
        assert r["errorCode"] == code
        if profile == "kip":
            assert r["errorMessage"] == ("ActiveTasks, StandbyTasks and WarmupTasks have to be disjoint sets: "
                                         "task sub1_0 is both active and standby.")


def _regex_sub(*patterns: str) -> dict[str, Any]:
    return topology(sub("0", [], sourceTopicRegex=list(patterns)))


def test_source_regex_resolves_to_matching_topics() -> None:
    """Seed 002: source topics "can be defined through a Google RE2/J regular expression"; the
    regex matches foo (6 partitions) in full, not bar: six tasks. Kafka refuses the regex."""
    c = coordinator("kip")
    r = join(c, 0, "m1", "p1", topology=_regex_sub("f.*")).response
    assert r is not None
    assert (r["errorCode"], r["status"], r["activeTasks"]) == (
        0, [], [{"subtopologyId": "0", "partitions": [0, 1, 2, 3, 4, 5]}])
    assert _join("kafka-4.3", topology=_regex_sub("f.*")) == (
        42, "Regular expressions for source topics are not supported yet.")


def test_source_regex_matching_nothing_is_a_missing_source_until_a_topic_matches() -> None:
    """"A source topic is missing or a source topic regex resolves to zero topics": MISSING_SOURCE_TOPICS,
    no tasks; a topic created later that matches makes the group ready (group epoch bumped)."""
    c = coordinator("kip")
    r = join(c, 0, "m1", "p1", topology=_regex_sub("orders-.*")).response
    assert r is not None
    assert (r["status"], r["activeTasks"]) == ([{"statusCode": 1, "statusDetail":
                                                 "Source topic regular expressions orders-.* match no topic."}], [])
    c.update_topic("orders-eu", "OOOOOOOOOOOOOOOOOOOOOO", 2)
    later = hb(c, 10, "m1", r["memberEpoch"], activeTasks=[], standbyTasks=[], warmupTasks=[]).response
    assert later is not None
    assert (later["memberEpoch"], later["status"], later["activeTasks"]) == (
        r["memberEpoch"] + 1, [], [{"subtopologyId": "0", "partitions": [0, 1]}])


def test_invalid_source_regex_is_an_invalid_topology() -> None:
    code, message = _join("kip", topology=_regex_sub("(unclosed"))
    assert code == 130
    assert message is not None
    assert message.startswith("Source topic regular expression '(unclosed' (")
