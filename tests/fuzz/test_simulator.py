"""The simulator: deterministic runs, the client lifecycle, failover, traces."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import pytest
from kgspec.model.mutants import Mutants

from kgspec.sim import ClientOptions, NetworkConfig, SimConfig, Simulator, write_trace


def _two_members(seed: int = 7, mutants: Mutants | None = None) -> Simulator:
    sim = Simulator(seed, SimConfig(), mutants or Mutants())
    sim.set_topic("foo", 4)
    sim.add_client("g", ("foo",))
    sim.add_client("g", ("foo",))
    sim.run_for(20000)
    return sim


def test_two_members_reach_a_stable_split() -> None:
    sim = _two_members()
    group = sim.coordinator.groups["g"]
    assert (group.state, group.group_epoch, group.assignment_epoch) == ("STABLE", 3, 3)
    owned = {c.name: (c.state, c.epoch, {p for parts in c.owned.values() for p in parts})
             for c in sim.clients.values()}
    assert owned == {"c1": ("STABLE", 3, {0, 1}), "c2": ("STABLE", 3, {2, 3})}
    assert sim.violations == []
    assert sim.steps == 12


def test_runs_are_deterministic() -> None:
    assert _two_members(3).events == _two_members(3).events


def test_trace_events_follow_the_contract() -> None:
    sim = _two_members()
    header, topic, first = sim.events[0], sim.events[1], sim.events[2]
    assert header == {"header": {"format": "kgspec-trace/1", "profile": "kafka-4.3", "configs": {}}}
    assert topic == {"tsMs": 0, "topic": {"name": "foo", "topicId": topic["topic"]["topicId"], "partitions": 4}}
    assert len(topic["topic"]["topicId"]) == 22
    assert first["requestHeader"] == {"requestApiKey": 68, "requestApiVersion": 1, "clientId": "c1",
                                      "correlationId": 1}
    assert first["request"]["memberEpoch"] == 0
    assert first["response"]["memberEpoch"] == 2
    assert first["response"]["assignment"] == {
        "topicPartitions": [{"topicId": topic["topic"]["topicId"], "partitions": [0, 1, 2, 3]}]}
    assert sim.finish()[-1] == {"tsMs": 20000, "tick": {}}


def test_failover_then_session_timeout_then_convergence() -> None:
    sim = _two_members()
    sim.failover()
    assert sim.events[-1] == {"tsMs": 20000, "tick": {"coordinatorFailover": True}}
    sim.crash("c1")
    sim.run_for(60000)
    group = sim.coordinator.groups["g"]
    assert group.group_epoch == 4
    assert list(group.members) == [sim.clients["c2"].member_id]
    assert sim.settle() == []


def test_static_restart_keeps_the_assignment() -> None:
    sim = Simulator(1)
    sim.set_topic("foo", 2)
    sim.add_client("g", ("foo",), static=True)
    sim.run_for(10000)
    first = sim.clients["c1"].member_id
    sim.restart_static("c1", downtime_ms=2000)
    sim.run_for(10000)
    client = sim.clients["c1"]
    group = sim.coordinator.groups["g"]
    assert client.member_id != first
    assert list(group.members) == [client.member_id]
    assert {p for parts in client.owned.values() for p in parts} == {0, 1}
    assert group.group_epoch == 2  # a static replacement does not bump the epoch
    assert sim.violations == []


def test_lossy_network_still_converges() -> None:
    sim = Simulator(11, SimConfig(network=NetworkConfig(loss=0.2, duplicate=0.3, max_delay_ms=50)))
    sim.set_topic("foo", 6)
    for _ in range(3):
        sim.add_client("g", ("foo",), options=ClientOptions(reconcile_ms=300))
    sim.run_for(120000)
    assert sim.violations == []
    assert sim.settle() == []


def test_replay_dropping_tombstones_is_caught_at_failover() -> None:
    sim = _two_members(mutants=Mutants({"replay-drops-tombstone"}))
    sim.leave("c1")
    sim.run_for(1000)
    sim.failover()
    # The member that left is back, holding what c2 now holds.
    assert sorted({v.invariant for v in sim.violations}) == [
        "no-double-ownership", "replay-equivalence", "target-validity"]


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonl.gz"])
def test_write_trace(tmp_path: Path, name: str) -> None:
    sim = _two_members()
    path = tmp_path / name
    lines = write_trace(sim.finish(), path)
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt") as fh:
        events = [json.loads(line) for line in fh]
    assert lines == len(events) == 14
    assert events[0]["header"]["format"] == "kgspec-trace/1"


def test_regex_subscription_follows_new_topics() -> None:
    sim = Simulator(2)
    sim.set_topic("t0", 2)
    sim.set_topic("t1", 2)
    sim.add_client("g", (), options=ClientOptions(topic_regex="t.*"))
    sim.add_client("g", ("t0",))
    sim.run_for(20000)
    sim.set_topic("t2", 3)
    sim.run_for(20000)
    names = sim.coordinator.topics.name_of
    owned = {c.name: {(names(t), p) for t, parts in c.owned.items() for p in parts}
             for c in sim.clients.values()}
    assert owned == {"c1": {("t1", 0), ("t1", 1), ("t2", 0), ("t2", 1), ("t2", 2)},
                     "c2": {("t0", 0), ("t0", 1)}}
    assert sim.coordinator.groups["g"].group_epoch == 4
    assert sim.settle() == []


# --- clients that misbehave: stalls, freezes, subscription changes ---------------------------

def _calls(sim: Simulator, client: str, since: int = 0) -> list[tuple[int, int, int, int]]:
    """(ts, request epoch, error, response epoch) of ``client``'s calls from ``since``."""
    return [(e["tsMs"], e["request"]["memberEpoch"], e["response"]["errorCode"], e["response"]["memberEpoch"])
            for e in sim.events if "request" in e and e["requestHeader"]["clientId"] == client and e["tsMs"] >= since]


def _two_of_foo_bar() -> Simulator:
    sim = Simulator(7, SimConfig())
    sim.set_topic("foo", 4)
    sim.set_topic("bar", 2)
    sim.add_client("g", ("foo",))
    sim.add_client("g", ("foo",))
    sim.run_for(20000)
    return sim


def test_poll_stall_past_max_poll_interval_leaves_stale_then_rejoins_with_epoch_0() -> None:
    sim = _two_of_foo_bar()
    sim.stall("c1", 40000)  # the rebalance timeout (max.poll.interval.ms) is 30 s
    sim.run_for(35000)
    c1 = sim.clients["c1"]
    assert (c1.state, c1.owned) == ("STALE", {})
    # heartbeats go on from the background thread, then the stale leave at 20000 + 30000
    assert _calls(sim, "c1", 20000) == [(20132, 3, 0, 3), (25156, 3, 0, 3), (30170, 3, 0, 3), (35201, 3, 0, 3),
                                        (40224, 3, 0, 3), (45242, 3, 0, 3), (50014, -1, 0, -1)]
    sim.run_for(10000)
    assert _calls(sim, "c1", 55000) == [(60006, 0, 0, 5)]  # polls again at 60000: a new join
    assert sim.settle() == []


def test_member_stalled_while_revoking_keeps_its_partitions_until_the_rebalance_timeout() -> None:
    sim = Simulator(7, SimConfig())
    sim.set_topic("foo", 4)
    sim.add_client("g", ("foo",), options=ClientOptions(reconcile_ms=3000))
    sim.run_for(20000)
    sim.add_client("g", ("foo",))
    sim.run_for(6000)  # c1 got its revocation at 23100 and runs its 3 s callback
    sim.stall("c1", 70000)  # ... which now hangs
    sim.run_for(27000)
    c1 = sim.clients["c1"]
    assert c1.state == "RECONCILING"
    assert {p for ps in c1.owned.values() for p in ps} == {0, 1, 2, 3}
    sim.run_for(3000)  # the coordinator fences it at 23100 + 30000; it hears so at 53248
    assert _calls(sim, "c1", 20000)[-2:] == [(48211, 2, 0, 2), (53248, 2, 25, 0)]
    assert (c1.state, c1.owned, c1.epoch) == ("FENCED", {}, 0)
    assert list(sim.coordinator.groups["g"].members) == [sim.clients["c2"].member_id]
    assert sim.violations == []
    assert sim.settle() == []  # polls again: rejoins with epoch 0
    assert _calls(sim, "c1", 56000)[0][1] == 0


def test_frozen_process_past_the_session_timeout_is_fenced_and_rejoins_with_epoch_0() -> None:
    sim = _two_of_foo_bar()
    sim.freeze("c1", 50000)  # the session timeout is 45 s
    sim.run_for(60000)
    assert _calls(sim, "c1", 20000)[:2] == [(70016, 3, 25, 0), (70048, 0, 0, 5)]
    assert sim.violations == []


def test_subscription_changes_bump_the_group_epoch_and_move_the_target() -> None:
    sim = _two_of_foo_bar()
    foo, bar = (sim.coordinator.topics.by_name(n).topic_id for n in ("foo", "bar"))  # type: ignore[union-attr]
    sim.resubscribe("c1", ("bar",))
    sim.run_for(20000)
    group = sim.coordinator.groups["g"]
    assert (group.group_epoch, group.assignment_epoch) == (4, 4)
    assert {c.name: c.owned for c in sim.clients.values()} == {"c1": {bar: frozenset({0, 1})},
                                                               "c2": {foo: frozenset({0, 1, 2, 3})}}
    sim.resubscribe("c1", (), "f.*")  # a pattern: the names go, the regex resolves to foo
    sim.run_for(20000)
    assert sim.coordinator.groups["g"].group_epoch == 6
    assert {c.name: c.owned for c in sim.clients.values()} == {"c1": {foo: frozenset({2, 3})},
                                                               "c2": {foo: frozenset({0, 1})}}
    sim.resubscribe("c1", ("bar",))  # back to names: an empty regex drops the pattern
    sim.run_for(20000)
    regexes = [e["request"]["subscribedTopicRegex"] for e in sim.events
               if "request" in e and e["request"]["subscribedTopicRegex"] is not None]
    assert regexes == ["f.*", ""]
    assert sim.clients["c1"].owned == {bar: frozenset({0, 1})}
    assert sim.violations == []


def test_a_static_instance_restarted_while_failing_fatally_runs_one_process_at_a_time() -> None:
    """The nightly long run's find (shrunk). After a failover, the operator restarts static
    instance c4 (its -2 leave is lost on the lossy network) just as its last heartbeat is
    answered UNRELEASED_INSTANCE_ID, which the simulator also answers with a restart. Two
    restarts of one name ran two chains of c4 processes, each fencing the other's joins;
    the one that finally joined was no longer tracked, and settle() found a member with no
    live client. One restart at a time per name: one process after another, 5 s apart."""
    from kgspec.sim.machine import machine_for
    from kgspec.sim.simulator import RESTART_BACKOFF_MS

    machine = machine_for()()
    program: list[tuple[str, dict[str, object]]] = [
        ("start", {"seed": 33348, "partitions": 1, "members": 3, "static": False, "reconcile_ms": 300,
                   "loss": 0.0, "duplicate": 0.0}),
        ("settle", {}), ("settle", {}), ("settle", {}),
        ("crash", {"index": 0}), ("leave", {"index": 0}), ("leave", {"index": 1}),
        ("join", {"reconcile_ms": 0, "static": True, "subscription": "t0"}),
        ("network", {"duplicate": 0.3, "loss": 0.3, "max_delay_ms": 50}),
        ("stall", {"index": 2, "ms": 40000, "whole_process": False}),
        ("advance", {"ms": 60000}), ("failover", {}), ("restart_static", {"downtime_ms": 100, "index": 0}),
        ("settle", {}),
    ]
    try:
        for rule, kwargs in program:
            getattr(machine, rule)(**kwargs)
        sim = machine.sim
        assert sim.violations == []
        failover = next(e["tsMs"] for e in sim.events if e.get("tick", {}).get("coordinatorFailover"))
        joins = [(e["tsMs"], e["request"]["memberId"], e["response"]["errorCode"]) for e in sim.events
                 if "request" in e and e["tsMs"] > failover and e["request"].get("instanceId") == "c4-instance"
                 and e["request"]["memberEpoch"] == 0]
        # the old process's last heartbeat, then one new process at a time until c4's old
        # member expires (its session re-armed at the failover): rejected, then joined
        assert [code for _, _, code in joins] == [111] * (len(joins) - 1) + [0]
        starts = [ts for ts, _, _ in joins[1:]]
        assert all(b - a >= RESTART_BACKOFF_MS for a, b in itertools.pairwise(starts))
        assert len({member for _, member, _ in joins}) == len(joins)
        assert joins[-1][0] > failover + 45_000
        assert sorted(sim.coordinator.groups["g"].members) == [sim.clients["c4"].member_id] == [joins[-1][1]]
    finally:
        machine.teardown()
