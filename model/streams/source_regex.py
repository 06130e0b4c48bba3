"""kip: source topics given by regular expressions (seed 002; Kafka refuses them with INVALID_REQUEST).

The seed: "the source topics can be defined through a Google RE2/J regular expression", and the
topology configuration must "resolve source topic regular expressions and check that each of them
resolve to at least one topic"; else MISSING_SOURCE_TOPICS, whose detail names "all missing source
topics and all regular expressions matching zero topics".

kgspec's reading (docs/kip.md, 002 "Initializing and updating topology metadata"): a regex matches a
topic name in full (RE2J ``matches()``, ``model/topic_regex.py``); Kafka's internal topics and the
topology's own internal topics never match; the matches join the subtopology's source topics (in
name order), and a copartition group's regex indexes stand for all topics their regexes match. The
group keeps the topology as sent (record 23); the resolution is redone whenever it is configured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from kgspec.model.streams.configure import (
    ConfiguredTopology,
    Status,
    TopicConfigurationStatus,
    configure_topology,
    is_internal_topic,
)
from kgspec.model.streams.topology import CopartitionGroup, Subtopology, Topology
from kgspec.model.topic_regex import InvalidTopicRegex, compile_topic_regex


def has_regexes(topology: Topology) -> bool:
    return any(s.source_topic_regex for s in topology.subtopologies)


def invalid_regex(topology: Topology) -> str | None:
    """The first source regex RE2J refuses, with RE2J's description; None when all compile."""
    for s in topology.subtopologies:
        for pattern in s.source_topic_regex:
            try:
                compile_topic_regex(pattern)
            except InvalidTopicRegex as exc:
                return f"{pattern!r} ({exc.description})"
    return None


def resolve(topology: Topology, topics: Iterable[str]) -> tuple[Topology, list[str]]:
    """(the topology with each regex replaced by the topics it matches, the regexes matching none)."""
    if not has_regexes(topology):
        return topology, []
    own = topology.required_topics() | {t for s in topology.subtopologies for t in s.repartition_sink_topics}
    candidates = sorted(t for t in topics if not is_internal_topic(t) and t not in own)
    unmatched: list[str] = []
    subs: list[Subtopology] = []
    for s in topology.subtopologies:
        sources = list(s.source_topics)
        index_of_regex: list[tuple[int, ...]] = []
        for pattern in s.source_topic_regex:
            matched = sorted(compile_topic_regex(pattern).matching(candidates))
            if not matched:
                unmatched.append(pattern)
            indexes = []
            for t in matched:
                if t not in sources:
                    sources.append(t)
                indexes.append(sources.index(t))
            index_of_regex.append(tuple(indexes))
        groups = tuple(CopartitionGroup(g.source_topics + tuple(i for r in g.source_topic_regex
                                                               for i in index_of_regex[r]),
                                        (), g.repartition_source_topics)
                       for g in s.copartition_groups)
        subs.append(replace(s, source_topics=tuple(sources), source_topic_regex=(), copartition_groups=groups))
    return Topology(topology.epoch, tuple(subs)), unmatched


def configure(resolved: Topology, unmatched: list[str], topics: Mapping[str, int]) -> ConfiguredTopology:
    """``configure_topology`` of a resolved topology; a regex matching nothing is a missing source
    (the first status by precedence), and the detail names every missing topic and regex."""
    if not unmatched:
        return configure_topology(resolved, topics)
    missing = sorted({t for s in resolved.subtopologies for t in s.source_topics if t not in topics})
    detail = (f"Source topics {', '.join(missing)} are missing. " if missing else "") + \
        f"Source topic regular expressions {', '.join(unmatched)} match no topic."
    return ConfiguredTopology(resolved.epoch, None, {},
                              TopicConfigurationStatus(Status.MISSING_SOURCE_TOPICS, detail))
