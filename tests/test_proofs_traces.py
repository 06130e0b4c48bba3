"""Every consumer mutant's counterexample, replayed through the mutated model, is a contract
trace that ``kgspec check`` (the unmutated model) flags where the mutant departs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("z3")

from kgspec.conformance.counterexample import export_trace
from kgspec.invariants.symbolic.bmc import STREAMS_TWO_TASKS, Instance, run_bmc

from kgspec.cli import main
from tests.helpers import check

# mutant -> (invariant, where the check flags it: the last step's line or the closing
# Describe, the field of a finding on that line, counterexample length)
EXPORTS = {
    "no-withholding": ("no-double-ownership", "last", "assignment", 6),
    "assignor-double-assign": ("target-validity", "probe", "targetAssignment", 6),
    "replay-drops-tombstone": ("no-double-ownership", "probe", "members", 7),
    "no-session-fencing": ("session-expiry", "probe", "members", 4),
    "grant-before-ack": ("no-double-ownership", "last", "no-double-ownership", 8),
    "bump-while-revoking": ("epoch-monotonicity", "last", "memberEpoch", 7),
    "lost-partition-epoch": ("no-double-ownership", "last", "no-double-ownership", 13),
    "accept-stale-epoch": ("epoch-fencing", "last", "errorCode", 10),
    # the network's copy of the first revocation heartbeat, delivered after the epoch moved on
    "lost-response-no-subset": ("epoch-fencing", "last", "errorCode", 10),
}
SLOW = {"grant-before-ack", "bump-while-revoking", "lost-partition-epoch", "accept-stale-epoch",
        "lost-response-no-subset", "assignor-double-assign", "replay-drops-tombstone"}
# Streams (2 members x 1 task x 2 processes, the sticky assignor's choices; the consumer-only
# mutants do not apply). A revocation needs two tasks: with one, the sticky assignor never moves
# it away from a member that stays; those mutants run on STREAMS_TWO_TASKS.
STREAMS_EXPORTS = {
    "standby-on-active-process": ("processid-exclusivity", "last", "standbyTasks", 3),
    "no-session-fencing": ("session-expiry", "probe", "members", 4),
    "assignor-double-assign": ("target-validity", "probe", "activeTasks", 6),
    "replay-drops-tombstone": ("no-double-ownership", "probe", "members", 8),
    "accept-stale-epoch": ("epoch-fencing", "last", "errorCode", 11),
    "grant-before-ack": ("no-double-ownership", "last", "activeTasks", 8),
    "lost-response-no-subset": ("epoch-fencing", "last", "errorCode", 10),
    "bump-while-revoking": ("epoch-monotonicity", "last", "memberEpoch", 7),
}
STREAMS_TWO = {"grant-before-ack", "lost-response-no-subset", "bump-while-revoking"}

# (protocol, mutant) -> every finding of the check, as (line - the flagged line, kind, field): the
# flagged call's departure (and the invariant it breaks, where the checker can name it), then
# the closing Describe's.
MISMATCH = "response-mismatch"
_DOUBLE_ASSIGNMENT = [(0, "invariant", "no-double-ownership"), (0, MISMATCH, "assignment"), (1, MISMATCH, "assignment")]
_GONE = [(0, MISMATCH, "groupEpoch"), (0, MISMATCH, "groupState"), (0, MISMATCH, "members")]
_REPLAY = [(0, MISMATCH, "groupState"), (0, MISMATCH, "members")]
FINDINGS: dict[tuple[str, str], list[tuple[int, str, str]] | tuple[list[tuple[int, str, str]], ...]] = {
    ("consumer", "no-withholding"): _DOUBLE_ASSIGNMENT,
    ("consumer", "assignor-double-assign"): [(0, MISMATCH, "targetAssignment")],
    ("consumer", "replay-drops-tombstone"): _REPLAY,
    ("consumer", "no-session-fencing"): _GONE,
    ("consumer", "grant-before-ack"): _DOUBLE_ASSIGNMENT,
    ("consumer", "bump-while-revoking"): [(0, "invariant", "epoch-monotonicity"), (0, MISMATCH, "memberEpoch"),
                                          (1, MISMATCH, "memberEpoch")],
    ("consumer", "lost-partition-epoch"): _DOUBLE_ASSIGNMENT,
    ("consumer", "accept-stale-epoch"): [(0, "invariant", "epoch-fencing"), (0, MISMATCH, "errorCode")],
    ("consumer", "lost-response-no-subset"): [(0, "invariant", "epoch-fencing"), (0, MISMATCH, "errorCode")],
    # the Describe shows the standby in the member's assignment and in its target
    ("streams", "standby-on-active-process"): [(0, "invariant", "streams-process-exclusivity"),
                                               (0, MISMATCH, "standbyTasks"), (1, MISMATCH, "standbyTasks"),
                                               (1, MISMATCH, "standbyTasks")],
    ("streams", "no-session-fencing"): _GONE,
    ("streams", "assignor-double-assign"): [(0, MISMATCH, "activeTasks")],
    ("streams", "replay-drops-tombstone"): _REPLAY,
    ("streams", "accept-stale-epoch"): [(0, "invariant", "epoch-fencing"), (0, MISMATCH, "errorCode")],
    # z3's model depends on what the process solved before, so either of two counterexamples: the
    # grant moves every role (a fresh process, or this file's whole order), or, after the other
    # slow streams exports alone, it also puts the task on a second member of the same process
    ("streams", "grant-before-ack"): (
        [(0, "invariant", "streams-single-active-owner"), (0, MISMATCH, "activeTasks"),
         (0, MISMATCH, "standbyTasks"), (0, MISMATCH, "warmupTasks"), (1, MISMATCH, "activeTasks")],
        [(0, "invariant", "streams-process-exclusivity"), (0, "invariant", "streams-single-active-owner"),
         (0, MISMATCH, "activeTasks"), (1, MISMATCH, "activeTasks")]),
    ("streams", "lost-response-no-subset"): [(0, "invariant", "epoch-fencing"), (0, MISMATCH, "errorCode")],
    ("streams", "bump-while-revoking"): [(0, "invariant", "streams-epoch-while-revoking"),
                                         (0, MISMATCH, "memberEpoch"), (1, MISMATCH, "memberEpoch")],
}
STREAMS_SLOW = {"assignor-double-assign", "replay-drops-tombstone", "accept-stale-epoch",
                "lost-response-no-subset", "bump-while-revoking", "grant-before-ack"}


def _check(path: Path) -> tuple[int, list[dict[str, Any]]]:
    rc, report = check(path)
    return rc, report["findings"]


def _exported_trace_is_flagged(mutant: str, tmp_path: Path, protocol: str = "consumer") -> None:
    invariant, where, field, length = (STREAMS_EXPORTS if protocol == "streams" else EXPORTS)[mutant]
    inst: Instance | None = STREAMS_TWO_TASKS if protocol == "streams" and mutant in STREAMS_TWO else None
    res = run_bmc(protocol, invariant, mutant, depth=length, timeout_s=300, replayable=True, inst=inst)
    assert res.counterexample is not None
    assert len(res.counterexample.steps) == length
    exported = export_trace(res.counterexample)
    assert exported.mismatches == []  # the mutated model reproduces the counterexample
    assert exported.notes == []
    path = tmp_path / f"{mutant}.jsonl"
    exported.write(path)
    assert len(path.read_text(encoding="utf-8").splitlines()) == exported.probe_line
    rc, findings = _check(path)
    assert rc == 1
    line = exported.step_lines[-1] if where == "last" else exported.probe_line
    assert findings[0]["line"] == line
    at_line = [f for f in findings if f["line"] == line]
    assert field in {f["field"] for f in at_line}
    assert {f["kind"] for f in at_line} <= {"response-mismatch", "invariant"}
    # the unmutated model agrees with every line before it
    assert all(f["line"] >= line for f in findings)
    expected = FINDINGS[(protocol, mutant)]
    assert sorted((f["line"] - line, f["kind"], f["field"]) for f in findings) in (
        expected if isinstance(expected, tuple) else (expected,))


@pytest.mark.parametrize("mutant", sorted(set(EXPORTS) - SLOW))
def test_exported_trace_is_flagged(mutant: str, tmp_path: Path) -> None:
    _exported_trace_is_flagged(mutant, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", sorted(SLOW))
def test_slow_exported_trace_is_flagged(mutant: str, tmp_path: Path) -> None:
    _exported_trace_is_flagged(mutant, tmp_path)


@pytest.mark.parametrize("mutant", sorted(set(STREAMS_EXPORTS) - STREAMS_SLOW))
def test_exported_streams_trace_is_flagged(mutant: str, tmp_path: Path) -> None:
    _exported_trace_is_flagged(mutant, tmp_path, "streams")


@pytest.mark.slow
@pytest.mark.parametrize("mutant", sorted(STREAMS_SLOW))
def test_slow_exported_streams_trace_is_flagged(mutant: str, tmp_path: Path) -> None:
    _exported_trace_is_flagged(mutant, tmp_path, "streams")


@pytest.mark.slow
def test_streams_grant_before_ack_has_no_replayable_counterexample() -> None:
    res = run_bmc("streams", "no-double-ownership", "grant-before-ack", depth=8, replayable=True)
    assert (res.found, res.result) == (False, "holds-to-depth")


def test_prove_trace_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace, report = tmp_path / "t.jsonl", tmp_path / "r.json"
    rc = main(["prove", "--protocol", "consumer", "--invariant", "session-expiry", "--mutant",
               "no-session-fencing", "--bmc-depth", "4", "--trace-out", str(trace), "--json", str(report)])
    text = capsys.readouterr().out
    assert rc == 1
    assert f"trace: {trace}: session-expiry" in text
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["trace_out"] == str(trace)
    [entry] = data["results"]
    assert entry["trace"]["path"] == str(trace)
    assert entry["trace"]["steps"] == 4
    assert entry["trace"]["mismatches"] == []
    events = [json.loads(x) for x in trace.read_text(encoding="utf-8").splitlines()]
    assert events[0]["header"]["configs"]["group.consumer.assignors"] == "range"
    assert events[-2] == {"tsMs": events[-2]["tsMs"], "tick": {}}  # the session timeout
    assert events[-2]["tsMs"] - events[-3]["tsMs"] >= 45000
    rc, findings = _check(trace)
    assert rc == 1
    assert findings[0]["line"] == entry["trace"]["probe_line"] == len(events)


def test_trace_out_without_a_failure_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.jsonl"
    rc = main(["prove", "--protocol", "consumer", "--invariant", "session-expiry", "--trace-out", str(trace)])
    assert rc == 0
    assert "nothing written" in capsys.readouterr().out
    assert not trace.exists()
