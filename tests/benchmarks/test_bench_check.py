"""`kgspec check` throughput on a generated steady-state trace of 10^6 heartbeats.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_check.py --benchmark-only
The project's goal is at least 10^5 events/s on one core.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.steady import write_steady_trace

HEARTBEATS = 1_000_000


@pytest.fixture(scope="module")
def steady_trace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("bench") / "steady.jsonl"
    lines = write_steady_trace(path, HEARTBEATS)
    return path, lines


def test_check_steady_state_throughput(benchmark: pytest.FixtureRequest, steady_trace: tuple[Path, int]) -> None:
    path, lines = steady_trace

    def run() -> Report:
        report = Report()
        check_items(str(path), open_trace(path), report)
        return report

    report = benchmark.pedantic(run, rounds=1, iterations=1)  # type: ignore[attr-defined]
    assert report.findings == []
    assert report.inputs[0].lines == lines
    seconds = benchmark.stats.stats.mean  # type: ignore[attr-defined]
    benchmark.extra_info["events_per_second"] = round(lines / seconds)  # type: ignore[attr-defined]
