"""The checker's steady-heartbeat cache changes speed, never reports.

Every trace is checked with and without the cache and the JSON reports must be equal, byte
for byte: the golden traces, simulated runs with loss, duplicates and coordinator failovers
(with and without seeded bugs), a churning run (native and as a request log), and a steady
trace with departures planted among cached heartbeats, which the cached run must still flag
at their lines. A member's cached answer survives the records of the others' heartbeats.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.steady import write_steady_trace
from kgspec.conformance.writers import write_request_log
from kgspec.model.mutants import Mutants

from kgspec.sim.scenario import Scenario, run_scenario
from tests.helpers import session_marks

GOLDEN = sorted((Path(__file__).parent / "golden").rglob("*.jsonl"))


def _check(path: Path, cache: bool, **options: Any) -> tuple[dict[str, Any], int, dict[str, tuple[Any, ...]]]:
    report = Report()
    checker = TraceChecker(str(path), report, steady_cache=cache, **options)
    checker.feed_all(open_trace(path))
    checker.finish()
    return report.to_json(), checker.steady_hits, session_marks(checker)


def _same_with_and_without(path: Path, **options: Any) -> tuple[dict[str, Any], int]:
    cached, hits, cached_marks = _check(path, True, **options)
    uncached, none, marks = _check(path, False, **options)
    assert none == 0
    assert cached_marks == marks  # each group's last call, clock and event count
    assert json.dumps(cached) == json.dumps(uncached)  # the same findings, in the same order
    return cached, hits


@pytest.mark.parametrize("path", GOLDEN, ids=[f"{p.parent.name}/{p.name}" for p in GOLDEN])
def test_golden_traces(path: Path) -> None:
    _same_with_and_without(path)
    _same_with_and_without(path, clients=True)


@pytest.mark.parametrize(("seed", "mutant"), [(1, None), (2, None), (3, "assignor-double-assign"),
                                              (4, "bump-while-revoking")])
def test_simulated_runs_with_loss_and_failover(seed: int, mutant: str | None, tmp_path: Path) -> None:
    sim = run_scenario(Scenario(groups=3, members=4, duration_ms=150_000, seed=seed, loss=0.05, duplicate=0.02,
                                failover_every_ms=40_000), Mutants((mutant,) if mutant else ()))
    path = tmp_path / "sim.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in sim.finish()))
    report, hits = _same_with_and_without(path)
    assert (report["findings"] == []) == (mutant is None)
    assert hits > 0 or mutant is not None


def test_departures_among_cached_heartbeats_are_flagged(tmp_path: Path) -> None:
    path = tmp_path / "steady.jsonl"
    write_steady_trace(path, 3000, groups=3, members=3, partitions=6)
    lines = path.read_text().splitlines()
    late = [i for i, line in enumerate(lines) if '"memberEpoch":' in line and '"tsMs":1' in line][-200:]
    epoch_at, client_at, host_at = late[10], late[60], late[120]
    event = json.loads(lines[epoch_at])
    event["response"]["memberEpoch"] += 1  # the coordinator bumps an epoch for no reason
    lines[epoch_at] = json.dumps(event)
    event = json.loads(lines[client_at])
    event["requestHeader"]["clientId"] = "another-client"  # a metadata change: the model writes a record
    lines[client_at] = json.dumps(event)
    event = json.loads(lines[host_at])
    event["response"]["heartbeatIntervalMs"] = 3000
    lines[host_at] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    report, hits = _same_with_and_without(path)
    assert hits > 2500
    assert [(f["line"], f["kind"], f.get("field")) for f in report["findings"]] == [
        (epoch_at + 1, "response-mismatch", "memberEpoch"), (epoch_at + 1, "invariant", "epoch-monotonicity"),
        (host_at + 1, "response-mismatch", "heartbeatIntervalMs")]


def test_churn_native_and_request_log(tmp_path: Path) -> None:
    """Members joining, leaving, crashing and topics growing: records in every group all along."""
    sim = run_scenario(Scenario(groups=20, members=5, duration_ms=120_000, seed=0))
    native = tmp_path / "churn.jsonl"
    native.write_text("".join(json.dumps(e) + "\n" for e in sim.finish()))
    log = tmp_path / "kafka-request.log"
    with native.open(encoding="utf-8") as lines, log.open("w", encoding="utf-8") as out:
        write_request_log((json.loads(line) for line in lines), out)
    for path in (native, log):
        report, hits = _same_with_and_without(path)
        assert report["findings"] == []
        assert hits > 1000


def test_cached_answers_survive_other_members_records(tmp_path: Path) -> None:
    """One member's metadata change (a new client id: a member record) drops its own cached
    answer only: its next two heartbeats take the full path (the change back writes a record
    too, and the one after meets a new member object), the group's others stay answered."""
    path = tmp_path / "steady.jsonl"
    write_steady_trace(path, 900, groups=1, members=3, partitions=6)
    baseline, base_hits = _same_with_and_without(path)
    lines = path.read_text().splitlines()
    late = [i for i, line in enumerate(lines) if '"g0-m1"' in line][-5]
    event = json.loads(lines[late])
    event["requestHeader"]["clientId"] = "another-client"
    lines[late] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    report, hits = _same_with_and_without(path)
    assert report["findings"] == baseline["findings"] == []
    assert hits == base_hits - 3


def test_fast_path_decisions_carry_the_timers_deciding_again_gives(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``remember_steady`` takes a fast-path decision's timer operations instead of deciding
    again after the commit: on a churning run, every one equals what deciding again gives."""
    from kgspec.conformance import consumer
    from kgspec.model.consumer.heartbeat import steady_timer_ops
    from kgspec.model.step import Decision

    compared: list[bool] = []
    original = consumer.ConsumerChecks.remember_steady

    def remember(self: Any, g: Any, event: Any, version: int, kwargs: dict[str, Any], decided: Decision) -> None:
        if decided.fast_path:
            again = steady_timer_ops(g.coord, event.request, kwargs["client_id"], kwargs["client_host"], kwargs["now"])
            compared.append(again == decided.timer_ops)
        original(self, g, event, version, kwargs, decided)

    monkeypatch.setattr(consumer.ConsumerChecks, "remember_steady", remember)
    sim = run_scenario(Scenario(groups=20, members=5, duration_ms=120_000, seed=3, loss=0.02,
                                failover_every_ms=50_000))
    path = tmp_path / "churn.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in sim.finish()))
    report, _, _ = _check(path, True)
    assert report["findings"] == []
    assert len(compared) > 500
    assert all(compared)
