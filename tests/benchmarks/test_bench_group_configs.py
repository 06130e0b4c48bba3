"""Heartbeat cost of a group that sets its own configs, against one that does not.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_group_configs.py --benchmark-only

Each heartbeat reads the group's heartbeat interval and session timeout through
``Coordinator.group_config_int`` (``model/group_configs/values.py``); a group with configs pays a
lookup and a parse per read. ``extra_info`` holds the CPU seconds of both runs and their ratio,
which must stay under 1.3.
"""

from __future__ import annotations

import time
from typing import Any

from tests.consumer.helpers import Harness, MockAssignor
from tests.group_configs.helpers import alter, op

HEARTBEATS = 20000


def _steady_heartbeats(configured: bool) -> float:
    mock = MockAssignor()
    h = Harness({"foo": 4}, mock=mock)
    mock.prepare({"m1": {"foo": [0, 1, 2, 3]}})
    h.join("m1", ["foo"])
    if configured:
        assert alter(h.coord, "grp", op("consumer.session.timeout.ms", "50000"),
                     op("consumer.heartbeat.interval.ms", "6000"), now=h.now)[0]["errorCode"] == 0
    start = time.process_time()
    for _ in range(HEARTBEATS):
        h.now += 100
        h.heartbeat("m1", 2)
    return time.process_time() - start


def test_configured_group_heartbeat_cost(benchmark: Any) -> None:
    def run() -> tuple[float, float]:
        return _steady_heartbeats(False), _steady_heartbeats(True)

    plain, configured = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(plain_cpu_s=round(plain, 3), configured_cpu_s=round(configured, 3),
                                ratio=round(configured / plain, 3))
    assert configured / plain < 1.3
