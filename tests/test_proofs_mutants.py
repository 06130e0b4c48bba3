"""Each applicable mutant breaks a proof; its BMC counterexample replays to a violating state.

The replay runs the steps through the plain-Python re-implementation
(:mod:`kgspec.invariants.symbolic.concrete`) and checks every step against the Z3 transition
relation, which guards against encoding bugs on either side.
"""

from __future__ import annotations

import pytest

pytest.importorskip("z3")

from kgspec.invariants.symbolic.bmc import run_bmc
from kgspec.invariants.symbolic.concrete import (
    ROLE_CODES,
    ConcreteState,
    apply,
    initial,
    python_holds,
    state_satisfies,
    step_satisfies_transition,
)
from kgspec.invariants.symbolic.prover import prove_all
from kgspec.model.mutants import CATALOGUE

# (protocol, mutant) -> (invariant whose proof fails, invariant BMC violates, trace length)
BREAKS = {
    ("consumer", "no-withholding"): ("no-double-ownership", "no-double-ownership", 6),
    ("consumer", "grant-before-ack"): ("no-double-ownership", "no-double-ownership", 7),
    ("consumer", "lost-partition-epoch"): ("partition-epoch-map", "no-double-ownership", 12),
    ("consumer", "bump-while-revoking"): ("epoch-monotonicity", "epoch-monotonicity", 6),
    ("consumer", "assignor-double-assign"): ("target-validity", "target-validity", 3),
    ("consumer", "replay-drops-tombstone"): ("no-double-ownership", "no-double-ownership", 6),
    ("streams", "grant-before-ack"): ("no-double-ownership", "no-double-ownership", 7),
    ("streams", "standby-on-active-process"): ("target-validity", "processid-exclusivity", 3),
    ("streams", "assignor-double-assign"): ("target-validity", "target-validity", 3),
    ("streams", "replay-drops-tombstone"): ("no-double-ownership", "no-double-ownership", 8),
}
# Mutants under which every proof still goes through (see docs/proofs.md, "Mutants").
BENIGN = {
    ("consumer", "no-session-fencing"), ("consumer", "accept-stale-epoch"),
    ("consumer", "lost-response-no-subset"), ("consumer", "standby-on-active-process"),
    ("streams", "no-session-fencing"), ("streams", "accept-stale-epoch"),
    ("streams", "lost-response-no-subset"), ("streams", "lost-partition-epoch"),
    ("streams", "no-withholding"), ("streams", "bump-while-revoking"),
}
SLOW = {("consumer", "lost-partition-epoch")}  # 12-step trace: ~18 s of BMC
SLOW_PROOF = {("streams", "grant-before-ack")}  # the SAT (failing) obligations take ~5 s
NOT_APPLICABLE = {("consumer", "standby-on-active-process")}  # no standbys: same encoding


def test_every_catalogue_mutant_is_classified() -> None:
    for protocol in ("consumer", "streams"):
        assert {m for p, m in BREAKS | dict.fromkeys(BENIGN).keys() if p == protocol} == set(CATALOGUE)


def _fails(protocol: str, mutant: str) -> None:
    failing, _, _ = BREAKS[(protocol, mutant)]
    results = prove_all(protocol, mutant, timeout_s=60, names=[failing])
    assert results[failing].result == "failed"
    assert results[failing].failed_steps


@pytest.mark.parametrize(("protocol", "mutant"), sorted(set(BREAKS) - SLOW_PROOF))
def test_mutant_fails_a_proof(protocol: str, mutant: str) -> None:
    _fails(protocol, mutant)


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(SLOW_PROOF))
def test_slow_mutant_fails_a_proof(protocol: str, mutant: str) -> None:
    _fails(protocol, mutant)


def _all_proved(protocol: str, mutant: str) -> None:
    results = prove_all(protocol, mutant, timeout_s=60)
    assert {r.result for r in results.values()} == {"proved"}


@pytest.mark.parametrize(("protocol", "mutant"), sorted(m for m in BENIGN - NOT_APPLICABLE if m[0] == "consumer"))
def test_benign_mutant_keeps_every_proof(protocol: str, mutant: str) -> None:
    _all_proved(protocol, mutant)


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(m for m in BENIGN if m[0] == "streams" or m in NOT_APPLICABLE))
def test_benign_streams_mutant_keeps_every_proof(protocol: str, mutant: str) -> None:
    _all_proved(protocol, mutant)


def _roles(state: ConcreteState, v: object) -> dict[str, frozenset[str]]:
    if isinstance(v, dict):
        return {ROLE_CODES[k]: frozenset(x) for k, x in v.items()}
    assert isinstance(v, list)
    return {"act": frozenset(v)}


def _replay(protocol: str, mutant: str) -> None:
    _, invariant, length = BREAKS[(protocol, mutant)]
    res = run_bmc(protocol, invariant, mutant, depth=length)
    assert res.found
    cex = res.counterexample
    assert cex is not None
    assert len(cex.steps) == length == res.depth
    inst = cex.instance
    state = initial(protocol, inst.members, inst.tasks, inst.processes, cex.process_of)
    assert python_holds(invariant, state)
    assert state_satisfies(invariant, state)
    for step in cex.steps:
        post = apply(state, step, mutant)
        assert step_satisfies_transition(state, step, post, mutant), step
        if "result" in step:
            m = step["member"]
            res_ = step["result"]
            assert (post.epoch[m], post.mstate[m]) == (res_["epoch"], res_["state"])
            assert {r: post.assigned[r][m] for r in post.roles} == _roles(post, res_["assigned"])
        state = post
    assert not python_holds(invariant, state)
    assert not state_satisfies(invariant, state)


@pytest.mark.parametrize(("protocol", "mutant"), sorted(set(BREAKS) - SLOW))
def test_counterexample_replays_to_violation(protocol: str, mutant: str) -> None:
    _replay(protocol, mutant)


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(SLOW))
def test_long_counterexample_replays_to_violation(protocol: str, mutant: str) -> None:
    _replay(protocol, mutant)
