"""`kgspec check` throughput per format, one core.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_check.py --benchmark-only
The project's goal is at least 10^5 events/s on one core. Inputs:

- native: a generated steady-state trace, 10^6 heartbeats after 100 groups of 10 joined;
- request-log: the same run as Kafka's request log (``conformance/writers``), topics as
  CreateTopics calls, lines in completion order;
- dump-log: the records of a churning run (members joining, reconciling, leaving) as
  ``kafka-dump-log --offsets-decoder`` output, replayed and checked against the invariants.

``extra_info`` holds events, events/s and the CPU time of the run (the machine is shared).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.recorder import TraceRecorder, owned
from kgspec.conformance.steady import write_steady_trace
from kgspec.conformance.writers import write_dump_log, write_request_log

HEARTBEATS = 1_000_000
CHURN_ROUNDS = 60  # 66,000 records


@pytest.fixture(scope="module")
def steady_trace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("bench") / "steady.jsonl"
    lines = write_steady_trace(path, HEARTBEATS)
    return path, lines


def _events(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


@pytest.fixture(scope="module")
def request_log(steady_trace: tuple[Path, int]) -> Path:
    path = steady_trace[0].with_name("kafka-request.log")
    with path.open("w", encoding="utf-8") as out:
        write_request_log(_events(steady_trace[0]), out)
    return path


@pytest.fixture(scope="module")
def dump_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Records of 50 groups of 6 whose members leave and rejoin, round after round."""
    recorder = TraceRecorder("kafka-4.3", {"group.consumer.assignment.interval.ms": 0}, records=True)
    groups, members, ts = 50, 6, 10
    for g in range(groups):
        recorder.topic(0, f"t{g}", 24)
    epochs: dict[tuple[str, str], int] = {}
    given: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for round_no in range(CHURN_ROUNDS):
        for g in range(groups):
            gid = f"group-{g}"
            leaver = (gid, f"g{g}-m{round_no % members}")
            if leaver in epochs:
                recorder.heartbeat(ts, leaver[1], -1, group=gid)
                del epochs[leaver]
                ts += 1
            for m in range(members):
                key = (gid, f"g{g}-m{m}")
                if key not in epochs:
                    resp = recorder.join(ts, key[1], [f"t{g}"], group=gid)
                else:
                    resp = recorder.heartbeat(ts, key[1], epochs[key], group=gid, topicPartitions=given[key])
                epochs[key] = resp["memberEpoch"]
                if resp["assignment"] is not None:
                    given[key] = owned(resp)
                ts += 1
    path = tmp_path_factory.mktemp("bench-dump") / "offsets.dump.txt"
    with path.open("w", encoding="utf-8") as out:
        write_dump_log(recorder.events, out)
    return path


def _bench(benchmark: Any, path: Path, **options: Any) -> Report:
    cpu: list[float] = []

    def run() -> Report:
        start = time.process_time()
        report = Report()
        check_items(str(path), open_trace(path), report, **options)
        cpu.append(time.process_time() - start)
        return report

    report: Report = benchmark.pedantic(run, rounds=1, iterations=1)
    events = report.inputs[0].events
    benchmark.extra_info["events"] = events
    benchmark.extra_info["events_per_second"] = round(events / benchmark.stats.stats.mean)
    benchmark.extra_info["events_per_cpu_second"] = round(events / cpu[0])
    return report


def test_check_steady_state_throughput(benchmark: Any, steady_trace: tuple[Path, int]) -> None:
    path, lines = steady_trace
    report = _bench(benchmark, path)
    assert report.findings == []
    assert report.inputs[0].lines == lines


def test_check_request_log_throughput(benchmark: Any, request_log: Path, steady_trace: tuple[Path, int]) -> None:
    # a request log has no header: the run's configs are given as `kgspec check --config` would
    report = _bench(benchmark, request_log, configs={"group.consumer.assignment.interval.ms": 0})
    assert report.findings == []
    assert report.inputs[0].events == steady_trace[1] - 1  # every call and topic; the header has no log form


def test_check_dump_log_throughput(benchmark: Any, dump_log: Path) -> None:
    report = _bench(benchmark, dump_log)
    assert report.findings == []
    assert report.inputs[0].events > 60_000
