"""Focused scenarios that take the declared transitions no golden trace or simulated run takes.

``tests/test_spec_lifecycle_coverage.py`` runs every scenario in :data:`SCENARIOS` under its
``Watch``, next to the traces: each must change states only through fired transitions (its
apply-boundary rule (b)), and together they take the transitions the traces leave out. Each
scenario drives the model's real entry points (``Coordinator.handle``, ``advance``, ``replay``,
``failover``, the simulator's client) and asserts where it ends, so a scenario that silently
stops reaching its transition fails here rather than only shrinking the coverage.

An unknown MemberState byte is *loaded* (``Coordinator.replay`` of a CurrentMemberAssignment
record whose state byte is 42, as ``test_replay_loads_an_unknown_state_byte_without_the_table``
does): replay is a load (docs/spec.md), so ``unknown_state_loaded`` itself is never fired; the
transitions out of UNKNOWN are then taken by the handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgspec.model.connect.member import STATE_NAMES as CONNECT_STATE_NAMES
from kgspec.model.consumer import records as crec
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.step import Decision
from kgspec.model.streams import records as srec
from kgspec.model.streams.member import ROLE_FIELDS
from kgspec.model.streams.records import tasks_json
from kgspec.spec import members as ms

from kgspec.sim.client import ClientOptions, SimClient
from tests.classic.harness import Harness as ClassicHarness
from tests.connect.harness import (
    COMPUTE_ASSIGNMENT,
    CONFIG,
    INVALID_ASSIGNMENT,
    Cluster,
    assignor,
    ct,
)
from tests.consumer.helpers import Harness, tid
from tests.streams.helpers import coordinator, hb, join

UNKNOWN_STATE_BYTE = 42  # no MemberState has it: MemberState.fromValue -> UNKNOWN
FOO6 = {"foo": [0, 1, 2, 3, 4, 5]}


def _ok(result: Decision) -> dict[str, Any]:
    assert result.response is not None
    assert result.response["errorCode"] == 0, result.response
    return result.response


# --- consumer groups --------------------------------------------------------------------------


def _consumer_state(h: Harness, member_id: str) -> str:
    return h.group.lifecycle_state(h.member(member_id))


def _load_unknown_consumer(h: Harness, member_id: str) -> None:
    """Replay the member's CurrentMemberAssignment record with an unknown state byte (a load)."""
    record = crec.current_assignment_record(h.group_id, h.member(member_id), h.coord.profile)
    assert record.value is not None
    record.value["state"] = UNKNOWN_STATE_BYTE
    h.replay([record])
    assert _consumer_state(h, member_id) == ms.UNKNOWN


def consumer_static_leave_corners() -> None:
    """-2 from UNREVOKED and UNRELEASED, the replacement rejoining while partitions are still
    unreleased, a second -2, -1 after -2, and a session timeout while temporarily left."""
    h = Harness({"foo": 6})
    h.now = 1_000
    _ok(h.join("s1", ["foo"], instance="i1", assignor="range"))
    h.ack("s1", instanceId="i1")
    h.now += 1_000
    _ok(h.join("s2", ["foo"], instance="i2", assignor="range"))
    assert _consumer_state(h, "s2") == "UNRELEASED_PARTITIONS"
    _ok(h.heartbeat("s1", owned=FOO6, instanceId="i1"))
    assert _consumer_state(h, "s1") == "UNREVOKED_PARTITIONS"
    # -2 from UNRELEASED; the replacement rejoins while s1 still holds its partitions.
    _ok(h.leave("s2", -2, instance="i2"))
    assert _consumer_state(h, "s2") == ms.TEMPORARILY_LEFT
    h.now += 1_000
    _ok(h.join("s2b", ["foo"], instance="i2", assignor="range"))
    assert "s2" not in h.group.members
    assert _consumer_state(h, "s2b") == "UNRELEASED_PARTITIONS"
    # -2 from UNREVOKED (pending revocations cleared, no epoch bump).
    _ok(h.leave("s1", -2, instance="i1"))
    assert _consumer_state(h, "s1") == ms.TEMPORARILY_LEFT
    # -2 from UNRELEASED, then a second -2, then -1 while temporarily left.
    _ok(h.leave("s2b", -2, instance="i2"))
    _ok(h.leave("s2b", -2, instance="i2"))
    assert _consumer_state(h, "s2b") == ms.TEMPORARILY_LEFT
    _ok(h.leave("s2b", -1, instance="i2"))
    assert "s2b" not in h.group.members
    # s1 stays away: its session timer keeps running and fences it.
    h.sleep(60_000)
    assert h.group.members == {}


def consumer_static_rejoin_reconciled() -> None:
    """-2 from STABLE, then the same instance rejoins and reconciles at once."""
    h = Harness({"foo": 6})
    h.now = 1_000
    _ok(h.join("s1", ["foo"], instance="i1", assignor="range"))
    h.ack("s1", instanceId="i1")
    assert _consumer_state(h, "s1") == ms.STABLE
    _ok(h.leave("s1", -2, instance="i1"))
    h.now += 1_000
    _ok(h.join("s1b", ["foo"], instance="i1", assignor="range"))
    assert _consumer_state(h, "s1b") == ms.STABLE


def consumer_unknown_state() -> None:
    """Out of UNKNOWN: assigned with unreleased partitions, reconciled, left (-1), a static -2,
    and a session timeout (fenced)."""
    h = Harness({"foo": 6})
    h.now = 1_000
    _ok(h.join("a", ["foo"], assignor="range"))
    h.ack("a")
    h.now += 1_000
    _ok(h.join("b", ["foo"], assignor="range"))
    assert _consumer_state(h, "b") == "UNRELEASED_PARTITIONS"
    # b owns nothing: UNKNOWN -> UNRELEASED (a still holds b's target).
    _load_unknown_consumer(h, "b")
    _ok(h.heartbeat("b", owned={}))
    assert _consumer_state(h, "b") == "UNRELEASED_PARTITIONS"
    h.ack("a")  # a revokes
    h.ack("a")
    # UNKNOWN -> STABLE: b reports owning nothing and its target is free now.
    _load_unknown_consumer(h, "b")
    _ok(h.heartbeat("b", owned={}))
    assert _consumer_state(h, "b") == ms.STABLE
    # UNKNOWN -> LEFT.
    _load_unknown_consumer(h, "b")
    _ok(h.leave("b", -1))
    assert "b" not in h.group.members
    # UNKNOWN -> TEMPORARILY_LEFT (a static member).
    h.now += 1_000
    _ok(h.join("s", ["foo"], instance="i", assignor="range"))
    _load_unknown_consumer(h, "s")
    _ok(h.leave("s", -2, instance="i"))
    assert _consumer_state(h, "s") == ms.TEMPORARILY_LEFT
    # UNKNOWN -> FENCED: a stops heartbeating (s, temporarily left, is fenced too).
    _load_unknown_consumer(h, "a")
    h.sleep(60_000)
    assert h.group.members == {}


# --- streams groups (static membership: kafka-trunk) ----------------------------------------


def _streams_call(c: Coordinator, now: int, member: str, epoch: int, instance: str | None = None,
                  **fields: Any) -> Decision:
    return hb(c, now, member, epoch, instanceId=instance, **fields)


def _streams_owning(c: Coordinator, now: int, member: str, instance: str | None = None,
                    owned: dict[str, Any] | None = None) -> Decision:
    """A heartbeat at the member's epoch reporting ``owned`` (default: what it holds)."""
    m = c.streams_groups["g"].members[member]
    if owned is None:
        owned = {field: tasks_json(m.assigned.get(role, {})) for role, field in ROLE_FIELDS.items()}
    return _streams_call(c, now, member, m.member_epoch, instance, **owned)


def _streams_state(c: Coordinator, member: str) -> str:
    g = c.streams_groups["g"]
    return g.lifecycle_state(g.members[member])


def _load_unknown_streams(c: Coordinator, member: str) -> None:
    g = c.streams_groups["g"]
    record = srec.current_assignment_record("g", g.members[member], c.profile)
    assert record.value is not None
    record.value["state"] = UNKNOWN_STATE_BYTE
    c.replay(record)
    assert _streams_state(c, member) == ms.UNKNOWN


NOTHING = {"activeTasks": [], "standbyTasks": [], "warmupTasks": []}


def streams_static_leave_corners() -> None:
    """The consumer scenario's static corners for a streams group (trunk)."""
    c = coordinator("kafka-trunk")
    _ok(join(c, 0, "s1", "p1", instanceId="i1"))
    _ok(_streams_owning(c, 100, "s1", "i1"))
    assert _streams_state(c, "s1") == ms.STABLE
    _ok(join(c, 200, "s2", "p2", instanceId="i2"))
    assert _streams_state(c, "s2") == "UNRELEASED_TASKS"
    _ok(_streams_owning(c, 300, "s1", "i1", {"activeTasks": [
        {"subtopologyId": "sub1", "partitions": [0, 1, 2, 3, 4, 5]},
        {"subtopologyId": "sub2", "partitions": [0, 1, 2]}], "standbyTasks": [], "warmupTasks": []}))
    assert _streams_state(c, "s1") == "UNREVOKED_TASKS"
    _ok(_streams_call(c, 400, "s2", -2, "i2"))
    assert _streams_state(c, "s2") == ms.TEMPORARILY_LEFT
    _ok(join(c, 500, "s2b", "p2", instanceId="i2"))
    assert "s2" not in c.streams_groups["g"].members
    assert _streams_state(c, "s2b") == "UNRELEASED_TASKS"
    _ok(_streams_call(c, 600, "s1", -2, "i1"))
    assert _streams_state(c, "s1") == ms.TEMPORARILY_LEFT
    _ok(_streams_call(c, 700, "s2b", -2, "i2"))
    _ok(_streams_call(c, 800, "s2b", -2, "i2"))
    assert _streams_state(c, "s2b") == ms.TEMPORARILY_LEFT
    _ok(_streams_call(c, 900, "s2b", -1, "i2"))
    assert "s2b" not in c.streams_groups["g"].members
    c.advance(120_000)
    assert c.streams_groups["g"].members == {}


def streams_static_rejoin_reconciled() -> None:
    c = coordinator("kafka-trunk")
    _ok(join(c, 0, "s1", "p1", instanceId="i1"))
    _ok(_streams_owning(c, 100, "s1", "i1"))
    _ok(_streams_call(c, 200, "s1", -2, "i1"))
    _ok(join(c, 300, "s1b", "p1", instanceId="i1"))
    assert _streams_state(c, "s1b") == ms.STABLE


def streams_unknown_state() -> None:
    c = coordinator("kafka-trunk")
    _ok(join(c, 0, "a", "p1"))
    _ok(_streams_owning(c, 100, "a"))
    _ok(join(c, 200, "b", "p2"))
    assert _streams_state(c, "b") == "UNRELEASED_TASKS"
    _load_unknown_streams(c, "b")
    _ok(_streams_call(c, 300, "b", c.streams_groups["g"].members["b"].member_epoch, **NOTHING))
    assert _streams_state(c, "b") == "UNRELEASED_TASKS"
    _ok(_streams_owning(c, 400, "a"))  # a revokes what b waits for
    _ok(_streams_owning(c, 500, "a"))
    _load_unknown_streams(c, "b")
    _ok(_streams_call(c, 600, "b", c.streams_groups["g"].members["b"].member_epoch, **NOTHING))
    assert _streams_state(c, "b") == ms.STABLE
    _load_unknown_streams(c, "b")
    _ok(_streams_call(c, 700, "b", -1))
    assert "b" not in c.streams_groups["g"].members
    _ok(join(c, 800, "s", "p3", instanceId="i"))
    _load_unknown_streams(c, "s")
    _ok(_streams_call(c, 900, "s", -2, "i"))
    assert _streams_state(c, "s") == ms.TEMPORARILY_LEFT
    _load_unknown_streams(c, "a")
    c.advance(120_000)
    assert c.streams_groups["g"].members == {}


# --- streams topology: reconfiguration between not-ready states, and deletion ------------------

#: Two copartitioned source topics and a changelog (an internal topic the group requires).
COPARTITIONED = {"epoch": 0, "subtopologies": [{
    "subtopologyId": "0", "sourceTopics": ["ta", "tb"], "sourceTopicRegex": [],
    "stateChangelogTopics": [{"name": "app-chg", "partitions": 0, "replicationFactor": 0, "topicConfigs": []}],
    "repartitionSinkTopics": [], "repartitionSourceTopics": [],
    "copartitionGroups": [{"sourceTopics": [0, 1], "sourceTopicRegex": [], "repartitionSourceTopics": []}]}]}
MS, IP, MI, READY = "MISSING_SOURCE_TOPICS", "INCORRECTLY_PARTITIONED_TOPICS", "MISSING_INTERNAL_TOPICS", "READY"
#: An Eulerian circuit of the complete digraph (with loops) on the four configured outcomes:
#: consecutive pairs are every (from, to) reconfiguration, self-loops included.
OUTCOME_WALK = (MS, READY, READY, MI, READY, IP, READY, MS, MI, MI, IP, MI, MS, IP, IP, MS, MS)


def _topics_for(c: Coordinator, outcome: str, n: int) -> None:
    """Broker metadata that configureTopics reads as ``outcome``; ``n`` changes the metadata hash."""
    counts = {MS: {"ta": None, "tb": n, "app-chg": None}, IP: {"ta": n, "tb": n + 1, "app-chg": None},
              MI: {"ta": n, "tb": n, "app-chg": None}, READY: {"ta": n, "tb": n, "app-chg": n}}[outcome]
    for name, count in counts.items():
        if count is None:
            c.delete_topic(name)
        else:
            c.update_topic(name, tid(name), count)


def _streams_group_at(profile: str, outcome: str, records: list[Any] | None = None) -> Coordinator:
    c = Coordinator(profile, {"group.streams.initial.rebalance.delay.ms": 0})
    _topics_for(c, outcome, 2)
    r = join(c, 0, "m", "p", COPARTITIONED)
    _ok(r)
    if records is not None:
        records.extend(r.records)
    # The group this first heartbeat creates is configured again by the next one.
    r = _streams_owning(c, 10, "m")
    _ok(r)
    if records is not None:
        records.extend(r.records)
    assert c.streams_groups["g"].topology_state() == outcome
    return c


def streams_topology_reconfigured() -> None:
    """Topic metadata changes between heartbeats: every configured outcome from every other."""
    c = _streams_group_at("kafka-4.3", OUTCOME_WALK[0])
    g = c.streams_groups["g"]
    for i, outcome in enumerate(OUTCOME_WALK[1:], start=1):
        _topics_for(c, outcome, 2 + i)
        _ok(_streams_owning(c, 1_000 * i, "m"))
        assert g.topology_state() == outcome, (i, outcome, g.topology_state())


def _classic_join(c: Coordinator, now: int) -> Decision:
    request = {"groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000, "memberId": "",
               "groupInstanceId": None, "protocolType": "consumer",
               "protocols": [{"name": "range", "metadata": "AAE="}], "reason": None}
    return c.handle(11, 9, request, now=now, client_id="classic")


def streams_topology_deleted() -> None:
    """An empty streams group makes way for a classic group (KAFKA-19570): its topology tombstone
    is written from whichever state the topology is in, INITIALIZED after a reload included."""
    for outcome in (MS, IP, MI, READY):
        c = _streams_group_at("kafka-4.3", outcome)
        _ok(_streams_call(c, 100, "m", -1))
        _classic_join(c, 200)
        assert "g" not in c.streams_groups
    # INITIALIZED: a reloaded topology is not configured until a heartbeat configures it.
    records: list[Any] = []
    c = _streams_group_at("kafka-4.3", READY, records)
    left = _streams_call(c, 100, "m", -1)
    _ok(left)
    records.extend(left.records)
    fresh = Coordinator("kafka-4.3")
    for record in records:
        fresh.replay(record)
    assert fresh.streams_groups["g"].topology_state() == "INITIALIZED"
    _classic_join(fresh, 200)
    assert "g" not in fresh.streams_groups


# --- the consumer client (kgspec/sim/client.py) against the coordinator ----------------------

#: A non-retriable heartbeat error the coordinator model never answers (it has no ACLs); the
#: client treats it as fatal (ConsumerHeartbeatRequestManager: GROUP_AUTHORIZATION_FAILED).
GROUP_AUTHORIZATION_FAILED = int(Errors.GROUP_AUTHORIZATION_FAILED)


class _Wire:
    """One simulated client and the coordinator, with requests held until :meth:`deliver`."""

    def __init__(self, reconcile_ms: int = 0, poll_interval_ms: int = 30_000) -> None:
        self.coord = Coordinator("kafka-4.3")
        self.coord.update_topic("foo", tid("foo"), 6)
        self.client = SimClient("c", "g", "c", ("foo",), options=ClientOptions(
            reconcile_ms=reconcile_ms, rebalance_timeout_ms=poll_interval_ms, request_timeout_ms=30_000))
        self.held: list[tuple[int, dict[str, Any]]] = []

    @property
    def state(self) -> str:
        return self.client.state

    def wake(self, now: int) -> None:
        request = self.client.wake(now)
        if request is not None:
            self.held.append((self.client.corr, request))

    def deliver(self, now: int, error: int | None = None) -> None:
        """Answer the oldest held request: by the coordinator at ``now``, or with ``error``."""
        corr, request = self.held.pop(0)
        self.coord.advance(now)
        if error is None:
            response = self.coord.handle(68, 1, request, now=now, client_id="c").response
            assert response is not None
        else:
            response = {"errorCode": error, "errorMessage": None}
        self.client.on_response(corr, response, now)

    def round(self, now: int) -> None:
        self.wake(now)
        while self.held:
            self.deliver(now)


def _reconciling(reconcile_ms: int, poll_interval_ms: int = 30_000) -> _Wire:
    """A client that joined at 0 and reconciles all six partitions until ``reconcile_ms``."""
    w = _Wire(reconcile_ms, poll_interval_ms)
    w.client.subscribe(0)
    w.round(0)
    assert w.state == "RECONCILING"
    return w


def _acknowledging(poll_interval_ms: int = 30_000) -> _Wire:
    """A client whose reconciliation completes while a heartbeat is in flight: ACKNOWLEDGING."""
    w = _reconciling(6_000, poll_interval_ms)
    w.wake(5_000)  # the heartbeat is held
    w.wake(6_000)
    assert (w.state, len(w.held)) == ("ACKNOWLEDGING", 1)
    return w


def _prepare_leaving() -> _Wire:
    """:func:`_acknowledging`, then leave() at 6 s, the heartbeat still in flight: PREPARE_LEAVING."""
    w = _acknowledging()
    w.client.leave(6_000)
    assert w.state == "PREPARE_LEAVING"
    return w


def _leaving() -> _Wire:
    """:func:`_prepare_leaving`, its callbacks done at 12 s, the old heartbeat still in flight: LEAVING."""
    w = _prepare_leaving()
    w.wake(12_000)
    assert w.state == "LEAVING"
    return w


def _stable() -> _Wire:
    w = _reconciling(0)
    w.round(0)
    assert w.state == "STABLE"
    return w


def client_reconciling_gets_a_new_target() -> None:
    """A new target arrives while reconciling; the ack then finds more to reconcile."""
    w = _reconciling(10_000)
    other = SimClient("d", "g", "d", ("foo",))
    other.subscribe(1_000)
    request = other.wake(1_000)
    assert request is not None
    other.on_response(other.corr, w.coord.handle(68, 1, request, now=1_000, client_id="d").response or {}, 1_000)
    w.round(5_000)  # the coordinator now revokes half: assignment_received while RECONCILING
    assert w.state == "RECONCILING"
    w.round(10_000)  # the old reconciliation completes; the ack sees a target it does not own yet
    assert w.state == "RECONCILING"


def client_in_flight_errors() -> None:
    """Fencing and fatal answers to a heartbeat in flight, in each state it can be in flight."""
    # ACKNOWLEDGING: fenced (the coordinator's session timeout), and fatal.
    w = _acknowledging()
    w.deliver(60_000)
    assert w.state == "JOINING"  # fenced, then rejoined
    w = _acknowledging()
    w.deliver(6_000, GROUP_AUTHORIZATION_FAILED)
    assert w.state == "FATAL"
    # RECONCILING: fenced, and fatal.
    w = _reconciling(10_000)
    w.wake(5_000)
    w.deliver(60_000)
    assert w.state == "JOINING"
    w = _reconciling(10_000)
    w.wake(5_000)
    w.deliver(5_000, GROUP_AUTHORIZATION_FAILED)
    assert w.state == "FATAL"
    # STABLE: fatal.
    w = _stable()
    w.wake(5_000)
    w.deliver(5_000, GROUP_AUTHORIZATION_FAILED)
    assert w.state == "FATAL"
    # PREPARE_LEAVING (leave() from ACKNOWLEDGING, callbacks running): fatal, and fenced.
    w = _prepare_leaving()
    w.deliver(6_000, GROUP_AUTHORIZATION_FAILED)
    assert w.state == "FATAL"
    w = _prepare_leaving()
    w.deliver(60_000)
    assert w.state == "UNSUBSCRIBED"
    # LEAVING (callbacks done, the old heartbeat still in flight): fatal, and fenced.
    w = _leaving()
    w.deliver(12_000, GROUP_AUTHORIZATION_FAILED)
    assert w.state == "FATAL"
    w = _leaving()
    w.deliver(60_000)
    assert w.state == "UNSUBSCRIBED"


def client_poll_timeouts() -> None:
    """max.poll.interval.ms expiring in each in-group state; the stale member rejoins; a member
    fenced while stalled leaves instead of rejoining."""
    # JOINING: the join is in flight when the application stops polling.
    w = _Wire(poll_interval_ms=1_000)
    w.client.subscribe(0)
    w.client.stall_poll(0, 100_000)
    w.wake(0)
    w.wake(1_000)
    assert w.state == "LEAVING"
    # RECONCILING (callbacks wait for poll()).
    w = _reconciling(10_000, poll_interval_ms=1_000)
    w.client.stall_poll(100, 100_000)
    w.wake(1_100)
    assert w.state == "STALE"  # the stale leave heartbeat went out at once
    # ACKNOWLEDGING (the ack's heartbeat still in flight).
    w = _acknowledging(poll_interval_ms=1_000)
    w.client.stall_poll(6_000, 100_000)
    w.wake(7_000)
    assert w.state == "LEAVING"
    # STABLE: the stale leave heartbeat, STALE, then the application polls again and rejoins.
    w = _stable()
    w.client.opts = ClientOptions(rebalance_timeout_ms=1_000)
    w.client.stall_poll(100, 5_000)
    w.round(1_100)
    assert w.state == "STALE"
    w.wake(5_100)
    assert w.state == "JOINING"  # the rejoin heartbeat (epoch 0) is out
    # FENCED while stalled (onPartitionsLost waits for poll()), then close(): no rejoin.
    w = _stable()
    w.client.stall_poll(100, 100_000)
    w.wake(5_000)
    w.deliver(60_000)
    assert w.state == "FENCED"
    w.client.leave(60_000)
    assert w.state == "UNSUBSCRIBED"


# --- classic groups: unloaded by a failover -------------------------------------------------


def classic_unloaded() -> None:
    """Coordinator.failover unloads every classic group in memory (onUnloaded: DEAD) from each
    live state, then reloads it from its last GroupMetadata record."""
    seen = []
    for target in ("PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE", "EMPTY"):
        h = ClassicHarness()
        required = h.response(h.join(0))  # MEMBER_ID_REQUIRED, with the member id to use
        joined = h.join(0, required["memberId"])  # parked until the initial rebalance delay ends
        if target != "PREPARING_REBALANCE":
            h.advance(3_000)
            response = h.response(joined)
            member, generation = response["memberId"], response["generationId"]
            if target in ("STABLE", "EMPTY"):
                h.sync(3_000, member, generation, assignments={member: ""})
            if target == "EMPTY":
                h.leave(3_100, [(member, None)])
        group = h.coord.classic_groups["g"]
        assert group.state == target, (target, group.state)
        seen.append(group.state)
        h.coord.failover(10_000)
        assert group.state == "DEAD"  # the unloaded object; the reloaded group replaces it
    assert seen == ["PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE", "EMPTY"]


# --- Connect (the draft, profile kip) -------------------------------------------------------

ALL5 = ["AC0", "AT1", "AT2", "BC0", "BT1"]


def _phase(c: Cluster) -> str:
    return c.coord.connect_groups[c.group].computation.phase


def _worker(c: Cluster, member: str) -> str:
    return CONNECT_STATE_NAMES[c.coord.connect_groups[c.group].members[member].state]


def _connect_one_worker() -> Cluster:
    """W1 joins, is asked to compute, and installs everything without a prepare; it reconciles."""
    c = Cluster()
    c.configure(CONFIG)
    assert c.hb("W1", 0)["errorCode"] == COMPUTE_ASSIGNMENT
    assert _phase(c) == "NOTIFIED"
    assert c.install("W1", 0, 1, {"W1": ALL5})["errorCode"] == 0  # NOTIFIED -> installed
    c.at(1_000)
    c.hb("W1", 0, ct())
    return c


def connect_reconciliation_corners() -> None:
    """Each worker outcome out of UNREVOKED and UNRELEASED, and STABLE -> UNRELEASED."""
    c = _connect_one_worker()
    c.at(2_000)
    c.hb("W2", 0)  # group epoch 2: W1, the sticky computing worker, is chosen at once (REQUESTED)
    assert _phase(c) == "REQUESTED"
    c.prepare("W1", 1)  # REQUESTED -> prepared
    c.install("W1", 1, 2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]})
    c.at(3_000)
    c.hb("W2", 1, ct())  # STABLE -> UNRELEASED: W1 still holds BC0, BT1
    assert _worker(c, "W2") == "UNRELEASED"
    c.hb("W1", 1, ct(*ALL5))  # STABLE -> UNREVOKED
    assert _worker(c, "W1") == "UNREVOKED"
    c.at(4_000)
    c.configure({"A": [1, 2], "B": [1], "C": []})  # group epoch 3
    c.prepare("W1", 1)
    c.install("W1", 1, 3, {"W1": ["AC0", "CC0"], "W2": ["BC0", "BT1", "AT1", "AT2"]})
    c.hb("W2", 2, ct())  # UNRELEASED -> UNRELEASED: everything still held by W1
    assert _worker(c, "W2") == "UNRELEASED"
    c.hb("W1", 1, ct("AC0", "AT1", "AT2"))  # acked BC0, BT1; the new target revokes AT1, AT2 too
    assert _worker(c, "W1") == "UNREVOKED"
    c.hb("W2", 3, ct())  # UNRELEASED -> UNRELEASED with BC0, BT1 (AT1, AT2 still W1's)
    assert _worker(c, "W2") == "UNRELEASED"
    c.at(5_000)
    c.configure({"A": [1, 2], "B": [1]})  # group epoch 4: CC0 goes away
    c.prepare("W1", 1)
    c.install("W1", 1, 4, {"W1": ["AC0", "BT1"], "W2": ["BC0", "AT1", "AT2"]})
    c.hb("W2", 3, ct("BC0", "BT1"))  # UNRELEASED -> UNREVOKED: BT1 left its target and it owns it
    assert _worker(c, "W2") == "UNREVOKED"
    c.hb("W1", 1, ct("AC0"))  # UNREVOKED -> UNRELEASED: acked, but BT1 is W2's still
    assert _worker(c, "W1") == "UNRELEASED"
    c.hb("W2", 3, ct("BC0"))  # UNREVOKED -> STABLE: BT1 revoked, AT1 and AT2 released by W1
    assert _worker(c, "W2") == "STABLE"
    c.hb("W1", 4, ct("AC0"))  # UNRELEASED -> STABLE: BT1 released
    assert _worker(c, "W1") == "STABLE"


INVALID = {"W9": ALL5}  # a worker that does not exist: INVALID_ASSIGNMENT


def connect_computation_corners() -> None:
    """The assignment computation ('Assignment Process') off its main path."""
    # Rejected installs (NOTIFIED, then REQUESTED: the same worker is asked again), then a valid
    # install straight from REQUESTED.
    c = Cluster()
    c.configure(CONFIG)
    assert c.hb("W1", 0)["errorCode"] == COMPUTE_ASSIGNMENT
    assert c.install("W1", 0, 1, INVALID)["errorCode"] == INVALID_ASSIGNMENT  # NOTIFIED -> rejected
    assert _phase(c) == "REQUESTED"
    assert c.install("W1", 0, 1, INVALID)["errorCode"] == INVALID_ASSIGNMENT  # REQUESTED -> rejected
    assert c.install("W1", 0, 1, {"W1": ALL5})["errorCode"] == 0  # REQUESTED -> installed
    assert _phase(c) == "IDLE"
    # PREPARED: prepared again, rejected, then a stale install after the group moved on.
    c.at(1_000)
    c.configure({"A": [1, 2], "B": [1], "C": []})  # group epoch 2
    c.prepare("W1", 0)
    c.prepare("W1", 0)  # PREPARED -> prepared
    assert c.install("W1", 0, 2, INVALID)["errorCode"] == INVALID_ASSIGNMENT  # PREPARED -> rejected
    c.prepare("W1", 0)
    c.configure(CONFIG)  # group epoch 3 while W1 computes for 2
    assert c.install("W1", 0, 2, {"W1": ["AC0", "AT1", "AT2", "BC0", "BT1", "CC0"]})["errorCode"] == 0
    assert _phase(c) == "REQUESTED"  # PREPARED -> installed_stale
    # The computing worker leaves: NOTIFIED, PREPARED and REQUESTED (sticky, not yet notified).
    c = Cluster()
    c.configure(CONFIG)
    c.hb("W1", 0)
    c.hb("W2", 0)
    assert _phase(c) == "NOTIFIED"
    c.hb("W1", -1)  # NOTIFIED -> computing_worker_left
    assert c.hb("W2", 0)["errorCode"] == COMPUTE_ASSIGNMENT
    c.hb("W3", 0)
    c.prepare("W2", 0)
    c.hb("W2", -1)  # PREPARED -> computing_worker_left
    assert c.hb("W3", 0)["errorCode"] == COMPUTE_ASSIGNMENT
    c.install("W3", 0, c.coord.connect_groups["g"].group_epoch, {"W3": ALL5})
    c.hb("W4", 0)  # group epoch + 1: W3, sticky, is chosen without a heartbeat (REQUESTED)
    assert _phase(c) == "REQUESTED"
    c.hb("W3", -1)  # REQUESTED -> computing_worker_left
    # The last worker leaves: NOTIFIED, PREPARED, REQUESTED.
    for steps in ("notified", "prepared", "requested"):
        c = Cluster()
        c.configure(CONFIG)
        c.hb("W1", 0)
        if steps == "prepared":
            c.prepare("W1", 0)
        if steps == "requested":
            c.install("W1", 0, 1, INVALID)
        assert _phase(c) == steps.upper()
        c.hb("W1", -1)  # -> group_emptied
        assert _phase(c) == "IDLE"
    # No worker's version range covers every other's: nobody is notified.
    c = Cluster()
    c.configure(CONFIG)
    c.hb("W1", 0, assignors=[assignor(0, 1)])
    c.install("W1", 0, 1, {"W1": ALL5})
    c.hb("W2", 0, assignors=[assignor(1, 2)])  # REQUESTED -> no_eligible_worker
    assert _phase(c) == "REQUESTED"


def _connect_revoking() -> Cluster:
    """W1 revoking BC0 and BT1 (UNREVOKED) for W2, which waits for them (UNRELEASED)."""
    c = _connect_one_worker()
    c.at(2_000)
    c.hb("W2", 0)
    c.prepare("W1", 1)
    c.install("W1", 1, 2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]})
    c.at(3_000)
    c.hb("W2", 1, ct())
    c.hb("W1", 1, ct(*ALL5))
    assert (_worker(c, "W1"), _worker(c, "W2")) == ("UNREVOKED", "UNRELEASED")
    return c


def connect_workers_leave_and_are_fenced() -> None:
    """-1 and the timers, from each worker state."""
    c = _connect_revoking()
    c.hb("W1", -1)  # UNREVOKED -> left
    c.hb("W2", -1)  # UNRELEASED -> left
    assert c.coord.connect_groups["g"].members == {}
    c = _connect_revoking()
    c.at(100_000)  # both sessions expire: UNREVOKED and UNRELEASED -> fenced
    assert c.coord.connect_groups["g"].members == {}
    c = _connect_one_worker()
    assert _worker(c, "W1") == "STABLE"
    c.at(100_000)  # STABLE -> fenced
    assert c.coord.connect_groups["g"].members == {}


#: name -> scenario; each runs on fresh coordinators.
SCENARIOS: dict[str, Callable[[], None]] = {
    "consumer static leave corners": consumer_static_leave_corners,
    "consumer static rejoin reconciled": consumer_static_rejoin_reconciled,
    "consumer unknown state": consumer_unknown_state,
    "streams static leave corners": streams_static_leave_corners,
    "streams static rejoin reconciled": streams_static_rejoin_reconciled,
    "streams unknown state": streams_unknown_state,
    "streams topology reconfigured": streams_topology_reconfigured,
    "streams topology deleted": streams_topology_deleted,
    "client reconciling gets a new target": client_reconciling_gets_a_new_target,
    "client in-flight errors": client_in_flight_errors,
    "client poll timeouts": client_poll_timeouts,
    "classic unloaded": classic_unloaded,
    "connect reconciliation corners": connect_reconciliation_corners,
    "connect computation corners": connect_computation_corners,
    "connect workers leave and are fenced": connect_workers_leave_and_are_fenced,
}
