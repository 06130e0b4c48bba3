"""InternalTopicManager.configureTopics and the request-level topology checks (Kafka 4.3)."""

from __future__ import annotations

import pytest
from kgspec.model.errors import Errors
from kgspec.model.streams import (
    CopartitionGroup,
    CreatableTopic,
    Status,
    StreamsInvalidTopology,
    Subtopology,
    TopicConfig,
    TopicConfigurationStatus,
    TopicInfo,
    Topology,
    UnexpectedServerError,
    check_topology_topic_names,
    configure_topology,
    throw_if_invalid_topology,
)
from kgspec.model.streams.configure import summarize_topics

S1, S2 = "source_topic1", "source_topic2"
REP = "repartition_topic"
CL1, CL2 = "state_changelog_topic1", "state_changelog_topic2"


def kafka_test_topology() -> Topology:
    """InternalTopicManagerTest.makeTestTopology."""
    return Topology(3, (
        Subtopology("subtopology1", (S1,), (),
                    (TopicInfo(CL1, topic_configs=(TopicConfig("cleanup.policy", "compact"),)),),
                    (REP,)),
        Subtopology("subtopology2", (S2,), (), (TopicInfo(CL2),), (), (TopicInfo(REP, 0, 3),),
                    (CopartitionGroup((0,), (), (0,)),)),
    ))


def sub(sid: str, sources: tuple[str, ...] = (), sinks: tuple[str, ...] = (),
        rsources: tuple[TopicInfo, ...] = (), changelogs: tuple[str, ...] = (),
        groups: tuple[CopartitionGroup, ...] = ()) -> Subtopology:
    return Subtopology(sid, sources, (), tuple(TopicInfo(c) for c in changelogs), sinks, rsources, groups)


def test_kafka_configure_topics_golden() -> None:
    ct = configure_topology(kafka_test_topology(), {S1: 2, S2: 2, CL2: 2})
    assert not ct.is_ready
    assert ct.status == TopicConfigurationStatus(
        Status.MISSING_INTERNAL_TOPICS,
        "Internal topics are missing: state_changelog_topic1, repartition_topic")
    assert ct.internal_topics_to_create == {
        CL1: CreatableTopic(CL1, 2, -1, (("cleanup.policy", "compact"),)),
        REP: CreatableTopic(REP, 2, 3, ()),
    }
    assert ct.subtopologies is not None
    assert list(ct.subtopologies) == ["subtopology1", "subtopology2"]
    s1, s2 = ct.subtopologies["subtopology1"], ct.subtopologies["subtopology2"]
    assert (s1.num_tasks, s1.source_topics, s1.repartition_sink_topics) == (2, {S1}, {REP})
    assert s1.state_changelog_topics[CL1].partitions == 2
    assert s1.state_changelog_topics[CL1].topic_configs == {"cleanup.policy": "compact"}
    assert s2.num_tasks == 2
    assert s2.repartition_source_topics[REP].replication_factor == 3
    assert s2.state_changelog_topics[CL2].replication_factor is None
    assert s1.is_stateful
    assert s2.is_stateful


def test_ready_when_every_internal_topic_exists() -> None:
    ct = configure_topology(kafka_test_topology(), {S1: 2, S2: 2, CL1: 2, CL2: 2, REP: 2})
    assert ct.is_ready
    assert ct.status is None
    assert ct.internal_topics_to_create == {}


def test_missing_source_topics_sorted_and_summarized() -> None:
    ct = configure_topology(kafka_test_topology(), {S1: 2})
    assert ct.status == TopicConfigurationStatus(Status.MISSING_SOURCE_TOPICS,
                                                 "Source topics source_topic2 are missing.")
    assert ct.subtopologies is None
    assert ct.internal_topics_to_create == {}
    many = Topology(0, (sub("0", ("e", "d", "c", "b", "a")),))
    assert configure_topology(many, {}).status == TopicConfigurationStatus(
        Status.MISSING_SOURCE_TOPICS, "Source topics a, b, c and 2 additional topics are missing.")


def test_existing_internal_topic_with_wrong_partition_count() -> None:
    ct = configure_topology(kafka_test_topology(), {S1: 2, S2: 2, CL2: 5})
    assert ct.status == TopicConfigurationStatus(
        Status.INCORRECTLY_PARTITIONED_TOPICS,
        "Existing topic state_changelog_topic2 has different number of partitions: expected 2, found 5")
    assert ct.subtopologies is None


def test_repartition_counts_derive_along_a_chain() -> None:
    # a(4) -> r1 -> [r1 + b(6)] -> r2 -> [r2]: r1 = 4, r2 = max(4, 6) = 6.
    topology = Topology(0, (
        sub("0", ("a",), ("r1",)),
        sub("1", ("b",), ("r2",), (TopicInfo("r1"),), ("s1-changelog",)),
        sub("2", (), (), (TopicInfo("r2"),), ("s2-changelog",)),
    ))
    ct = configure_topology(topology, {"a": 4, "b": 6})
    assert ct.subtopologies is not None
    assert {k: v.num_tasks for k, v in ct.subtopologies.items()} == {"0": 4, "1": 6, "2": 6}
    assert {k: v.num_partitions for k, v in ct.internal_topics_to_create.items()} == {
        "r1": 4, "r2": 6, "s1-changelog": 6, "s2-changelog": 6}
    assert ct.status is not None
    assert ct.status.status is Status.MISSING_INTERNAL_TOPICS
    # Kafka's HashMap order of the names, first three shown (4.2+ summarizeTopics).
    assert ct.status.detail == "Internal topics are missing: r2, s2-changelog, r1 and 1 additional topics"
    assert list(ct.internal_topics_to_create) == ["r2", "s2-changelog", "r1", "s1-changelog"]
    assert [s.is_stateful for s in ct.subtopologies.values()] == [False, True, True]


def test_fixed_repartition_count_wins() -> None:
    topology = Topology(0, (sub("0", ("a",), ("r",)), sub("1", (), (), (TopicInfo("r", 8),))))
    ct = configure_topology(topology, {"a": 2})
    assert ct.subtopologies is not None
    assert ct.subtopologies["1"].num_tasks == 8
    assert ct.internal_topics_to_create == {"r": CreatableTopic("r", 8, -1, ())}


def test_flexible_repartition_topic_follows_copartitioned_source() -> None:
    topology = Topology(0, (
        sub("0", ("a",), ("r",)),
        sub("1", ("b",), (), (TopicInfo("r"),), groups=(CopartitionGroup((0,), (), (0,)),)),
    ))
    ct = configure_topology(topology, {"a": 2, "b": 5})
    assert ct.subtopologies is not None
    assert ct.subtopologies["1"].num_tasks == 5
    assert ct.internal_topics_to_create["r"].num_partitions == 5


@pytest.mark.parametrize(("topics", "groups", "detail"), [
    ({"a": 2, "b": 3}, (CopartitionGroup((0, 1)),),
     "Following topics do not have the same number of partitions: [{a=2, b=3}]"),
])
def test_copartitioned_sources_must_match(topics: dict[str, int], groups: tuple[CopartitionGroup, ...],
                                          detail: str) -> None:
    ct = configure_topology(Topology(0, (sub("0", ("a", "b"), groups=groups),)), topics)
    assert ct.status == TopicConfigurationStatus(Status.INCORRECTLY_PARTITIONED_TOPICS, detail)


def test_fixed_repartition_topic_must_match_copartitioned_source() -> None:
    topology = Topology(0, (
        sub("0", ("a",), ("r",)),
        sub("1", ("b",), (), (TopicInfo("r", 3),), groups=(CopartitionGroup((0,), (), (0,)),)),
    ))
    assert configure_topology(topology, {"a": 2, "b": 5}).status == TopicConfigurationStatus(
        Status.INCORRECTLY_PARTITIONED_TOPICS,
        "Number of partitions [3] of repartition topic [r] doesn't match number of partitions [5] "
        "of the source topic.")


def test_fixed_repartition_topics_in_one_group_must_agree() -> None:
    topology = Topology(0, (
        sub("0", ("a",), ("r1", "r2")),
        sub("1", (), (), (TopicInfo("r1", 2), TopicInfo("r2", 3)),
            groups=(CopartitionGroup((), (), (0, 1)),)),
    ))
    assert configure_topology(topology, {"a": 1}).status == TopicConfigurationStatus(
        Status.INCORRECTLY_PARTITIONED_TOPICS,
        "Following topics do not have the same number of partitions: [{r1=2, r2=3}]")


def test_flexible_repartition_only_group_takes_the_max() -> None:
    topology = Topology(0, (
        sub("0", ("a",), ("r1",)),
        sub("1", ("b",), ("r2",)),
        sub("2", (), (), (TopicInfo("r1"), TopicInfo("r2")), groups=(CopartitionGroup((), (), (0, 1)),)),
    ))
    ct = configure_topology(topology, {"a": 2, "b": 7})
    assert ct.subtopologies is not None
    assert ct.subtopologies["2"].num_tasks == 7
    assert ct.internal_topics_to_create["r1"].num_partitions == 7


@pytest.mark.parametrize(("topology", "message"), [
    (Topology(0, (sub("0", ("a",)), sub("1", (), (), (TopicInfo("r"),)))),
     "Failed to compute number of partitions for all repartition topics, because a repartition "
     "source topic is never used as a sink topic."),
    (Topology(0, (sub("0", (), ("r1",), (TopicInfo("r2"),)), sub("1", (), ("r2",), (TopicInfo("r1"),)))),
     "Failed to compute number of partitions for all repartition topics. There may be loops in "
     "the topology that cannot be resolved."),
    (Topology(0, (sub("0", ("a",)), sub("1", changelogs=("c",)))),
     "No source topics found for subtopology 1"),
    (Topology(0, (sub("0", (), ("r",)),)),  # no inputs but a sink: the derivation cannot progress
     "Failed to compute number of partitions for all repartition topics. There may be loops in "
     "the topology that cannot be resolved."),
])
def test_streams_invalid_topology(topology: Topology, message: str) -> None:
    with pytest.raises(StreamsInvalidTopology) as e:
        configure_topology(topology, {"a": 1})
    assert e.value.error is Errors.STREAMS_INVALID_TOPOLOGY
    assert e.value.message == message


def test_unknown_copartition_index_is_an_unexpected_error_in_kafka() -> None:
    # Kafka does not validate copartition indexes: List.get throws IndexOutOfBoundsException
    # before configureTopics' try block, so the heartbeat fails with UNKNOWN_SERVER_ERROR.
    topology = Topology(0, (sub("0", ("a",), groups=(CopartitionGroup((0, 2)),)),))
    with pytest.raises(UnexpectedServerError) as e:
        configure_topology(topology, {"a": 1})
    assert e.value.error is Errors.UNKNOWN_SERVER_ERROR
    assert (e.value.java_exception, e.value.detail) == (
        "IndexOutOfBoundsException", "Index 2 out of bounds for length 1")
    with pytest.raises(UnexpectedServerError):  # checked even when source topics are missing
        configure_topology(topology, {})


def test_negative_epoch_and_duplicate_subtopology_ids() -> None:
    with pytest.raises(UnexpectedServerError) as e:
        configure_topology(Topology(-1, (sub("0", ("a",)),)), {"a": 1})
    assert e.value.java_exception == "IllegalArgumentException"
    with pytest.raises(UnexpectedServerError) as e:
        configure_topology(Topology(0, (sub("0", ("a",)), sub("0", ("a",)))), {"a": 1})
    assert e.value.java_exception == "IllegalStateException"


def test_throw_if_invalid_topology_rejects_fixed_changelog_counts() -> None:
    ok = Topology(0, (Subtopology("0", ("a",), (), (TopicInfo("c", 0),)),))
    throw_if_invalid_topology(ok)
    bad = Topology(0, (Subtopology("0", ("a",), (), (TopicInfo("c", 4),)),))
    with pytest.raises(StreamsInvalidTopology) as e:
        throw_if_invalid_topology(bad)
    assert e.value.message == "Changelog topic c must have an undefined partition count, but it is set to 4."


def test_kafka_apis_topic_name_checks() -> None:
    check_topology_topic_names(Topology(0, (sub("0", ("__not_internal",)),)))
    internal = Topology(0, (sub("0", ("__consumer_offsets", "a"), ("__transaction_state",)),))
    with pytest.raises(StreamsInvalidTopology) as e:
        check_topology_topic_names(internal)
    assert e.value.message == ("Use of Kafka internal topics __consumer_offsets,__transaction_state "
                               "in a Kafka Streams topology is prohibited.")
    invalid = Topology(0, (sub("0", ("a b", ".."), changelogs=("x" * 250,)),))
    with pytest.raises(StreamsInvalidTopology) as e:
        check_topology_topic_names(invalid)
    assert e.value.message == f"Topic names a b,..,{'x' * 250} are not valid topic names."


def test_summarize_topics() -> None:
    assert summarize_topics([]) == "<none>"
    assert summarize_topics(["a", "b", "c"]) == "a, b, c"
    assert summarize_topics(["a", "b", "c", "d"]) == "a, b, c and 1 additional topics"
