"""StreamsGroupDescribe's topology, release by release (``StreamsGroup.asDescribedGroup``): 4.1
describes the configured topology (none until a heartbeat of the persisted group configured it;
no subtopologies while not ready), 4.2+ the configured topology when ready, else the topology
record; topic infos sorted by name (``Comparator.comparing(TopicInfo::name)``)."""

from __future__ import annotations

from typing import Any

from kgspec.model.coordinator import Coordinator

from tests.streams.helpers import coordinator, hb, join, sub, topology

MISSING_SOURCE = topology(sub("sub1", ["nope"]))
SUB1 = {"subtopologyId": "sub1", "sourceTopics": ["nope"], "repartitionSinkTopics": [], "stateChangelogTopics": [],
        "repartitionSourceTopics": []}


def _described(c: Coordinator, now: int) -> Any:
    response = c.handle(89, 0, {"groupIds": ["g"], "includeAuthorizedOperations": False}, now=now).response
    assert response is not None
    return response["groups"][0]["topology"]


def _topologies(profile: str) -> list[Any]:
    c = coordinator(profile)
    r = join(c, 0, "m1", "p1", topo=MISSING_SOURCE).response
    assert r is not None
    out = [_described(c, 10)]
    hb(c, 20, "m1", r["memberEpoch"], activeTasks=[], standbyTasks=[], warmupTasks=[])
    out.append(_described(c, 30))
    c.update_topic("nope", "CCCCCCCCCCCCCCCCCCCCCC", 2)
    hb(c, 40, "m1", r["memberEpoch"], activeTasks=[], standbyTasks=[], warmupTasks=[])
    out.append(_described(c, 50))
    return out


def test_described_topology_on_41() -> None:
    # the join configured a transient group: the persisted one has no configured topology yet
    assert _topologies("kafka-4.1") == [None, {"epoch": 0, "subtopologies": []}, {"epoch": 0, "subtopologies": [SUB1]}]


def test_described_topology_on_42() -> None:
    assert _topologies("kafka-4.2") == [{"epoch": 0, "subtopologies": [SUB1]}] * 3


def test_described_topic_infos_are_sorted_by_name() -> None:
    c = coordinator()
    changelogs = topology(sub("sub1", ["foo"], ("z-changelog", "a-changelog")))
    join(c, 0, "m1", "p1", topo=changelogs)
    described = _described(c, 10)
    assert [t["name"] for t in described["subtopologies"][0]["stateChangelogTopics"]] == ["a-changelog", "z-changelog"]
