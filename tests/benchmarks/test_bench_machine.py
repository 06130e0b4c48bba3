"""The machine's two-CPU ceiling on its own (``machine.py``), without Spark: a minute and a half.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_machine.py -m slow --benchmark-only
``extra_info``: each round's seconds alone and two at once, their ratios and the median.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.steady import write_steady_trace

from tests.benchmarks.machine import two_cpu_ceiling

pytestmark = pytest.mark.slow


def test_two_cpu_ceiling(benchmark: Any, tmp_path: Path) -> None:
    trace = tmp_path / "steady.jsonl"
    lines = write_steady_trace(trace, 150_000)
    ceiling = benchmark.pedantic(two_cpu_ceiling, args=(trace, 20), rounds=1, iterations=1)
    if ceiling is None:
        pytest.skip("cannot pin processes to two CPUs here")
    assert len(ceiling.ratios) == 20
    benchmark.extra_info["events"] = lines
    benchmark.extra_info.update(ceiling.as_info())
