"""The Hypothesis rule-based machines over whole groups, and a runner for the CLI and tests.

Rules are faults and changes (clients joining, leaving, crashing, restarting statically,
being cut off, stalling or freezing, changing their subscription; whole streams processes
dying; a lossy network; topic changes; coordinator failover) and the passage of time; ``settle`` stops the faults and asserts convergence. The simulator checks every
invariant after every coordinator step, so a rule fails as soon as anything breaks, and
Hypothesis shrinks the program to the fewest rules that still break it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    get_state_machine_test,
    initialize,
    invariant,
    precondition,
    rule,
)

from kgspec.invariants import PARTITION_EPOCH_INDEX, Violation
from kgspec.model.mutants import NONE, Mutants
from kgspec.sim import profiles
from kgspec.sim.client import ClientOptions
from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.streams_client import (
    STREAMS_SOURCES,
    STREAMS_TOPOLOGIES,
    source_topics,
    streams_topology,
)
from kgspec.sim.trace import write_trace

GROUP = "g"
TOPICS = ("t0", "t1")
MAX_CLIENTS = 6
SUBSCRIPTIONS = ("t0", "t0,t1", "t1", "regex")
STALL_MS = (5000, 40000, 70000)  # within, past the rebalance timeout (30 s), past the session timeout (45 s)
# Invariants over state no response or describe shows (a derived index). A run they stop is
# not something `kgspec check` can flag, so the fuzzer then searches again without them until
# an observable consequence breaks (KAFKA-16147: the lost index entry lets a partition be
# granted while owned).
INTERNAL_ONLY = frozenset({PARTITION_EPOCH_INDEX})
# Mutants only clients that commit offsets can reach: the fuzzer runs committing clients for them.
COMMIT_MUTANTS = frozenset({"commit-accepts-stale-epoch"})
AUTO_COMMIT_INTERVAL_MS = 5000  # auto.commit.interval.ms, the Java consumer's default

Call = tuple[str, dict[str, Any]]  # a rule and its drawn arguments, as Hypothesis called it


@dataclass(slots=True)
class Failure:
    """The last failing run: the shrunk one once Hypothesis is done."""

    violations: list[Violation]
    events: list[dict[str, Any]]
    steps: int  # rules run, @initialize included
    program: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)  # replayable with run_program

    @property
    def observable(self) -> bool:
        """Whether an invariant a trace can show broke (not only an internal-only one)."""
        return any(v.invariant not in INTERNAL_ONLY for v in self.violations)


def recorded(function: Callable[..., None]) -> Callable[..., None]:
    """Remember each rule call with its arguments, so a shrunk program can be replayed."""
    @functools.wraps(function)
    def call(self: GroupMachine, **kwargs: Any) -> None:
        self.calls.append((function.__name__, dict(kwargs)))
        function(self, **kwargs)

    return call


class GroupMachine(RuleBasedStateMachine):
    """Rules every protocol shares: time, membership faults, the network, failover, settle.

    Subclasses add ``start`` (an ``@initialize``) and their own joins and topic changes.
    """

    mutants: ClassVar[Mutants] = NONE
    profile: ClassVar[str] = "kafka-4.3"
    last_failure: ClassVar[Failure | None] = None
    trace_path: ClassVar[str | None] = None  # where a failing run is written, when set
    ignore: ClassVar[frozenset[str]] = frozenset()  # invariants not checked (the observable phase)

    def __init__(self) -> None:
        super().__init__()
        self.sim = Simulator(0, self._config(NetworkConfig()), self.mutants)
        self.program: list[str] = []
        self.calls: list[Call] = []

    def _config(self, network: NetworkConfig, configs: dict[str, Any] | None = None) -> SimConfig:
        return SimConfig(profile=self.profile, configs=configs or {}, network=network, ignore=self.ignore)

    def _note(self, text: str) -> None:
        self.program.append(text)

    def _pick(self, index: int) -> str | None:
        names = [n for n, c in sorted(self.sim.clients.items()) if not c.done]
        return names[index % len(names)] if names else None

    def _live(self) -> int:
        return len([c for c in self.sim.clients.values() if not c.done])

    @rule(ms=st.sampled_from([1000, 3000, 6000, 20000, 60000]))
    @recorded
    def advance(self, ms: int) -> None:
        self.sim.run_for(ms)
        self._note(f"advance({ms})")

    @rule(index=st.integers(0, MAX_CLIENTS - 1))
    @recorded
    def leave(self, index: int) -> None:
        name = self._pick(index)
        if name is not None:
            self.sim.leave(name)
        self._note(f"leave({name})")

    @rule(index=st.integers(0, MAX_CLIENTS - 1))
    @recorded
    def crash(self, index: int) -> None:
        name = self._pick(index)
        if name is not None:
            self.sim.crash(name)
        self._note(f"crash({name})")

    @rule(index=st.integers(0, MAX_CLIENTS - 1), ms=st.sampled_from([3000, 20000, 60000]))
    @recorded
    def isolate(self, index: int, ms: int) -> None:
        name = self._pick(index)
        if name is not None:
            self.sim.isolate(name, ms)
        self._note(f"isolate({name}, {ms})")

    @rule(index=st.integers(0, MAX_CLIENTS - 1), ms=st.sampled_from(STALL_MS),
          whole_process=st.booleans())
    @recorded
    def stall(self, index: int, ms: int, whole_process: bool) -> None:
        """The application stops polling (past the rebalance timeout: a stale member), or the
        whole process freezes (past the session timeout: fenced, then a rejoin with epoch 0)."""
        name = self._pick(index)
        if name is not None:
            (self.sim.freeze if whole_process else self.sim.stall)(name, ms)
        self._note(f"{'freeze' if whole_process else 'stall'}({name}, {ms})")

    @rule(loss=st.sampled_from([0.0, 0.1, 0.3]), duplicate=st.sampled_from([0.0, 0.3]),
          max_delay_ms=st.sampled_from([5, 50, 500]))
    @recorded
    def network(self, loss: float, duplicate: float, max_delay_ms: int) -> None:
        self.sim.set_network(NetworkConfig(loss, duplicate, 1, max_delay_ms))
        self._note(f"network(loss={loss}, duplicate={duplicate}, max_delay_ms={max_delay_ms})")

    @rule()
    @recorded
    def failover(self) -> None:
        self.sim.failover()
        self._note("failover()")

    @rule()
    @recorded
    def settle(self) -> None:
        self.sim.settle()
        self._note("settle()")

    # --- checks -------------------------------------------------------------------------

    @invariant()
    def no_violation(self) -> None:
        if self.sim.violations:
            raise AssertionError("; ".join(str(v) for v in self.sim.violations[:3]))

    def teardown(self) -> None:
        if self.sim.violations:
            failure = Failure(list(self.sim.violations), self.sim.finish(describe=True), len(self.program),
                              list(self.program), list(self.calls))
            type(self).last_failure = failure
            if self.trace_path is not None:
                # Hypothesis runs the shrunk program last, so the file ends up holding it.
                write_trace(failure.events, self.trace_path)


class ConsumerGroupMachine(GroupMachine):
    """One KIP-848 consumer group."""

    auto_commit_ms: ClassVar[int | None] = None  # the clients' auto.commit.interval.ms (None: no commits)

    def _options(self, reconcile_ms: int, regex: str | None = None) -> ClientOptions:
        return ClientOptions(reconcile_ms=reconcile_ms, topic_regex=regex, auto_commit_interval_ms=self.auto_commit_ms)

    @initialize(seed=st.integers(0, 2**16), partitions=st.integers(1, 6),
                members=st.integers(1, 3), static=st.booleans(),
                reconcile_ms=st.sampled_from([0, 300, 3000]), loss=st.sampled_from([0.0, 0.05, 0.2]),
                duplicate=st.sampled_from([0.0, 0.3]))
    @recorded
    def start(self, seed: int, partitions: int, members: int, static: bool, reconcile_ms: int,
              loss: float, duplicate: float) -> None:
        network = NetworkConfig(loss, duplicate, 1, 20)
        self.sim = Simulator(seed, self._config(network), self.mutants)
        self.sim.set_topic(TOPICS[0], partitions)
        for _ in range(members):
            self.sim.add_client(GROUP, (TOPICS[0],), static=static, options=self._options(reconcile_ms))
        self._note(f"start(seed={seed}, partitions={partitions}, members={members}, static={static}, "
                   f"reconcile_ms={reconcile_ms}, loss={loss}, duplicate={duplicate})")

    @precondition(lambda self: self._live() < MAX_CLIENTS)
    @rule(static=st.booleans(), subscription=st.sampled_from(SUBSCRIPTIONS),
          reconcile_ms=st.sampled_from([0, 300, 3000]))
    @recorded
    def join(self, static: bool, subscription: str, reconcile_ms: int) -> None:
        topics, regex = _subscription(subscription)
        name = self.sim.add_client(GROUP, topics, static=static, options=self._options(reconcile_ms, regex))
        self._note(f"join({name}, static={static}, subscription={subscription!r}, reconcile_ms={reconcile_ms})")

    @precondition(lambda self: self._live() < MAX_CLIENTS)
    @rule(lifetime_ms=st.sampled_from([1000, 3000, 6000]), reconcile_ms=st.sampled_from([0, 300, 3000]))
    @recorded
    def bounce(self, lifetime_ms: int, reconcile_ms: int) -> None:
        """A member that joins and leaves again soon (a crash-looping or scaled-down pod)."""
        name = self.sim.add_client(GROUP, TOPICS[:1], options=self._options(reconcile_ms))
        self.sim.leave_later(name, lifetime_ms)
        self._note(f"bounce({name}, lifetime_ms={lifetime_ms}, reconcile_ms={reconcile_ms})")

    @rule(index=st.integers(0, MAX_CLIENTS - 1), downtime_ms=st.sampled_from([100, 2000, 50000]))
    @recorded
    def restart_static(self, index: int, downtime_ms: int) -> None:
        name = self._pick(index)
        if name is not None:
            self.sim.restart_static(name, downtime_ms)
        self._note(f"restart_static({name}, downtime_ms={downtime_ms})")

    @rule(index=st.integers(0, MAX_CLIENTS - 1), subscription=st.sampled_from(SUBSCRIPTIONS))
    @recorded
    def resubscribe(self, index: int, subscription: str) -> None:
        """subscribe() again mid-run: other topic names or a pattern (the group epoch bumps)."""
        name = self._pick(index)
        if name is not None:
            self.sim.resubscribe(name, *_subscription(subscription))
        self._note(f"resubscribe({name}, {subscription!r})")

    @rule(topic=st.sampled_from(TOPICS), action=st.sampled_from(["grow", "delete", "recreate"]),
          partitions=st.integers(1, 8))
    @recorded
    def topic(self, topic: str, action: str, partitions: int) -> None:
        info = self.sim.coordinator.topics.by_name(topic)
        if action == "delete":
            self.sim.delete_topic(topic)
        elif action == "recreate":
            self.sim.set_topic(topic, partitions, recreate=True)
        else:
            self.sim.set_topic(topic, max(partitions, info.partitions if info else 0))
        self._note(f"topic({topic}, {action}, {partitions})")


class CommittingConsumerGroupMachine(ConsumerGroupMachine):
    """One KIP-848 consumer group whose clients commit offsets as the Java consumer does
    (kgspec/sim/committer.py), and may turn zombie: resend a commit built at an older epoch."""

    auto_commit_ms = AUTO_COMMIT_INTERVAL_MS

    @rule(index=st.integers(0, MAX_CLIENTS - 1))
    @recorded
    def zombie_commit(self, index: int) -> None:
        """A client resends, as built, a commit of an older member epoch (a fenced, expired or
        cut-off process coming back with the request it had)."""
        name = self._pick(index)
        if name is not None:
            self.sim.zombie_commit(name)
        self._note(f"zombie_commit({name})")


def _subscription(kind: str) -> tuple[tuple[str, ...], str | None]:
    if kind == "regex":
        return (), "t.*"
    return tuple(kind.split(",")), None


class StreamsGroupMachine(GroupMachine):
    """One KIP-1071 streams group: stream threads of a few Kafka Streams processes."""

    processes: list[str]
    topology_kind: str

    @initialize(seed=st.integers(0, 2**16), partitions=st.integers(1, 4), processes=st.integers(1, 3),
                threads=st.integers(1, 2), standbys=st.integers(0, 2),
                topology=st.sampled_from(STREAMS_TOPOLOGIES), sources_exist=st.booleans(),
                reconcile_ms=st.sampled_from([0, 300, 3000]), loss=st.sampled_from([0.0, 0.05, 0.2]),
                duplicate=st.sampled_from([0.0, 0.3]))
    @recorded
    def start(self, seed: int, partitions: int, processes: int, threads: int, standbys: int, topology: str,
              sources_exist: bool, reconcile_ms: int, loss: float, duplicate: float) -> None:
        network = NetworkConfig(loss, duplicate, 1, 20)
        configs = {"group.streams.num.standby.replicas": standbys}
        self.sim = Simulator(seed, self._config(network, configs), self.mutants)
        self.topology_kind = topology
        sources = source_topics(topology)
        for t in sources if sources_exist else sources[:1]:
            self.sim.set_topic(t, partitions)
        self.processes = [f"process-{i}" for i in range(processes)]
        for process in self.processes:
            for _ in range(threads):
                self.sim.add_streams_client(GROUP, process, streams_topology(topology),
                                            ClientOptions(reconcile_ms=reconcile_ms))
        self._note(f"start(seed={seed}, partitions={partitions}, processes={processes}, threads={threads}, "
                   f"standbys={standbys}, topology={topology!r}, sources_exist={sources_exist}, "
                   f"reconcile_ms={reconcile_ms}, loss={loss}, duplicate={duplicate})")

    def _process(self, index: int) -> str:
        if index >= len(self.processes):
            self.processes.append(f"process-{len(self.processes)}")
            return self.processes[-1]
        return self.processes[index]

    @precondition(lambda self: self._live() < MAX_CLIENTS)
    @rule(process=st.integers(0, 3), reconcile_ms=st.sampled_from([0, 300, 3000]))
    @recorded
    def join(self, process: int, reconcile_ms: int) -> None:
        """A stream thread joins: of a running process, or of a new one."""
        pid = self._process(process)
        name = self.sim.add_streams_client(GROUP, pid, streams_topology(self.topology_kind),
                                           ClientOptions(reconcile_ms=reconcile_ms))
        self._note(f"join({name}, {pid}, reconcile_ms={reconcile_ms})")

    @precondition(lambda self: self._live() < MAX_CLIENTS)
    @rule(process=st.integers(0, 3), lifetime_ms=st.sampled_from([1000, 3000, 6000]),
          reconcile_ms=st.sampled_from([0, 300, 3000]))
    @recorded
    def bounce(self, process: int, lifetime_ms: int, reconcile_ms: int) -> None:
        """A stream thread that joins and leaves again soon."""
        pid = self._process(process)
        name = self.sim.add_streams_client(GROUP, pid, streams_topology(self.topology_kind),
                                           ClientOptions(reconcile_ms=reconcile_ms))
        self.sim.leave_later(name, lifetime_ms)
        self._note(f"bounce({name}, {pid}, lifetime_ms={lifetime_ms}, reconcile_ms={reconcile_ms})")

    @rule(process=st.integers(0, 3))
    @recorded
    def crash_process(self, process: int) -> None:
        """A whole Kafka Streams instance dies: all its threads at once."""
        pid = self.processes[process % len(self.processes)]
        self.sim.crash_process(pid)
        self._note(f"crash_process({pid})")

    @rule(topic=st.sampled_from(STREAMS_SOURCES), action=st.sampled_from(["create", "grow", "delete"]),
          partitions=st.integers(1, 6))
    @recorded
    def topic(self, topic: str, action: str, partitions: int) -> None:
        """An operator creates, grows or deletes a source topic."""
        info = self.sim.coordinator.topics.by_name(topic)
        if action == "delete":
            self.sim.delete_topic(topic)
        elif info is None or action == "grow":
            self.sim.set_topic(topic, max(partitions, info.partitions if info else 0))
        self._note(f"topic({topic}, {action}, {partitions})")


MACHINES: dict[str, type[GroupMachine]] = {"consumer": ConsumerGroupMachine, "streams": StreamsGroupMachine}


def machine_for(mutants: Mutants = NONE, profile: str = "kafka-4.3", protocol: str = "consumer",
                ignore: frozenset[str] = frozenset(), commits: bool | None = None) -> type[GroupMachine]:
    """A machine class with ``mutants`` switched on (class attributes: one class per run).

    ``commits``: consumer clients commit offsets (None: only for a mutant of ``COMMIT_MUTANTS``;
    off, the consumer machine's rules and programs are those it had before commits)."""
    base = MACHINES[protocol]
    if commits is None:
        commits = bool(mutants.names & COMMIT_MUTANTS)
    if commits and protocol == "consumer":
        base = CommittingConsumerGroupMachine
    return type(base.__name__, (base,), {"mutants": mutants, "profile": profile, "last_failure": None,
                                         "ignore": ignore})


def run_program(machine: type[GroupMachine], calls: list[Call], trace_path: str | None = None) -> Failure | None:
    """Run a recorded program (``Failure.calls``) as Hypothesis would: the invariants after
    every rule, stop at the first failure, then teardown (which writes the trace when
    ``trace_path`` is set). The failure, or None if the program passes."""
    runner: type[GroupMachine] = type(machine.__name__, (machine,), {"trace_path": trace_path, "last_failure": None})
    instance = runner()
    try:
        for name, kwargs in calls:
            getattr(instance, name)(**kwargs)
            if instance.sim.violations:
                break
    finally:
        instance.teardown()
    return runner.last_failure


@dataclass(slots=True)
class FuzzResult:
    failure: Failure | None  # what broke first (possibly only an internal-only invariant)
    elapsed_s: float
    batches: int
    trace_path: str | None = None
    # After an internal-only failure: the run that broke an observable invariant, searched
    # for without the internal-only ones (None if none was found within the budget).
    observable: Failure | None = None
    observable_batches: int = 0
    observable_s: float = 0.0  # the observable phase's share of elapsed_s

    @property
    def failed(self) -> bool:
        return self.failure is not None

    @property
    def written(self) -> Failure | None:
        """The failure written as the trace: the observable one when there is one."""
        return self.observable or self.failure


# Examples per batch under ``--budget``: a batch of the ci profile's size took about 0.6 s here,
# a nightly one (2000 examples) minutes, overrunning the budget by as much.
BUDGET_BATCH_EXAMPLES = 30  # the ci profile's own size: its seeds find what they found before


def _search(machine: type[GroupMachine], chosen: hypothesis.settings, seed: int, budget_s: float | None,
            start: float, progress: Callable[[float, int], None] | None) -> int:
    """Batches (seed, seed+1, ...) until one fails or the budget is spent; the batch count.

    Under a budget, a batch that would outlast what is left (at the time an example has taken so
    far) runs fewer examples, so a run ends close to its budget rather than a batch after it."""
    batches = 0
    per_example: float | None = None
    while True:
        settings = chosen
        if budget_s is not None and per_example is not None:
            left = budget_s - (time.perf_counter() - start)
            fit = max(1, int(left / per_example)) if per_example > 0 else chosen.max_examples
            if fit < chosen.max_examples:
                settings = hypothesis.settings(chosen, max_examples=fit)
        test = get_state_machine_test(machine, settings=settings)
        seeded: Any = hypothesis.seed(seed + batches)(test)
        batches += 1
        began = time.perf_counter()
        try:
            seeded()
        except Exception:
            if machine.last_failure is None:
                raise  # not an invariant violation: a bug in the harness
        per_example = (time.perf_counter() - began) / settings.max_examples
        elapsed = time.perf_counter() - start
        if progress is not None:
            progress(elapsed, batches)
        if machine.last_failure is not None or budget_s is None or elapsed >= budget_s:
            return batches


def run_fuzz(mutants: Mutants = NONE, *, seed: int = 0, budget_s: float | None = None,
             hypothesis_profile: str | None = None, profile: str = "kafka-4.3",
             out: str | None = None, shrink: bool = True,
             progress: Callable[[float, int], None] | None = None, protocol: str = "consumer",
             observable: bool | None = None, commits: bool | None = None) -> FuzzResult:
    """Run the machine in batches (seed, seed+1, ...) until one fails or the budget is spent.

    Without a budget, one batch of the profile's ``max_examples``. The shrunk failing run
    is written to ``out`` as a contract trace. ``shrink=False`` stops at the first failure
    (the time to kill), leaving the program unshrunk.

    ``observable``: None (the default) checks every invariant and, when only internal-only
    ones (``INTERNAL_ONLY``) broke, searches again without them — from the same seed, with
    what is left of the budget (one batch at least) — for a run whose trace `kgspec check` can flag, and writes that
    one. True checks only the observable invariants from the start; False never searches again.
    ``commits``: consumer clients commit offsets (see :func:`machine_for`).
    """
    base = profiles.load(hypothesis_profile)
    phases = tuple(hypothesis.Phase) if shrink else (hypothesis.Phase.explicit, hypothesis.Phase.generate)
    chosen = hypothesis.settings(base, derandomize=False, database=None, phases=phases)
    if budget_s is not None:  # short batches: the budget is checked between them, and the bar moves
        chosen = hypothesis.settings(chosen, max_examples=min(chosen.max_examples, BUDGET_BATCH_EXAMPLES))
    start = time.perf_counter()
    machine = machine_for(mutants, profile, protocol, INTERNAL_ONLY if observable else frozenset(), commits)
    batches = _search(machine, chosen, seed, budget_s, start, progress)
    result = FuzzResult(machine.last_failure, time.perf_counter() - start, batches)
    if observable is None and result.failure is not None and not result.failure.observable:
        second = machine_for(mutants, profile, protocol, INTERNAL_ONLY, commits)
        phase_start = time.perf_counter()
        # One budget for the whole run: the second search has what the first one left.
        result.observable_batches = _search(second, chosen, seed, budget_s, start, progress)
        result.observable = second.last_failure
        result.observable_s = time.perf_counter() - phase_start
        result.elapsed_s = time.perf_counter() - start
    if result.written is not None and out is not None:
        write_trace(result.written.events, out)
        result.trace_path = out
    return result
