"""Helpers for the streams group tests: a coordinator, topologies and heartbeats."""

from __future__ import annotations

from typing import Any

from kgspec.model.coordinator import Coordinator
from kgspec.model.step import Decision

FOO = "AAAAAAAAAAAAAAAAAAAAAA"
BAR = "BBBBBBBBBBBBBBBBBBBBBB"


def topic(name: str, partitions: int = 0, **extra: Any) -> dict[str, Any]:
    return {"name": name, "partitions": partitions, "replicationFactor": 0, "topicConfigs": [], **extra}


def sub(sid: str, sources: list[str], changelogs: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"subtopologyId": sid, "sourceTopics": list(sources), "sourceTopicRegex": [],
                            "stateChangelogTopics": [topic(c) for c in changelogs], "repartitionSinkTopics": [],
                            "repartitionSourceTopics": [], "copartitionGroups": []}
    base.update(extra)
    return base


def topology(*subs: dict[str, Any], epoch: int = 0) -> dict[str, Any]:
    return {"epoch": epoch, "subtopologies": list(subs)}


# S8: sub1 on foo (6 partitions), sub2 on bar (3).
S8_TOPOLOGY = topology(sub("sub1", ["foo"]), sub("sub2", ["bar"]))
STATEFUL = topology(sub("0", ["foo"], ("app-store-changelog",)))


def coordinator(profile: str = "kafka-4.3", delay: int = 0, **configs: Any) -> Coordinator:
    c = Coordinator(profile, {"group.streams.initial.rebalance.delay.ms": delay, **configs})
    c.update_topic("foo", FOO, 6)
    c.update_topic("bar", BAR, 3)
    return c


def request(member: str, epoch: int, group: str = "g", **fields: Any) -> dict[str, Any]:
    req: dict[str, Any] = {"groupId": group, "memberId": member, "memberEpoch": epoch, "endpointInformationEpoch": 0,
                           "instanceId": None, "rackId": None, "rebalanceTimeoutMs": -1, "topology": None,
                           "activeTasks": None, "standbyTasks": None, "warmupTasks": None, "processId": None,
                           "userEndpoint": None, "clientTags": None, "taskOffsets": None, "taskEndOffsets": None,
                           "shutdownApplication": False}
    req.update(fields)
    return req


def hb(c: Coordinator, now: int, member: str, epoch: int, **fields: Any) -> Decision:
    c.advance(now)
    return c.handle(88, 0, request(member, epoch, **fields), now=now, client_id=member)


def join(c: Coordinator, now: int, member: str, process: str, topo: dict[str, Any] | None = None,
         **fields: Any) -> Decision:
    base: dict[str, Any] = {"rebalanceTimeoutMs": 30000, "topology": topo or S8_TOPOLOGY, "processId": process,
                            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}
    base.update(fields)
    return hb(c, now, member, 0, **base)


def tasks(response: dict[str, Any], name: str = "activeTasks") -> dict[str, list[int]] | None:
    value = response.get(name)
    if value is None:
        return None
    return {e["subtopologyId"]: sorted(e["partitions"]) for e in value}


def owned(response: dict[str, Any], previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a client reports owning after applying the response (null fields = unchanged)."""
    out: dict[str, Any] = {}
    for name in ("activeTasks", "standbyTasks", "warmupTasks"):
        value = response.get(name)
        out[name] = value if value is not None else (previous or {}).get(name, [])
    return out


def codes(response: dict[str, Any]) -> list[int]:
    return [s["statusCode"] for s in response.get("status") or []]


def record_types(result: Decision) -> list[int]:
    return [r.type for r in result.records]
