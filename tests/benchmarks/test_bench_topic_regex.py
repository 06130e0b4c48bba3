"""Topic-regex resolution: a pattern that backtracking engines take exponential time on.

Run with ``pytest tests/benchmarks --benchmark-only``. ``(a+)+$`` against names of 40 ``a`` and a
final ``b`` took Python's ``re`` 34 s at 28 characters; RE2 (model/topic_regex.py) is linear in
the name, so resolving 1000 such names stays in the milliseconds.
"""

from __future__ import annotations

from kgspec.model.topic_regex import compile_topic_regex
from pytest_benchmark.fixture import BenchmarkFixture

NAMES = ["a" * 39 + "b"] * 999 + ["a" * 40]


def test_resolve_catastrophic_pattern(benchmark: BenchmarkFixture) -> None:
    regex = compile_topic_regex(r"(a+)+$")
    topics = benchmark(regex.matching, NAMES)
    assert topics == {"a" * 40}
    assert benchmark.stats is not None
    assert benchmark.stats.stats.max < 1.0
