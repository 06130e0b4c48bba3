"""The broker's own APIs over in-memory logs: Metadata, FindCoordinator, CreateTopics, Produce,
Fetch and ListOffsets (the coordinator's are the model's, in :mod:`.broker`).

One broker (node 0) that leads every partition; topic ids are ``deterministic_topic_id`` (as
``kgspec simulate`` draws them); a topic is created through ``create`` so the coordinator's
metadata image and the trace learn of it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from kgspec.model.hashing import deterministic_topic_id

from .logs import BatchError, PartitionLog

PRODUCE: Final = 0
FETCH: Final = 1
LIST_OFFSETS: Final = 2
METADATA: Final = 3
FIND_COORDINATOR: Final = 10
API_VERSIONS: Final = 18
CREATE_TOPICS: Final = 19

# The broker's own APIs and the versions served: those whose messages name topics (Fetch v13+
# and Produce v13+ name topic ids only) and that kio has schemas for.
DATA_VERSIONS: Final = {API_VERSIONS: (0, 4), METADATA: (1, 12), FIND_COORDINATOR: (0, 6), CREATE_TOPICS: (2, 7),
                        PRODUCE: (3, 11), FETCH: (4, 12), LIST_OFFSETS: (1, 7)}
NODE_ID: Final = 0
CLUSTER_ID: Final = "kgspec-serve"
OFFSET_OUT_OF_RANGE: Final = 1
CORRUPT_MESSAGE: Final = 2
UNKNOWN_TOPIC_OR_PARTITION: Final = 3
TOPIC_ALREADY_EXISTS: Final = 36
INVALID_PARTITIONS: Final = 37


class DataPlane:
    def __init__(self, configs: dict[str, Any], create: Callable[[str, int], str]) -> None:
        self.configs = configs  # the broker configs (num.partitions, auto.create.topics.enable)
        self.create = create  # creates a topic everywhere (logs, coordinator image, trace); its id
        self.logs: dict[str, list[PartitionLog]] = {}
        self.address = ("127.0.0.1", 9092)

    def add_topic(self, name: str, partitions: int) -> int:
        """The topic's logs, grown to ``partitions``; its partition count."""
        logs = self.logs.setdefault(name, [])
        logs.extend(PartitionLog() for _ in range(partitions - len(logs)))
        return len(logs)

    def metadata(self, version: int, body: dict[str, Any]) -> dict[str, Any]:
        requested = body.get("topics")
        names: list[str | None]
        if requested is None or (version == 0 and not requested):
            names = [*sorted(self.logs)]
        else:
            by_id = {deterministic_topic_id(n): n for n in self.logs}
            names = [t.get("name") or by_id.get(t.get("topicId") or "") for t in requested]
        auto = bool(body.get("allowAutoTopicCreation", True)) and bool(self.configs.get(
            "auto.create.topics.enable", True))
        topics = []
        for name in names:
            if name is not None and name not in self.logs and auto:
                self.create(name, int(self.configs.get("num.partitions", 1)))
            topics.append(self._topic_metadata(name))
        host, port = self.address
        return {"brokers": [{"nodeId": NODE_ID, "host": host, "port": port, "rack": None}],
                "clusterId": CLUSTER_ID, "controllerId": NODE_ID, "topics": topics}

    def _topic_metadata(self, name: str | None) -> dict[str, Any]:
        logs = self.logs.get(name or "")
        if logs is None:
            return {"errorCode": UNKNOWN_TOPIC_OR_PARTITION, "name": name, "partitions": []}
        return {"errorCode": 0, "name": name, "topicId": deterministic_topic_id(name or ""), "isInternal": False,
                "partitions": [{"errorCode": 0, "partitionIndex": i, "leaderId": NODE_ID, "leaderEpoch": 0,
                                "replicaNodes": [NODE_ID], "isrNodes": [NODE_ID], "offlineReplicas": []}
                               for i in range(len(logs))],
                "topicAuthorizedOperations": -2147483648}

    def find_coordinator(self, body: dict[str, Any]) -> dict[str, Any]:
        host, port = self.address
        keys = body.get("coordinatorKeys")
        if keys:  # v4+: several keys, each answered
            return {"coordinators": [{"key": k, "nodeId": NODE_ID, "host": host, "port": port, "errorCode": 0}
                                     for k in keys]}
        return {"errorCode": 0, "nodeId": NODE_ID, "host": host, "port": port}

    def create_topics(self, body: dict[str, Any]) -> dict[str, Any]:
        results = []
        for t in body.get("topics") or []:
            name, count = t["name"], int(t.get("numPartitions", -1))
            if count == -1:
                count = int(self.configs.get("num.partitions", 1))
            if name in self.logs:
                results.append({"name": name, "errorCode": TOPIC_ALREADY_EXISTS,
                                "errorMessage": f"Topic '{name}' already exists."})
            elif count < 1:
                results.append({"name": name, "errorCode": INVALID_PARTITIONS})
            else:
                topic_id = self.create(name, count) if not body.get("validateOnly") else None
                results.append({"name": name, "topicId": topic_id, "errorCode": 0, "numPartitions": count,
                                "replicationFactor": 1})
        return {"topics": results}

    def produce(self, body: Any) -> tuple[dict[str, Any], bool]:
        """The Produce response for a kio request entity, and whether any partition failed."""
        responses: list[dict[str, Any]] = []
        for topic in body.topic_data:
            logs = self.logs.get(topic.name)
            parts: list[dict[str, Any]] = []
            for p in topic.partition_data:
                index = int(p.index)
                if logs is None or not 0 <= index < len(logs):
                    parts.append({"index": index, "errorCode": UNKNOWN_TOPIC_OR_PARTITION, "baseOffset": -1})
                    continue
                try:
                    base = logs[index].append(bytes(p.records or b""))
                except BatchError as exc:
                    parts.append({"index": index, "errorCode": CORRUPT_MESSAGE, "baseOffset": -1,
                                  "errorMessage": str(exc)})
                    continue
                parts.append({"index": index, "errorCode": 0, "baseOffset": base, "logAppendTime": -1,
                              "logStartOffset": 0})
            responses.append({"name": topic.name, "partitionResponses": parts})
        failed = any(p["errorCode"] for t in responses for p in t["partitionResponses"])
        return {"responses": responses}, failed

    def fetch(self, body: dict[str, Any], *, final: bool) -> dict[str, Any] | None:
        """A Fetch response; None when it should wait for data (``final``: answer anyway)."""
        responses = []
        size = 0
        budget = int(body.get("maxBytes") or 0x7FFFFFFF)
        for topic in body.get("topics") or []:
            logs = self.logs.get(topic["topic"])
            parts: list[dict[str, Any]] = []
            for p in topic["partitions"]:
                index, offset = int(p["partition"]), int(p["fetchOffset"])
                if logs is None or not 0 <= index < len(logs):
                    parts.append({"partitionIndex": index, "errorCode": UNKNOWN_TOPIC_OR_PARTITION,
                                  "highWatermark": -1, "lastStableOffset": -1})
                    continue
                log = logs[index]
                if not 0 <= offset <= log.end_offset:
                    parts.append({"partitionIndex": index, "errorCode": OFFSET_OUT_OF_RANGE,
                                  "highWatermark": log.end_offset, "lastStableOffset": log.end_offset})
                    continue
                data = log.read(offset, min(int(p.get("partitionMaxBytes") or budget), max(budget - size, 1)))
                size += len(data)
                parts.append({"partitionIndex": index, "errorCode": 0, "highWatermark": log.end_offset,
                              "lastStableOffset": log.end_offset, "logStartOffset": 0,
                              "abortedTransactions": [], "preferredReadReplica": -1, "records": data})
            responses.append({"topic": topic["topic"], "partitions": parts})
        if not final and size < max(int(body.get("minBytes") or 0), 1) and int(body.get("maxWaitMs") or 0) > 0:
            return None
        return {"errorCode": 0, "sessionId": 0, "responses": responses}

    def list_offsets(self, body: dict[str, Any]) -> dict[str, Any]:
        topics = []
        for topic in body.get("topics") or []:
            logs = self.logs.get(topic["name"])
            parts = []
            for p in topic["partitions"]:
                index = int(p["partitionIndex"])
                if logs is None or not 0 <= index < len(logs):
                    parts.append({"partitionIndex": index, "errorCode": UNKNOWN_TOPIC_OR_PARTITION,
                                  "timestamp": -1, "offset": -1})
                    continue
                parts.append({"partitionIndex": index, "errorCode": 0, "timestamp": -1,
                              "offset": logs[index].offset_for_time(int(p["timestamp"])), "leaderEpoch": 0})
            topics.append({"name": topic["name"], "partitions": parts})
        return {"topics": topics}
