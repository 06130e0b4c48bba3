"""The streams simulation: stream threads sharing processes, topology readiness, internal
topic creation, process crashes, streams mutants, and traces that `kgspec check` accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.model.mutants import Mutants

from kgspec.cli import main
from kgspec.sim import SimConfig, Simulator, write_trace
from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.streams_client import streams_topology

MISSING_SOURCE_TOPICS, MISSING_INTERNAL_TOPICS, ASSIGNMENT_DELAYED = 1, 3, 5


def _calls(sim: Simulator, client: str | None = None) -> list[tuple[Any, ...]]:
    """(ts, client, request epoch, error, response epoch, status codes) of every call."""
    return [(e["tsMs"], e["requestHeader"]["clientId"], e["request"]["memberEpoch"], e["response"]["errorCode"],
             e["response"]["memberEpoch"], [s["statusCode"] for s in e["response"]["status"] or []])
            for e in sim.events if "request" in e and client in (None, e["requestHeader"]["clientId"])]


def _tasks(owned: dict[str, Any]) -> dict[str, dict[str, list[int]]]:
    return {role: {s: sorted(p) for s, p in subs.items()} for role, subs in owned.items()}


def _two_processes(mutants: Mutants | None = None) -> Simulator:
    sim = Simulator(5, SimConfig(configs={"group.streams.num.standby.replicas": 1}), mutants or Mutants())
    sim.set_topic("s0", 4)
    sim.set_topic("s1", 2)
    for process in ("p0", "p0", "p1", "p1"):
        sim.add_streams_client("g", process, streams_topology("two"))
    sim.run_for(30000)
    return sim


def test_two_processes_of_two_threads_reach_a_stable_assignment_with_standbys() -> None:
    sim = _two_processes()
    assert sim.violations == []
    group = sim.coordinator.streams_groups["g"]
    assert (group.state, group.group_epoch, group.assignment_epoch) == ("STABLE", 6, 6)
    owned = {c.name: (c.process_id, c.state, c.epoch, _tasks(c.owned)) for c in sim.clients.values()}
    assert owned == {
        "c1": ("p0", "STABLE", 6, {"active": {"0": [2]}, "standby": {"0": [3]}}),
        "c2": ("p0", "STABLE", 6, {"active": {"0": [0], "1": [0]}, "standby": {"0": [1]}}),
        "c3": ("p1", "STABLE", 6, {"active": {"0": [1], "1": [1]}, "standby": {"0": [0]}}),
        "c4": ("p1", "STABLE", 6, {"active": {"0": [3]}, "standby": {"0": [2]}}),
    }


def test_the_cluster_creates_the_internal_topics_the_coordinator_asks_for() -> None:
    sim = _two_processes()
    # Joins wait for the initial rebalance delay and report the missing changelog topic; the
    # cluster creates it 500 ms after the first request, and the next heartbeats validate the
    # topology (epoch 6 = 1 + four joins + the validated topology).
    assert _calls(sim)[:6] == [
        (8, "c2", 0, 0, 1, [ASSIGNMENT_DELAYED, MISSING_INTERNAL_TOPICS]),
        (13, "c3", 0, 0, 1, [ASSIGNMENT_DELAYED, MISSING_INTERNAL_TOPICS]),
        (16, "c1", 0, 0, 1, [ASSIGNMENT_DELAYED, MISSING_INTERNAL_TOPICS]),
        (18, "c4", 0, 0, 1, [ASSIGNMENT_DELAYED, MISSING_INTERNAL_TOPICS]),
        (5018, "c2", 1, 0, 6, []),
        (5025, "c4", 1, 0, 6, []),
    ]
    created = [e for e in sim.events if e.get("topic", {}).get("name") == "app-store-changelog"]
    assert [(e["tsMs"], e["topic"]["partitions"]) for e in created] == [(508, 4)]  # one per task


def test_a_missing_source_topic_keeps_the_group_not_ready_until_it_is_created() -> None:
    sim = Simulator(5, SimConfig())
    sim.set_topic("s0", 2)
    sim.add_streams_client("g", "p0", streams_topology("two"))
    sim.run_for(20000)
    group = sim.coordinator.streams_groups["g"]
    assert (group.state, group.group_epoch) == ("NOT_READY", 2)
    assert _calls(sim)[:3] == [(17, "c1", 0, 0, 1, [ASSIGNMENT_DELAYED, MISSING_SOURCE_TOPICS]),
                               (5033, "c1", 1, 0, 2, [MISSING_SOURCE_TOPICS]),
                               (10043, "c1", 2, 0, 2, [MISSING_SOURCE_TOPICS])]
    assert sim.clients["c1"].owned == {}
    assert sim.settle() == []  # NotReady is the converged state while a source topic is missing
    sim.set_topic("s1", 3)
    assert sim.settle() == []
    group = sim.coordinator.streams_groups["g"]
    assert (group.state, group.group_epoch) == ("STABLE", 4)
    assert _tasks(sim.clients["c1"].owned) == {"active": {"0": [0, 1], "1": [0, 1, 2]}}


def test_a_process_crash_fences_all_its_threads_and_the_survivors_take_over() -> None:
    sim = _two_processes()
    sim.crash_process("p0")
    assert sim.settle() == []
    group = sim.coordinator.streams_groups["g"]
    survivors = {sim.clients["c3"].member_id, sim.clients["c4"].member_id}
    assert set(group.members) == survivors
    active = {p for c in ("c3", "c4") for p in sim.clients[c].owned["active"].get("0", ())}
    assert active == {0, 1, 2, 3}
    assert all("standby" not in sim.clients[c].owned for c in ("c3", "c4"))  # one process: no standbys


def test_standby_on_active_process_breaks_processid_exclusivity_with_two_threads_per_process() -> None:
    sim = Simulator(0, SimConfig(configs={"group.streams.num.standby.replicas": 1}),
                    Mutants({"standby-on-active-process"}))
    sim.set_topic("s0", 4)
    for process in ("p0", "p0", "p1"):
        sim.add_streams_client("g", process, streams_topology("stateful"))
    sim.settle()
    # Both break at the heartbeat that first grants the standby (the run stops there).
    assert [v.invariant for v in sim.violations] == [
        "processid-exclusivity", "target-validity", "target-validity", "target-validity"]
    assert sim.now == 5033


def test_the_shrunk_standby_on_active_process_run_is_flagged_at_the_granting_heartbeat(tmp_path: Path,
                                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # The program `kgspec fuzz --protocol streams --mutant standby-on-active-process` shrinks to.
    sim = Simulator(0, SimConfig(configs={"group.streams.num.standby.replicas": 1}),
                    Mutants({"standby-on-active-process"}))
    sim.set_topic("s0", 1)
    sim.add_streams_client("g", "process-0", streams_topology("stateful"))
    sim.settle()
    assert [v.invariant for v in sim.violations] == ["processid-exclusivity", "target-validity"]
    path = tmp_path / "soap.jsonl"
    write_trace(sim.finish(), path)
    line5 = json.loads(path.read_text().splitlines()[4])
    assert line5["response"]["standbyTasks"] == [{"subtopologyId": "0", "partitions": [0]}]
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:5: group g: response-mismatch (standbyTasks)" in out


def test_simulated_streams_traces_check_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = Scenario(groups=2, members=4, duration_ms=240000, seed=2, loss=0.1, duplicate=0.2,
                        failover_every_ms=60000, check=True, protocol="streams")
    sim = run_scenario(scenario)
    assert sim.violations == []
    path = tmp_path / "streams.jsonl"
    write_trace(sim.finish(), path)
    assert main(["check", str(path)]) == 0
    assert "2 group(s): 2 conform, 0 diverge, 0 incomplete; 0 finding(s)" in capsys.readouterr().out


def test_a_failing_run_ends_with_a_describe_so_an_unfenced_member_is_flagged(tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # no-session-fencing changes nothing a client sees: the describe closing the trace does.
    sim = Simulator(0, SimConfig(), Mutants({"no-session-fencing"}))
    sim.set_topic("s0", 1)
    sim.add_streams_client("g", "process-0", streams_topology("stateful"))
    sim.run_for(1000)
    sim.crash("c1")
    sim.settle()
    assert [v.invariant for v in sim.violations] == ["session-expiry"]
    path = tmp_path / "nsf.jsonl"
    write_trace(sim.finish(describe=True), path)
    assert json.loads(path.read_text().splitlines()[4])["requestHeader"]["requestApiKey"] == 89
    assert main(["check", str(path)]) == 1
    assert f"{path}:5: group g: response-mismatch (groupState)" in capsys.readouterr().out


def _lost_assignment_run(strict: bool) -> Simulator:
    """The nightly profile's find (shrunk): a lost response that carried the first assignment."""
    from kgspec.sim.machine import machine_for

    machine = machine_for(protocol="streams")()
    machine.start(seed=3, partitions=1, processes=2, threads=2, standbys=0, topology="stateful",
                  sources_exist=False, reconcile_ms=0, loss=0.05, duplicate=0.0)
    machine.sim.config.strict_streams_convergence = strict
    machine.advance(ms=6000)
    machine.settle()
    return machine.sim


def test_kafka_never_resends_a_streams_assignment_whose_response_was_lost() -> None:
    sim = _lost_assignment_run(strict=True)
    assert [v.invariant for v in sim.violations] == ["convergence"]
    member = sim.violations[0].message.split()[1]
    client = next(c for c in sim.clients.values() if c.member_id == member)
    calls = [(e["tsMs"], e["request"]["memberEpoch"], e["request"]["activeTasks"], e["response"]["memberEpoch"],
              e["response"]["activeTasks"]) for e in sim.events
             if "request" in e and e["requestHeader"]["clientId"] == client.name]
    assert calls[1:4] == [
        (5041, 1, None, 6, [{"subtopologyId": "0", "partitions": [0]}]),  # this response is lost
        (10036, 1, [], 6, None),  # after the request timeout: accepted at the previous epoch, no tasks
        (15069, 6, None, 6, None),  # ... and never again: the member is STABLE at 6 on both sides
    ]
    assert client.owned == {}
    assert sim.coordinator.streams_groups["g"].members[member].assigned_sets()["active"] == {"0": frozenset({0})}


def test_settle_tolerates_the_lost_assignment_by_default_and_reports_it() -> None:
    sim = _lost_assignment_run(strict=False)
    assert sim.violations == []
    assert len(sim.lost_assignments) == 1
    assert sim.lost_assignments[0].endswith("the response that carried the assignment was lost")


def test_a_grown_source_topic_leaves_the_changelog_incorrectly_partitioned_and_the_group_not_ready() -> None:
    # Found by the streams nightly run: Kafka does not repartition a changelog, so NotReady
    # (INCORRECTLY_PARTITIONED_TOPICS) is where the group converges until an operator acts.
    sim = Simulator(0, SimConfig())
    sim.set_topic("s0", 1)
    sim.add_streams_client("g", "p0", streams_topology("stateful"))
    assert sim.settle() == []
    sim.set_topic("s0", 2)
    assert sim.settle() == []
    group = sim.coordinator.streams_groups["g"]
    last = [e["response"]["status"] for e in sim.events if "response" in e][-1]
    assert (group.state, last) == ("NOT_READY", [{
        "statusCode": 2,
        "statusDetail": "Existing topic app-store-changelog has different number of partitions: expected 2, found 1"}])
    assert sim.clients["c1"].owned == {}


def test_trunk_in_place_demotion_breaks_no_invariant() -> None:
    """On trunk a member keeps an active task pending revocation while holding it as a standby
    (KAFKA-20665); the simulator's processid-exclusivity counts it once on its process, as
    `kgspec check` does. (Counted twice, this run stopped at 55870 ms on such a member.)"""
    sim = run_scenario(Scenario(members=4, duration_ms=200000, seed=1, loss=0.05, check=True,
                                profile="kafka-trunk", protocol="streams"), Mutants())
    assert sim.violations == []
    assert sim.now == 200000
