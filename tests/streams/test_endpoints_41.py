"""IQ endpoint information (``partitionsByUserEndpoint``, ``endpointInformationEpoch``) on 4.1,
whose rules differ from 4.2+ (``GroupMetadataManager.maybeBuildEndpointToPartitions`` and
``EndpointToPartitionsManager.topicPartitionListForTask`` of 4.1): a topic with at least as many
partitions as the member has tasks lists every task id, even past the topic's partition count; the
list is null when no member (as the call found them) has an endpoint; the epoch is bumped by any
change of tasks but a join given none, endpoint or not, and always sent."""

from __future__ import annotations

from typing import Any

from tests.streams.helpers import coordinator, hb, join, owned, sub, topology

# One subtopology reading foo (6 partitions) and bar (3): six tasks.
TWO_SOURCES = topology(sub("sub1", ["foo", "bar"]))


def _endpoint(host: str, active: dict[str, list[int]]) -> dict[str, Any]:
    return {"userEndpoint": {"host": host, "port": 8080},
            "activePartitions": [{"topic": t, "partitions": p} for t, p in active.items()], "standbyPartitions": []}


def _run(profile: str) -> list[tuple[int, Any]]:
    """(endpointInformationEpoch, partitionsByUserEndpoint) of each response of a two-member run."""
    c = coordinator(profile)
    out = []
    r1 = join(c, 0, "m1", "p1", topo=TWO_SOURCES, userEndpoint={"host": "h1", "port": 8080}).response
    assert r1 is not None
    out.append((r1["endpointInformationEpoch"], r1["partitionsByUserEndpoint"]))
    r2 = join(c, 1000, "m2", "p2", topo=TWO_SOURCES, userEndpoint={"host": "h2", "port": 8080},
              endpointInformationEpoch=0).response
    assert r2 is not None
    out.append((r2["endpointInformationEpoch"], r2["partitionsByUserEndpoint"]))
    # m1 revokes tasks 3-5, then confirms; m2 then gets them.
    r3 = hb(c, 1100, "m1", r1["memberEpoch"], endpointInformationEpoch=0, **owned(r1)).response
    assert r3 is not None
    out.append((r3["endpointInformationEpoch"], r3["partitionsByUserEndpoint"]))
    r4 = hb(c, 1200, "m1", r3["memberEpoch"], endpointInformationEpoch=r3["endpointInformationEpoch"],
            **owned(r3, r1)).response
    assert r4 is not None
    r5 = hb(c, 1300, "m2", r2["memberEpoch"], endpointInformationEpoch=0, **owned(r2)).response
    assert r5 is not None
    out.append((r5["endpointInformationEpoch"], r5["partitionsByUserEndpoint"]))
    return out


def test_endpoint_to_partitions_with_two_topics_and_different_partitions_41() -> None:
    """EndpointToPartitionsManagerTest.testEndpointToPartitionsWithTwoTopicsAndDifferentPartitions
    (4.1), through the heartbeat: tasks 3-5 of m2 list bar's nonexistent partitions 3-5."""
    first, second, revoking, granted = _run("kafka-4.1")
    # The joining member is no member yet: nothing listed (null); the transient group's epoch is 1.
    assert first == (1, None)
    # A join given no task does not bump; 0 == 0: nothing sent.
    assert second == (0, None)
    # m1 drops 3-5: bump; both stored members listed in the order Kafka iterates the group's
    # members (a TimelineHashMap: m2, m1; StreamsGroup.member_order), m2 with no task.
    assert revoking == (1, [_endpoint("h2", {}), _endpoint("h1", {"bar": [0, 1, 2], "foo": [0, 1, 2]})])
    # bar has 3 partitions and m2 3 tasks: every task id, 3-5 included.
    assert granted == (2, [_endpoint("h2", {"bar": [3, 4, 5], "foo": [3, 4, 5]}),
                           _endpoint("h1", {"bar": [0, 1, 2], "foo": [0, 1, 2]})])


def test_endpoint_to_partitions_filters_partitions_past_the_topic_42() -> None:
    """4.2+: only task ids below the topic's partition count, topics with none
    left out; the updated member is listed last; a joining member's endpoint bumps the epoch."""
    first, second, revoking, granted = _run("kafka-4.2")
    assert first == (0, [_endpoint("h1", {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]})])
    assert second == (1, [_endpoint("h1", {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]}), _endpoint("h2", {})])
    assert revoking == (2, [_endpoint("h2", {}), _endpoint("h1", {"bar": [0, 1, 2], "foo": [0, 1, 2]})])
    assert granted == (3, [_endpoint("h1", {"bar": [0, 1, 2], "foo": [0, 1, 2]}), _endpoint("h2", {"foo": [3, 4, 5]})])
