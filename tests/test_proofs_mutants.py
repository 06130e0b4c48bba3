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
    epoch_ok,
    initial,
    python_holds,
    rule_name,
    state_satisfies,
    step_satisfies_transition,
)
from kgspec.invariants.symbolic.invariants import INVARIANTS
from kgspec.invariants.symbolic.prover import prove_all
from kgspec.model.mutants import CATALOGUE

# (protocol, mutant) -> (invariant whose proof fails, invariant BMC violates, trace length)
BREAKS = {
    ("consumer", "no-withholding"): ("no-double-ownership", "no-double-ownership", 6),
    ("consumer", "grant-before-ack"): ("no-double-ownership", "no-double-ownership", 7),
    ("consumer", "lost-partition-epoch"): ("partition-epoch-index", "no-double-ownership", 11),
    ("consumer", "bump-while-revoking"): ("epoch-monotonicity", "epoch-monotonicity", 6),
    ("consumer", "assignor-double-assign"): ("target-validity", "target-validity", 3),
    ("consumer", "replay-drops-tombstone"): ("no-double-ownership", "no-double-ownership", 6),
    ("streams", "grant-before-ack"): ("no-double-ownership", "no-double-ownership", 7),
    # revoking at the target epoch: the streams UNREVOKED clause (and commit-fencing, below)
    ("streams", "bump-while-revoking"): ("epoch-monotonicity", "epoch-monotonicity", 6),
    ("streams", "standby-on-active-process"): ("target-validity", "processid-exclusivity", 3),
    ("streams", "assignor-double-assign"): ("target-validity", "target-validity", 3),
    ("streams", "replay-drops-tombstone"): ("no-double-ownership", "no-double-ownership", 8),
    # Action-level invariants (docs/proofs.md): the rule itself, checked on each step.
    ("consumer", "accept-stale-epoch"): ("epoch-fencing", "epoch-fencing", 7),
    ("streams", "accept-stale-epoch"): ("epoch-fencing", "epoch-fencing", 8),
    ("consumer", "no-session-fencing"): ("session-expiry", "session-expiry", 2),
    ("streams", "no-session-fencing"): ("session-expiry", "session-expiry", 2),
    # Reached through the network's stale copy of an earlier request (``heartbeat_stale``).
    ("consumer", "lost-response-no-subset"): ("epoch-fencing", "epoch-fencing", 9),
    ("streams", "lost-response-no-subset"): ("epoch-fencing", "epoch-fencing", 9),
}
# The steps at which each BREAKS proof fails (its ``failed_steps``): every heartbeat form
# unless named otherwise.
HEARTBEATS = ["heartbeat", "heartbeat_lost", "heartbeat_unreported", "heartbeat_unreported_lost", "heartbeat_stale"]
FAILED_STEPS = {
    ("consumer", "lost-partition-epoch"): ["heartbeat", "heartbeat_lost", "heartbeat_stale"],
    ("consumer", "assignor-double-assign"): ["recompute"],
    ("streams", "assignor-double-assign"): ["recompute"],
    ("streams", "standby-on-active-process"): ["recompute"],
    ("consumer", "no-session-fencing"): ["session_timeout"],
    ("streams", "no-session-fencing"): ["session_timeout"],
    ("consumer", "replay-drops-tombstone"): ["failover"],
    ("streams", "replay-drops-tombstone"): ["failover"],
}
UNREACHED: dict[tuple[str, str], int] = {}  # mutants failing a proof with no reachable violation
# Mutants under which every proof still goes through (see docs/proofs.md, "Mutants").
BENIGN = {
    ("consumer", "standby-on-active-process"),  # no standbys: the same encoding
    ("streams", "lost-partition-epoch"),
    ("streams", "no-withholding"),
    # the encodings have no OffsetCommit: the fuzzer's committing clients kill it (docs/fuzzing.md)
    ("consumer", "commit-accepts-stale-epoch"),
    ("streams", "commit-accepts-stale-epoch"),
}
SLOW = {("consumer", "lost-partition-epoch"), ("consumer", "accept-stale-epoch"),  # ~18 s, ~14 s of BMC
        ("streams", "accept-stale-epoch"), ("streams", "lost-response-no-subset")}  # ~10 s, ~9 s
SLOW_PROOF = {("streams", "grant-before-ack")}  # the SAT (failing) obligations take ~5 s
# The default run keeps the proofs tests within ~25 s: these (under ~1 s each) run there,
# the rest with -m slow.
FAST_PROOF = {("consumer", "lost-response-no-subset"), ("consumer", "accept-stale-epoch"),
              ("consumer", "no-session-fencing"), ("consumer", "assignor-double-assign"),
              ("streams", "no-session-fencing"), ("streams", "assignor-double-assign"),
              ("streams", "standby-on-active-process")}
FAST_REPLAY = {("consumer", "assignor-double-assign"), ("consumer", "no-session-fencing"),
               ("streams", "assignor-double-assign"), ("streams", "no-session-fencing"),
               ("streams", "standby-on-active-process")}


def _split(pairs: set[tuple[str, str]], fast: set[tuple[str, str]]) -> list[object]:
    """Parameters, those outside ``fast`` marked slow."""
    return [p if p in fast else pytest.param(*p, marks=pytest.mark.slow) for p in sorted(pairs)]


def test_every_catalogue_mutant_is_classified() -> None:
    for protocol in ("consumer", "streams"):
        classified = [m for p, m in [*BREAKS, *UNREACHED, *BENIGN] if p == protocol]
        assert sorted(classified) == sorted(CATALOGUE)


def _fails(protocol: str, mutant: str) -> None:
    failing, _, _ = BREAKS[(protocol, mutant)]
    results = prove_all(protocol, mutant, timeout_s=60, names=[failing])
    assert results[failing].result == "failed"
    assert results[failing].failed_steps == FAILED_STEPS.get((protocol, mutant), HEARTBEATS)


@pytest.mark.parametrize(("protocol", "mutant"), _split(set(BREAKS) - SLOW_PROOF, FAST_PROOF))
def test_mutant_fails_a_proof(protocol: str, mutant: str) -> None:
    _fails(protocol, mutant)


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(SLOW_PROOF))
def test_slow_mutant_fails_a_proof(protocol: str, mutant: str) -> None:
    _fails(protocol, mutant)


def test_no_subset_fails_at_every_accepting_heartbeat() -> None:
    results = prove_all("consumer", "lost-response-no-subset", timeout_s=60, names=["epoch-fencing"])
    assert results["epoch-fencing"].failed_steps == ["heartbeat", "heartbeat_lost", "heartbeat_unreported",
                                                     "heartbeat_unreported_lost", "heartbeat_stale"]


@pytest.mark.slow
def test_no_subset_needs_the_stale_copy() -> None:
    """Without the network's copies no trace reaches a violation: a client retrying at the
    previous epoch always owns a subset of its assignment (docs/proofs.md)."""
    res = run_bmc("consumer", "epoch-fencing", "lost-response-no-subset", depth=9, network=False)
    assert (res.found, res.result, res.depth) == (False, "holds-to-depth", 9)


def _all_proved(protocol: str, mutant: str) -> None:
    results = prove_all(protocol, mutant, timeout_s=60)
    assert {r.result for r in results.values()} == {"proved"}


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(m for m in BENIGN if m[0] == "consumer"))
def test_benign_mutant_keeps_every_proof(protocol: str, mutant: str) -> None:
    _all_proved(protocol, mutant)


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(m for m in BENIGN if m[0] == "streams"))
def test_benign_streams_mutant_keeps_every_proof(protocol: str, mutant: str) -> None:
    _all_proved(protocol, mutant)


def _roles(state: ConcreteState, v: object) -> dict[str, frozenset[str]]:
    if isinstance(v, dict):
        return {ROLE_CODES[k]: frozenset(x) for k, x in v.items()}
    assert isinstance(v, list)
    return {"act": frozenset(v)}


def _replay(protocol: str, mutant: str) -> None:
    _, invariant, length = BREAKS[(protocol, mutant)]
    res = run_bmc(protocol, invariant, mutant, depth=length, timeout_s=300)  # slow ones on a loaded machine
    assert res.found
    cex = res.counterexample
    assert cex is not None
    assert len(cex.steps) == length == res.depth
    inst = cex.instance
    state = initial(protocol, inst.members, inst.tasks, inst.processes, cex.process_of)
    action_level = INVARIANTS[invariant].steps is not None
    assert action_level or python_holds(invariant, state)
    assert state_satisfies(invariant, state)
    last = cex.steps[-1]
    if action_level:  # the last step is the offending one; its pre-state is checked below
        assert rule_name(last) in (INVARIANTS[invariant].steps or {})
    for step in cex.steps:
        if step is last and invariant == "epoch-fencing":
            # the unmutated check would fence
            assert not epoch_ok(state, step["member"], None, stale=step["action"] == "heartbeat_stale")
        post = apply(state, step, mutant)
        assert step_satisfies_transition(state, step, post, mutant), step
        if "result" in step:
            m = step["member"]
            res_ = step["result"]
            assert (post.epoch[m], post.mstate[m]) == (res_["epoch"], res_["state"])
            assert {r: post.assigned[r][m] for r in post.roles} == _roles(post, res_["assigned"])
        state = post
    if invariant == "session-expiry":
        assert last["member"] in state.joined  # the timer fired, the member is still there
    if not action_level:
        assert not python_holds(invariant, state)
        assert not state_satisfies(invariant, state)


@pytest.mark.parametrize(("protocol", "mutant"), _split(set(BREAKS) - SLOW, FAST_REPLAY))
def test_counterexample_replays_to_violation(protocol: str, mutant: str) -> None:
    _replay(protocol, mutant)


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "mutant"), sorted(SLOW))
def test_long_counterexample_replays_to_violation(protocol: str, mutant: str) -> None:
    _replay(protocol, mutant)


@pytest.mark.slow
def test_streams_bump_while_revoking_breaks_commit_fencing() -> None:
    """The safety consequence for streams: revoking at the target epoch, the member leaves
    UNREVOKED at that same epoch, so a task leaves it with no epoch bump and a request (an
    OffsetCommit) the client sent at that epoch while it still owned the task would be
    accepted unchecked. Needs the asynchronous client (~20 s of BMC)."""
    res = run_bmc("streams", "commit-fencing", "bump-while-revoking", depth=10, timeout_s=600,
                  async_client=True)
    assert res.found
    assert res.counterexample is not None
    cex = res.counterexample
    assert len(cex.steps) == 10
    assert [s["action"] for s in cex.steps].count("duplicate") == 1
    inst = cex.instance
    state = initial("streams", inst.members, inst.tasks, inst.processes, cex.process_of)
    for step in cex.steps:
        post = apply(state, step, "bump-while-revoking")
        assert step_satisfies_transition(state, step, post, "bump-while-revoking"), step
        state = post
    assert not python_holds("commit-fencing", state)
    assert not state_satisfies("commit-fencing", state)
    assert prove_all("streams", "bump-while-revoking", timeout_s=60,
                     names=["commit-fencing"])["commit-fencing"].result != "proved"


def test_consumer_commit_fencing_has_a_counterexample() -> None:
    """For the unmutated consumer, `commit-fencing` (declared for streams only) does not hold: a
    partition can leave a consumer member with no epoch bump, so a commit the client sent at that
    epoch while it owned the partition is still accepted (docs/upstream.md, report 2). The
    shortest path (7 steps, ~2 s of BMC) goes through a subscription shrink, which removes the
    partitions of dropped topics at the member's current epoch; docs/proofs.md records a 10-step
    one through UNREVOKED_PARTITIONS left at the same epoch."""
    res = run_bmc("consumer", "commit-fencing", None, depth=10, timeout_s=600, async_client=True)
    assert res.found
    assert res.counterexample is not None
    cex = res.counterexample
    # BMC finds a shortest path; Z3 may order its independent steps either way
    actions = [s["action"] for s in cex.steps]
    assert sorted(actions) == sorted(
        ["join", "recompute", "heartbeat", "duplicate", "resubscribe", "client_release", "shrink"])
    assert actions[-1] == "shrink"
    inst = cex.instance
    state = initial("consumer", inst.members, inst.tasks)
    for step in cex.steps:
        post = apply(state, step, None)
        assert step_satisfies_transition(state, step, post, None), step
        state = post
    assert not python_holds("commit-fencing", state)
    assert not state_satisfies("commit-fencing", state)
