"""StreamsGroupHeartbeat request validation, in Kafka 4.3's order (KafkaApis, then
GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures, then
throwIfStreamsGroupHeartbeatRequestIsInvalid)."""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.errors import Errors

from tests.streams.helpers import S8_TOPOLOGY, coordinator, hb, join, sub, topic, topology

JOIN: dict[str, Any] = {"rebalanceTimeoutMs": 30000, "topology": S8_TOPOLOGY, "processId": "p",
                        "activeTasks": [], "standbyTasks": [], "warmupTasks": []}

CASES: list[tuple[str, int, dict[str, Any], Errors, str]] = [
    ("static", 0, {"instanceId": "i"}, Errors.INVALID_REQUEST, "Static membership is not yet supported."),
    ("task-offsets", 0, {"taskOffsets": []}, Errors.INVALID_REQUEST, "TaskOffsets are not supported yet."),
    ("task-end-offsets", 0, {"taskEndOffsets": []}, Errors.INVALID_REQUEST, "TaskEndOffsets are not supported yet."),
    ("warmups", 3, {"warmupTasks": [{"subtopologyId": "sub1", "partitions": [0]}], "activeTasks": [],
                    "standbyTasks": [], "topology": None},
     Errors.INVALID_REQUEST, "WarmupTasks are not supported yet."),
    ("regex", 0, {"topology": topology(sub("s", [], sourceTopicRegex=["f.*"]))},
     Errors.INVALID_REQUEST, "Regular expressions for source topics are not supported yet."),
    ("member-id", 0, {"memberId": " "}, Errors.INVALID_REQUEST, "MemberId can't be empty."),
    ("group-id", 0, {"groupId": ""}, Errors.INVALID_REQUEST, "GroupId can't be empty."),
    ("rack-id", 0, {"rackId": ""}, Errors.INVALID_REQUEST, "RackId can't be empty."),
    ("rebalance-timeout", 0, {"rebalanceTimeoutMs": -1}, Errors.INVALID_REQUEST,
     "RebalanceTimeoutMs must be provided in first request."),
    ("active-on-join", 0, {"activeTasks": [{"subtopologyId": "sub1", "partitions": [0]}]}, Errors.INVALID_REQUEST,
     "ActiveTasks must be empty when (re-)joining."),
    ("standby-on-join", 0, {"standbyTasks": [{"subtopologyId": "sub1", "partitions": [0]}]}, Errors.INVALID_REQUEST,
     "StandbyTasks must be empty when (re-)joining."),
    ("no-topology", 0, {"topology": None}, Errors.INVALID_REQUEST, "Topology must be non-null when (re-)joining."),
    ("changelog-partitions", 0, {"topology": topology(sub("s", ["foo"], stateChangelogTopics=[topic("c", 3)]))},
     Errors.STREAMS_INVALID_TOPOLOGY, "Changelog topic c must have an undefined partition count, but it is set to 3."),
    ("leave-static", -2, {"topology": None}, Errors.INVALID_REQUEST, "InstanceId can't be null."),
    ("bad-epoch", -3, {"topology": None}, Errors.INVALID_REQUEST, "MemberEpoch is -3, but must be greater than or equal to -2."),
    ("mixed-null-tasks", 1, {"topology": None, "activeTasks": [], "standbyTasks": None, "warmupTasks": []},
     Errors.INVALID_REQUEST, "If one task-type is non-null, all must be non-null."),
    ("topology-not-joining", 1, {}, Errors.INVALID_REQUEST, "Topology can only be provided when (re-)joining."),
    ("internal-topic", 0, {"topology": topology(sub("s", ["__consumer_offsets"]))}, Errors.STREAMS_INVALID_TOPOLOGY,
     "Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited."),
    ("invalid-name", 0, {"topology": topology(sub("s", ["a b"]))}, Errors.STREAMS_INVALID_TOPOLOGY,
     "Topic names a b are not valid topic names."),
]


@pytest.mark.parametrize(("name", "epoch", "fields", "error", "message"), CASES, ids=[c[0] for c in CASES])
def test_validation(name: str, epoch: int, fields: dict[str, Any], error: Errors, message: str) -> None:
    c = coordinator()
    r = hb(c, 0, "m1", epoch, **{**JOIN, **fields})
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (int(error), message)
    assert r.records == []
    assert c.streams_groups == {}


def test_kafka_apis_names_before_unsupported_features() -> None:
    # An internal topic is rejected by KafkaApis before the coordinator sees the instance id.
    c = coordinator()
    r = hb(c, 0, "m1", 0, **{**JOIN, "instanceId": "i", "topology": topology(sub("s", ["__transaction_state"]))})
    assert r.response is not None
    assert r.response["errorCode"] == int(Errors.STREAMS_INVALID_TOPOLOGY)


def test_unknown_group_and_member() -> None:
    c = coordinator()
    r = hb(c, 0, "m1", 1, activeTasks=[], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (69, "Streams group g not found.")
    join(c, 0, "m1", "p1")
    r = hb(c, 10, "m9", 1)
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (25, "Member m9 is not a member of group g.")
    r = hb(c, 20, "m9", -1)
    assert r.response is not None
    assert r.response["errorCode"] == 25
    assert r.response["errorMessage"] == "Member m9 is not a member of group g."


def test_epoch_fencing() -> None:
    c = coordinator()
    first = join(c, 0, "m1", "p1").response
    assert first is not None
    assert first["memberEpoch"] == 2
    r = hb(c, 10, "m1", 3)
    assert r.response is not None
    assert r.response["errorCode"] == int(Errors.FENCED_MEMBER_EPOCH)
    assert r.response["errorMessage"].startswith("The streams group member has a greater member epoch (3)")
    r = hb(c, 10, "m1", 1, activeTasks=[], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert r.response["errorCode"] == int(Errors.FENCED_MEMBER_EPOCH)


def test_lost_response_previous_epoch_with_subset_accepted() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")  # epoch 2, previous 0
    r = hb(c, 10, "m1", 0, rebalanceTimeoutMs=30000, topology=S8_TOPOLOGY, activeTasks=[], standbyTasks=[],
           warmupTasks=[])
    assert r.response is not None
    assert r.response["errorCode"] == 0
    assert r.response["memberEpoch"] == 2


def test_owned_tasks_outside_the_topology_rejected() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")
    r = hb(c, 10, "m1", 2, activeTasks=[{"subtopologyId": "nope", "partitions": [0]}], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert r.response["errorMessage"] == "Subtopology nope does not exist in the topology."
    r = hb(c, 10, "m1", 2, activeTasks=[{"subtopologyId": "sub2", "partitions": [3]}], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert r.response["errorMessage"] == "Task 3 for subtopology sub2 is invalid. Number of tasks for this subtopology: 3"


def test_group_max_size() -> None:
    c = coordinator(**{"group.streams.max.size": 1})
    join(c, 0, "m1", "p1")
    r = join(c, 10, "m2", "p2")
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (
        81, "The streams group has reached its maximum capacity of 1 members.")


def test_one_namespace_for_consumer_and_streams_groups() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")
    r = c.handle(68, 1, {"groupId": "g", "memberId": "c1", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
                         "subscribedTopicNames": ["foo"], "topicPartitions": []}, now=10)
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (69, "Group g is not a consumer group.")
    c.handle(68, 1, {"groupId": "cg", "memberId": "c1", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
                     "subscribedTopicNames": ["foo"], "topicPartitions": []}, now=10)
    r = join(c, 20, "m1", "p1", group="cg")
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (69, "Group cg is not a streams group.")
    d = c.handle(89, 0, {"groupIds": ["cg", "nope"]}, now=20).response
    assert d is not None
    assert [(g["errorCode"], g["errorMessage"]) for g in d["groups"]] == [
        (69, "Group cg is not a streams group."), (69, "Group nope not found.")]
