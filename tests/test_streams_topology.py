"""Topology JSON (StreamsGroupHeartbeat field / StreamsGroupTopology record 23) parsing."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kgspec.model.javaorder import java_hashmap_order, java_str_key, java_string_hash
from kgspec.model.streams import (
    CopartitionGroup,
    Subtopology,
    TopicConfig,
    TopicInfo,
    Topology,
    TopologyParseError,
    from_record_value,
    parse_request_topology,
    parse_topology_record,
    to_record_value,
    topology_to_json,
)

REQUEST: dict[str, Any] = {
    "epoch": 3,
    "subtopologies": [
        {
            "subtopologyId": "0",
            "sourceTopics": ["orders"],
            "sourceTopicRegex": [],
            "stateChangelogTopics": [
                {"name": "app-store-changelog", "partitions": 0, "replicationFactor": 0,
                 "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}]},
            ],
            "repartitionSinkTopics": ["app-rep"],
            "repartitionSourceTopics": [],
            "copartitionGroups": [],
        },
        {
            "subtopologyId": "1",
            "sourceTopics": ["customers"],
            "sourceTopicRegex": [],
            "stateChangelogTopics": [],
            "repartitionSinkTopics": [],
            "repartitionSourceTopics": [
                {"name": "app-rep", "partitions": 0, "replicationFactor": 3, "topicConfigs": []},
            ],
            "copartitionGroups": [
                {"sourceTopics": [0], "sourceTopicRegex": [], "repartitionSourceTopics": [0]},
            ],
        },
    ],
}

EXPECTED = Topology(3, (
    Subtopology("0", ("orders",), (),
                (TopicInfo("app-store-changelog", 0, 0, (TopicConfig("cleanup.policy", "compact"),)),),
                ("app-rep",), (), ()),
    Subtopology("1", ("customers",), (), (), (), (TopicInfo("app-rep", 0, 3),),
                (CopartitionGroup((0,), (), (0,)),)),
))


def test_parse_request_topology() -> None:
    topology = parse_request_topology(REQUEST)
    assert topology == EXPECTED
    assert topology.subtopologies[0].is_stateful is True
    assert topology.subtopologies[1].is_stateful is False
    assert topology.required_topics() == frozenset(
        {"orders", "customers", "app-rep", "app-store-changelog"})


def test_null_topology_is_none() -> None:
    assert parse_request_topology(None) is None


def test_round_trip_through_json_and_record() -> None:
    assert topology_to_json(EXPECTED) == REQUEST
    record = to_record_value(EXPECTED)
    assert record == REQUEST  # record 23 has the same JSON shape
    assert from_record_value(record) == EXPECTED
    assert parse_topology_record(record) == EXPECTED


def _mutated(path: list[Any], value: Any = None, delete: bool = False) -> dict[str, Any]:
    doc = copy.deepcopy(REQUEST)
    node: Any = doc
    for p in path[:-1]:
        node = node[p]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


@pytest.mark.parametrize(("doc", "message"), [
    (_mutated(["epoch"], delete=True),
     "Topology: unable to locate field 'epoch', which is mandatory in version 0"),
    (_mutated(["subtopologies", 0, "sourceTopics"], delete=True),
     "Subtopology: unable to locate field 'sourceTopics', which is mandatory in version 0"),
    (_mutated(["subtopologies", 0, "sourceTopics"], None),
     "Subtopology expected a JSON array, but got OBJECT"),
    (_mutated(["subtopologies", 0, "sourceTopics"], [7]),
     "Subtopology element expected a string type, but got OBJECT"),
    (_mutated(["subtopologies", 0, "subtopologyId"], 0),
     "Subtopology expected a string type, but got OBJECT"),
    (_mutated(["epoch"], "3"),
     "Topology: expected an integer or string type, but got STRING"),
    (_mutated(["epoch"], 1.5),
     'Topology: failed to parse number: For input string: "1.5"'),
    (_mutated(["subtopologies", 1, "repartitionSourceTopics", 0, "replicationFactor"], 40000),
     "TopicInfo: value 40000 does not fit in a 16-bit signed integer."),
    (_mutated(["subtopologies", 1, "copartitionGroups", 0, "sourceTopics"], [70000]),
     "CopartitionGroup element: value 70000 does not fit in a 16-bit signed integer."),
    (_mutated(["subtopologies", 0, "stateChangelogTopics", 0, "topicConfigs", 0, "value"], delete=True),
     "KeyValue: unable to locate field 'value', which is mandatory in version 0"),
])
def test_parse_errors_name_struct_and_field(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(TopologyParseError) as e:
        parse_request_topology(doc)
    assert str(e.value) == message


def test_record_parse_errors_use_record_struct_names() -> None:
    doc = _mutated(["subtopologies", 0, "stateChangelogTopics", 0, "topicConfigs", 0, "key"], delete=True)
    with pytest.raises(TopologyParseError) as e:
        parse_topology_record(doc)
    assert str(e.value) == "TopicConfig: unable to locate field 'key', which is mandatory in version 0"
    with pytest.raises(TopologyParseError) as e:
        parse_topology_record([])
    assert str(e.value) == ("StreamsGroupTopologyValue: unable to locate field 'epoch', "
                            "which is mandatory in version 0")


def test_java_orders() -> None:
    # Values checked against a JVM (String.hashCode, HashSet iteration).
    assert java_string_hash("apple") == 93029210
    assert java_string_hash("banana") == (-1396355227) & 0xFFFFFFFF
    assert java_hashmap_order(["apple", "banana", "cherry"]) == ["banana", "apple", "cherry"]
    assert java_hashmap_order(["b", "a", "b"]) == ["a", "b"]
    # String.compareTo orders UTF-16 code units: a supplementary char sorts below U+FFFF.
    assert sorted(["\uffff", "\U0001f600"], key=java_str_key) == ["\U0001f600", "\uffff"]
