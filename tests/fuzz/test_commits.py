"""Simulated KIP-848 consumers commit offsets as the Java consumer does (kgspec/sim/committer.py).

Exact values from seeded runs of the simulator (seed 0, one topic ``t`` of two partitions,
auto.commit.interval.ms 5000): what each client sent and what the coordinator answered.
A commit is (time, client, "commit", epoch, partitions, offsets, error codes); a heartbeat is
(time, client, "hb", epoch, owned partitions reported, error code, epoch answered).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from kgspec.model.errors import Errors
from kgspec.model.mutants import Mutants

from kgspec.cli import main
from kgspec.sim.client import ClientOptions, SimClient
from kgspec.sim.committer import Committer, commit_request
from kgspec.sim.machine import (
    CommittingConsumerGroupMachine,
    ConsumerGroupMachine,
    machine_for,
    run_fuzz,
)
from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.trace import write_trace

STALE, UNKNOWN = int(Errors.STALE_MEMBER_EPOCH), int(Errors.UNKNOWN_MEMBER_ID)
MUTANT = "commit-accepts-stale-epoch"


def _calls(sim: Simulator, since: int = 0) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for e in sim.events:
        header = e.get("requestHeader")
        if header is None or e["tsMs"] < since:
            continue
        req, resp = e["request"], e["response"]
        if header["requestApiKey"] == 8:
            parts = [p for t in req["topics"] for p in t["partitions"]]
            errors = sorted({p["errorCode"] for t in resp["topics"] for p in t["partitions"]})
            out.append((e["tsMs"], header["clientId"], "commit", req["generationIdOrMemberEpoch"],
                        [p["partitionIndex"] for p in parts], [p["committedOffset"] for p in parts], errors))
        elif header["requestApiKey"] == 68:
            owned = req["topicPartitions"]
            out.append((e["tsMs"], header["clientId"], "hb", req["memberEpoch"],
                        None if owned is None else [p for t in owned for p in t["partitions"]],
                        resp["errorCode"], resp.get("memberEpoch")))
    return out


def _sim(profile: str = "kafka-4.3", reconcile_ms: int = 0, mutants: Mutants | None = None,
         clients: int = 1) -> Simulator:
    sim = Simulator(0, SimConfig(profile=profile), mutants or Mutants())
    sim.set_topic("t", 2)
    for _ in range(clients):
        sim.add_client("g", ("t",), options=ClientOptions(auto_commit_interval_ms=5000, reconcile_ms=reconcile_ms))
    return sim


def test_auto_commit_every_interval_of_the_owned_positions_at_the_member_epoch() -> None:
    sim = _sim()
    sim.run_for(11000)
    assert _calls(sim) == [
        (17, "c1", "hb", 0, [], 0, 2),
        (46, "c1", "hb", 2, [0, 1], 0, 2),
        (5016, "c1", "commit", 2, [0, 1], [500, 500], [0]),
        (5075, "c1", "hb", 2, None, 0, 2),
        (10017, "c1", "commit", 2, [0, 1], [1000, 1000], [0]),
        (10092, "c1", "hb", 2, None, 0, 2),
    ]
    assert sim.violations == []


def test_no_commits_without_auto_commit() -> None:
    sim = Simulator(0, SimConfig())
    sim.set_topic("t", 2)
    sim.add_client("g", ("t",))
    sim.run_for(11000)
    assert [c[2] for c in _calls(sim)] == ["hb", "hb", "hb", "hb"]


def test_commit_before_acknowledging_a_revocation_then_a_zombie_is_stale() -> None:
    sim = _sim(reconcile_ms=300)
    sim.run_for(7000)
    sim.add_client("g", ("t",), options=ClientOptions(auto_commit_interval_ms=5000, reconcile_ms=300))
    sim.run_for(12000)
    assert _calls(sim, since=7000) == [
        (7004, "c2", "hb", 0, [], 0, 3),
        (10009, "c1", "commit", 2, [0, 1], [1000, 1000], [0]),
        (10402, "c1", "hb", 2, None, 0, 2),  # revokes t-1
        (10417, "c1", "commit", 2, [0, 1], [1040, 1040], [0]),  # before onPartitionsRevoked
        (10724, "c1", "hb", 2, [0], 0, 3),  # the ack, 300 ms of callbacks after the commit's answer
        (12040, "c2", "hb", 3, None, 0, 3),
        (12362, "c2", "hb", 3, [1], 0, 3),
        (15014, "c1", "commit", 3, [0], [1500], [0]),
        (15755, "c1", "hb", 3, None, 0, 3),
        (17018, "c2", "commit", 3, [1], [1700], [0]),
        (17389, "c2", "hb", 3, None, 0, 3),
    ]
    # c1 resends its epoch-2 commit: t-1 is no longer its, so KIP-1251 answers STALE_MEMBER_EPOCH
    assert sim.zombie_commit("c1")
    sim.run_for(100)
    assert _calls(sim, since=19000) == [(19009, "c1", "commit", 2, [0, 1], [1040, 1040], [STALE])]
    client = sim.clients["c1"]
    assert isinstance(client, SimClient)
    assert client.committer is not None
    assert (client.committer.committed, client.committer.failed) == (4, {STALE: 1})
    assert (client.state, client.epoch) == ("STABLE", 3)  # a failed commit changes no membership
    assert sim.violations == []


def test_zombie_commit_accepted_by_the_mutant_breaks_commit_fencing() -> None:
    sim = _sim(reconcile_ms=300, mutants=Mutants({MUTANT}))
    sim.run_for(7000)
    sim.add_client("g", ("t",), options=ClientOptions(auto_commit_interval_ms=5000, reconcile_ms=300))
    sim.run_for(12000)
    sim.zombie_commit("c1")
    sim.run_for(100)
    assert _calls(sim, since=19000) == [(19009, "c1", "commit", 2, [0, 1], [1040, 1040], [0])]
    member = sim.clients["c1"].member_id
    assert [str(v) for v in sim.violations] == [
        f"[commit-fencing] group g: member {member} committed t-1 at epoch 2 and was accepted, but does not hold it"]


def test_zombie_commit_is_stale_under_the_strict_4_2_rule() -> None:
    sim = _sim(profile="kafka-4.2", reconcile_ms=300)
    sim.run_for(7000)
    sim.add_client("g", ("t",), options=ClientOptions(auto_commit_interval_ms=5000, reconcile_ms=300))
    sim.run_for(12000)
    sim.zombie_commit("c1")
    sim.run_for(100)
    assert [c[3:] for c in _calls(sim, since=19000)] == [(1, [0, 1], [1040, 1040], [STALE])]  # 4.2 starts at epoch 1


def test_frozen_client_commits_at_its_old_epoch_and_gets_unknown_member_id() -> None:
    """Frozen past the session timeout: on resuming, its auto-commit (epoch 3) goes out before the
    heartbeat; both are answered UNKNOWN_MEMBER_ID; the commit is only logged, the heartbeat's
    answer fences the client and it rejoins with epoch 0 (the same member id)."""
    sim = _sim(clients=2)
    sim.run_for(7000)
    sim.freeze("c1", 50000)
    sim.run_for(60000)
    assert [c for c in _calls(sim, since=57000) if c[1] == "c1"] == [
        (57018, "c1", "commit", 3, [0], [5700], [UNKNOWN]),
        (57018, "c1", "hb", 3, None, UNKNOWN, 0),
        (57047, "c1", "hb", 0, [], 0, 5),
        (62078, "c1", "hb", 5, None, 0, 5),
        (62108, "c1", "hb", 5, [1], 0, 5),
    ]
    client = sim.clients["c1"]
    assert isinstance(client, SimClient)
    assert client.committer is not None
    assert client.committer.failed == {UNKNOWN: 1}
    assert (client.state, client.epoch) == ("STABLE", 5)
    assert sim.violations == []


def test_commit_on_close_goes_before_the_leave_heartbeat() -> None:
    sim = _sim()
    sim.run_for(13000)
    sim.leave("c1")
    sim.run_for(1000)
    assert _calls(sim, since=13000) == [
        (13004, "c1", "commit", 2, [0, 1], [1300, 1300], [0]),
        (13033, "c1", "hb", -1, None, 0, -1),  # sent once the commit is answered
    ]
    assert not sim.zombie_commit("c1")  # a closed consumer sends nothing more


@pytest.mark.parametrize("seed", [0, 1, 4])
def test_simulate_with_commits_churn_and_loss_conforms(seed: int, tmp_path: Path) -> None:
    scenario = Scenario(groups=2, members=3, duration_ms=120000, seed=seed, loss=0.1, duplicate=0.1,
                        failover_every_ms=40000, check=True, commits=True)
    sim = run_scenario(scenario)
    assert sim.violations == []
    codes: dict[int, int] = {}
    for e in sim.events:
        if e.get("requestHeader", {}).get("requestApiKey") == 8:
            code = e["response"]["topics"][0]["partitions"][0]["errorCode"]
            codes[code] = codes.get(code, 0) + 1
    assert codes == {0: {0: 114, 1: 112, 4: 109}[seed], **({STALE: 1} if seed == 1 else {})}
    path = tmp_path / "sim.jsonl"
    write_trace(sim.finish(), path)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", str(path)]) == 0


def test_simulate_cli_commits_flag(tmp_path: Path) -> None:
    path = tmp_path / "sim.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["simulate", "--commits", "--seed", "1", "--loss", "0.1", "--duration-ms", "60000",
                     "-o", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert '"requestApiKey":8' in text
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", str(path)]) == 0


def test_machine_has_commits_only_for_commit_mutants_or_when_asked() -> None:
    assert issubclass(machine_for(Mutants({MUTANT})), CommittingConsumerGroupMachine)
    assert issubclass(machine_for(commits=True), CommittingConsumerGroupMachine)
    plain = machine_for(Mutants({"accept-stale-epoch"}))
    assert issubclass(plain, ConsumerGroupMachine)
    assert not issubclass(plain, CommittingConsumerGroupMachine)
    assert not issubclass(machine_for(protocol="streams", commits=True), ConsumerGroupMachine)


def test_unmutated_committing_clients_survive_the_ci_profile() -> None:
    result = run_fuzz(Mutants(), seed=0, hypothesis_profile="ci", commits=True)
    assert result.failure is None, [str(v) for v in result.failure.violations] if result.failure else ""


SHRUNK = [("start", {"seed": 0, "partitions": 2, "members": 2, "static": False, "reconcile_ms": 0, "loss": 0.0,
                     "duplicate": 0.0}),
          ("settle", {}), ("zombie_commit", {"index": 0}), ("settle", {})]


@pytest.mark.slow
def test_commit_mutant_is_killed_and_shrunk(tmp_path: Path) -> None:
    """``kgspec fuzz --mutant commit-accepts-stale-epoch --seed 9``: Hypothesis kills it in its first
    batch and shrinks it to two members, a settle, one zombie commit and a settle (~2 min)."""
    out = tmp_path / "shrunk.jsonl"
    result = run_fuzz(Mutants({MUTANT}), seed=9, hypothesis_profile="ci", out=str(out))
    assert result.failure is not None
    assert result.batches == 1
    assert result.failure.calls == SHRUNK
    assert result.failure.steps == 4
    assert {v.invariant for v in result.failure.violations} == {"commit-fencing"}
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", str(out)]) == 1


def test_fuzz_cli_finds_the_commit_mutant_and_check_flags_its_trace(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "kill.jsonl"
    status = main(["fuzz", "--mutant", MUTANT, "--seed", "9", "--no-shrink", "--no-progress", "--out", str(out)])
    assert status == 1
    printed = capsys.readouterr().out
    assert "zombie_commit(" in printed
    assert "[commit-fencing]" in printed
    assert main(["check", str(out)]) == 1
    assert f"{out}:69: group g: response-mismatch (errorCode)" in capsys.readouterr().out  # the zombie's commit


def test_fuzz_cli_commits_flag_without_a_mutant_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--commits", "--seed", "3", "--no-progress", "--out", str(tmp_path / "f.jsonl")]) == 0
    assert "no invariant broke" in capsys.readouterr().out


def test_sync_commit_retries_stale_member_epoch_with_the_latest_epoch_then_ends() -> None:
    """``maybeAutoCommitSyncBeforeRebalance``: STALE_MEMBER_EPOCH is retried after retry.backoff.ms
    with the epoch known then; UNKNOWN_MEMBER_ID ends it; so does the rebalance timeout."""
    committer = Committer(5000)
    epoch = [2]

    def build() -> dict[str, Any]:
        return commit_request("g", "m", None, epoch[0], {"T": frozenset({0})}, 1000)

    def answer(error: int) -> dict[str, Any]:
        return {"throttleTimeMs": 0, "topics": [{"topicId": "T", "partitions": [{"partitionIndex": 0,
                                                                                 "errorCode": error}]}]}

    committer.start_sync(1000, 30000)
    assert not committer.due(1000, True, True, build)
    [(kind, request)] = committer.outbox
    assert (kind, request["generationIdOrMemberEpoch"]) == ("sync", 2)
    committer.outbox.clear()
    committer.sent(1, kind, request, 6000)
    assert committer.on_response(1, answer(STALE), 1010) is False  # retried, not ended
    assert committer.wake_time(polling=False) == 1110
    epoch[0] = 3  # a heartbeat answered meanwhile
    assert not committer.due(1110, True, True, build)
    [(kind, request)] = committer.outbox
    assert (kind, request["generationIdOrMemberEpoch"]) == ("sync", 3)
    committer.outbox.clear()
    committer.sent(2, kind, request, 6110)
    assert committer.on_response(2, answer(UNKNOWN), 1120) is True
    assert (committer.syncing, committer.failed, committer.committed) == (False, {STALE: 1, UNKNOWN: 1}, 0)
    assert committer.on_response(2, answer(0), 1130) is None  # not in flight any more
    # past the rebalance timeout with the commit's answer lost: it ends, and revocation goes on
    committer.start_sync(2000, 300)
    committer.due(2000, True, True, build)
    committer.sent(3, *committer.outbox.pop(), 7000)
    assert committer.due(2300, True, True, build) is True
    assert not committer.syncing


def test_leave_while_a_revocation_commit_is_in_flight_does_not_spin() -> None:
    """A revocation's sync commit still in flight when close() starts the leave's: the retry waits
    for the first one's answer (it used to be due at once, forever: a busy loop at 9,931 ms)."""
    sim = run_scenario(Scenario(groups=4, members=3, duration_ms=300000, seed=0, loss=0.1, duplicate=0.1,
                                check=True, commits=True))
    assert sim.violations == []
    assert (sim.now, len(sim.events), sim.steps) == (300000, 1237, 1243)
