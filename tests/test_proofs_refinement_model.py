"""The executable model refines the Z3 encoding: simulator runs, step by step.

A seeded scenario drives the simulator (joins, dynamic and static leaves, static restarts,
crashes, network cut-offs long enough to fence, topic growth and deletion, subscription
changes, poll stalls and process freezes, coordinator failover, a network that loses and
duplicates messages) while :class:`ConsumerRefinement` maps every coordinator step and every
client-local change to abstract actions, replays them through the Python rules and checks
them against the Z3 transition relation, and every state reached against every invariant the
proofs use.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("z3")

from kgspec.invariants.symbolic.abstraction import ConsumerRefinement, StreamsRefinement
from kgspec.invariants.symbolic.rules import Ctx, actions
from kgspec.model.mutants import Mutants

from kgspec.sim.client import ClientOptions
from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.streams_client import streams_topology

GROUP = "g"
TOPICS = {"t0": 4, "t1": 2}  # the largest partition counts a run reaches
SUBSCRIPTIONS = (("t0",), ("t0", "t1"), ("t1",))
NETWORK = NetworkConfig(0.1, 0.2, 1, 20)  # 10 % lost, 20 % of the rest delivered twice
# Seeds of the default run, chosen so that together they take every abstract action.
CONSUMER_SEEDS = (0, 1, 2, 6, 15, 20)
STREAMS_SEEDS = (0, 1, 4, 5, 11)


def _faults(sim: Simulator, rng: random.Random, live: list[str], roll: float) -> None:
    """Faults both protocols share: network cut-offs, poll stalls, process freezes, failover."""
    if roll < 0.6:
        sim.isolate(rng.choice(live), rng.choice((3000, 50000)))
    elif roll < 0.7:
        sim.stall(rng.choice(live), rng.choice((2000, 40000)))
    elif roll < 0.8:
        sim.freeze(rng.choice(live), rng.choice((2000, 50000)))
    elif roll < 0.85:
        sim.failover()


def scenario(seed: int, steps: int, *, z3: bool, mutants: Mutants | None = None,
             network: NetworkConfig = NETWORK) -> tuple[Simulator, ConsumerRefinement]:
    rng = random.Random(seed)
    sim = Simulator(seed, SimConfig(network=network), mutants or Mutants())
    sim.set_topic("t0", 2)
    sim.set_topic("t1", 1)
    ref = ConsumerRefinement(sim, GROUP, TOPICS, check_z3=z3, check_invariants=z3)
    for _ in range(steps):
        live = sorted(n for n, c in sim.clients.items() if not c.done)
        roll = rng.random()
        if roll < 0.25 or not live:
            options = ClientOptions(reconcile_ms=rng.choice((0, 300, 2000)),
                                    rebalance_timeout_ms=rng.choice((1000, 30000)))
            sim.add_client(GROUP, rng.choice(SUBSCRIPTIONS), static=rng.random() < 0.4, options=options)
        elif roll < 0.32:
            sim.leave(rng.choice(live))
        elif roll < 0.38:
            sim.crash(rng.choice(live))
        elif roll < 0.44:
            sim.restart_static(rng.choice(live), rng.choice((500, 5000)))
        elif roll < 0.5:
            info = sim.coordinator.topics.by_name("t0")
            if info is not None and info.partitions < TOPICS["t0"]:
                sim.set_topic("t0", info.partitions + 1)
        elif roll < 0.56:
            sim.resubscribe(rng.choice(live), rng.choice(SUBSCRIPTIONS))
        elif roll < 0.59:
            # deleted for good: a topic re-created under the same name has a new id, and the
            # abstraction names tasks by topic name
            if sim.coordinator.topics.by_name("t1") is not None:
                sim.delete_topic("t1")
        else:
            _faults(sim, rng, live, roll)
        sim.run_for(rng.choice((200, 2000, 10000, 30000)))
        if sim.violations:
            break
    return sim, ref


def _every_action(protocol: str) -> set[str]:
    """The abstract actions of the protocol's encoding; `failover` exists only with the
    replay-drops-tombstone mutant, the unreported heartbeats are `heartbeat` steps."""
    names = set(actions(Ctx(streams=protocol == "streams")))
    return names - {"heartbeat_lost", "heartbeat_unreported", "heartbeat_unreported_lost"}


def test_simulator_runs_refine_the_rules() -> None:
    """Eight seeded runs: every step's abstract actions, run through the Python rules, end in
    the abstraction of the model's post-state; together they take every abstract action but
    `shrink` (test_resubscription_shrinks_at_the_target_epoch)."""
    seen: Counter[str] = Counter()
    for seed in CONSUMER_SEEDS:
        sim, ref = scenario(seed, 25, z3=False)
        assert sim.violations == []
        assert ref.problems == []
        assert ref.stats.coordinator_steps > ref.stats.stutters > 0
        seen.update(ref.stats.actions)
    assert set(seen) == _every_action("consumer") - {"shrink"}


def test_simulator_steps_satisfy_the_z3_relation() -> None:
    sim, ref = scenario(0, 12, z3=True)
    assert sim.violations == []
    assert ref.problems == []
    assert ref.stats.states_checked == sum(ref.stats.actions.values()) > 20


def test_resubscription_shrinks_at_the_target_epoch() -> None:
    """Kafka 4.2+: a member STABLE at the target epoch that drops a topic from its
    subscription, before the next assignment (the assignment interval), revokes that topic's
    partitions at its own epoch (`updateCurrentAssignment`): `resubscribe`, `bump`, `shrink`."""
    interval = {"group.consumer.assignment.interval.ms": 60000}  # the next target comes late
    sim = Simulator(7, SimConfig(network=NetworkConfig(), configs=interval))
    sim.set_topic("t0", 2)
    sim.set_topic("t1", 2)
    ref = ConsumerRefinement(sim, GROUP, TOPICS)
    name = sim.add_client(GROUP, ("t0", "t1"), options=ClientOptions(reconcile_ms=300))
    sim.run_for(10000)
    sim.resubscribe(name, ("t0",))
    sim.run_for(10000)
    assert sim.violations == []
    assert ref.problems == []
    plans = [[a["action"] for a in r.actions] for r in ref.reports]
    assert ["resubscribe", "bump", "shrink", "heartbeat"] in plans
    group = sim.coordinator.groups[GROUP]
    [member] = group.members.values()
    # still at epoch 2, the target of epoch 2 not recomputed; t1's partitions are gone
    assert (group.group_epoch, group.assignment_epoch, member.member_epoch) == (3, 2, 2)
    t0 = sim.coordinator.topics.by_name("t0")
    assert t0 is not None
    assert member.assigned == {t0.topic_id: {0: 2, 1: 2}}  # partition -> assignment epoch


def test_refinement_flags_a_mutated_model() -> None:
    """Without withholding, the model grants a partition the abstract rules withhold."""
    _, ref = scenario(0, 6, z3=False, mutants=Mutants({"no-withholding"}), network=NetworkConfig(0.1, 0.0, 1, 20))
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
    sim = Simulator(seed, SimConfig(network=NETWORK, configs=configs))
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
        elif roll < 0.45:
            sim.leave(rng.choice(live))
        elif roll < 0.5:
            sim.crash(rng.choice(live))
        elif roll < 0.55:
            info = sim.coordinator.topics.by_name("s0")
            if info is not None and info.partitions < 3:
                sim.set_topic("s0", info.partitions + 1)
        else:
            _faults(sim, rng, live, roll)
        sim.run_for(rng.choice((200, 2000, 10000, 30000)))
        if sim.violations:
            break
    return sim, ref


def test_streams_simulator_runs_refine_the_rules() -> None:
    seen: Counter[str] = Counter()
    for seed in STREAMS_SEEDS:
        sim, ref = streams_scenario(seed, 20, z3=False)
        assert sim.violations == []
        assert ref.problems == []
        seen.update(ref.stats.actions)
    # every streams action; the encoding's `resubscribe` has no streams counterpart (the
    # topology is fixed), static membership is consumer-only
    assert set(seen) == _every_action("streams") - {"resubscribe"}


def test_streams_simulator_steps_satisfy_the_z3_relation() -> None:
    sim, ref = streams_scenario(2, 10, z3=True)
    assert sim.violations == []
    assert ref.problems == []
    assert ref.stats.states_checked == sum(ref.stats.actions.values()) > 20
