"""Kafka's ServerSideAssignorBenchmark and TargetAssignmentBuilderBenchmark points (the
``jmh-small`` grid of ``kgspec.bench``) for the model's assignors.

Run with ``pytest tests/benchmarks --benchmark-only``. The inputs are built by
``kgspec.bench.scenarios`` exactly as ``kgspec bench`` builds them (1000 members, 10,000
partitions over 100 topics; HETEROGENEOUS in 5 buckets; INCREMENTAL = M-1 members fed back plus
``newMember``). ``extra_info`` carries Kafka's Java median and the ratio to it.
"""

from __future__ import annotations

import time

import pytest
from kgspec.model.assignors import get_assignor
from kgspec.model.assignors.guarantees import validate_assignment
from pytest_benchmark.fixture import BenchmarkFixture

from kgspec.bench.grid import JAVA_MS, Point, grids
from kgspec.bench.scenarios import timed_call

CASES = [
    pytest.param(point, assignor, id=f"{assignor}-{point.label.replace(' ', '-')}")
    for point in grids()["jmh-small"] if point.kind != "streams"
    for assignor in ("uniform", "range")
]


@pytest.mark.parametrize(("point", "assignor"), CASES)
def test_server_side_assignor(benchmark: BenchmarkFixture, point: Point, assignor: str) -> None:
    call, data = timed_call(point, get_assignor(assignor))
    benchmark.group = f"assignor-{point.kind}-{'hetero' if point.heterogeneous else 'homo'}"
    benchmark._timer = time.process_time  # type: ignore[attr-defined]  # CPU time: other jobs on the shared machine do not count
    result = benchmark(call)
    java = JAVA_MS.get((point, assignor))
    if java is not None and benchmark.stats is not None:
        benchmark.extra_info["java_ms"] = java
        benchmark.extra_info["ratio_to_java"] = round(benchmark.stats.stats.median * 1000 / java, 2)
    if point.kind == "consumer":
        assert validate_assignment(data.spec, data.topics, result) == []
