"""``kgspec conform`` throughput at local[1] and local[2] on a 10^6-event steady trace
(one-core ``kgspec check`` per format: ``test_bench_check.py``).

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_conform.py -m "spark and slow" --benchmark-only
The figures are in each benchmark's ``extra_info`` (events_per_second); the project's goal
is local[2] >= 1.8x local[1]. Each Spark run starts its own JVM session (the start-up is
included: it is what a user waits for).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.steady import write_steady_trace

HEARTBEATS = 1_000_000
pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture(scope="module")
def steady(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("bench-conform") / "steady.jsonl"
    lines = write_steady_trace(path, HEARTBEATS)
    return path, lines


@pytest.mark.parametrize("cores", [1, 2])
def test_conform_throughput(cores: int, benchmark: Any, steady: tuple[Path, int]) -> None:
    if shutil.which("java") is None:
        pytest.skip("no java on PATH")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from kgspec.conformance.spark import ConformOptions, run_conform
    from pyspark.sql import SparkSession

    path, lines = steady

    def run() -> Any:
        spark = (SparkSession.builder.master(f"local[{cores}]").config("spark.ui.enabled", "false")
                 .config("spark.driver.memory", "3g").config("spark.sql.shuffle.partitions", str(4 * cores))
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        try:
            return run_conform(spark, ConformOptions([str(path)]))
        finally:
            spark.stop()

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    assert result.report.findings == []
    assert result.report.inputs[0].lines == lines
    benchmark.extra_info["events"] = lines
    benchmark.extra_info["events_per_second"] = round(lines / benchmark.stats.stats.mean)
