"""Inductive proofs over uninterpreted sorts: Init ⇒ Inv and Inv ∧ Trans ⇒ Inv′.

For an invariant X the hypothesis is the conjunction of X and every invariant it depends on
(``Invariant.support``, transitively); X is *proved* when its own obligations are unsat and so
are those of everything in that closure, so the closure's conjunction is inductive.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3
from kgspec.invariants.symbolic.invariants import INVARIANTS, closure
from kgspec.invariants.symbolic.rules import Ctx, actions, init
from kgspec.invariants.symbolic.sorts import symbolic_sorts
from kgspec.invariants.symbolic.state import State, make_process_of

SEED = 7


@dataclass
class Obligation:
    """One check: ``initiation`` or the consecution of one action."""

    step: str
    result: str  # "unsat" (holds), "sat" (counterexample to induction) or "unknown"
    seconds: float


@dataclass
class ProofResult:
    invariant: str
    protocol: str
    mutant: str | None
    result: str  # "proved", "failed" or "unknown"
    seconds: float
    obligations: list[Obligation] = field(default_factory=list)
    failed_steps: list[str] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)


class Encoding:
    """Pre/post states over uninterpreted sorts for one protocol and (optional) mutant."""

    def __init__(self, protocol: str, mutant: str | None) -> None:
        streams = protocol == "streams"
        self.ctx = Ctx(streams=streams, mutant=mutant)
        self.sorts = symbolic_sorts(streams)
        pid = make_process_of(self.sorts)
        self.pre = State(self.sorts, streams, "", pid)
        self.post = State(self.sorts, streams, "'", pid)
        self.m = z3.Const("m", self.sorts.member)
        self.n = z3.Const("n", self.sorts.member)
        self.protocol = protocol


def _check(formulas: list[Any], timeout_s: float) -> str:
    s = z3.Solver()
    s.set(timeout=max(1, int(timeout_s * 1000)), random_seed=SEED)
    s.add(*formulas)
    return str(s.check())


def own_obligations(enc: Encoding, name: str, timeout_s: float) -> list[Obligation]:
    inv = INVARIANTS[name]
    pre, post = enc.pre, enc.post
    hyp = [f for dep in closure(name, enc.protocol) for f in INVARIANTS[dep].state(pre)]
    goal = list(inv.state(post))
    out: list[Obligation] = []
    t0 = time.perf_counter()
    res = _check([init(enc.ctx, post), z3.Not(z3.And(goal))], timeout_s)
    out.append(Obligation("initiation", res, time.perf_counter() - t0))
    for act, rule in actions(enc.ctx).items():
        if inv.steps is not None:  # an action-level invariant: only its actions' steps
            if act in inv.steps:
                t0 = time.perf_counter()
                res = _check([*hyp, rule(enc.ctx, pre, post, enc.m, enc.n),
                              z3.Not(inv.steps[act](pre, post, enc.m, enc.n))], timeout_s)
                out.append(Obligation(act, res, time.perf_counter() - t0))
            continue
        step_goal = goal + (inv.action(pre, post) if inv.action else [])
        t0 = time.perf_counter()
        res = _check([*hyp, rule(enc.ctx, pre, post, enc.m, enc.n), z3.Not(z3.And(step_goal))],
                     timeout_s)
        out.append(Obligation(act, res, time.perf_counter() - t0))
    return out


def prove_all(protocol: str, mutant: str | None = None, timeout_s: float = 30.0,
              names: list[str] | None = None) -> dict[str, ProofResult]:
    """Prove the named invariants (default: all of the protocol's, auxiliary ones included)."""
    enc = Encoding(protocol, mutant)
    wanted = names or [n for n, i in INVARIANTS.items() if protocol in i.protocols]
    needed: list[str] = []
    for n in wanted:
        for dep in closure(n, protocol):
            if dep not in needed:
                needed.append(dep)
    own = {n: own_obligations(enc, n, timeout_s) for n in needed}
    out: dict[str, ProofResult] = {}
    for n in wanted:
        obs = own[n]
        deps = [d for d in closure(n, protocol) if d != n]
        bad = [o.step for o in obs if o.result == "sat"]
        unknown = [o.step for o in obs if o.result not in ("sat", "unsat")]
        dep_ok = all(o.result == "unsat" for d in deps for o in own[d])
        if bad:
            verdict = "failed"
        elif unknown or not dep_ok:
            verdict = "unknown"
        else:
            verdict = "proved"
        out[n] = ProofResult(n, protocol, mutant, verdict, sum(o.seconds for o in obs), obs,
                             bad + unknown, deps)
    return out
