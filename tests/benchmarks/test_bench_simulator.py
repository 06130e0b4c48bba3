"""Simulator throughput with every invariant checked after every step (goal: >= 1,000 steps/s).

Skipped in the default run (``--benchmark-skip``); run with
``pytest tests/benchmarks/test_bench_simulator.py --benchmark-only``.
"""

from __future__ import annotations

import dataclasses

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.simulator import Simulator

SCENARIO = Scenario(groups=4, members=4, duration_ms=300000, seed=1, loss=0.05, duplicate=0.1,
                    failover_every_ms=60000, check=True)
# Streams: 4 groups of 4 stream threads (2 processes each), the two-subtopology topology with
# one standby replica, internal topics created on request; same faults as above.
STREAMS_SCENARIO = dataclasses.replace(SCENARIO, protocol="streams", standby_replicas=1)


def _measure(benchmark: BenchmarkFixture, scenario: Scenario) -> None:
    def run() -> Simulator:
        return run_scenario(scenario)

    sim: Simulator = benchmark.pedantic(run, rounds=3, iterations=1)
    assert sim.violations == []
    steps_per_s = sim.steps / benchmark.stats.stats.mean
    benchmark.extra_info["steps"] = sim.steps
    benchmark.extra_info["steps_per_s"] = round(steps_per_s)
    assert steps_per_s >= 1000


@pytest.mark.parametrize("check", [True, False], ids=["invariants-on", "invariants-off"])
def test_simulator_steps_per_second(benchmark: BenchmarkFixture, check: bool) -> None:
    _measure(benchmark, dataclasses.replace(SCENARIO, check=check))


@pytest.mark.parametrize("check", [True, False], ids=["invariants-on", "invariants-off"])
def test_streams_simulator_steps_per_second(benchmark: BenchmarkFixture, check: bool) -> None:
    _measure(benchmark, dataclasses.replace(STREAMS_SCENARIO, check=check))
