"""Record a contract trace by driving the model: golden traces, examples, benchmarks.

Every call is answered by the model itself, so a recorded trace conforms by
construction; tests then mutate copies to check that ``kgspec check`` rejects them at
the right line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.hashing import deterministic_topic_id
from kgspec.model.step import NO_CHOICES, Choices

from kgspec.sim.trace import header_event, write_trace

from .writers.request_log import API_KEY_NAMES


class TraceRecorder:
    def __init__(self, profile: str = "kafka-4.3", configs: dict[str, Any] | None = None, *,
                 records: bool = False, member_ids: list[str] | None = None) -> None:
        ids = list(member_ids or [])
        self.coord = Coordinator(profile, configs, member_ids=ids.__getitem__)
        self.events: list[dict[str, Any]] = [header_event(profile, configs or {})]
        self.with_records = records
        self._correlation = 0
        # The legal freedoms of the next call only (a scenario playing the coordinator's choice).
        self.next_choices = NO_CHOICES

    def _time(self, ts: int) -> None:
        for firing in self.coord.advance(ts):
            self._records(firing.timer.deadline_ms, firing.records)

    def _records(self, ts: int, records: list[Any]) -> None:
        if self.with_records:
            for r in records:
                self.events.append({"tsMs": ts, "record": r.to_json()})

    def topic(self, ts: int, name: str, partitions: int, topic_id: str | None = None) -> str:
        self._time(ts)
        tid = topic_id or deterministic_topic_id(name)
        self.coord.update_topic(name, tid, partitions)
        self.events.append({"tsMs": ts, "topic": {"name": name, "topicId": tid, "partitions": partitions}})
        return tid

    def delete_topic(self, ts: int, name: str) -> None:
        self._time(ts)
        self.coord.delete_topic(name)
        self.events.append({"tsMs": ts, "topic": {"name": name, "deleted": True}})

    def tick(self, ts: int) -> None:
        self._time(ts)
        self.events.append({"tsMs": ts, "tick": {}})

    def failover(self, ts: int) -> None:
        """A coordinator failover (``coordinatorFailover`` tick): the model reloads from its
        records, and its timers (the offsets' cleanup among them) start from ``ts``."""
        self._time(ts)
        self.coord.failover(ts)
        self.events.append({"tsMs": ts, "tick": {"coordinatorFailover": True}})

    def call(self, ts: int, client_id: str, request: dict[str, Any], *, api_key: int = CONSUMER_GROUP_HEARTBEAT,
             version: int = 1, choices: Choices = NO_CHOICES) -> dict[str, Any]:
        """One call; ``choices`` (or ``next_choices``, set before a helper makes the call) records
        another legal answer (e.g. an alternative task target)."""
        self._time(ts)
        pending, self.next_choices = self.next_choices, NO_CHOICES
        if choices is NO_CHOICES:
            choices = pending
        result = self.coord.handle(api_key, version, request, now=ts, client_id=client_id, choices=choices)
        assert result.response is not None
        self._correlation += 1
        self.events.append({
            "tsMs": ts,
            "requestHeader": {"requestApiKey": api_key, "requestApiVersion": version, "clientId": client_id,
                              "correlationId": self._correlation, "requestApiKeyName": API_KEY_NAMES[api_key]},
            "request": request,
            "response": result.response,
        })
        self._records(ts, result.records)
        return result.response

    def heartbeat(self, ts: int, member: str, epoch: int, group: str = "g", **fields: Any) -> dict[str, Any]:
        request: dict[str, Any] = {"groupId": group, "memberId": member, "memberEpoch": epoch,
                                   "instanceId": None, "rackId": None, "rebalanceTimeoutMs": -1,
                                   "subscribedTopicNames": None, "subscribedTopicRegex": None,
                                   "serverAssignor": None, "topicPartitions": None}
        request.update(fields)
        return self.call(ts, fields.pop("client_id", member), request)

    def join(self, ts: int, member: str, topics: list[str], group: str = "g", **fields: Any) -> dict[str, Any]:
        base = {"rebalanceTimeoutMs": 300000, "subscribedTopicNames": topics, "topicPartitions": []}
        base.update(fields)
        return self.heartbeat(ts, member, 0, group, **base)

    def streams_heartbeat(self, ts: int, member: str, epoch: int, group: str = "g", **fields: Any) -> dict[str, Any]:
        """A StreamsGroupHeartbeat (API 88, v0) with every field at its default unless given."""
        request: dict[str, Any] = {"groupId": group, "memberId": member, "memberEpoch": epoch,
                                   "endpointInformationEpoch": 0, "instanceId": None, "rackId": None,
                                   "rebalanceTimeoutMs": -1, "topology": None, "activeTasks": None,
                                   "standbyTasks": None, "warmupTasks": None, "processId": None,
                                   "userEndpoint": None, "clientTags": None, "taskOffsets": None,
                                   "taskEndOffsets": None, "shutdownApplication": False}
        client_id = fields.pop("client_id", member)
        choices = fields.pop("choices", NO_CHOICES)
        request.update(fields)
        return self.call(ts, client_id, request, api_key=88, version=0, choices=choices)

    def streams_join(self, ts: int, member: str, topology: dict[str, Any], process_id: str, group: str = "g",
                     **fields: Any) -> dict[str, Any]:
        base: dict[str, Any] = {"rebalanceTimeoutMs": 300000, "topology": topology, "processId": process_id,
                                "activeTasks": [], "standbyTasks": [], "warmupTasks": []}
        base.update(fields)
        return self.streams_heartbeat(ts, member, 0, group, **base)

    def write(self, path: str | Path) -> Path:
        """The events as JSON Lines (gzip when the name ends in .gz)."""
        write_trace(self.events, path)
        return Path(path)

    def lines(self) -> list[str]:
        return [json.dumps(e, separators=(",", ":")) for e in self.events]


def owned(response: dict[str, Any]) -> list[dict[str, Any]]:
    """What a well-behaved client reports owning after applying ``response['assignment']``."""
    assignment = response.get("assignment") or {"topicPartitions": []}
    return [dict(tp) for tp in assignment["topicPartitions"]]
