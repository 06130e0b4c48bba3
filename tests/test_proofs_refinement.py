"""The Python re-implementation and the Z3 relation agree on random walks.

Each step of a seeded random walk through :func:`concrete.apply` must satisfy the Z3
transition relation (:func:`step_satisfies_transition`), and the core invariants must hold in
every state, both in Python and by Z3 evaluation (:func:`state_satisfies`).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("z3")

from kgspec.invariants.symbolic.concrete import (
    ConcreteState,
    NotEnabled,
    apply,
    initial,
    python_holds,
    state_satisfies,
    step_satisfies_transition,
)
from kgspec.invariants.symbolic.state import ROLE_NAMES

ACTIONS = ("join", "join", "leave", "session_timeout", "rebalance_timeout", "bump", "recompute",
           "recompute", "heartbeat", "heartbeat", "heartbeat", "heartbeat_lost",
           "heartbeat_fenced", "zombie_heartbeat", "static_leave", "replace",
           "client_receive", "client_reconcile", "client_release", "duplicate", "heartbeat_stale",
           "resubscribe", "shrink", "static_return")


def _random_target(rng: random.Random, s: ConcreteState) -> dict[str, Any]:
    """A valid target: one holder per task and role, never two roles on one process."""
    target: dict[str, Any] = {}
    for t in s.tasks:
        cands = [m for m in sorted(s.joined) if t in s.subscribed[m]]
        rng.shuffle(cands)
        used: set[str] = set()
        for r in s.roles:
            free = [m for m in cands if s.process_of.get(m, m) not in used]
            if not free or rng.random() < 0.3:
                continue
            m = free[0]
            if s.protocol == "streams":
                used.add(s.process_of[m])
                entry = target.setdefault(m, {ROLE_NAMES[x]: [] for x in s.roles})
                entry[ROLE_NAMES[r]].append(t)
            else:
                target.setdefault(m, []).append(t)
    return target


def _random_step(rng: random.Random, s: ConcreteState) -> dict[str, Any]:
    act = rng.choice(ACTIONS)
    m = rng.choice(s.members)
    if act in ("join", "resubscribe"):
        return {"action": act, "member": m,
                "subscribed": [t for t in s.tasks if rng.random() < 0.8]}
    if act == "recompute":
        return {"action": act, "target": _random_target(rng, s)}
    if act == "bump":
        return {"action": act}
    if act == "heartbeat_lost":
        return {"action": "heartbeat", "member": m, "response": "lost"}
    if act == "heartbeat":
        step = {"action": act, "member": m, "response": rng.choice(("delivered", "delivered", "lost"))}
        if rng.random() < 0.25:
            step["reported"] = False  # owned set not reported: the coordinator assumes all held
        return step
    if act == "client_receive":
        epoch = s.epoch[m] if m in s.joined and rng.random() < 0.8 else s.client_epoch[m] + 1
        return {"action": act, "member": m, "client_epoch": epoch}
    if act in ("client_reconcile", "client_release"):
        pool = s.assigned if act == "client_reconcile" else s.owned
        owned = {ROLE_NAMES[r]: sorted(t for t in pool[r][m] if rng.random() < 0.7) for r in s.roles}
        step: dict[str, Any] = {"action": act, "member": m,
                                "owned": owned if s.protocol == "streams" else owned["active"]}
        if act == "client_release" and rng.random() < 0.3:
            step["client_epoch"] = 0
        return step
    if act == "replace":
        return {"action": act, "member": m, "new_member": rng.choice(s.members)}
    return {"action": act, "member": m}


@pytest.mark.parametrize(("protocol", "seed"), [("consumer", 1), ("consumer", 4), ("streams", 3)])
def test_random_walk_refines_relation(protocol: str, seed: int) -> None:
    rng = random.Random(seed)
    if protocol == "streams":
        s = initial("streams", ("m1", "m2", "m3"), ("t0", "t1"), ("P0", "P1"),
                    {"m1": "P0", "m2": "P0", "m3": "P1"})
        core = ["no-double-ownership", "processid-exclusivity", "epoch-monotonicity",
                "target-validity"]
    else:
        s = initial("consumer", ("m1", "m2", "m3"), ("p0", "p1"))
        core = ["no-double-ownership", "epoch-monotonicity", "target-validity"]
    taken = 0
    actions_seen: set[str] = set()
    while taken < 25:
        step = _random_step(rng, s)
        try:
            post = apply(s, step)
        except NotEnabled:
            continue
        assert step_satisfies_transition(s, step, post), step
        assert all(python_holds(n, post) for n in core), step
        s = post
        taken += 1
        actions_seen.add(step["action"])
    assert all(state_satisfies(n, s) for n in core)
    assert {"join", "recompute", "heartbeat"} <= actions_seen
    assert actions_seen & {"duplicate", "heartbeat_stale", "resubscribe", "shrink", "static_return"}


def test_relation_rejects_a_wrong_post_state() -> None:
    s = initial("consumer", ("m1", "m2"), ("p0",))
    s1 = apply(s, {"action": "join", "member": "m1", "subscribed": ["p0"]})
    s2 = apply(s1, {"action": "recompute", "target": {"m1": ["p0"]}})
    step = {"action": "heartbeat", "member": "m1", "response": "delivered"}
    good = apply(s2, step)
    assert good.assigned["act"]["m1"] == frozenset({"p0"})
    assert good.epoch["m1"] == 2
    assert step_satisfies_transition(s2, step, good)
    bad = apply(s2, step)
    bad.epoch["m1"] = 1
    assert not step_satisfies_transition(s2, step, bad)
    lost = {"action": "heartbeat", "member": "m1", "response": "lost"}
    assert not step_satisfies_transition(s2, lost, good)


def test_return_resubscribe_and_shrink_agree_with_the_relation() -> None:
    """A static member's own client back after -2, a resubscription, and 4.2+'s shrink to the
    subscription (revoking at the target epoch): Python rules and the Z3 relation agree."""
    s = initial("consumer", ("m1", "m2"), ("p0", "p1"))
    script = [
        {"action": "join", "member": "m1", "subscribed": ["p0", "p1"]},
        {"action": "recompute", "target": {"m1": ["p0", "p1"]}},
        {"action": "heartbeat", "member": "m1", "response": "delivered"},
        {"action": "static_leave", "member": "m1"},
        {"action": "static_return", "member": "m1"},
        {"action": "heartbeat", "member": "m1", "response": "delivered"},
        {"action": "resubscribe", "member": "m1", "subscribed": ["p0"]},
        {"action": "bump"},
        {"action": "shrink", "member": "m1"},
    ]
    for step in script:
        post = apply(s, step)
        assert step_satisfies_transition(s, step, post), step
        assert all(python_holds(n, post) for n in ("no-double-ownership", "epoch-monotonicity")), step
        s = post
    assert (s.epoch["m1"], s.prev_epoch["m1"], s.mstate["m1"], s.assignment_epoch) == (2, 2, "UNREVOKED", 2)
    assert (s.assigned["act"]["m1"], s.pending["act"]["m1"]) == (frozenset({"p0"}), frozenset({"p1"}))
    assert s.shrinking == {"m1"}
    wrong = apply(s, {"action": "bump"})
    assert not step_satisfies_transition(s, {"action": "shrink", "member": "m1"}, wrong)
