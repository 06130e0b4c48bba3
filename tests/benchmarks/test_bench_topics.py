"""`kgspec check` cost with many groups and topics: set-up per group, topic events, peak memory.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_topics.py --benchmark-only
(``-m slow`` adds 10^4 groups x 10^4 topics). Inputs:

- set-up: N topics, then N one-member groups (group i on topic i), topic changes and ticks
  (``tests/test_topic_scale.py``); the CPU time per group must stay flat as N grows, since a
  new group no longer replays the topics seen before it;
- churn: ``kgspec simulate``'s churn profile (members joining, leaving, crashing; topics
  growing; failover every minute) over many groups, whose topic events each concern one group.

``extra_info`` holds the CPU seconds, per group for the set-up, and the peak traced memory.
"""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace

from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.trace import write_trace
from tests.test_topic_scale import scale_trace


def _bench(benchmark: Any, path: Path, memory: bool = False) -> tuple[Report, float]:
    cpu: list[float] = []

    def run() -> Report:
        if memory:
            tracemalloc.start()
        start = time.process_time()
        report = Report()
        try:
            check_items(str(path), open_trace(path), report)
        finally:
            cpu.append(time.process_time() - start)
            if memory:
                benchmark.extra_info["peak_traced_mb"] = round(tracemalloc.get_traced_memory()[1] / 1e6, 1)
                tracemalloc.stop()
        return report

    report: Report = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["cpu_s"] = round(cpu[0], 3)
    return report, cpu[0]


@pytest.mark.parametrize("groups", [100, 1000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_check_setup_per_group(benchmark: Any, groups: int, tmp_path: Path) -> None:
    path = scale_trace(tmp_path / "setup.jsonl", groups, groups)
    report, cpu = _bench(benchmark, path)
    assert report.findings == []
    benchmark.extra_info["cpu_ms_per_group"] = round(1000 * cpu / groups, 3)
    assert cpu / groups < 0.005  # flat: ~0.4 ms per group at any N (it grew with N before)


@pytest.mark.slow
def test_check_peak_memory_10k_groups_10k_topics(benchmark: Any, tmp_path: Path) -> None:
    path = scale_trace(tmp_path / "setup.jsonl", 10_000, 10_000)
    report, _ = _bench(benchmark, path, memory=True)
    assert report.findings == []
    assert benchmark.extra_info["peak_traced_mb"] < 800


@pytest.mark.parametrize("groups", [200, pytest.param(1000, marks=pytest.mark.slow)])
def test_check_churn_with_topic_events(benchmark: Any, groups: int, tmp_path: Path) -> None:
    sim = run_scenario(Scenario(groups=groups, members=3, duration_ms=120000, seed=3, failover_every_ms=60000))
    path = tmp_path / "churn.jsonl"
    write_trace(sim.events, path)
    benchmark.extra_info["topic_events"] = sum(1 for e in sim.events if "topic" in e)
    report, _ = _bench(benchmark, path)
    assert report.findings == []
