"""A deterministic discrete-event simulation of consumer and streams groups against the model.

One seeded ``random.Random`` decides everything (network fates, member ids, topic ids);
time is a number of milliseconds that moves only through :meth:`Simulator.run_until`.
Every coordinator call is recorded as a contract trace event, and after every coordinator
step (a call, timers firing, a failover, a metadata change) every invariant of the group
it touched is checked; the first violation stops the run.

Streams groups (KIP-1071) run on the same loop: their clients send StreamsGroupHeartbeat
(API 88), and the simulated cluster creates the internal topics the coordinator asks for
(``internalTopicsToBeCreated``, as ``KafkaApis`` hands them to the auto-topic-creation
manager) ``SimConfig.internal_topic_delay_ms`` later.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from kgspec.invariants import (
    CLIENT_NO_DOUBLE_OWNERSHIP,
    CONSUMER_INVARIANTS,
    CONVERGENCE,
    EPOCH_FENCING,
    NO_TASKS_WHILE_NOT_READY,
    SESSION_EXPIRY,
    STREAMS_GROUP_INVARIANTS,
    ClientView,
    EpochSnapshot,
    Observation,
    StreamsObservation,
    Violation,
    check_all,
    check_streams,
    convergence,
    convergence_bound_ms,
    lost_assignments,
    snapshot_epochs,
    snapshot_streams_epochs,
    streams_convergence,
    streams_convergence_bound_ms,
)
from kgspec.invariants.catalogue import COMMIT_FENCING
from kgspec.invariants.offsets import commit_fencing_problems
from kgspec.model.consumer.member import LEAVE_GROUP_MEMBER_EPOCH, ConsumerMember
from kgspec.model.coordinator import CONSUMER_GROUP_DESCRIBE, STREAMS_GROUP_DESCRIBE, Coordinator
from kgspec.model.hashing import kafka_uuid_string
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.records import (
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONSUMER_GROUP_MEMBER_METADATA,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    STREAMS_GROUP_MEMBER_METADATA,
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER,
    Record,
)
from kgspec.model.streams.configure import Status
from kgspec.model.streams.member import StreamsMember
from kgspec.sim import trace
from kgspec.sim.client import IN_GROUP, ClientOptions, MemberClient, SimClient
from kgspec.sim.committer import OFFSET_COMMIT, OFFSET_COMMIT_VERSION
from kgspec.sim.network import Network, NetworkConfig
from kgspec.sim.streams_client import StreamsSimClient

MEMBER_TOMBSTONE_TYPES = frozenset({CONSUMER_GROUP_MEMBER_METADATA, CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
                                    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, STREAMS_GROUP_MEMBER_METADATA,
                                    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT})
UNCHANGED_STATE_CHECKS = (EPOCH_FENCING, SESSION_EXPIRY, CLIENT_NO_DOUBLE_OWNERSHIP)
UNCHANGED_STREAMS_CHECKS = (*UNCHANGED_STATE_CHECKS, NO_TASKS_WHILE_NOT_READY)
RESTART_BACKOFF_MS = 5000  # an operator restarts a static instance that failed fatally


@dataclass(slots=True)
class SimConfig:
    profile: str = "kafka-4.3"
    configs: dict[str, Any] = field(default_factory=dict)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    check: bool = True  # check every invariant after every coordinator step
    record_events: bool = False  # also write the coordinator's records into the trace
    internal_topic_delay_ms: int = 500  # the cluster creates requested internal topics this much later
    # Kafka's streams protocol never resends an assignment whose response was lost (see
    # invariants/streams_group.py, streams_convergence): settle() reports it as a convergence
    # violation only when this is set; otherwise it lands in Simulator.lost_assignments.
    strict_streams_convergence: bool = False
    # Invariants not checked: the fuzzer's observable phase drops the internal-only ones (a
    # broken derived index) to run on until a consequence a trace shows breaks something.
    ignore: frozenset[str] = frozenset()
    # Registered assignors, an input to every coordinator (kgspec.plugins; None: the built-ins).
    assignors: dict[str, Any] | None = None
    task_assignors: dict[str, Any] | None = None


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
        self.clients: dict[str, Any] = {}  # name -> current incarnation (SimClient or StreamsSimClient)
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
        self._spawning: set[str] = set()  # names whose next incarnation is scheduled
        self._protocol: dict[str, str] = {}  # group id -> "consumer" or "streams"
        self._creating: set[str] = set()  # internal topics the cluster is about to create
        self.lost_assignments: list[str] = []  # the Kafka gap settle() tolerated (streams)
        self._lost_responses: set[tuple[MemberClient, int]] = set()  # (client, correlation id) answered into the void

    # --- set-up ---------------------------------------------------------------------------

    def _new_coordinator(self) -> Coordinator:
        return Coordinator(self.config.profile, self.config.configs, self.mutants,
                           assignors=self.config.assignors, task_assignors=self.config.task_assignors)

    def new_uuid(self) -> str:
        """A random Kafka Uuid string; like ``Uuid.randomUuid`` never one starting with '-'."""
        while True:
            text = kafka_uuid_string(self.rng.getrandbits(128).to_bytes(16, "big"))
            if not text.startswith("-"):
                return text

    @property
    def session_timeout_ms(self) -> int:
        return self.coordinator.config.int("group.consumer.session.timeout.ms")

    def _session_timeout(self, gid: str) -> int:
        if self._protocol.get(gid) == "streams":
            return self.coordinator.config.int("group.streams.session.timeout.ms")
        return self.session_timeout_ms

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
        for gid in [*self.coordinator.groups, *self.coordinator.streams_groups]:
            self._check(gid)

    # --- clients --------------------------------------------------------------------------

    def add_client(self, group_id: str, topics: tuple[str, ...], static: bool = False,
                   options: ClientOptions | None = None, name: str | None = None) -> str:
        name = name or f"c{next(self._names)}"
        instance = f"{name}-instance" if static else None
        self._protocol.setdefault(group_id, "consumer")
        self._spawn(_Spawn(name, group_id, topics, instance, options or ClientOptions()))
        return name

    def add_streams_client(self, group_id: str, process_id: str, topology: dict[str, Any],
                           options: ClientOptions | None = None, name: str | None = None) -> str:
        """A stream thread of the Kafka Streams instance ``process_id`` joins ``group_id``."""
        name = name or f"c{next(self._names)}"
        self._protocol.setdefault(group_id, "streams")
        self._start(StreamsSimClient(name, group_id, self.new_uuid(), process_id, topology, options))
        return name

    def crash_process(self, process_id: str) -> None:
        """A Kafka Streams instance dies: every stream thread of ``process_id`` stops."""
        for client in self.clients.values():
            if isinstance(client, StreamsSimClient) and client.process_id == process_id:
                client.crash()

    def stall(self, name: str, duration_ms: int) -> None:
        """The application stops polling for ``duration_ms`` (see ``MemberClient.stall_poll``)."""
        client = self.clients.get(name)
        if client is not None:
            client.stall_poll(self.now, duration_ms)
            self._reschedule(client)

    def freeze(self, name: str, duration_ms: int) -> None:
        """The client's process stops for ``duration_ms`` (see ``MemberClient.freeze``)."""
        client = self.clients.get(name)
        if client is not None:
            client.freeze(self.now, duration_ms)
            self._reschedule(client)

    def zombie_commit(self, name: str) -> bool:
        """The client sends its last commit again as it was built (see ``committer.Committer.zombie``)."""
        client = self.clients.get(name)
        if not isinstance(client, SimClient) or not client.zombie_commit():
            return False
        self._reschedule(client)
        return True

    def resubscribe(self, name: str, topics: tuple[str, ...], regex: str | None = None) -> None:
        """A consumer subscribes again, to other topic names or another pattern."""
        client = self.clients.get(name)
        if isinstance(client, SimClient) and not client.done:
            client.resubscribe(topics, regex)
            self._reschedule(client)

    def _spawn(self, spec: _Spawn) -> None:
        self._start(SimClient(spec.name, spec.group_id, self.new_uuid(), spec.topics, spec.instance_id,
                              spec.options))

    def _start(self, client: MemberClient) -> None:
        """A new client incarnation (it replaces any of the same name) subscribes now."""
        self.clients[client.name] = client
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
        self._respawn(client, client.opts.reconcile_ms + downtime_ms)

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
        loaded: dict[str, Any] = {**fresh.groups, **fresh.streams_groups}
        for gid, group in loaded.items():
            timeout = self._session_timeout(gid)
            self._deadlines[gid] = dict.fromkeys(group.members, self.now + timeout)
            self._push(self.now + timeout, "tick", None)
        for gid in list(loaded):
            self._check(gid)

    # --- the event loop -------------------------------------------------------------------

    def _push(self, at: int, kind: str, payload: Any) -> None:
        heapq.heappush(self._queue, (at, next(self._seq), kind, payload))

    def _reschedule(self, client: MemberClient) -> None:
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
                woken: MemberClient = payload[0]
                if self._wake_token.get(woken.name) == payload[1] and self.clients.get(woken.name) is woken:
                    self._wake(woken)
            elif kind == "request":
                self._deliver_request(*payload)
            elif kind == "commit":
                self._deliver_commit(*payload)
            elif kind == "response":
                receiver: MemberClient = payload[0]
                if receiver.frozen(self.now):
                    assert receiver.frozen_until is not None
                    self._push(receiver.frozen_until, kind, payload)  # read once the process runs again
                    continue
                receiver.on_response(payload[1], payload[2], self.now)
                self._after_response(receiver)
                if self.clients.get(receiver.name) is receiver:
                    self._reschedule(receiver)
            elif kind == "leave":
                self.leave(payload)
            elif kind == "spawn":
                self._spawning.discard(payload.name)
                self._spawn(payload)
            elif kind == "create":
                self._create_topic(*payload)
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

    def _wake(self, client: MemberClient) -> None:
        request = client.wake(self.now)
        heartbeat_corr = client.corr
        if isinstance(client, SimClient):  # offset commits go first, on the same connection
            for corr, commit in client.take_commits(self.now):
                for at in self.network.send(client.name, f"{client.name}>", self.now):
                    self._push(at, "commit", (client, corr, commit))
        if request is not None:
            corr = heartbeat_corr
            for at in self.network.send(client.name, f"{client.name}>", self.now):
                self._push(at, "request", (client, corr, request))
        self._reschedule(client)

    def _deliver_request(self, client: MemberClient, corr: int, request: dict[str, Any]) -> None:
        gid = request["groupId"]
        if isinstance(client, StreamsSimClient):
            self._deliver_streams_request(client, corr, request)
            return
        group = self.coordinator.groups.get(gid)
        before: ConsumerMember | None = None
        if group is not None:
            if request.get("instanceId") is not None:
                before = group.static_member(request["instanceId"])
                if before is not None and before.member_id != request["memberId"]:
                    before = None
            else:
                before = group.members.get(request["memberId"])
        response, changed = self._call(client, corr, request)
        if response is not None:
            self._check(gid, (before, request, response), changed=changed or group is None)

    def _deliver_streams_request(self, client: StreamsSimClient, corr: int, request: dict[str, Any]) -> None:
        gid = request["groupId"]
        group = self.coordinator.streams_groups.get(gid)
        before = group.members.get(request["memberId"]) if group is not None else None
        response, changed = self._call(client, corr, request)
        if response is None:
            return
        if response.get("errorCode") == 0:
            for topic in self.coordinator.last_streams_topics_to_create.values():
                if topic.name not in self._creating and self.coordinator.topics.by_name(topic.name) is None:
                    self._creating.add(topic.name)
                    self._push(self.now + self.config.internal_topic_delay_ms, "create",
                               (topic.name, topic.num_partitions))
        self._check(gid, (before, request, response), changed=changed or group is None)

    def _deliver_commit(self, client: SimClient, corr: int, request: dict[str, Any]) -> None:
        """An OffsetCommit at the coordinator; commit-fencing judges what it accepted."""
        response, _ = self._call(client, corr, request, (OFFSET_COMMIT, OFFSET_COMMIT_VERSION))
        if response is None or not self.config.check or COMMIT_FENCING in self.config.ignore:
            return
        observed = {(t.get("topicId"), p.get("partitionIndex")): p
                    for t in response.get("topics") or [] for p in t.get("partitions") or []}
        # An OffsetCommit writes offset records only: the members it is judged against are as before it.
        found = commit_fencing_problems(self.coordinator, request["groupId"], request, observed, OFFSET_COMMIT_VERSION)
        self.violations.extend(Violation(name, request["groupId"], message) for name, message in found)

    def _call(self, client: MemberClient, corr: int, request: dict[str, Any],
              api: tuple[int, int] | None = None) -> tuple[dict[str, Any] | None, bool]:
        """One heartbeat (or ``api``: another request) at the coordinator: trace it, keep its
        records, send the response."""
        gid = request["groupId"]
        api_key, version = api or (client.API_KEY, client.API_VERSION)
        result = self._guard(gid, lambda: self.coordinator.handle(
            api_key, version, request, now=self.now, client_id=client.name))
        if result is None or result.response is None:
            return None, False
        response: dict[str, Any] = result.response
        self.steps += 1
        self.events.append(trace.call_event(self.now, client.name, corr, request, response, version, api_key))
        self._written(result.records, self.now)
        if api is None:
            self._track_session(gid, request, response)
        # The answers to a duplicated request share the connection's fate: once one is lost, so
        # is the other (a byte-identical copy is not a retry, so it must not smuggle in a
        # second, different answer the first would have made unnecessary).
        key = (client, corr)  # the incarnation, not the name: a restarted client counts from 1 again
        deliveries = [] if key in self._lost_responses else self.network.send(client.name, f"{client.name}<", self.now)
        if not deliveries:
            self._lost_responses.add(key)
        for at in deliveries:
            self._push(at, "response", (client, corr, response))
        return response, bool(result.records)

    def _create_topic(self, name: str, partitions: int) -> None:
        """The cluster creates an internal topic a streams heartbeat asked for."""
        self._creating.discard(name)
        if self.coordinator.topics.by_name(name) is None:
            self.set_topic(name, partitions)

    def _after_response(self, client: MemberClient) -> None:
        """A static instance that failed fatally (its id not yet released) is restarted later."""
        if (isinstance(client, SimClient) and client.state == "FATAL" and client.instance_id is not None
                and client.alive):
            client.alive = False
            self._respawn(client, RESTART_BACKOFF_MS)

    def _respawn(self, client: SimClient, after_ms: int) -> None:
        """A new process of ``client`` (same name and instance id) starts ``after_ms`` from now.

        One at a time per name: a process restarted by the operator whose last request then
        fails fatally (UNRELEASED_INSTANCE_ID, its leave lost) is already being replaced, and
        a process already replaced is nobody's to restart. Two restarts of one name would run
        two processes of one instance, each fencing the other's joins, with the member that
        wins belonging to the one no longer tracked.
        """
        if client.name in self._spawning or self.clients.get(client.name) is not client:
            return
        self._spawning.add(client.name)
        spec = _Spawn(client.name, client.group_id, client.topics, client.instance_id, client.opts)
        self._push(self.now + after_ms, "spawn", spec)

    def _track_session(self, gid: str, request: dict[str, Any], response: dict[str, Any]) -> None:
        if response.get("errorCode") != 0:
            return
        deadlines = self._deadlines.setdefault(gid, {})
        mid = response.get("memberId") or request["memberId"]
        if request["memberEpoch"] == LEAVE_GROUP_MEMBER_EPOCH:
            deadlines.pop(mid, None)
        elif request["memberEpoch"] >= 0:
            deadlines[mid] = self.now + self._session_timeout(gid)
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
        """What the clients in good standing (their member is current at the client's epoch
        or the previous one) have made effective: partitions, or a streams client's active tasks."""
        group: Any = self.coordinator.groups.get(gid) or self.coordinator.streams_groups.get(gid)
        beliefs: dict[str, dict[str, Any]] = {}
        if group is None:
            return beliefs
        for client in self.clients.values():
            if client.group_id != gid or not client.alive or not client.owned:
                continue
            member = group.members.get(client.member_id)
            if member is not None and client.epoch in (member.member_epoch, member.previous_member_epoch):
                owned = client.active if isinstance(client, StreamsSimClient) else client.owned
                beliefs[client.name] = dict(owned)
        return beliefs

    def _check(self, gid: str, call: tuple[Any, dict[str, Any], dict[str, Any]] | None = None,
               changed: bool = True) -> None:
        """Check ``gid``; when the step wrote no record the group is unchanged, so only the
        checks that read more than the group's state (the call, time, clients) run again."""
        if not self.config.check:
            return
        if self._protocol.get(gid) == "streams" or gid in self.coordinator.streams_groups:
            self._check_streams(gid, call, changed)
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
        self.violations.extend(check_all(obs, self._checks(CONSUMER_INVARIANTS, changed, UNCHANGED_STATE_CHECKS)))
        if changed:
            self._previous[gid] = snapshot_epochs(group)

    def _checks(self, every: Any, changed: bool, unchanged: tuple[str, ...]) -> tuple[str, ...] | None:
        """The invariant names to run (None: all of them)."""
        names = tuple(every) if changed else unchanged
        if not self.config.ignore:
            return None if changed else names
        return tuple(n for n in names if n not in self.config.ignore)

    def _check_streams(self, gid: str, call: tuple[StreamsMember | None, dict[str, Any], dict[str, Any]] | None,
                       changed: bool) -> None:
        group = self.coordinator.streams_groups.get(gid)
        shadow = self.shadow
        obs = StreamsObservation(
            gid, group, previous=self._previous.get(gid),
            replayed=shadow.streams_groups.get(gid) if shadow is not None else None,
            check_replay=shadow is not None, now=self.now,
            session_deadlines=self._deadlines.get(gid, {}), call=call,
            client_beliefs=self._beliefs(gid),
        )
        self.violations.extend(check_streams(obs, self._checks(STREAMS_GROUP_INVARIANTS, changed,
                                                               UNCHANGED_STREAMS_CHECKS)))
        if changed:
            self._previous[gid] = snapshot_streams_epochs(group)

    # --- convergence ----------------------------------------------------------------------

    def settle_bound_ms(self) -> int:
        """:func:`convergence_bound_ms` (or the streams bound, if longer, when streams groups
        run) plus what the simulated clients add after faults stop: a request lost just
        before (one request timeout), a static restart still pending (its downtime, capped
        by the restart back-off, and a fatal retry) and callbacks."""
        opts: list[ClientOptions] = [c.opts for c in self.clients.values()] or [ClientOptions()]
        slack = (max(o.request_timeout_ms for o in opts) + 2 * RESTART_BACKOFF_MS
                 + 3 * max(o.reconcile_ms for o in opts))
        delay = self.network.config.max_delay_ms
        bound = convergence_bound_ms(self.coordinator.config, delay)
        if "streams" in self._protocol.values():
            bound = max(bound, streams_convergence_bound_ms(self.coordinator.config, delay,
                                                            self.config.internal_topic_delay_ms))
        return bound + slack

    def settle(self) -> list[Violation]:
        """Stop faults (the network heals, stalled clients poll again, frozen ones resume),
        run for the bound, then check convergence of every group."""
        self.network.config = NetworkConfig(0.0, 0.0, self.network.config.min_delay_ms,
                                            self.network.config.max_delay_ms)
        self.network.heal()
        for client in self.clients.values():
            client.resume()
            self._reschedule(client)
        self.run_for(self.settle_bound_ms())
        if self.violations:
            return self.violations
        coord = self.coordinator
        for gid in sorted({c.group_id for c in self.clients.values()} | set(coord.groups) | set(coord.streams_groups)):
            live = {c.member_id: ClientView(c.epoch, c.state, c.owned) for c in self.clients.values()
                    if c.group_id == gid and c.alive and c.state in IN_GROUP}
            if self._protocol.get(gid) == "streams":
                group = coord.streams_groups.get(gid)
                tolerate = not self.config.strict_streams_convergence
                found = streams_convergence(group, live, self._ready_expected(gid), tolerate)
                if tolerate:
                    self.lost_assignments.extend(lost_assignments(group, live))
            else:
                found = convergence(coord.groups.get(gid), live)
            self.violations.extend(Violation(CONVERGENCE, gid, m) for m in found)
        return self.violations

    def _ready_expected(self, gid: str) -> bool:
        """Whether a streams group should be ready once faults stop: every source topic exists
        and no topic has the wrong partition count (both need an operator, not time)."""
        group = self.coordinator.streams_groups.get(gid)
        if group is None or group.topology is None:
            return True
        sources = {t for sub in group.topology.subtopologies for t in sub.source_topics}
        configured = group.configured_topology
        status = configured.status.status if configured is not None and configured.status is not None else None
        return (all(self.coordinator.topics.by_name(t) for t in sources)
                and status not in (Status.MISSING_SOURCE_TOPICS, Status.INCORRECTLY_PARTITIONED_TOPICS))

    def finish(self, describe: bool = False) -> list[dict[str, Any]]:
        """The trace so far, closed by a tick at the current time.

        ``describe``: first a ConsumerGroupDescribe / StreamsGroupDescribe of every group, so
        that a bug whose only effect is the coordinator's state (a member that is never
        fenced) is visible to ``kgspec check`` too. The fuzzer writes failing runs this way.
        """
        closing = [self._describe_event(gid) for gid in sorted(self._protocol)] if describe else []
        return [*self.events, *closing, trace.tick_event(self.now)]

    def _describe_event(self, gid: str) -> dict[str, Any]:
        streams = self._protocol[gid] == "streams"
        api_key, version = (STREAMS_GROUP_DESCRIBE, 0) if streams else (CONSUMER_GROUP_DESCRIBE, 1)
        request = {"groupIds": [gid], "includeAuthorizedOperations": False}
        result = self.coordinator.handle(api_key, version, request, now=self.now, client_id="kgspec-sim")
        assert result.response is not None
        return trace.call_event(self.now, "kgspec-sim", 0, request, result.response, version, api_key)
