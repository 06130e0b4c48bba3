"""The cost of one run of the offsets' cleanup (``expire-group-metadata``) with many groups.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_expiry.py --benchmark-only
Input: N simple groups of 10 committed offsets each, replayed into one coordinator; the cleanup
timer fires once with nothing expired (the common run: every offset looked at, nothing written)
and once with everything expired (a tombstone per offset and one per group, then replayed).

``extra_info`` holds the CPU seconds of the run and per offset (the machine is shared).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.records import Record

OFFSETS_PER_GROUP = 10
RETENTION_MS = 60_000


def loaded(groups: int) -> Coordinator:
    coord = Coordinator("kafka-4.3", {"offsets.retention.minutes": 1,
                                      "offsets.retention.check.interval.ms": RETENTION_MS})
    coord.apply(Record(1, {"group": f"g{i}", "topic": "t", "partition": p},
                       {"offset": p, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 1}, 4)
                for i in range(groups) for p in range(OFFSETS_PER_GROUP))
    coord.on_loaded(0)
    return coord


@pytest.mark.parametrize("expired", [False, True], ids=["nothing-expired", "all-expired"])
@pytest.mark.parametrize("groups", [1000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_cleanup_run(benchmark: Any, groups: int, expired: bool) -> None:
    coord = loaded(groups)
    # runs at 60000, 120000, ...; offsets committed at 1 expire from 60001: the first run keeps them
    if expired:
        assert coord.advance(RETENTION_MS)[0].records == []
    now = 2 * RETENTION_MS if expired else RETENTION_MS
    cpu: list[float] = []

    def run() -> int:
        start = time.process_time()
        firings = coord.advance(now)
        cpu.append(time.process_time() - start)
        return sum(len(f.records) for f in firings)

    written = benchmark.pedantic(run, rounds=1, iterations=1)
    offsets = groups * OFFSETS_PER_GROUP
    assert written == (offsets + groups if expired else 0)
    benchmark.extra_info["cpu_s"] = round(cpu[0], 3)
    benchmark.extra_info["cpu_us_per_offset"] = round(1e6 * cpu[0] / offsets, 2)
    assert cpu[0] / offsets < 50e-6  # a few µs per offset looked at (and tombstoned, and replayed)
