"""Every mutant x protocol pair: the shrunk program, replayed as the fuzzer runs it, writes a
trace that ``kgspec check`` (the unmutated model) flags at the line where the mutant shows.

The programs are what ``kgspec fuzz --protocol P --mutant NAME`` shrank to (docs/fuzzing.md),
as recorded calls (``Failure.calls``): the rule and its drawn arguments. *Where*: ``last`` is
the last call of the run — the step that broke the invariant, since a run stops at the first
violation; ``describe`` is the describe closing a failing run, for mutants whose only effect
is coordinator state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.model.mutants import CATALOGUE, Mutants

from kgspec.sim.machine import INTERNAL_ONLY, Call, machine_for, run_program
from tests.helpers import check

CONSUMER_START = {"seed": 0, "partitions": 1, "members": 1, "static": False, "reconcile_ms": 0, "loss": 0.0,
                  "duplicate": 0.0}
STREAMS_START = {"seed": 0, "partitions": 1, "processes": 1, "threads": 1, "standbys": 0, "topology": "stateful",
                 "sources_exist": True, "reconcile_ms": 0, "loss": 0.0, "duplicate": 0.0}
SETTLE: Call = ("settle", {})


def consumer(**changed: Any) -> Call:
    return ("start", {**CONSUMER_START, **changed})


def streams(**changed: Any) -> Call:
    return ("start", {**STREAMS_START, **changed})


STALE_DUPLICATE = [consumer(members=2, reconcile_ms=300, duplicate=0.3), ("advance", {"ms": 6000})]
STREAMS_STALE_DUPLICATE = [streams(processes=3, duplicate=0.3), ("advance", {"ms": 6000})]
WITHHOLDING = [consumer(partitions=3, members=2, static=True, reconcile_ms=3000, loss=0.05, duplicate=0.3), SETTLE]

# (protocol, mutant) -> (shrunk program, invariant that stops it, where, line, finding kind, field)
FLAGGED: dict[tuple[str, str], tuple[list[Call], str, str, int, str, str]] = {
    # The observable phase's shrunk run (partition-epoch-index ignored): c1 is cut off before
    # its join arrives; c3 owns t0-[0, 1, 2], revokes [1, 2] for c2 and c4, gets 2 back when c4
    # leaves within a second (its callbacks still running), with no index entry; c1's join
    # 20 s later is granted t0-2 while c3 holds it (KAFKA-16147).
    ("consumer", "lost-partition-epoch"): (
        [consumer(partitions=3, members=3, reconcile_ms=3000, loss=0.05), ("isolate", {"index": 0, "ms": 20000}),
         ("bounce", {"lifetime_ms": 1000, "reconcile_ms": 3000}), ("advance", {"ms": 60000})],
        "no-double-ownership", "last", 16, "response-mismatch", "assignment"),
    ("consumer", "no-withholding"): (WITHHOLDING, "no-double-ownership", "last", 6, "response-mismatch",
                                     "assignment"),
    ("consumer", "grant-before-ack"): (WITHHOLDING, "no-double-ownership", "last", 6, "response-mismatch",
                                       "assignment"),
    ("consumer", "bump-while-revoking"): ([consumer(partitions=2, members=2), SETTLE], "epoch-monotonicity",
                                          "last", 7, "response-mismatch", "memberEpoch"),
    ("consumer", "no-session-fencing"): ([consumer(), SETTLE, ("crash", {"index": 0}), SETTLE], "session-expiry",
                                         "describe", 20, "response-mismatch", "groupState"),
    ("consumer", "accept-stale-epoch"): (STALE_DUPLICATE, "epoch-fencing", "last", 8, "response-mismatch",
                                         "errorCode"),
    ("consumer", "lost-response-no-subset"): (STALE_DUPLICATE, "epoch-fencing", "last", 8, "response-mismatch",
                                              "errorCode"),
    ("consumer", "replay-drops-tombstone"): (
        [consumer(), SETTLE, ("crash", {"index": 0}), SETTLE, ("failover", {})], "replay-equivalence",
        "describe", 21, "response-mismatch", "groupState"),
    ("consumer", "assignor-double-assign"): (
        [consumer(partitions=3, members=3, static=True, reconcile_ms=300, loss=0.2, duplicate=0.3), SETTLE],
        "target-validity", "describe", 8, "response-mismatch", "targetAssignment"),
    # Committing clients (COMMIT_MUTANTS): c1 commits t0-0 and t0-1 at epoch 2 before revoking t0-1
    # for c2; the zombie resends that commit once c1 is at epoch 3 without t0-1: Kafka answers
    # STALE_MEMBER_EPOCH (KIP-1251: not assigned or pending revocation), the mutant NONE.
    ("consumer", "commit-accepts-stale-epoch"): (
        [consumer(partitions=2, members=2), SETTLE, ("zombie_commit", {"index": 0}), SETTLE], "commit-fencing",
        "last", 67, "response-mismatch", "errorCode"),
    ("streams", "standby-on-active-process"): ([streams(standbys=1), SETTLE], "processid-exclusivity", "last", 5,
                                               "response-mismatch", "standbyTasks"),
    ("streams", "grant-before-ack"): (
        [streams(partitions=2, processes=2, threads=2, standbys=1, loss=0.2), ("advance", {"ms": 1000}), SETTLE],
        "processid-exclusivity", "last", 13, "response-mismatch", "activeTasks"),
    ("streams", "bump-while-revoking"): (
        [streams(standbys=1), ("bounce", {"process": 1, "lifetime_ms": 6000, "reconcile_ms": 0}), SETTLE],
        "epoch-monotonicity", "last", 11, "response-mismatch", "memberEpoch"),
    ("streams", "no-session-fencing"): ([streams(), ("advance", {"ms": 1000}), ("crash", {"index": 0}), SETTLE],
                                        "session-expiry", "describe", 5, "response-mismatch", "groupState"),
    ("streams", "accept-stale-epoch"): (STREAMS_STALE_DUPLICATE, "epoch-fencing", "last", 12, "response-mismatch",
                                        "errorCode"),
    ("streams", "lost-response-no-subset"): (STREAMS_STALE_DUPLICATE, "epoch-fencing", "last", 12,
                                             "response-mismatch", "errorCode"),
    ("streams", "replay-drops-tombstone"): (
        [streams(), ("bounce", {"process": 0, "lifetime_ms": 1000, "reconcile_ms": 0}), SETTLE, ("failover", {})],
        "replay-equivalence", "describe", 26, "response-mismatch", "groupState"),
    # The computing heartbeat alone (line 6: 0_0 for this member) fits a legal target, which the
    # checker adopts; the describe then shows 0_0 in the other member's target as well.
    ("streams", "assignor-double-assign"): ([streams(threads=2), SETTLE], "target-validity", "describe", 7,
                                            "response-mismatch", "activeTasks"),
}
PAIRS = sorted(FLAGGED)
DESCRIBE_API_KEYS = {"consumer": 69, "streams": 89}


def test_every_mutant_protocol_pair_has_a_flagged_trace() -> None:
    pairs = {(p, n) for n, m in CATALOGUE.items() for p in ("consumer", "streams") if m.protocol in (p, "any")}
    assert sorted(pairs) == PAIRS
    assert len(PAIRS) == 18


def _check(path: Path) -> tuple[int, list[dict[str, Any]]]:
    rc, report = check(path)
    return rc, report["findings"]


@pytest.mark.parametrize(("protocol", "name"), PAIRS, ids=[f"{p}:{n}" for p, n in PAIRS])
def test_shrunk_trace_is_flagged_at_the_line_where_the_mutant_shows(protocol: str, name: str,
                                                                   tmp_path: Path) -> None:
    calls, invariant, where, line, kind, field = FLAGGED[(protocol, name)]
    ignore = INTERNAL_ONLY if name == "lost-partition-epoch" else frozenset()
    path = tmp_path / f"{name}.jsonl"
    failure = run_program(machine_for(Mutants({name}), protocol=protocol, ignore=ignore), calls, str(path))
    assert failure is not None
    assert failure.observable
    assert failure.violations[0].invariant == invariant
    assert len(calls) <= 6
    events = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    # The run ends: ..., the last call, one describe per group, the closing tick.
    assert "tick" in events[-1]
    assert events[-2]["requestHeader"]["requestApiKey"] == DESCRIBE_API_KEYS[protocol]
    assert line == {"last": len(events) - 2, "describe": len(events) - 1}[where]
    rc, findings = _check(path)
    assert rc == 1
    assert (findings[0]["line"], findings[0]["kind"], findings[0]["field"]) == (line, kind, field)


def test_lost_partition_epoch_is_killed_first_by_the_internal_index_which_no_trace_shows(tmp_path: Path) -> None:
    # The quick kill, as the first phase shrank it (seed 0): partition-epoch-index breaks when
    # c1 gets back the partition c2 took, and the trace conforms (the index is internal). The
    # observable phase's program stops on the same invariant too, before c1 is granted t0-2.
    kill = [consumer(partitions=2, reconcile_ms=3000), ("bounce", {"lifetime_ms": 1000, "reconcile_ms": 3000}),
            SETTLE]
    for calls in (kill, FLAGGED[("consumer", "lost-partition-epoch")][0]):
        path = tmp_path / "internal.jsonl"
        failure = run_program(machine_for(Mutants({"lost-partition-epoch"})), calls, str(path))
        assert failure is not None
        assert not failure.observable
        assert {v.invariant for v in failure.violations} == {"partition-epoch-index"}
        rc, findings = _check(path)
        assert (rc, findings) == (0, [])


@pytest.mark.slow
def test_the_fuzzer_shrinks_lost_partition_epoch_to_an_observable_trace(tmp_path: Path) -> None:
    # Both phases from seed 0 with shrinking (~3 min): the internal kill, then the observable run.
    from kgspec.sim.machine import run_fuzz

    out = tmp_path / "lpe.jsonl"
    result = run_fuzz(Mutants({"lost-partition-epoch"}), seed=0, budget_s=600, hypothesis_profile="ci",
                      out=str(out))
    assert result.failure is not None
    assert {v.invariant for v in result.failure.violations} == {"partition-epoch-index"}
    assert result.observable is not None
    assert result.observable.steps <= 6
    assert "no-double-ownership" in {v.invariant for v in result.observable.violations}
    rc, findings = _check(out)
    assert rc == 1
    assert findings[0]["line"] == len(out.read_text(encoding="utf-8").splitlines()) - 2  # the last call
