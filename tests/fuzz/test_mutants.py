"""Every consumer mutant is killed within the default budget; the unmutated model survives.

Kills run without shrinking (time to first failure); ``docs/fuzzing.md`` has the shrunk
lengths from ``kgspec fuzz --mutant NAME``. Each kill names the invariant that caught it.
"""

from __future__ import annotations

import os
import time

import pytest
from kgspec.model.mutants import CATALOGUE, Mutants
from kgspec.model.sim.machine import run_fuzz

KILLED_BY = {
    "lost-partition-epoch": "partition-epoch-index",
    "no-withholding": "no-double-ownership",
    "grant-before-ack": "no-double-ownership",
    "bump-while-revoking": "epoch-monotonicity",
    "no-session-fencing": "session-expiry",
    "accept-stale-epoch": "epoch-fencing",
    "lost-response-no-subset": "epoch-fencing",
    "replay-drops-tombstone": "replay-equivalence",
    "assignor-double-assign": "target-validity",
}
BUDGET_S = 30.0  # per mutant; each is killed far sooner (see docs/fuzzing.md)


def test_every_non_streams_mutant_is_listed() -> None:
    assert sorted(KILLED_BY) == sorted(n for n, m in CATALOGUE.items() if m.protocol != "streams")


@pytest.mark.parametrize("name", sorted(KILLED_BY))
def test_mutant_is_killed(name: str) -> None:
    start = time.perf_counter()
    result = run_fuzz(Mutants({name}), seed=0, budget_s=BUDGET_S, hypothesis_profile="ci", shrink=False)
    assert result.failure is not None, f"{name} survived {result.batches} batches"
    assert result.failure.violations[0].invariant == KILLED_BY[name]
    assert time.perf_counter() - start < BUDGET_S


def test_unmutated_model_survives_the_ci_profile() -> None:
    result = run_fuzz(Mutants(), seed=0, hypothesis_profile="ci")
    assert result.failure is None
    assert result.batches == 1


@pytest.mark.slow
@pytest.mark.nightly
def test_unmutated_model_survives_a_long_run() -> None:
    budget = float(os.environ.get("KGSPEC_FUZZ_BUDGET_S", "600"))
    result = run_fuzz(Mutants(), seed=1000, budget_s=budget, hypothesis_profile="nightly")
    assert result.failure is None, [str(v) for v in result.failure.violations] if result.failure else ""
