"""A streams topology as StreamsGroupHeartbeat carries it and record 23 stores it.

JSON field names are Kafka's JSON-converter names (camelCase of the schema names):
``clients/src/main/resources/common/message/StreamsGroupHeartbeatRequest.json`` (field
``Topology``) and ``group-coordinator/src/main/resources/common/message/StreamsGroupTopologyValue.json``.
Both have the same shape; only the struct names (which appear in parse errors) and the
topic-config struct name (``KeyValue`` vs ``TopicConfig``, both ``{"key","value"}``) differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

INT16_MIN, INT16_MAX = -(2**15), 2**15 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class TopologyParseError(ValueError):
    """The JSON converter rejected the input; the text follows Kafka's generated converter."""


@dataclass(frozen=True, slots=True)
class TopicConfig:
    key: str
    value: str


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    partitions: int = 0  # 0 = not fixed by the client (always 0 for changelogs)
    replication_factor: int = 0  # 0 = broker default
    topic_configs: tuple[TopicConfig, ...] = ()


@dataclass(frozen=True, slots=True)
class CopartitionGroup:
    # Indexes into the owning subtopology's lists.
    source_topics: tuple[int, ...] = ()
    source_topic_regex: tuple[int, ...] = ()
    repartition_source_topics: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    source_topic_regex: tuple[str, ...] = ()
    state_changelog_topics: tuple[TopicInfo, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[TopicInfo, ...] = ()
    copartition_groups: tuple[CopartitionGroup, ...] = ()

    @property
    def is_stateful(self) -> bool:
        """Kafka's ``TopologyMetadata.isStateful``: the subtopology has changelog topics."""
        return bool(self.state_changelog_topics)


@dataclass(frozen=True, slots=True)
class Topology:
    epoch: int
    subtopologies: tuple[Subtopology, ...] = field(default_factory=tuple)

    def subtopology(self, subtopology_id: str) -> Subtopology:
        for s in self.subtopologies:
            if s.subtopology_id == subtopology_id:
                return s
        raise KeyError(subtopology_id)

    def required_topics(self) -> frozenset[str]:
        """``StreamsTopology.requiredTopics``: source, repartition-source and changelog topics."""
        out: set[str] = set()
        for s in self.subtopologies:
            out.update(s.source_topics)
            out.update(t.name for t in s.repartition_source_topics)
            out.update(t.name for t in s.state_changelog_topics)
        return frozenset(out)


# --- parsing ---------------------------------------------------------------------------

def _node_type(value: Any) -> str:
    """Jackson's ``JsonNodeType`` name for a decoded JSON value."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int | float):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, list | tuple):
        return "ARRAY"
    return "OBJECT"


class _Reader:
    """Reads one struct; messages copy ``JsonConverterGenerator``/``MessageUtil``.

    The generated code prints the *enclosing* node's type in "expected ..." messages
    (``_node.getNodeType()``), so those always say OBJECT; the model keeps that quirk.
    """

    def __init__(self, node: Any, struct: str, version: int) -> None:
        self.node = node
        self.struct = struct
        self.version = version

    def get(self, name: str) -> Any:
        if not isinstance(self.node, Mapping) or name not in self.node:
            raise TopologyParseError(f"{self.struct}: unable to locate field '{name}', "
                                     f"which is mandatory in version {self.version}")
        return self.node[name]

    def string(self, value: Any, about: str) -> str:
        if not isinstance(value, str):
            raise TopologyParseError(f"{about} expected a string type, but got OBJECT")
        return value

    def array(self, value: Any, about: str) -> list[Any]:
        if not isinstance(value, list | tuple):
            raise TopologyParseError(f"{about} expected a JSON array, but got OBJECT")
        return list(value)

    def integer(self, value: Any, about: str, bits: int) -> int:
        if isinstance(value, str):
            raise TopologyParseError(f"{about}: expected an integer or string type, but got STRING")
        if isinstance(value, bool) or not isinstance(value, int) or not INT32_MIN <= value <= INT32_MAX:
            text = "true" if value is True else "false" if value is False else str(value)
            raise TopologyParseError(f'{about}: failed to parse number: For input string: "{text}"')
        if bits == 16 and not INT16_MIN <= value <= INT16_MAX:
            raise TopologyParseError(f"{about}: value {value} does not fit in a 16-bit signed integer.")
        return value

    def str_field(self, name: str) -> str:
        return self.string(self.get(name), self.struct)

    def int_field(self, name: str, bits: int = 32) -> int:
        return self.integer(self.get(name), self.struct, bits)

    def str_list(self, name: str) -> tuple[str, ...]:
        return tuple(self.string(e, f"{self.struct} element")
                     for e in self.array(self.get(name), self.struct))

    def int16_list(self, name: str) -> tuple[int, ...]:
        return tuple(self.integer(e, f"{self.struct} element", 16)
                     for e in self.array(self.get(name), self.struct))

    def structs(self, name: str) -> list[Any]:
        return self.array(self.get(name), self.struct)


def _parse_topic_info(node: Any, version: int, config_struct: str) -> TopicInfo:
    r = _Reader(node, "TopicInfo", version)
    name = r.str_field("name")
    partitions = r.int_field("partitions")
    replication_factor = r.int_field("replicationFactor", 16)
    configs = []
    for c in r.structs("topicConfigs"):
        cr = _Reader(c, config_struct, version)
        configs.append(TopicConfig(cr.str_field("key"), cr.str_field("value")))
    return TopicInfo(name, partitions, replication_factor, tuple(configs))


def _parse_subtopology(node: Any, version: int, config_struct: str) -> Subtopology:
    r = _Reader(node, "Subtopology", version)
    sid = r.str_field("subtopologyId")
    source = r.str_list("sourceTopics")
    regex = r.str_list("sourceTopicRegex")
    changelogs = tuple(_parse_topic_info(t, version, config_struct)
                       for t in r.structs("stateChangelogTopics"))
    sinks = r.str_list("repartitionSinkTopics")
    rsources = tuple(_parse_topic_info(t, version, config_struct)
                     for t in r.structs("repartitionSourceTopics"))
    groups = []
    for g in r.structs("copartitionGroups"):
        gr = _Reader(g, "CopartitionGroup", version)
        groups.append(CopartitionGroup(gr.int16_list("sourceTopics"),
                                       gr.int16_list("sourceTopicRegex"),
                                       gr.int16_list("repartitionSourceTopics")))
    return Subtopology(sid, source, regex, changelogs, sinks, rsources, tuple(groups))


def _parse(node: Any, struct: str, config_struct: str, version: int) -> Topology:
    r = _Reader(node, struct, version)
    epoch = r.int_field("epoch")
    subs = tuple(_parse_subtopology(s, version, config_struct) for s in r.structs("subtopologies"))
    return Topology(epoch, subs)


def parse_request_topology(node: Any, version: int = 0) -> Topology | None:
    """``StreamsGroupHeartbeatRequest.topology`` (nullable) from its JSON form."""
    if node is None:
        return None
    return _parse(node, "Topology", "KeyValue", version)


def parse_topology_record(node: Any) -> Topology:
    """A ``StreamsGroupTopologyValue`` (record type 23, version 0) from its JSON form."""
    return _parse(node, "StreamsGroupTopologyValue", "TopicConfig", 0)


# --- rendering -------------------------------------------------------------------------

def _topic_info_json(t: TopicInfo) -> dict[str, Any]:
    return {"name": t.name, "partitions": t.partitions, "replicationFactor": t.replication_factor,
            "topicConfigs": [{"key": c.key, "value": c.value} for c in t.topic_configs]}


def topology_to_json(topology: Topology) -> dict[str, Any]:
    """The JSON form; identical for the request field and the record value."""
    return {
        "epoch": topology.epoch,
        "subtopologies": [
            {
                "subtopologyId": s.subtopology_id,
                "sourceTopics": list(s.source_topics),
                "sourceTopicRegex": list(s.source_topic_regex),
                "stateChangelogTopics": [_topic_info_json(t) for t in s.state_changelog_topics],
                "repartitionSinkTopics": list(s.repartition_sink_topics),
                "repartitionSourceTopics": [_topic_info_json(t) for t in s.repartition_source_topics],
                "copartitionGroups": [
                    {"sourceTopics": list(g.source_topics),
                     "sourceTopicRegex": list(g.source_topic_regex),
                     "repartitionSourceTopics": list(g.repartition_source_topics)}
                    for g in s.copartition_groups
                ],
            }
            for s in topology.subtopologies
        ],
    }


def to_record_value(topology: Topology) -> dict[str, Any]:
    """``StreamsCoordinatorRecordHelpers.convertToStreamsGroupTopologyRecord``: a field-by-field copy."""
    return topology_to_json(topology)


def from_record_value(node: Any) -> Topology:
    return parse_topology_record(node)
