"""The declared lifecycles drive the model: every transition is taken, and nothing changes outside them.

Every golden trace (``tests/golden/**``, through ``kgspec check``) and a set of simulated runs
(``kgspec/sim``: consumer and streams groups, static members, lossy networks, failovers, several
profiles) and the focused scenarios of ``tests/lifecycle_scenarios.py`` (the corners no trace
reaches, through the model's real entry points) run with a recording hook on
``kgspec.spec.tables.fire``, the one helper through which the model changes a member, group or
topology state. Then:

(a) **coverage**: every declared ``(state, trigger)`` of every machine is fired at least once,
    except those matching a reason in ``NOT_ON_TRACES`` (each reason must still apply). The
    derived group machines (``consumer-group``, ``streams-group``, ``connect-group``) are not
    fired: the model computes them with the spec's ``derive_*`` functions (asserted at every
    step below), and ``tests/test_spec_derivation.py`` shows that every declared edge of them is
    realised by some counter change and that the machine always equals the derivation. Here every
    derived state change a step shows must be a path of declared edges.

(b) **no state change outside a table**, checked at run time: ``Coordinator.apply`` (the records
    of a handled call or of fired timers; the model's only way to change hard state) is wrapped.
    After each call, every member's lifecycle state (``ConsumerGroup.lifecycle_state``: the
    MemberState byte's name, TEMPORARILY_LEFT at epoch -2; a Connect worker's state), every
    streams group's topology state and every group's derived state is compared with the snapshot taken after the previous
    ``apply``. Each member or topology change ``s -> d`` must be a chain of transitions fired since
    then (a member that disappears must have fired ``fenced`` or ``left``; a static member's
    replacement continues the lifecycle of the member it replaces; a new member starts at the
    machine's initial state). Changes made by ``Coordinator.replay`` outside ``apply`` are loads
    (the checker replaying a trace's records, a failover's reload): replay sets what the record
    says, as Kafka's replay does, and the snapshot is just retaken (docs/spec.md, "Replay loads");
    so is the simulator's failover, whose new coordinator loads the log through ``apply``.
    Groups that appear or disappear as a whole (created, deleted, or converted between protocols
    by online migration) are exempt for their members; their derived state starts at EMPTY.
"""

from __future__ import annotations

import importlib
import pkgutil
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kgspec.spec
import pytest
from kgspec.invariants.derivation import state_derivation
from kgspec.model.connect.member import STATE_NAMES as CONNECT_STATE_NAMES
from kgspec.model.consumer import records as crec
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.streams.group import StreamsGroup
from kgspec.spec import tables
from kgspec.spec.declarations import Declaration
from kgspec.spec.groups import derive_streams_group_state
from kgspec.spec.members import FENCED, LEFT
from kgspec.spec.registry import MACHINES
from kgspec.spec.tables import TABLES, InvalidTransition, fire, recording

from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.simulator import Simulator
from tests.helpers import check
from tests.lifecycle_scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parent
GOLDEN = sorted((ROOT / "golden").rglob("*.jsonl"))
DERIVED = ("consumer-group", "streams-group", "connect-group")

#: Simulated runs: (protocol, profile, members, seed, loss, failover every ms); 10 simulated minutes.
SIMULATIONS = [(protocol, profile, members, seed, loss, failover)
               for protocol in ("consumer", "streams") for profile in ("kafka-4.1", "kafka-4.3", "kafka-trunk")
               for seed in range(6) for members, loss, failover in ((3, 0.05, 30000), (5, 0.2, None))]

#: Declared transitions the traces above do not take, by reason. Each reason must still match
#: some missing transition (a stale reason fails the test), and nothing outside them may be missing.
NOT_ON_TRACES: dict[str, Callable[[str, str, str], bool]] = {
    # Replay is a load (docs/spec.md): UNKNOWN comes only from a record whose MemberState byte this
    # version does not know, and replay sets it without the table, as Kafka's replay does
    # (GroupMetadataManager.replay -> ConsumerGroupMember.Builder.updateWith(record):
    # setState(MemberState.fromValue(record.state())), no transition check). So
    # ``unknown_state_loaded`` documents the load and is never fired;
    # test_replay_loads_an_unknown_state_byte_... below and the scenarios (which take every
    # transition out of UNKNOWN after such a load) show it.
    "unknown_state_loaded is a load, never fired": lambda m, s, t: m.endswith("-member") and (
        t == "unknown_state_loaded"),
    # Three client-side paths the simulator's client (kgspec/sim/client.py) does not implement;
    # the scenarios drive it through every other transition (fatal errors, poll timeouts, errors
    # to a heartbeat in flight). It has one coordinator it always knows, so a leave heartbeat is
    # never skipped (AbstractMembershipManager.onHeartbeatRequestSkipped); in RECONCILING it lets
    # the running reconciliation finish and fires assignment_received for any new assignment,
    # where Kafka's processAssignmentReceived goes to STABLE when the target equals the current
    # assignment; and it sends nothing while UNSUBSCRIBED, so no answer can be fatal there.
    "client-side paths the simulator's client does not implement": lambda m, s, t: m == "consumer-client" and (
        (s, t) in {("LEAVING", "leave_heartbeat_skipped"), ("RECONCILING", "assignment_unchanged"),
                   ("UNSUBSCRIBED", "fatal_error")}),
    # The Connect draft's computation: installed_stale is declared from every busy phase, but the
    # model accepts an install without a prepare only at the current group epoch
    # (model/connect/assignment.py _snapshot_for: otherwise INVALID_ASSIGNMENT, 'No group metadata
    # was prepared'), and every way out of PREPARED drops the prepared snapshot; so a stale
    # install is always PREPARED -> installed_stale (the scenarios take it, and every other edge).
    "Connect: a stale install needs a prepare": lambda m, s, t: m == "connect-assignment" and (
        t == "installed_stale" and s in ("REQUESTED", "NOTIFIED")),
    # ClassicGroupState.validPreviousStates lets DEAD be entered from DEAD, and the declaration
    # copies that table; but in the group coordinator DEAD is entered only by onUnloaded
    # (GroupMetadataManager.onUnloaded: classicGroup.transitionTo(DEAD), its only caller), which
    # runs once per loaded shard: a reload builds new groups, so an unload never meets a DEAD one.
    "classic DEAD -> DEAD: a second unload of one loaded group": lambda m, s, t: m == "classic-group" and (
        (s, t) == ("DEAD", "unloaded")),
}

Fired = tuple[str, str, str, str]  # machine, state, trigger, dest
Snapshot = dict[tuple[str, str], dict[str, Any]]  # (kind, group id) -> its lifecycle states


# --- snapshots of every lifecycle state the model holds ------------------------------------------


def _members(group: ConsumerGroup | StreamsGroup) -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}
    for mid, m in group.members.items():
        state = group.lifecycle_state(m)  # type: ignore[arg-type]
        out[mid] = (state, m.instance_id)
    return out


def snapshot(coord: Coordinator) -> Snapshot:
    snap: Snapshot = {}
    for gid, g in coord.groups.items():
        problems = state_derivation(g)  # the state-derivation invariant: the spec's derivation, and the index
        assert problems == [], f"consumer group {gid}: {problems}"
        snap[("consumer", gid)] = {"members": _members(g), "group": g.state}
    for gid, s in coord.streams_groups.items():
        a = s.assignment_epoch
        derived = derive_streams_group_state(
            len(s.members), None if s.topology is None else s.topology.epoch, s.validated_topology_epoch,
            s.group_epoch, a, all(m.is_reconciled_to(a) for m in s.members.values()))
        assert s.state == derived, f"streams group {gid}: {s.state} is not the spec's derivation {derived}"
        snap[("streams", gid)] = {"members": _members(s), "group": s.state, "topology": s.topology_state()}
    for gid, c in coord.connect_groups.items():
        workers = {mid: (CONNECT_STATE_NAMES[m.state], m.instance_id) for mid, m in c.members.items()}
        snap[("connect", gid)] = {"members": workers, "group": c.state()}
    return snap


def _chain(fired: list[Fired], machine: str, src: str, dst: str) -> bool:
    """Whether ``dst`` is reachable from ``src`` through transitions of ``machine`` fired."""
    if src == dst:
        return True
    edges: dict[str, set[str]] = defaultdict(set)
    for m, s, _t, d in fired:
        if m == machine:
            edges[s].add(d)
    seen, todo = {src}, [src]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt == dst:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def _declared_path(machine: str, src: str, dst: str) -> bool:
    fired = [(machine, s, t, d) for (s, t), d in TABLES[machine].edges.items()]
    return _chain(fired, machine, src, dst)


class Watch:
    """The recording hook and the ``apply`` boundary checks (see the module docstring)."""

    def __init__(self) -> None:
        self.fired: set[tuple[str, str, str]] = set()
        self.derived_edges: set[tuple[str, str, str]] = set()
        self.pending: list[Fired] = []  # fired since the last apply (one coordinator runs at a time)
        # per coordinator (weakly: a new coordinator may reuse a collected one's id)
        self.last: weakref.WeakKeyDictionary[Coordinator, Snapshot] = weakref.WeakKeyDictionary()
        self.depth: weakref.WeakKeyDictionary[Coordinator, int] = weakref.WeakKeyDictionary()
        self.loading = 0
        self.problems: list[str] = []
        self.where = ""

    def hook(self, machine: str, state: str, trigger: str, dest: str) -> None:
        self.fired.add((machine, state, trigger))
        self.pending.append((machine, state, trigger, dest))

    def loaded(self, coord: Coordinator) -> None:
        self.last[coord] = snapshot(coord)

    def applied(self, coord: Coordinator) -> None:
        before = self.last.get(coord, {})
        after = snapshot(coord)
        fired, self.pending = self.pending, []
        for (kind, gid), now in after.items():
            old = before.get((kind, gid))
            member_machine, group_machine = f"{kind}-member", f"{kind}-group"
            old_group = "EMPTY" if old is None else old["group"]
            if not _declared_path(group_machine, old_group, now["group"]):
                self.problems.append(f"{self.where}: {group_machine} {gid}: {old_group} -> {now['group']} "
                                     "is no path of declared transitions")
            if old_group != now["group"]:
                self.derived_edges.add((group_machine, old_group, now["group"]))
            if kind == "streams":
                old_topology = "ABSENT" if old is None else old["topology"]
                if not _chain(fired, "streams-topology", old_topology, now["topology"]):
                    self.problems.append(f"{self.where}: streams-topology {gid}: {old_topology} -> "
                                         f"{now['topology']} without a fired transition")
            if old is None:
                continue  # a new group (or one converted from another protocol): members start here
            self._members(fired, member_machine, gid, old["members"], now["members"])
        self.last[coord] = after

    def _members(self, fired: list[Fired], machine: str, gid: str, old: dict[str, tuple[str, str | None]],
                 now: dict[str, tuple[str, str | None]]) -> None:
        initial = TABLES[machine].initial
        replaced = {inst: mid for mid, (_s, inst) in old.items() if mid not in now and inst is not None}
        replacing = {inst for mid, (_s, inst) in now.items() if mid not in old and inst in replaced}
        for mid, (state, inst) in now.items():
            if mid in old:
                src = old[mid][0]
            elif inst is not None and inst in replacing:
                src = old[replaced[inst]][0]  # a static member's replacement carries on its lifecycle
            else:
                src = initial
            if not _chain(fired, machine, src, state):
                self.problems.append(f"{self.where}: {machine} {gid}/{mid}: {src} -> {state} "
                                     "without a fired transition")
        gone = [mid for mid in old if mid not in now and old[mid][1] not in replacing]
        for mid in gone:
            src = old[mid][0]
            if not any(m == machine and s == src and d in (FENCED, LEFT) for m, s, _t, d in fired):
                self.problems.append(f"{self.where}: {machine} {gid}/{mid} left {src} without fenced or left")


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Watch]:
    w = Watch()
    apply, replay, failover = Coordinator.apply, Coordinator.replay, Simulator.failover

    def watched_apply(self: Coordinator, records: Any) -> None:
        w.depth[self] = w.depth.get(self, 0) + 1
        try:
            apply(self, records)
        finally:
            w.depth[self] -= 1
        if w.loading:
            w.loaded(self)
        else:
            w.applied(self)

    def watched_failover(self: Simulator) -> None:
        w.loading += 1  # the new coordinator loads the log through apply
        try:
            failover(self)
        finally:
            w.loading -= 1

    def watched_replay(self: Coordinator, record: Any) -> None:
        replay(self, record)
        if not w.depth.get(self, 0):
            w.loaded(self)  # a load: the checker replaying a trace's records

    monkeypatch.setattr(Coordinator, "apply", watched_apply)
    monkeypatch.setattr(Coordinator, "replay", watched_replay)
    monkeypatch.setattr(Simulator, "failover", watched_failover)
    with recording(w.hook):
        yield w


def _run_traces(w: Watch) -> None:
    for path in GOLDEN:
        w.where = str(path.relative_to(ROOT))
        check(path)
    for protocol, profile, members, seed, loss, failover in SIMULATIONS:
        w.where = f"simulation {protocol} {profile} seed {seed}"
        run_scenario(Scenario(groups=2, members=members, duration_ms=600000, seed=seed, loss=loss,
                              failover_every_ms=failover, profile=profile, protocol=protocol))
    for name, scenario in SCENARIOS.items():
        w.where = f"scenario {name}"
        scenario()


def test_traces_change_states_only_through_the_tables_and_take_every_transition(watch: Watch) -> None:
    _run_traces(watch)
    assert watch.problems == []
    declared = {(name, s, t) for name, table in TABLES.items() if name not in DERIVED for (s, t) in table.edges}
    missing = declared - watch.fired
    unexplained = sorted(x for x in missing if not any(why(*x) for why in NOT_ON_TRACES.values()))
    assert unexplained == [], f"declared transitions no trace takes: {unexplained}"
    stale = [reason for reason, why in NOT_ON_TRACES.items() if not any(why(*x) for x in missing)]
    assert stale == [], f"NOT_ON_TRACES reasons that no longer apply: {stale}"
    # The coordinator's main lifecycle paths are all taken.
    for name in ("consumer-member", "streams-member"):
        for trigger in ("reconciled", "revocation_needed", "assigned_with_unreleased", "fenced", "left"):
            assert any(m == name and t == trigger for m, _s, t in watch.fired), (name, trigger)


# --- the fire helper ----------------------------------------------------------------------------


def test_fire_names_machine_state_and_trigger() -> None:
    with pytest.raises(InvalidTransition) as err:
        fire("consumer-member", "FENCED", "reconciled")
    assert (err.value.machine, err.value.state, err.value.trigger) == ("consumer-member", "FENCED", "reconciled")
    assert "consumer-member: cannot fire 'reconciled' in state FENCED" in str(err.value)


def test_recording_sees_every_fire_and_restores_the_outer_hook() -> None:
    outer: list[tuple[str, ...]] = []
    inner: list[tuple[str, ...]] = []
    with recording(lambda *a: outer.append(a)):
        with recording(lambda *a: inner.append(a)):
            fire("streams-topology", "ABSENT", "initialized")
        fire("consumer-member", "STABLE", "left")
    assert inner == [("streams-topology", "ABSENT", "initialized", "INITIALIZED")]
    assert outer == [("consumer-member", "STABLE", "left", "LEFT")]
    assert tables._hook is None


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_scenario_changes_states_only_through_the_tables(watch: Watch, name: str) -> None:
    """Each focused scenario (tests/lifecycle_scenarios.py) on its own, for a precise failure."""
    watch.where = f"scenario {name}"
    SCENARIOS[name]()
    assert watch.problems == []


def test_every_machine_is_registered_and_compiled() -> None:
    assert set(TABLES) == set(MACHINES)
    # every lifecycle a spec module declares is the registered one of its name (none left out)
    declared = {id(value): value for info in pkgutil.iter_modules(kgspec.spec.__path__)
                for value in vars(importlib.import_module(f"kgspec.spec.{info.name}")).values()
                if isinstance(value, Declaration)}
    assert len(declared) == len(MACHINES)
    for d in declared.values():
        assert MACHINES.get(d.name) is d, f"{d.name} is declared but not registered in spec/registry.py"


def test_replay_loads_an_unknown_state_byte_without_the_table() -> None:
    """Replay is a load: an unknown MemberState byte decodes to UNKNOWN whatever the state was
    (``unknown_state_loaded`` documents it), and nothing is fired."""
    fired: list[tuple[str, ...]] = []
    groups: dict[str, ConsumerGroup] = {}
    coord = Coordinator("kafka-4.3")
    member = ConsumerMember("m", member_epoch=3, previous_member_epoch=2)
    with recording(lambda *a: fired.append(a)):
        crec.replay(groups, crec.member_metadata_record("g", member), lambda g: ConsumerGroup(g, 0), coord.profile)
        record = crec.current_assignment_record("g", member, coord.profile)
        assert record.value is not None
        record.value["state"] = 42
        crec.replay(groups, record, lambda g: ConsumerGroup(g, 0), coord.profile)
    assert fired == []
    assert groups["g"].lifecycle_state(groups["g"].members["m"]) == "UNKNOWN"
    assert fire("consumer-member", "STABLE", "unknown_state_loaded") == "UNKNOWN"
