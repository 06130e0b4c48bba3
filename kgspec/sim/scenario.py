"""Realistic multi-group runs: staggered joins, churn, metadata growth, periodic failover.

Used by ``kgspec simulate`` (traces for tests, benchmarks and Spark) and the benchmark.
Each group has its own topic; over the run, members leave, crash, restart statically and
join again, and topics grow, at random times drawn from the simulator's seeded RNG.

Streams groups (``protocol="streams"``) run the ``two`` topology (a stateful subtopology
with a changelog the cluster creates on request, and a stateless one) over the group's
two source topics, with ``standby_replicas`` standbys; members are stream threads, two per
Kafka Streams process, and churn also kills whole processes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgspec.model.mutants import NONE, Mutants
from kgspec.sim.client import ClientOptions
from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.streams_client import StreamsSimClient, streams_topology

CHURN_MEAN_MS = 30000  # mean time between membership or metadata changes, per group


@dataclass(slots=True)
class Scenario:
    groups: int = 1
    members: int = 3
    duration_ms: int = 120000
    seed: int = 0
    loss: float = 0.0
    duplicate: float = 0.0
    failover_every_ms: int | None = None
    check: bool = False  # check invariants (the run stops at the first violation)
    profile: str = "kafka-4.3"
    protocol: str = "consumer"  # or "streams"
    standby_replicas: int = 1  # streams: group.streams.num.standby.replicas
    # consumer: clients auto-commit every 5 s, commit before revoking and on close, and churn
    # also makes a zombie resend its last commit (kgspec/sim/committer.py); off: no OffsetCommit
    commits: bool = False


AUTO_COMMIT_INTERVAL_MS = 5000  # auto.commit.interval.ms, the Java consumer's default
ZOMBIE_CHANCE = 0.25  # with commits: the chance a churn event also makes a client resend its last commit


def _join(sim: Simulator, group: str, topic: str, commits: bool = False) -> str:
    static = sim.rng.random() < 0.3
    options = ClientOptions(reconcile_ms=sim.rng.choice((0, 50, 300, 2000)),
                            auto_commit_interval_ms=AUTO_COMMIT_INTERVAL_MS if commits else None)
    return sim.add_client(group, (topic,), static=static, options=options)


THREADS_PER_PROCESS = 2


def _join_streams(sim: Simulator, group: str) -> str:
    """A stream thread joins the group's newest process, or starts a new one when it is full."""
    threads: dict[str, int] = {}
    for c in sim.clients.values():
        if isinstance(c, StreamsSimClient) and c.group_id == group and not c.done:
            threads[c.process_id] = threads.get(c.process_id, 0) + 1
    open_processes = sorted(p for p, n in threads.items() if n < THREADS_PER_PROCESS)
    process = open_processes[0] if open_processes else f"{group}-process-{sim.new_uuid()[:8]}"
    options = ClientOptions(reconcile_ms=sim.rng.choice((0, 50, 300, 2000)))
    topology = streams_topology("two", app=group, sources=(f"{group}-s0", f"{group}-s1"))
    return sim.add_streams_client(group, process, topology, options)


def _churn_streams(sim: Simulator, group: str, target_size: int) -> None:
    live = sorted(n for n, c in sim.clients.items() if c.group_id == group and not c.done)
    roll = sim.rng.random()
    if len(live) < target_size or not live:
        _join_streams(sim, group)
    elif roll < 0.35:
        sim.leave(sim.rng.choice(live))
    elif roll < 0.55:
        sim.crash(sim.rng.choice(live))
    elif roll < 0.75:
        client = sim.clients[sim.rng.choice(live)]
        assert isinstance(client, StreamsSimClient)
        sim.crash_process(client.process_id)
    else:
        source = f"{group}-s{sim.rng.randint(0, 1)}"
        info = sim.coordinator.topics.by_name(source)
        sim.set_topic(source, (info.partitions if info else 0) + 1)


def _churn(sim: Simulator, group: str, topic: str, target_size: int, commits: bool = False) -> None:
    live = sorted(n for n, c in sim.clients.items() if c.group_id == group and not c.done)
    if commits and live and sim.rng.random() < ZOMBIE_CHANCE:
        sim.zombie_commit(sim.rng.choice(live))
    roll = sim.rng.random()
    if len(live) < target_size or not live:
        _join(sim, group, topic, commits)
    elif roll < 0.35:
        sim.leave(sim.rng.choice(live))
    elif roll < 0.55:
        sim.crash(sim.rng.choice(live))
    elif roll < 0.8:
        name = sim.rng.choice(live)
        if sim.clients[name].instance_id is not None:
            sim.restart_static(name, sim.rng.choice((500, 5000)))
        else:
            sim.leave(name)
    else:
        info = sim.coordinator.topics.by_name(topic)
        sim.set_topic(topic, (info.partitions if info else 0) + 1)


def run_scenario(scenario: Scenario, mutants: Mutants = NONE, *, configs: dict[str, Any] | None = None,
                 assignors: dict[str, Any] | None = None, task_assignors: dict[str, Any] | None = None,
                 progress: Callable[[int], None] | None = None, records: bool = False) -> Simulator:
    """Run ``scenario``. ``configs``: more coordinator configs; ``assignors``/``task_assignors``:
    registered ones; ``progress`` is told the simulated time (ms) as it advances; ``records``:
    the trace also carries the coordinator's records (for the dump-log and console formats)."""
    network = NetworkConfig(scenario.loss, scenario.duplicate, 1, 20)
    streams = scenario.protocol == "streams"
    configs = dict(configs or {})
    if streams:
        configs["group.streams.num.standby.replicas"] = scenario.standby_replicas
    sim = Simulator(scenario.seed, SimConfig(profile=scenario.profile, configs=configs, network=network,
                                             check=scenario.check, assignors=assignors,
                                             task_assignors=task_assignors, record_events=records), mutants)
    groups = [f"group-{i}" for i in range(scenario.groups)]
    topics = {g: f"topic-{i}" for i, g in enumerate(groups)}
    for g in groups:
        if streams:
            for source in (f"{g}-s0", f"{g}-s1"):
                sim.set_topic(source, max(1, scenario.members))
        else:
            sim.set_topic(topics[g], max(1, scenario.members * 2))
    # (time, kind, group): joins staggered over the first second, then churn
    agenda: list[tuple[int, str, str]] = []
    for g in groups:
        agenda.extend((sim.rng.randint(0, 1000), "join", g) for _ in range(scenario.members))
        agenda.append((int(sim.rng.expovariate(1 / CHURN_MEAN_MS)), "churn", g))
    if scenario.failover_every_ms:
        agenda.append((scenario.failover_every_ms, "failover", ""))
    while agenda:
        agenda.sort()
        at, kind, g = agenda.pop(0)
        if at > scenario.duration_ms:
            break
        sim.run_until(at)
        if progress is not None:
            progress(at)
        if sim.violations:
            break
        if kind == "join":
            if streams:
                _join_streams(sim, g)
            else:
                _join(sim, g, topics[g], scenario.commits)
        elif kind == "churn":
            if streams:
                _churn_streams(sim, g, scenario.members)
            else:
                _churn(sim, g, topics[g], scenario.members, scenario.commits)
            agenda.append((at + 1 + int(sim.rng.expovariate(1 / CHURN_MEAN_MS)), "churn", g))
        elif kind == "failover" and scenario.failover_every_ms:
            sim.failover()
            agenda.append((at + scenario.failover_every_ms, "failover", ""))
    if not sim.violations:
        sim.run_until(scenario.duration_ms)
    if progress is not None:
        progress(scenario.duration_ms)
    return sim
