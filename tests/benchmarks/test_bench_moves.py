"""The cost of adopting coordinator moves' load times (``conformance/load_time.py``) in broker logs.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_moves.py --benchmark-only
Inputs: simulated runs written as the request log of three brokers (``write_request_log`` with
``brokers``), checked with each move replayed at its first call on the new broker (as before,
``load.enabled = False``) and with its load time adopted from the answers:

- ``moves-150``: 150 groups, a move every 30 s (450 moves; each group's state is kept at each
  move and its events recorded, no search needed: every answer agrees with the first estimate);
- ``half-hour``: 10 groups, 30 minutes, a move every 10 minutes (20 moves, searches in the groups
  whose timers show the load time).

``extra_info`` holds the CPU seconds of both checks (best of ``ROUNDS`` rounds of both), their
ratio, and the searches and replays made. The machine is shared: the ratio, not the
seconds, is asserted.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import ReadItem
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.writers import write_request_log

from kgspec.cli import main

BROKERS = ("10.0.0.1:9092", "10.0.0.2:9092", "10.0.0.3:9092")
ROUNDS = 5
RUNS = {
    "moves-150": ["--groups", "150", "--failover-every", "30000", "--seed", "1"],
    "half-hour": ["--groups", "10", "--duration-ms", "1800000", "--failover-every", "600000", "--loss", "0.01",
                  "--seed", "1"],
}


def _check(path: str, items: list[ReadItem], adopt: bool) -> tuple[float, Report, TraceChecker]:
    report = Report()
    checker = TraceChecker(path, report)
    checker.moves.load.enabled = adopt
    start = time.process_time()
    checker.feed_all(items)
    checker.finish()
    return time.process_time() - start, report, checker


@pytest.mark.parametrize("run", sorted(RUNS))
def test_adopting_load_times(benchmark: Any, run: str, tmp_path: Path) -> None:
    native = tmp_path / "run.jsonl"
    assert main(["simulate", *RUNS[run], "-o", str(native)]) == 0
    log = tmp_path / "cluster.log"
    with log.open("w", encoding="utf-8") as out:
        write_request_log((json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()), out,
                          brokers=BROKERS)
    items = list(open_trace(str(log), "auto"))  # read once: the reader's cost is not the inference's
    first_answer: list[float] = []
    adopted: list[float] = []
    last: list[tuple[Report, TraceChecker]] = []

    def pair() -> None:  # both checks in each round: the machine's load drifts between rounds
        first_answer.append(_check(str(log), items, False)[0])
        cpu, report, checker = _check(str(log), items, True)
        adopted.append(cpu)
        last[:] = [(report, checker)]

    benchmark.pedantic(pair, rounds=ROUNDS, iterations=1)
    report, checker = last[0]
    assert report.findings == []
    fixed, cpu = min(first_answer), min(adopted)
    benchmark.extra_info.update({
        "events": len(items), "moves": sum(n["kind"] == "coordinator-move" for n in report.inferred),
        "cpu_s_first_answer": round(fixed, 3), "cpu_s_adopted": round(cpu, 3),
        "ratio": round(cpu / fixed, 3), "searches": checker.moves.load.searches,
        "replays": checker.moves.load.replays})
    assert cpu / fixed < 1.75  # a copy of the group per move, its events recorded
