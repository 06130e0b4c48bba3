"""Every invariant (core and auxiliary) is proved inductively over unbounded sorts."""

from __future__ import annotations

import pytest

pytest.importorskip("z3")

from kgspec.invariants.symbolic.bmc import run_bmc
from kgspec.invariants.symbolic.invariants import CORE, INVARIANTS, for_protocol
from kgspec.invariants.symbolic.prover import prove_all


@pytest.mark.parametrize("protocol", ["consumer", "streams"])
def test_all_invariants_proved(protocol: str) -> None:
    results = prove_all(protocol, timeout_s=60)
    assert {n: r.result for n, r in results.items()} == {
        i.name: "proved" for i in for_protocol(protocol)}
    for r in results.values():
        assert all(o.result == "unsat" for o in r.obligations)
        assert r.obligations[0].step == "initiation"


def test_core_names_cover_both_protocols() -> None:
    assert set(CORE) == {"no-double-ownership", "processid-exclusivity", "epoch-monotonicity",
                         "target-validity", "epoch-fencing", "session-expiry", "commit-fencing"}
    assert INVARIANTS["epoch-fencing"].steps is not None
    assert set(INVARIANTS["epoch-fencing"].steps) == {"heartbeat", "heartbeat_lost", "heartbeat_unreported",
                                                      "heartbeat_unreported_lost", "heartbeat_stale"}
    assert set(INVARIANTS["session-expiry"].steps or {}) == {"session_timeout"}
    assert INVARIANTS["processid-exclusivity"].protocols == ("streams",)
    assert INVARIANTS["commit-fencing"].protocols == ("streams",)
    assert INVARIANTS["commit-fencing"].async_client  # BMC needs the asynchronous client for it


@pytest.mark.slow
def test_unmutated_bmc_finds_nothing() -> None:
    res = run_bmc("consumer", "no-double-ownership", None, depth=6)
    assert (res.found, res.result, res.depth) == (False, "holds-to-depth", 6)
