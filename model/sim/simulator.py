"""A deterministic discrete-event simulation of consumer groups against the coordinator model.

One seeded ``random.Random`` decides everything (network fates, member ids, topic ids);
time is a number of milliseconds that moves only through :meth:`Simulator.run_until`.
Every coordinator call is recorded as a contract trace event, and after every coordinator
step (a call, timers firing, a failover, a metadata change) every invariant of the group
it touched is checked; the first violation stops the run.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from kgspec.invariants import (
    CLIENT_NO_DOUBLE_OWNERSHIP,
    EPOCH_FENCING,
    SESSION_EXPIRY,
    ClientView,
    EpochSnapshot,
    Observation,
    Violation,
    check_all,
    convergence,
    convergence_bound_ms,
    snapshot_epochs,
)
from kgspec.model.consumer.member import LEAVE_GROUP_MEMBER_EPOCH, ConsumerMember
from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.hashing import kafka_uuid_string
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.records import (
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONSUMER_GROUP_MEMBER_METADATA,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    Record,
)
from kgspec.model.sim import trace
from kgspec.model.sim.client import IN_GROUP, ClientOptions, SimClient
from kgspec.model.sim.network import Network, NetworkConfig

MEMBER_TOMBSTONE_TYPES = frozenset({CONSUMER_GROUP_MEMBER_METADATA, CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
                                    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT})
UNCHANGED_STATE_CHECKS = (EPOCH_FENCING, SESSION_EXPIRY, CLIENT_NO_DOUBLE_OWNERSHIP)
RESTART_BACKOFF_MS = 5000  # an operator restarts a static instance that failed fatally


@dataclass(slots=True)
class SimConfig:
    profile: str = "kafka-4.3"
    configs: dict[str, Any] = field(default_factory=dict)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    check: bool = True  # check every invariant after every coordinator step
    record_events: bool = False  # also write the coordinator's records into the trace


@dataclass(slots=True)
class _Spawn:
    name: str
    group_id: str
    topics: tuple[str, ...]
    instance_id: str | None
    options: ClientOptions


class Simulator:
    def __init__(self, seed: int = 0, config: SimConfig | None = None, mutants: Mutants = NONE) -> None:
        self.config = config or SimConfig()
        self.mutants = mutants
        self.rng = random.Random(seed)
        self.network = Network(self.rng, self.config.network)
        self.coordinator = self._new_coordinator()
        self.shadow = self._new_coordinator() if self.config.check else None
        self.now = 0
        self.clients: dict[str, SimClient] = {}  # name -> current incarnation
        self.records: list[Record] = []
        self.events: list[dict[str, Any]] = [trace.header_event(self.config.profile, self.config.configs)]
        self.violations: list[Violation] = []
        self.steps = 0  # coordinator steps: calls, timer batches, failovers, metadata changes
        self.failovers = 0
        self._queue: list[tuple[int, int, str, Any]] = []
        self._seq = itertools.count()
        self._wake_token: dict[str, int] = {}
        self._deadlines: dict[str, dict[str, int]] = {}
        self._previous: dict[str, EpochSnapshot | None] = {}
        self._names = itertools.count(1)
        self._pending_spawns = 0

    # --- set-up ---------------------------------------------------------------------------

    def _new_coordinator(self) -> Coordinator:
        return Coordinator(self.config.profile, self.config.configs, self.mutants)

    def new_uuid(self) -> str:
        """A random Kafka Uuid string; like ``Uuid.randomUuid`` never one starting with '-'."""
        while True:
            text = kafka_uuid_string(self.rng.getrandbits(128).to_bytes(16, "big"))
            if not text.startswith("-"):
                return text

    @property
    def session_timeout_ms(self) -> int:
        return self.coordinator.config.int("group.consumer.session.timeout.ms")

    # --- topics ---------------------------------------------------------------------------

    def set_topic(self, name: str, partitions: int, recreate: bool = False) -> None:
        """Create a topic, grow it, or (``recreate``) delete and create it with a new id."""
        info = self.coordinator.topics.by_name(name)
        topic_id = info.topic_id if info is not None and not recreate else self.new_uuid()
        self._metadata(lambda c: c.update_topic(name, topic_id, partitions),
                       trace.topic_event(self.now, name, topic_id, partitions))

    def delete_topic(self, name: str) -> None:
        self._metadata(lambda c: c.delete_topic(name), trace.topic_event(self.now, name, None, None))

    def _metadata(self, change: Any, event: dict[str, Any]) -> None:
        if self.violations:
            return
        self._advance(self.now)
        self.events.append(event)
        self._guard("", lambda: change(self.coordinator))
        self.steps += 1
        for gid in list(self.coordinator.groups):
            self._check(gid)

    # --- clients --------------------------------------------------------------------------

    def add_client(self, group_id: str, topics: tuple[str, ...], static: bool = False,
                   options: ClientOptions | None = None, name: str | None = None) -> str:
        name = name or f"c{next(self._names)}"
        instance = f"{name}-instance" if static else None
        self._spawn(_Spawn(name, group_id, topics, instance, options or ClientOptions()))
        return name

    def _spawn(self, spec: _Spawn) -> None:
        client = SimClient(spec.name, spec.group_id, self.new_uuid(), spec.topics, spec.instance_id,
                           spec.options)
        self.clients[spec.name] = client
        client.subscribe(self.now)
        self._reschedule(client)

    def leave(self, name: str) -> None:
        client = self.clients.get(name)
        if client is not None and not client.done:
            client.leave(self.now, temporary=client.instance_id is not None)
            self._reschedule(client)

    def leave_later(self, name: str, after_ms: int) -> None:
        """The application closes the consumer ``after_ms`` from now (a short-lived member)."""
        self._push(self.now + after_ms, "leave", name)

    def crash(self, name: str) -> None:
        client = self.clients.get(name)
        if client is not None:
            client.crash()

    def restart_static(self, name: str, downtime_ms: int) -> None:
        """close() with epoch -2, then a new process with the same instance id joins."""
        client = self.clients.get(name)
        if client is None or client.instance_id is None or client.state not in IN_GROUP:
            return
        client.leave(self.now, temporary=True)
        self._reschedule(client)
        spec = _Spawn(name, client.group_id, client.topics, client.instance_id, client.opts)
        self._push(self.now + client.opts.reconcile_ms + downtime_ms, "spawn", spec)
        self._pending_spawns += 1

    def isolate(self, name: str, duration_ms: int) -> None:
        self.network.isolate(name, self.now + duration_ms)

    def set_network(self, config: NetworkConfig) -> None:
        self.network.config = config

    # --- failover -------------------------------------------------------------------------

    def failover(self) -> None:
        """A new coordinator loads every record written so far, then ``onLoaded`` re-arms timers."""
        if self.violations:
            return
        self._advance(self.now)
        fresh = self._new_coordinator()
        for name in self.coordinator.topics.names():
            info = self.coordinator.topics.by_name(name)
            assert info is not None
            fresh.update_topic(info.name, info.topic_id, info.partitions)
        records = self.records
        if self.mutants.active("replay-drops-tombstone"):
            records = [r for r in records if not (r.value is None and r.type in MEMBER_TOMBSTONE_TYPES)]
        self.coordinator = fresh
        self.failovers += 1
        self.steps += 1
        self.events.append(trace.tick_event(self.now, coordinatorFailover=True))
        def load() -> None:
            fresh.apply(records)
            fresh.on_loaded(self.now)

        self._guard("", load)
        timeout = self.session_timeout_ms
        for gid, group in fresh.groups.items():
            self._deadlines[gid] = dict.fromkeys(group.members, self.now + timeout)
        self._push(self.now + timeout, "tick", None)
        for gid in list(fresh.groups):
            self._check(gid)

    # --- the event loop -------------------------------------------------------------------

    def _push(self, at: int, kind: str, payload: Any) -> None:
        heapq.heappush(self._queue, (at, next(self._seq), kind, payload))

    def _reschedule(self, client: SimClient) -> None:
        at = client.wake_time()
        token = self._wake_token.get(client.name, 0) + 1
        self._wake_token[client.name] = token
        if at is not None:
            self._push(max(at, self.now), "wake", (client, token))

    def run_for(self, duration_ms: int) -> None:
        self.run_until(self.now + duration_ms)

    def run_until(self, end_ms: int) -> None:
        queue = self._queue
        while queue and queue[0][0] <= end_ms and not self.violations:
            at, _, kind, payload = heapq.heappop(queue)
            self._advance(at)
            if self.violations:
                break
            if kind == "wake":
                woken: SimClient = payload[0]
                if self._wake_token.get(woken.name) == payload[1] and self.clients.get(woken.name) is woken:
                    self._wake(woken)
            elif kind == "request":
                self._deliver_request(*payload)
            elif kind == "response":
                receiver: SimClient = payload[0]
                receiver.on_response(payload[1], payload[2], self.now)
                self._after_response(receiver)
                if self.clients.get(receiver.name) is receiver:
                    self._reschedule(receiver)
            elif kind == "leave":
                self.leave(payload)
            elif kind == "spawn":
                self._pending_spawns -= 1
                self._spawn(payload)
        if not self.violations:
            self._advance(max(end_ms, self.now))

    def _advance(self, at: int) -> None:
        """Move the clock; fire the coordinator's due timers and check what they touched."""
        self.now = at
        firings = self._guard("", lambda: self.coordinator.advance(at))
        if not firings:
            return
        touched: list[str] = []
        for firing in firings:
            self._written(firing.records, firing.timer.deadline_ms)
            touched.append(firing.timer.group_id)
        self.steps += 1
        for gid in dict.fromkeys(touched):
            self._check(gid)

    def _wake(self, client: SimClient) -> None:
        request = client.wake(self.now)
        if request is not None:
            corr = client.corr
            for at in self.network.send(client.name, f"{client.name}>", self.now):
                self._push(at, "request", (client, corr, request))
        self._reschedule(client)

    def _deliver_request(self, client: SimClient, corr: int, request: dict[str, Any]) -> None:
        gid = request["groupId"]
        group = self.coordinator.groups.get(gid)
        before: ConsumerMember | None = None
        if group is not None:
            if request.get("instanceId") is not None:
                before = group.static_member(request["instanceId"])
                if before is not None and before.member_id != request["memberId"]:
                    before = None
            else:
                before = group.members.get(request["memberId"])
        result = self._guard(gid, lambda: self.coordinator.handle(
            CONSUMER_GROUP_HEARTBEAT, 1, request, now=self.now, client_id=client.name))
        if result is None or result.response is None:
            return
        response = result.response
        self.steps += 1
        self.events.append(trace.call_event(self.now, client.name, corr, request, response))
        self._written(result.records, self.now)
        self._track_session(gid, request, response)
        for at in self.network.send(client.name, f"{client.name}<", self.now):
            self._push(at, "response", (client, corr, response))
        self._check(gid, (before, request, response), changed=bool(result.records) or group is None)

    def _after_response(self, client: SimClient) -> None:
        """A static instance that failed fatally (its id not yet released) is restarted later."""
        if client.state == "FATAL" and client.instance_id is not None and client.alive:
            client.alive = False
            spec = _Spawn(client.name, client.group_id, client.topics, client.instance_id, client.opts)
            self._push(self.now + RESTART_BACKOFF_MS, "spawn", spec)
            self._pending_spawns += 1

    def _track_session(self, gid: str, request: dict[str, Any], response: dict[str, Any]) -> None:
        if response.get("errorCode") != 0:
            return
        deadlines = self._deadlines.setdefault(gid, {})
        mid = response.get("memberId") or request["memberId"]
        if request["memberEpoch"] == LEAVE_GROUP_MEMBER_EPOCH:
            deadlines.pop(mid, None)
        elif request["memberEpoch"] >= 0:
            deadlines[mid] = self.now + self.session_timeout_ms
            self._push(deadlines[mid], "tick", None)  # wake up when the session may expire

    def _written(self, records: list[Record], at: int) -> None:
        self.records.extend(records)
        if self.shadow is not None:
            shadow = self.shadow
            self._guard("", lambda: shadow.apply(records))
        if self.config.record_events:
            self.events.extend({"tsMs": at, "record": r.to_json()} for r in records)

    def _guard(self, gid: str, step: Any) -> Any:
        """Run a model step; an exception from the model is a finding, not a crash of the run."""
        try:
            return step()
        except Exception as exc:  # the model rejected its own state (OwnershipConflict, ...)
            self.violations.append(Violation("model-exception", gid, f"{type(exc).__name__}: {exc}"))
            return None

    # --- invariants -----------------------------------------------------------------------

    def _beliefs(self, gid: str) -> dict[str, dict[str, Any]]:
        """Owned partitions of the clients in good standing (their member is current)."""
        group = self.coordinator.groups.get(gid)
        beliefs: dict[str, dict[str, Any]] = {}
        if group is None:
            return beliefs
        for client in self.clients.values():
            if client.group_id != gid or not client.alive or not client.owned:
                continue
            member = group.members.get(client.member_id)
            if member is not None and client.epoch in (member.member_epoch, member.previous_member_epoch):
                beliefs[client.name] = dict(client.owned)
        return beliefs

    def _check(self, gid: str, call: tuple[ConsumerMember | None, dict[str, Any], dict[str, Any]] | None = None,
               changed: bool = True) -> None:
        """Check ``gid``; when the step wrote no record the group is unchanged, so only the
        checks that read more than the group's state (the call, time, clients) run again."""
        if not self.config.check:
            return
        group = self.coordinator.groups.get(gid)
        shadow = self.shadow
        obs = Observation(
            gid, group, previous=self._previous.get(gid), topics=self.coordinator.topics,
            replayed=shadow.groups.get(gid) if shadow is not None else None,
            check_replay=shadow is not None, now=self.now,
            session_deadlines=self._deadlines.get(gid, {}), call=call,
            client_beliefs=self._beliefs(gid),
        )
        self.violations.extend(check_all(obs, None if changed else UNCHANGED_STATE_CHECKS))
        if changed:
            self._previous[gid] = snapshot_epochs(group)

    # --- convergence ----------------------------------------------------------------------

    def settle_bound_ms(self) -> int:
        """:func:`convergence_bound_ms` plus what the simulated clients add after faults stop:
        a request lost just before (one request timeout), a static restart still pending (its
        downtime, capped by the restart back-off, and a fatal retry) and callbacks."""
        opts = [c.opts for c in self.clients.values()] or [ClientOptions()]
        slack = (max(o.request_timeout_ms for o in opts) + 2 * RESTART_BACKOFF_MS
                 + 3 * max(o.reconcile_ms for o in opts))
        return convergence_bound_ms(self.coordinator.config, self.network.config.max_delay_ms) + slack

    def settle(self) -> list[Violation]:
        """Stop faults, run for the bound, then check convergence of every group."""
        self.network.config = NetworkConfig(0.0, 0.0, self.network.config.min_delay_ms,
                                            self.network.config.max_delay_ms)
        self.network.heal()
        self.run_for(self.settle_bound_ms())
        if self.violations:
            return self.violations
        for gid in sorted({c.group_id for c in self.clients.values()} | set(self.coordinator.groups)):
            live = {c.member_id: ClientView(c.epoch, c.state, c.owned) for c in self.clients.values()
                    if c.group_id == gid and c.alive and c.state in IN_GROUP}
            found = convergence(self.coordinator.groups.get(gid), live)
            self.violations.extend(Violation("convergence", gid, m) for m in found)
        return self.violations

    def finish(self) -> list[dict[str, Any]]:
        """The trace so far, closed by a tick at the current time."""
        return [*self.events, trace.tick_event(self.now)]
