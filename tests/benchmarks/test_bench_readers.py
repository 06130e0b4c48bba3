"""Reader throughput on generated 200k-line files (run with ``--benchmark-enable``).

The lines/s figure of each reader is in the benchmark's ``extra_info``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.readers import open_trace

LINES = 200_000
B = 1748779200000
M1 = "XoMVSOsQTvau-Xv4y2-vZg"
FOO = "JUxmFSdeRnSLhXMi3QDX9g"


def _native_line(i: int) -> str:
    if i % 4 == 3:
        return json.dumps({"tsMs": B + i, "record": {"key": {"type": 8, "data": {"groupId": f"g{i % 50}", "memberId": M1}},
                                                     "value": {"version": 0, "data": {"memberEpoch": i, "previousMemberEpoch": i - 1, "state": 0,
                                                                                      "assignedPartitions": [{"topicId": FOO, "partitions": [0, 1, 2]}],
                                                                                      "partitionsPendingRevocation": []}}}})
    return json.dumps({"tsMs": B + i, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "clientId": "c1", "correlationId": i},
                       "request": {"groupId": f"g{i % 50}", "memberId": M1, "memberEpoch": i, "topicPartitions": [{"topicId": FOO, "partitions": [0, 1, 2]}]},
                       "response": {"errorCode": 0, "memberId": M1, "memberEpoch": i, "heartbeatIntervalMs": 5000, "assignment": None}})


def _request_log_line(i: int) -> str:
    total = 3000.0 if i % 100 == 0 else 1.5  # some parked calls: completion order != arrival order
    ms = i * 5 + 3000
    stamp = f"2025-06-01 {12 + ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"
    body = {"isForwarded": False,
            "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "correlationId": i, "clientId": "c1",
                              "requestApiKeyName": "CONSUMER_GROUP_HEARTBEAT"},
            "request": {"groupId": f"g{i % 50}", "memberId": M1, "memberEpoch": i, "instanceId": None, "rackId": None,
                        "rebalanceTimeoutMs": -1, "subscribedTopicNames": None, "subscribedTopicRegex": None,
                        "serverAssignor": None, "topicPartitions": None},
            "response": {"throttleTimeMs": 0, "errorCode": 0, "errorMessage": None, "memberId": M1, "memberEpoch": i,
                         "heartbeatIntervalMs": 5000, "assignment": None},
            "connection": "127.0.0.1:9092-127.0.0.1:55442-0", "totalTimeMs": total, "requestQueueTimeMs": 0.1,
            "localTimeMs": 0.4, "remoteTimeMs": 0.8, "throttleTimeMs": 0, "responseQueueTimeMs": 0.1, "sendTimeMs": 0.1,
            "securityProtocol": "PLAINTEXT", "principal": "User:ANONYMOUS", "listener": "PLAINTEXT",
            "clientInformation": {"softwareName": "apache-kafka-java", "softwareVersion": "4.1.0"}}
    return f"[{stamp}] DEBUG Completed request:{json.dumps(body, separators=(',', ':'))} (kafka.request.logger)"


def _dump_log_line(i: int) -> str:
    if i % 10 == 0:
        return (f"baseOffset: {i} lastOffset: {i + 8} count: 9 baseSequence: 0 lastSequence: 8 producerId: -1 producerEpoch: -1 "
                f"partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty "
                f"position: {i * 100} CreateTime: {B + i} size: 900 magic: 2 compresscodec: none crc: 1 isvalid: true")
    key = json.dumps({"type": "8", "data": {"groupId": f"g{i % 50}", "memberId": M1}}, separators=(",", ":"))
    value = json.dumps({"version": "0", "data": {"memberEpoch": i, "previousMemberEpoch": i - 1, "state": 0,
                                                 "assignedPartitions": [{"topicId": FOO, "partitions": [0, 1, 2]}],
                                                 "partitionsPendingRevocation": []}}, separators=(",", ":"))
    return (f"| offset: {i} CreateTime: {B + i} keySize: 50 valueSize: 80 sequence: {i % 10} headerKeys: [] "
            f"key: {key} payload: {value}")


GENERATORS: dict[str, tuple[Callable[[int], str], str]] = {
    "native": (_native_line, "trace.jsonl"),
    "request-log": (_request_log_line, "kafka-request.log"),
    "dump-log": (_dump_log_line, "offsets.dump.txt"),
}


@pytest.mark.parametrize("fmt", list(GENERATORS))
def test_reader_throughput(fmt: str, benchmark: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    make_line, name = GENERATORS[fmt]
    path: Path = tmp_path_factory.mktemp(fmt) / name
    with path.open("w") as handle:
        for i in range(LINES):
            handle.write(make_line(i) + "\n")

    def read_all() -> int:
        return sum(1 for _ in open_trace(path, format=fmt))

    count = benchmark.pedantic(read_all, rounds=3, iterations=1)
    assert count == LINES
    benchmark.extra_info["lines"] = LINES
    benchmark.extra_info["lines_per_s"] = round(LINES / benchmark.stats.stats.mean)
    benchmark.extra_info["bytes"] = path.stat().st_size
