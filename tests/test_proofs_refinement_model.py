"""The executable model refines the Z3 encoding: simulator runs, step by step.

A seeded scenario drives the simulator (joins, dynamic and static leaves, static restarts,
crashes, network cut-offs long enough to fence, topic growth, coordinator failover, a lossy
network) while :class:`ConsumerRefinement` maps every coordinator step and every client-local
change to abstract actions, replays them through the Python rules and checks them against
the Z3 transition relation, and every state reached against every invariant the proofs use.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("z3")

from kgspec.invariants.symbolic.abstraction import ConsumerRefinement, StreamsRefinement
from kgspec.model.mutants import Mutants
from kgspec.model.sim.client import ClientOptions
from kgspec.model.sim.network import NetworkConfig
from kgspec.model.sim.simulator import SimConfig, Simulator
from kgspec.model.sim.streams_client import streams_topology

GROUP = "g"
TOPICS = {"t0": 4, "t1": 2}  # the largest partition counts a run reaches


def scenario(seed: int, steps: int, *, z3: bool, mutants: Mutants | None = None) -> tuple[Simulator, ConsumerRefinement]:
    rng = random.Random(seed)
    sim = Simulator(seed, SimConfig(network=NetworkConfig(0.1, 0.0, 1, 20)), mutants or Mutants())
    sim.set_topic("t0", 2)
    sim.set_topic("t1", 1)
    ref = ConsumerRefinement(sim, GROUP, TOPICS, check_z3=z3, check_invariants=z3)
    for _ in range(steps):
        live = sorted(n for n, c in sim.clients.items() if not c.done)
        roll = rng.random()
        if roll < 0.3 or not live:
            options = ClientOptions(reconcile_ms=rng.choice((0, 300, 2000)),
                                    rebalance_timeout_ms=rng.choice((1000, 30000)))
            sim.add_client(GROUP, rng.choice((("t0",), ("t0", "t1"), ("t1",))),
                           static=rng.random() < 0.4, options=options)
        elif roll < 0.4:
            sim.leave(rng.choice(live))
        elif roll < 0.5:
            sim.crash(rng.choice(live))
        elif roll < 0.6:
            sim.restart_static(rng.choice(live), rng.choice((500, 5000)))
        elif roll < 0.7:
            sim.isolate(rng.choice(live), rng.choice((3000, 50000)))
        elif roll < 0.8:
            info = sim.coordinator.topics.by_name("t0")
            if info is not None and info.partitions < TOPICS["t0"]:
                sim.set_topic("t0", info.partitions + 1)
        elif roll < 0.85:
            sim.failover()
        sim.run_for(rng.choice((200, 2000, 10000, 30000)))
        if sim.violations:
            break
    return sim, ref


def test_simulator_runs_refine_the_rules() -> None:
    """Eight seeded runs: every step's abstract actions, run through the Python rules, end in
    the abstraction of the model's post-state; the actions taken cover the protocol."""
    seen: Counter[str] = Counter()
    for seed in range(8):
        sim, ref = scenario(seed, 25, z3=False)
        assert sim.violations == []
        assert ref.problems == []
        assert ref.stats.coordinator_steps > ref.stats.stutters > 0
        seen.update(ref.stats.actions)
    assert {"join", "leave", "session_timeout", "rebalance_timeout", "bump", "recompute",
            "heartbeat", "zombie_heartbeat", "static_leave", "replace", "client_receive",
            "client_reconcile", "client_release"} <= set(seen)


def test_simulator_steps_satisfy_the_z3_relation() -> None:
    sim, ref = scenario(0, 12, z3=True)
    assert sim.violations == []
    assert ref.problems == []
    assert ref.stats.states_checked == sum(ref.stats.actions.values()) > 20


def test_refinement_flags_a_mutated_model() -> None:
    """Without withholding, the model grants a partition the abstract rules withhold."""
    _, ref = scenario(0, 6, z3=False, mutants=Mutants({"no-withholding"}))
    assert ref.problems
    first = ref.problems[0]
    assert first.startswith("call step ")
    assert "the actions do not reach the model's state: mstate:" in first
    assert "'UNRELEASED'} != {" in first


PROCESSES = ("P0", "P1", "P2")


def streams_scenario(seed: int, steps: int, *, z3: bool) -> tuple[Simulator, StreamsRefinement]:
    """Stream threads of three processes (several threads may share one), one standby
    replica, a stateful topology whose source topic grows from 2 to 3 partitions."""
    rng = random.Random(seed)
    configs = {"group.streams.num.standby.replicas": 1}
    sim = Simulator(seed, SimConfig(network=NetworkConfig(0.1, 0.0, 1, 20), configs=configs))
    sim.set_topic("s0", 2)
    ref = StreamsRefinement(sim, GROUP, {"0": 3}, check_z3=z3, check_invariants=z3, processes=PROCESSES)
    topology = streams_topology("stateful")
    for _ in range(steps):
        live = sorted(n for n, c in sim.clients.items() if not c.done)
        roll = rng.random()
        if roll < 0.35 or not live:
            options = ClientOptions(reconcile_ms=rng.choice((0, 300, 2000)),
                                    rebalance_timeout_ms=rng.choice((1000, 30000)))
            sim.add_streams_client(GROUP, rng.choice(PROCESSES), topology, options=options)
        elif roll < 0.5:
            sim.leave(rng.choice(live))
        elif roll < 0.6:
            sim.crash(rng.choice(live))
        elif roll < 0.7:
            sim.isolate(rng.choice(live), rng.choice((3000, 50000)))
        elif roll < 0.8:
            info = sim.coordinator.topics.by_name("s0")
            if info is not None and info.partitions < 3:
                sim.set_topic("s0", info.partitions + 1)
        elif roll < 0.85:
            sim.failover()
        sim.run_for(rng.choice((200, 2000, 10000, 30000)))
        if sim.violations:
            break
    return sim, ref


def test_streams_simulator_runs_refine_the_rules() -> None:
    seen: Counter[str] = Counter()
    for seed in range(8):
        sim, ref = streams_scenario(seed, 20, z3=False)
        assert sim.violations == []
        assert ref.problems == []
        seen.update(ref.stats.actions)
    assert {"join", "leave", "session_timeout", "rebalance_timeout", "bump", "recompute",
            "heartbeat", "zombie_heartbeat", "client_receive", "client_reconcile",
            "client_release"} <= set(seen)


def test_streams_simulator_steps_satisfy_the_z3_relation() -> None:
    sim, ref = streams_scenario(2, 10, z3=True)
    assert sim.violations == []
    assert ref.problems == []
    assert ref.stats.states_checked == sum(ref.stats.actions.values()) > 20
