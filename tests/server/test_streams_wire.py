"""Streams groups (KIP-1071) over the wire: no Python client speaks StreamsGroupHeartbeat yet, so
two well-behaved members are driven by hand through the server's codec (as Kafka Streams would
send them), and the served trace is checked with ``--clients``."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kio")

import kgspec

from .helpers import check, findings_text
from .test_cli import call

STREAMS_GROUP_HEARTBEAT = 88
STREAMS_GROUP_DESCRIBE = 89
TOPOLOGY = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["t"], "sourceTopicRegex": [], "stateChangelogTopics": [],
     "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}


class Member:
    """Reports exactly the tasks it was last given (``null`` fields: unchanged)."""

    def __init__(self, address: tuple[str, int], member_id: str, process_id: str) -> None:
        self.sock = socket.create_connection(address)
        self.member_id = member_id
        self.process_id = process_id
        self.epoch = 0
        self.active: list[dict[str, Any]] = []
        self.correlation = 0

    def heartbeat(self, **fields: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"groupId": "app", "memberId": self.member_id, "memberEpoch": self.epoch,
                                "endpointInformationEpoch": 0, "rebalanceTimeoutMs": -1, "activeTasks": None,
                                "standbyTasks": None, "warmupTasks": None, "processId": None, "topology": None,
                                "userEndpoint": None, "clientTags": None, "taskOffsets": None,
                                "taskEndOffsets": None}
        if self.epoch == 0:
            body.update(rebalanceTimeoutMs=10000, topology=TOPOLOGY, processId=self.process_id,
                        activeTasks=[], standbyTasks=[], warmupTasks=[])
        else:
            body.update(activeTasks=self.active, standbyTasks=[], warmupTasks=[])
        body.update(fields)
        self.correlation += 1
        response = call(self.sock, STREAMS_GROUP_HEARTBEAT, 0, body, self.correlation)
        assert response["errorCode"] == 0, response
        self.epoch = response["memberEpoch"]
        if response.get("activeTasks") is not None:
            self.active = response["activeTasks"]
        return response

    def partitions(self) -> set[int]:
        return {p for t in self.active for p in t["partitions"]}


def test_two_streams_members_share_the_tasks_and_one_takes_over(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    configs = {"group.streams.initial.rebalance.delay.ms": 0, "group.streams.heartbeat.interval.ms": 300,
               "group.streams.min.heartbeat.interval.ms": 300,
               "group.streams.assignment.interval.ms": 0}
    with kgspec.serve(topics={"t": 4}, configs=configs, clients=True, trace_out=trace) as broker:
        address = (broker.host, broker.port)
        a, b = Member(address, "a", "p1"), Member(address, "b", "p2")
        first = a.heartbeat()
        assert first["heartbeatIntervalMs"] == 300
        for _ in range(6):  # a few rounds: a revokes what b gets, b receives it
            b.heartbeat()
            a.heartbeat()
        assert a.partitions() | b.partitions() == {0, 1, 2, 3}
        assert not a.partitions() & b.partitions()
        assert len(a.partitions()) == len(b.partitions()) == 2
        described = call(a.sock, STREAMS_GROUP_DESCRIBE, 0, {"groupIds": ["app"]}, 99)["groups"][0]
        assert (described["errorCode"], described["groupState"]) == (0, "Stable")
        assert sorted(m["memberId"] for m in described["members"]) == ["a", "b"]
        left = b.heartbeat(memberEpoch=-1)
        assert left["memberEpoch"] == -1
        for _ in range(2):
            a.heartbeat()
        assert a.partitions() == {0, 1, 2, 3}
        a.sock.close()
        b.sock.close()
        assert broker.findings == []
    report = check(trace)
    assert report.findings == [], findings_text(report)
    assert [g.type for g in report.groups] == ["streams"]
