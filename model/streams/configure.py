"""``InternalTopicManager.configureTopics`` and the request-level topology checks.

Kafka 4.3 = trunk for everything here (``group-coordinator/.../streams/topics/`` has no
functional diff between 4.3 and trunk). 4.1 differs only in status texts: it lists every
missing source topic (``String.join(", ", ...)``) and prints the internal topics as a Java
set (``"Internal topics are missing: [a, b]"``), where 4.2+ uses ``summarizeTopics`` (first
three names, then ``" and N additional topics"``).

Java collection orders that reach the output are reproduced with ``javaorder``: the
subtopology map of ``StreamsTopology`` is a ``HashMap`` keyed by subtopology id, so
derivation, copartition enforcement and the first error raised follow that hash order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TypeVar

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.javaorder import java_hashmap_order, java_str_key
from kgspec.model.streams.topology import Subtopology, TopicInfo, Topology

T = TypeVar("T")


class Status(IntEnum):
    """``StreamsGroupHeartbeatResponse.Status`` codes."""

    STALE_TOPOLOGY = 0
    MISSING_SOURCE_TOPICS = 1
    INCORRECTLY_PARTITIONED_TOPICS = 2
    MISSING_INTERNAL_TOPICS = 3
    SHUTDOWN_APPLICATION = 4
    ASSIGNMENT_DELAYED = 5
    MISSING_CLIENT_TAGS = 6  # trunk, v1 only (KAFKA-20744)


class StreamsInvalidTopology(CoordinatorError):
    """``StreamsInvalidTopologyException``: the heartbeat fails with STREAMS_INVALID_TOPOLOGY (130)."""

    def __init__(self, message: str) -> None:
        super().__init__(Errors.STREAMS_INVALID_TOPOLOGY, message)


class UnexpectedServerError(CoordinatorError):
    """A Java runtime exception escapes the coordinator: ``handleOperationException`` answers
    UNKNOWN_SERVER_ERROR with no message. ``java_exception``/``detail`` say what Kafka threw."""

    def __init__(self, java_exception: str, detail: str) -> None:
        super().__init__(Errors.UNKNOWN_SERVER_ERROR, None)
        self.java_exception = java_exception
        self.detail = detail

    def __str__(self) -> str:
        return f"UNKNOWN_SERVER_ERROR ({self.java_exception}: {self.detail})"


@dataclass(frozen=True, slots=True)
class TopicConfigurationStatus:
    status: Status
    detail: str


class _TopicConfigurationException(Exception):
    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class ConfiguredInternalTopic:
    name: str
    partitions: int
    replication_factor: int | None  # None = broker default (TopicInfo said 0)
    topic_configs: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class CreatableTopic:
    """A CreateTopics entry the coordinator hands back for creation."""

    name: str
    num_partitions: int
    replication_factor: int  # -1 = broker default
    configs: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ConfiguredSubtopology:
    num_tasks: int
    source_topics: frozenset[str]
    repartition_source_topics: Mapping[str, ConfiguredInternalTopic]
    repartition_sink_topics: frozenset[str]
    state_changelog_topics: Mapping[str, ConfiguredInternalTopic]

    @property
    def is_stateful(self) -> bool:
        return bool(self.state_changelog_topics)


@dataclass(frozen=True, slots=True)
class ConfiguredTopology:
    topology_epoch: int
    # Sorted by subtopology id (Kafka's TreeMap); None when configuration failed.
    subtopologies: Mapping[str, ConfiguredSubtopology] | None
    # In the iteration order of Kafka's HashMap.
    internal_topics_to_create: Mapping[str, CreatableTopic]
    status: TopicConfigurationStatus | None

    @property
    def is_ready(self) -> bool:
        return self.status is None


# --- request-level checks ------------------------------------------------------------------

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})
_LEGAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def is_internal_topic(name: str) -> bool:
    """``Topic.isInternal``: exactly three names, not every ``__`` prefix (``__cluster_metadata`` is not one)."""
    return name in INTERNAL_TOPICS


def is_valid_topic_name(name: str) -> bool:
    """``Topic.isValid``: 1..249 chars of ``[a-zA-Z0-9._-]``, not ``.`` or ``..``."""
    return 0 < len(name) <= 249 and name not in (".", "..") and set(name) <= _LEGAL


def throw_if_invalid_topology(topology: Topology) -> None:
    """``GroupCoordinatorService.throwIfInvalidTopology`` (epoch-0 heartbeats only)."""
    for s in topology.subtopologies:
        for t in s.state_changelog_topics:
            if t.partitions != 0:
                raise StreamsInvalidTopology(
                    f"Changelog topic {t.name} must have an undefined partition count, "
                    f"but it is set to {t.partitions}.")


def check_topology_topic_names(topology: Topology) -> None:
    """``KafkaApis.handleStreamsGroupHeartbeat`` (core/.../KafkaApis.scala), before the coordinator.

    Topics are sources ++ repartition sinks ++ repartition sources ++ changelogs per
    subtopology, de-duplicated in first-seen order; internal names are checked first.
    """
    required = list(dict.fromkeys(
        name
        for s in topology.subtopologies
        for name in (*s.source_topics, *s.repartition_sink_topics,
                     *(t.name for t in s.repartition_source_topics),
                     *(t.name for t in s.state_changelog_topics))
    ))
    prohibited = [t for t in required if is_internal_topic(t)]
    if prohibited:
        raise StreamsInvalidTopology(
            f"Use of Kafka internal topics {','.join(prohibited)} in a Kafka Streams topology is prohibited.")
    invalid = [t for t in required if not is_valid_topic_name(t)]
    if invalid:
        raise StreamsInvalidTopology(f"Topic names {','.join(invalid)} are not valid topic names.")


# --- configureTopics ---------------------------------------------------------------------------

def summarize_topics(topics: Iterable[str]) -> str:
    """``InternalTopicManager.summarizeTopics`` (4.2+)."""
    names = list(topics)
    if not names:
        return "<none>"
    text = ", ".join(names[:3])
    return text + (f" and {len(names) - 3} additional topics" if len(names) > 3 else "")


def _java_map_str(items: Iterable[tuple[str, int]]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in items) + "}"


class _Configurer:
    def __init__(self, topology: Topology, topics: Mapping[str, int]) -> None:
        self.topology = topology
        self.topics = topics
        self.decided: dict[str, int] = {}
        by_id: dict[str, Subtopology] = {}
        for s in topology.subtopologies:
            if s.subtopology_id in by_id:
                # Collectors.toMap in StreamsTopology.fromHeartbeatRequest/fromRecord.
                raise UnexpectedServerError(
                    "IllegalStateException",
                    f"Duplicate key {s.subtopology_id} (attempted merging values {by_id[s.subtopology_id]} and {s})")
            by_id[s.subtopology_id] = s
        # StreamsTopology.subtopologies is a HashMap: every walk over it is in hash order.
        self.subs = [by_id[i] for i in java_hashmap_order(by_id)]

    def count(self, topic: str) -> int | None:
        """``getPartitionCount``: broker metadata first, then decisions made so far."""
        if topic in self.topics:
            return self.topics[topic]
        return self.decided.get(topic)

    def copartition_groups(self) -> list[list[frozenset[str]]]:
        out = []
        for s in self.subs:
            groups = []
            for g in s.copartition_groups:
                names = []
                for i in g.source_topics:
                    names.append(_index(s.source_topics, i))
                for i in g.repartition_source_topics:
                    names.append(_index(s.repartition_source_topics, i).name)
                groups.append(frozenset(names))  # sourceTopicRegex indexes are ignored
            out.append(groups)
        return out

    def check_source_topics(self) -> None:
        missing = sorted({t for s in self.subs for t in s.source_topics if t not in self.topics},
                         key=java_str_key)
        if missing:
            raise _TopicConfigurationException(
                Status.MISSING_SOURCE_TOPICS, f"Source topics {summarize_topics(missing)} are missing.")

    def derive_repartition_counts(self) -> dict[str, int]:
        """``RepartitionTopics.setup``: fixed counts, then sinks take the max of their
        subtopology's (known) inputs, pass after pass, until nothing is left or no progress."""
        counts: dict[str, int] = {}
        for s in self.subs:
            for t in s.repartition_source_topics:
                if t.partitions != 0:
                    counts[t.name] = t.partitions
        while True:
            needed = progress = False
            for s in self.subs:
                for sink in s.repartition_sink_topics:
                    if sink in counts:
                        continue
                    n = self._sink_count(counts, s)
                    if n is None:
                        needed = True
                    else:
                        counts[sink] = n
                        progress = True
            if needed and not progress:
                raise StreamsInvalidTopology(
                    "Failed to compute number of partitions for all repartition topics. "
                    "There may be loops in the topology that cannot be resolved.")
            if not needed:
                break
        for s in self.subs:
            if any(t.name not in counts for t in s.repartition_source_topics):
                raise StreamsInvalidTopology(
                    "Failed to compute number of partitions for all repartition topics, because "
                    "a repartition source topic is never used as a sink topic.")
        return counts

    def _sink_count(self, counts: Mapping[str, int], s: Subtopology) -> int | None:
        best: int | None = None
        for t in s.repartition_source_topics:
            c = counts.get(t.name)
            if c is not None and (best is None or c > best):
                best = c
        for topic in s.source_topics:
            c = self.count(topic)
            if c is not None and (best is None or c > best):
                best = c
        return best

    def enforce_copartitioning(self, groups_by_sub: list[list[frozenset[str]]]) -> None:
        fixed = {t.name for s in self.subs for t in s.repartition_source_topics if t.partitions != 0}
        flexible = {t.name for s in self.subs for t in s.repartition_source_topics if t.partitions == 0}
        fixed_order = java_hashmap_order(
            t.name for s in self.subs for t in s.repartition_source_topics if t.partitions != 0)
        for groups in groups_by_sub:
            for group in groups:
                self.decided.update(self._enforce(group, fixed, flexible, fixed_order))

    def _enforce(self, group: frozenset[str], fixed: set[str], flexible: set[str],
                 fixed_order: list[str]) -> dict[str, int]:
        """``CopartitionedTopicsEnforcer.enforce``."""
        if not group:
            return {}
        members = java_hashmap_order(group)  # the group is a HashSet
        repart = {t: self._defined(t) for t in members if t in fixed or t in flexible}
        external = {t: self._defined(t) for t in members if t not in repart}
        if set(repart) == group:
            if fixed:
                # Quirk kept: the *global* set of fixed repartition topics is compared, not the group's.
                n = self._defined(fixed_order[0])
                if any(self._defined(t) != n for t in fixed_order):
                    raise _TopicConfigurationException(
                        Status.INCORRECTLY_PARTITIONED_TOPICS,
                        "Following topics do not have the same number of partitions: "
                        f"[{_java_map_str(sorted(repart.items(), key=lambda kv: java_str_key(kv[0])))}]")
            else:
                n = max([0, *repart.values()])
                if n == 0:
                    raise StreamsInvalidTopology(
                        "All topics in the copartition group had undefined partition number: "
                        f"[{', '.join(java_hashmap_order(repart))}]")
        else:
            n = next(iter(external.values()))
            if any(v != n for v in external.values()):
                raise _TopicConfigurationException(
                    Status.INCORRECTLY_PARTITIONED_TOPICS,
                    "Following topics do not have the same number of partitions: "
                    f"[{_java_map_str(sorted(external.items(), key=lambda kv: java_str_key(kv[0])))}]")
        out: dict[str, int] = {}
        for t in java_hashmap_order(repart):
            out[t] = n
            if t in fixed and repart[t] != n:
                raise _TopicConfigurationException(
                    Status.INCORRECTLY_PARTITIONED_TOPICS,
                    f"Number of partitions [{repart[t]}] of repartition topic [{t}] "
                    f"doesn't match number of partitions [{n}] of the source topic.")
        return out

    def _defined(self, topic: str) -> int:
        c = self.count(topic)
        if c is None:
            raise UnexpectedServerError("IllegalStateException",
                                        f"Number of partitions is not set for topic: {topic}")
        return c

    def _input_counts(self, s: Subtopology, missing: str) -> list[int]:
        """Partition counts of the subtopology's source and repartition-source topics; a topic
        without one is Kafka's IllegalStateException with ``missing`` + the topic name."""
        counts = []
        for topic in (*s.source_topics, *(t.name for t in s.repartition_source_topics)):
            c = self.count(topic)
            if c is None:
                raise UnexpectedServerError("IllegalStateException", f"{missing} {topic}")
            counts.append(c)
        return counts

    def changelog_counts(self) -> dict[str, int]:
        """``ChangelogTopics.setup``: each changelog gets its subtopology's max input count."""
        out: dict[str, int] = {}
        for s in self.subs:
            counts = self._input_counts(s, "No partition count for source topic")
            if not counts:
                raise StreamsInvalidTopology(f"No source topics found for subtopology {s.subtopology_id}")
            for t in s.state_changelog_topics:
                out[t.name] = max(counts)
        return out

    def configure_subtopology(self, s: Subtopology) -> ConfiguredSubtopology:
        """``fromPersistedSubtopology``, Java argument order (numTasks first, checked last)."""
        counts = self._input_counts(s, "Number of partitions must be set for topic")
        if not counts:
            raise UnexpectedServerError("IllegalStateException",
                                        "Subtopology does not contain any source topics")
        num_tasks = max(counts)
        repartition = self._internal_topics(s.repartition_source_topics)
        changelogs = self._internal_topics(s.state_changelog_topics)
        if num_tasks <= 0:
            raise UnexpectedServerError("IllegalArgumentException", "Number of tasks must be positive")
        return ConfiguredSubtopology(num_tasks, frozenset(s.source_topics), repartition,
                                     frozenset(s.repartition_sink_topics), changelogs)

    def _internal_topics(self, infos: Iterable[TopicInfo]) -> dict[str, ConfiguredInternalTopic]:
        out: dict[str, ConfiguredInternalTopic] = {}
        for info in infos:
            if info.partitions == 0 and info.name not in self.decided:
                raise UnexpectedServerError("IllegalStateException",
                                            f"Number of partitions must be set for topic {info.name}")
            partitions = self.decided[info.name] if info.partitions == 0 else info.partitions
            if partitions < 1:
                raise UnexpectedServerError("IllegalArgumentException",
                                            "Number of partitions must be at least 1.")
            configs: dict[str, str] = {}
            for c in info.topic_configs:
                if c.key in configs:
                    raise UnexpectedServerError(
                        "IllegalStateException",
                        f"Duplicate key {c.key} (attempted merging values {configs[c.key]} and {c.value})")
                configs[c.key] = c.value
            if info.name in out:
                raise UnexpectedServerError(
                    "IllegalStateException",
                    f"Duplicate key {info.name}")
            out[info.name] = ConfiguredInternalTopic(
                info.name, partitions, info.replication_factor or None,
                {k: configs[k] for k in java_hashmap_order(configs)})
        return out

    def missing_internal_topics(self, configured: Mapping[str, ConfiguredSubtopology]) -> dict[str, CreatableTopic]:
        to_create: dict[str, CreatableTopic] = {}
        for sub in configured.values():  # TreeMap order
            for group in (sub.repartition_source_topics, sub.state_changelog_topics):
                for name in java_hashmap_order(group):
                    to_create[name] = _creatable(group[name])
        order = java_hashmap_order(to_create)  # table size from the peak, before removals
        required = java_hashmap_order(
            name
            for s in self.subs
            for name in (*s.source_topics, *(t.name for t in s.repartition_source_topics),
                         *(t.name for t in s.state_changelog_topics)))
        for topic in required:
            if topic not in self.topics:
                continue
            expected = to_create.pop(topic, None)
            if expected is not None and self.topics[topic] != expected.num_partitions:
                raise _TopicConfigurationException(
                    Status.INCORRECTLY_PARTITIONED_TOPICS,
                    f"Existing topic {topic} has different number of partitions: "
                    f"expected {expected.num_partitions}, found {self.topics[topic]}")
        return {name: to_create[name] for name in order if name in to_create}


def _index(items: Sequence[T], i: int) -> T:
    """``List.get`` on a copartition index; Kafka does not validate these indexes."""
    if not 0 <= i < len(items):
        raise UnexpectedServerError("IndexOutOfBoundsException",
                                    f"Index {i} out of bounds for length {len(items)}")
    return items[i]


def _creatable(t: ConfiguredInternalTopic) -> CreatableTopic:
    """``toCreatableTopic``: replication factor 0/absent becomes -1 (broker default)."""
    rf = t.replication_factor if t.replication_factor else -1
    return CreatableTopic(t.name, t.partitions, rf, tuple(t.topic_configs.items()))


def configure_topology(topology: Topology, topics: Mapping[str, int]) -> ConfiguredTopology:
    """``InternalTopicManager.configureTopics`` against broker metadata ``topics`` (name -> partitions).

    Returns a not-ready ConfiguredTopology with a status for MISSING_SOURCE_TOPICS,
    INCORRECTLY_PARTITIONED_TOPICS and MISSING_INTERNAL_TOPICS; raises
    ``StreamsInvalidTopology`` (error 130) for underivable topologies and
    ``UnexpectedServerError`` (error -1) where Kafka throws a plain Java exception
    (copartition index out of range, duplicate ids/keys, negative epoch or counts).
    """
    if topology.epoch < 0:
        raise UnexpectedServerError("IllegalArgumentException", "Topology epoch must be non-negative.")
    c = _Configurer(topology, topics)
    groups = c.copartition_groups()  # computed before Kafka's try block
    try:
        c.check_source_topics()
        c.decided.update(c.derive_repartition_counts())
        c.enforce_copartitioning(groups)
        c.decided.update(c.changelog_counts())
        built = {s.subtopology_id: c.configure_subtopology(s) for s in c.subs}
        configured = {k: built[k] for k in sorted(built, key=java_str_key)}
        to_create = c.missing_internal_topics(configured)
    except _TopicConfigurationException as e:
        return ConfiguredTopology(topology.epoch, None, {}, TopicConfigurationStatus(e.status, e.message))
    status = None
    if to_create:
        status = TopicConfigurationStatus(
            Status.MISSING_INTERNAL_TOPICS, f"Internal topics are missing: {summarize_topics(to_create)}")
    return ConfiguredTopology(topology.epoch, configured, to_create, status)
