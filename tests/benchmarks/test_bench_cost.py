"""Cost that scales with real workloads (issue #19): CPU per event of `kgspec check`, one core.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_cost.py --benchmark-only
(``-m slow`` adds the 5,000-member group and the 1,000-group churn). Inputs
(``tests/benchmarks/workloads.py``, ``kgspec simulate``):

- group size: one consumer group of 200, 2,000 (and 5,000) members joining, heartbeating, a
  tenth leaving and rejoining; goal: CPU per event at 2,000 (and 5,000) members at most twice
  that at 200 (it was 4.5x at 2,000 when every join walked every member);
- churn: ``kgspec simulate --groups N --members 5`` (joins, leaves, crashes, topic growth);
  goal 40,000 events per CPU second (not met: see docs/status.md);
- classic churn: ``classic_churn`` (workloads.py; ``kgspec simulate`` has no classic clients)
  with 200 (and 1,000) groups of 5, checked natively and as a request log; goal 80,000.
- streams churn: the same with ``--protocol streams`` (stream threads joining, leaving,
  crashing, whole processes dying, source topics growing); goal 30,000 events per CPU second.

Each figure is measured in the run itself (``time.process_time`` around the check), so ratios
compare runs made under the same load. ``extra_info`` holds the figures.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace

from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.trace import write_trace
from tests.benchmarks.workloads import as_request_log, big_group, classic_churn


def _cpu_per_event(path: Path, rounds: int = 2) -> tuple[float, Report]:
    """The best of ``rounds`` checks of ``path``: CPU seconds per event, and the report."""
    best: float | None = None
    report = Report()
    for _ in range(rounds):
        del report
        gc.collect()  # the last run's model is not walked by this run's collections
        report = Report()
        start = time.process_time()
        check_items(str(path), open_trace(path), report)
        cpu = time.process_time() - start
        best = cpu if best is None else min(best, cpu)
    assert best is not None
    return best / report.inputs[0].events, report


@pytest.mark.parametrize("sizes", [(200, 2000), pytest.param((200, 2000, 5000), marks=pytest.mark.slow)])
def test_cost_per_event_flat_in_group_size(benchmark: Any, sizes: tuple[int, ...], tmp_path: Path) -> None:
    paths = {n: tmp_path / f"group{n}.jsonl" for n in sizes}
    for n, path in paths.items():
        big_group(path, n)
    per_event: dict[int, float] = {}

    def run() -> None:
        for n, path in paths.items():
            cost, report = _cpu_per_event(path)
            assert report.findings == []
            per_event[n] = cost
            del report

    benchmark.pedantic(run, rounds=1, iterations=1)
    base = per_event[sizes[0]]
    for n in sizes:
        benchmark.extra_info[f"ms_per_event_{n}"] = round(1000 * per_event[n], 4)
        benchmark.extra_info[f"ratio_{n}_to_{sizes[0]}"] = round(per_event[n] / base, 2)
    for n in sizes[1:]:
        assert per_event[n] <= 2 * base, (n, per_event)


def _events_per_cpu_second(benchmark: Any, path: Path, goal: int) -> float:
    """One checked run of ``path`` (no finding allowed), its events per CPU second in ``extra_info``."""
    rates: list[float] = []

    def run() -> None:
        cost, report = _cpu_per_event(path, rounds=1)
        assert report.findings == []
        rates.append(1 / cost)

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["events_per_cpu_second"] = round(rates[0])
    benchmark.extra_info["goal"] = goal
    return rates[0]


@pytest.mark.parametrize("groups", [200, pytest.param(1000, marks=pytest.mark.slow)])
def test_churn_events_per_cpu_second(benchmark: Any, groups: int, tmp_path: Path) -> None:
    sim = run_scenario(Scenario(groups=groups, members=5, duration_ms=120000, seed=0))
    path = tmp_path / "churn.jsonl"
    write_trace(sim.events, path)
    # a floor against regressions (10,600 on the loaded machine before #19)
    assert _events_per_cpu_second(benchmark, path, goal=40_000) > 5_000


@pytest.mark.parametrize("fmt", ["native", "request-log"])
@pytest.mark.parametrize("groups", [200, pytest.param(1000, marks=pytest.mark.slow)])
def test_classic_churn_events_per_cpu_second(benchmark: Any, groups: int, fmt: str, tmp_path: Path) -> None:
    """Classic groups of 5 (joins, syncs, heartbeats, leaves, crashes, rebalances): goal 80,000
    events per CPU second, native and request log."""
    path = tmp_path / "classic.jsonl"
    classic_churn(path, groups)
    if fmt == "request-log":
        path = as_request_log(path, tmp_path / "classic.log")
    # a floor against regressions (~30,000 native, ~24,000 request log before the fast path)
    assert _events_per_cpu_second(benchmark, path, goal=80_000) > 10_000


@pytest.mark.parametrize("groups", [200, pytest.param(1000, marks=pytest.mark.slow)])
def test_streams_churn_events_per_cpu_second(benchmark: Any, groups: int, tmp_path: Path) -> None:
    sim = run_scenario(Scenario(groups=groups, members=5, duration_ms=120000, seed=1, protocol="streams"))
    path = tmp_path / "streams-churn.jsonl"
    write_trace(sim.events, path)
    # a floor against regressions (5,000-5,500 on the loaded machine when added)
    assert _events_per_cpu_second(benchmark, path, goal=30_000) > 2_500
