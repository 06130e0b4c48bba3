"""Every mutant is killed under every protocol it applies to, within the default budget;
the unmutated model survives.

Kills run without shrinking (time to first failure); ``docs/fuzzing.md`` has the shrunk
lengths from ``kgspec fuzz --protocol P --mutant NAME``. Each kill names an invariant that
caught it (several may break at the failing step; the expected one must be among them), and
the trace the fuzzer writes is flagged by ``kgspec check`` — for lost-partition-epoch, whose
first kill is internal-only, the trace of the observable phase. Exact flagged lines of the
shrunk programs: ``test_mutant_traces.py``.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
from pathlib import Path

import pytest
from kgspec.model.mutants import CATALOGUE, Mutants

from kgspec.cli import main
from kgspec.sim.machine import INTERNAL_ONLY, machine_for, run_fuzz, run_program

BUDGET_S = 30.0  # per pair; each is killed far sooner

# (protocol, mutant) -> (an invariant that catches it, a seed whose first ci batch killed it when measured);
# from seed 0 every pair is killed too, some only after several batches (the slow test).
KILLED_BY = {
    ("consumer", "lost-partition-epoch"): ("partition-epoch-index", 16),
    ("consumer", "no-withholding"): ("no-double-ownership", 0),
    ("consumer", "grant-before-ack"): ("no-double-ownership", 0),
    ("consumer", "bump-while-revoking"): ("epoch-monotonicity", 1),
    ("consumer", "no-session-fencing"): ("session-expiry", 0),
    ("consumer", "accept-stale-epoch"): ("epoch-fencing", 0),
    ("consumer", "lost-response-no-subset"): ("epoch-fencing", 0),
    ("consumer", "replay-drops-tombstone"): ("replay-equivalence", 3),
    ("consumer", "assignor-double-assign"): ("target-validity", 0),
    ("consumer", "commit-accepts-stale-epoch"): ("commit-fencing", 9),  # committing clients (COMMIT_MUTANTS)
    ("streams", "standby-on-active-process"): ("target-validity", 0),
    ("streams", "grant-before-ack"): ("processid-exclusivity", 5),
    ("streams", "bump-while-revoking"): ("epoch-monotonicity", 1),
    ("streams", "no-session-fencing"): ("session-expiry", 2),
    ("streams", "accept-stale-epoch"): ("epoch-fencing", 0),
    ("streams", "lost-response-no-subset"): ("epoch-fencing", 0),
    ("streams", "replay-drops-tombstone"): ("replay-equivalence", 0),
    ("streams", "assignor-double-assign"): ("target-validity", 0),
}


def test_every_mutant_protocol_pair_is_listed() -> None:
    pairs = {(p, n) for n, m in CATALOGUE.items() for p in ("consumer", "streams") if m.protocol in (p, "any")}
    assert sorted(KILLED_BY) == sorted(pairs)


@pytest.mark.parametrize(("protocol", "name"), sorted(KILLED_BY), ids=[f"{p}:{n}" for p, n in sorted(KILLED_BY)])
def test_mutant_is_killed(protocol: str, name: str, tmp_path: Path) -> None:
    start = time.perf_counter()
    invariant, seed = KILLED_BY[(protocol, name)]
    out = tmp_path / "killed.jsonl"
    result = run_fuzz(Mutants({name}), seed=seed, budget_s=BUDGET_S, hypothesis_profile="ci", shrink=False,
                      protocol=protocol, out=str(out))
    assert result.failure is not None, f"{name} survived {result.batches} batches"
    assert invariant in {v.invariant for v in result.failure.violations}
    # An internal-only kill is followed by the observable phase; every written run is observable.
    assert (result.observable is not None) == (invariant in INTERNAL_ONLY)
    written = result.written
    assert written is not None
    assert written.observable
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", str(out)]) == 1
    # The recorded calls replay to the same violations (the program is deterministic).
    ignore = INTERNAL_ONLY if result.observable is not None else frozenset()
    replayed = run_program(machine_for(Mutants({name}), protocol=protocol, ignore=ignore), written.calls)
    assert replayed is not None
    assert [str(v) for v in replayed.violations] == [str(v) for v in written.violations]
    assert time.perf_counter() - start < BUDGET_S


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "name"), sorted(KILLED_BY), ids=[f"{p}:{n}" for p, n in sorted(KILLED_BY)])
def test_mutant_is_killed_from_seed_0(protocol: str, name: str) -> None:
    result = run_fuzz(Mutants({name}), seed=0, budget_s=BUDGET_S, hypothesis_profile="ci", shrink=False,
                      protocol=protocol)
    assert result.failure is not None, f"{name} survived {result.batches} batches"


@pytest.mark.parametrize("protocol", ["consumer", "streams"])
def test_unmutated_model_survives_the_ci_profile(protocol: str) -> None:
    result = run_fuzz(Mutants(), seed=0, hypothesis_profile="ci", protocol=protocol)
    assert result.failure is None, [str(v) for v in result.failure.violations] if result.failure else ""
    assert result.batches == 1


@pytest.mark.slow
@pytest.mark.nightly
@pytest.mark.parametrize("protocol", ["consumer", "streams"])
def test_unmutated_model_survives_a_long_run(protocol: str) -> None:
    budget = float(os.environ.get("KGSPEC_FUZZ_BUDGET_S", "600"))
    result = run_fuzz(Mutants(), seed=1000, budget_s=budget, hypothesis_profile="nightly", protocol=protocol)
    assert result.failure is None, [str(v) for v in result.failure.violations] if result.failure else ""
