"""Concrete states, a plain-Python re-implementation of the rules, and the refinement hooks.

:class:`ConcreteState` holds the same fields as the symbolic state (see :mod:`.state`), over
named members, tasks and processes. :func:`apply` executes one counterexample step (the
JSON structure documented in :mod:`kgspec.invariants.symbolic`) with the same rules as
:mod:`.rules`, written independently in Python: replaying a Z3 counterexample through it
guards against encoding bugs. :func:`step_satisfies_transition` and :func:`state_satisfies`
evaluate the Z3 transition relation and invariants on concrete states, so a refinement test
can drive the executable model and check every step against the relation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import z3
from kgspec.invariants.catalogue import (
    COMMIT_FENCING,
    EPOCH_MONOTONICITY,
    NO_DOUBLE_OWNERSHIP,
    PROCESSID_EXCLUSIVITY,
    TARGET_VALIDITY,
)
from kgspec.invariants.exclusivity import PROCESS_TWICE, HeldTask, shared, task_conflicts
from kgspec.invariants.symbolic.invariants import INVARIANTS
from kgspec.invariants.symbolic.rules import Ctx, actions
from kgspec.invariants.symbolic.sorts import finite_sorts
from kgspec.invariants.symbolic.state import (
    CONSUMER_ROLES,
    ROLE_NAMES,
    STREAMS_ROLES,
    State,
    make_process_of,
)

Tasks = frozenset[str]
ROLE_CODES = {v: k for k, v in ROLE_NAMES.items()}


class NotEnabled(Exception):
    """The step's guard does not hold in the state."""


@dataclass
class ConcreteState:
    """One state of the abstract protocol. Role-indexed maps use codes ``act``/``sby``/``wup``.

    ``epoch_owner[t]`` is the member the partition-epoch map points at, or None when the map
    has no entry (``has_epoch`` false). ``process_of`` is fixed for the whole run (streams).
    """

    protocol: str
    members: tuple[str, ...]
    tasks: tuple[str, ...]
    processes: tuple[str, ...] = ()
    process_of: dict[str, str] = field(default_factory=dict)
    group_epoch: int = 1
    assignment_epoch: int = 1
    joined: set[str] = field(default_factory=set)
    away: set[str] = field(default_factory=set)
    epoch: dict[str, int] = field(default_factory=dict)
    prev_epoch: dict[str, int] = field(default_factory=dict)
    client_epoch: dict[str, int] = field(default_factory=dict)
    mstate: dict[str, str] = field(default_factory=dict)
    subscribed: dict[str, Tasks] = field(default_factory=dict)
    assigned: dict[str, dict[str, Tasks]] = field(default_factory=dict)
    pending: dict[str, dict[str, Tasks]] = field(default_factory=dict)
    target: dict[str, dict[str, Tasks]] = field(default_factory=dict)
    owned: dict[str, dict[str, Tasks]] = field(default_factory=dict)
    last_assigned: dict[str, Tasks] = field(default_factory=dict)
    epoch_owner: dict[str, str | None] = field(default_factory=dict)
    standby_procs: dict[str, frozenset[str]] = field(default_factory=dict)
    warmup_procs: dict[str, frozenset[str]] = field(default_factory=dict)
    # the network's copy of an earlier request per member (``duplicate`` / ``heartbeat_stale``)
    has_dup: set[str] = field(default_factory=set)
    shrinking: set[str] = field(default_factory=set)  # UNREVOKED by a subscription shrink
    dup_epoch: dict[str, int] = field(default_factory=dict)
    dup_owned: dict[str, dict[str, Tasks]] = field(default_factory=dict)

    @property
    def roles(self) -> tuple[str, ...]:
        return STREAMS_ROLES if self.protocol == "streams" else CONSUMER_ROLES

    def held(self, r: str, m: str) -> Tasks:
        return self.assigned[r][m] | self.pending[r][m]


def initial(protocol: str, members: tuple[str, ...], tasks: tuple[str, ...],
            processes: tuple[str, ...] = (), process_of: dict[str, str] | None = None) -> ConcreteState:
    s = ConcreteState(protocol, members, tasks, processes, dict(process_of or {}))
    empty: Tasks = frozenset()
    for m in members:
        s.epoch[m] = s.prev_epoch[m] = s.client_epoch[m] = s.dup_epoch[m] = 0
        s.mstate[m] = "STABLE"
        s.subscribed[m] = empty
        s.last_assigned[m] = empty
    for r in s.roles:
        for fld in (s.assigned, s.pending, s.target, s.owned, s.dup_owned):
            fld[r] = dict.fromkeys(members, empty)
    for t in tasks:
        s.epoch_owner[t] = None
        s.standby_procs[t] = s.warmup_procs[t] = frozenset()
    return s


# ---------------------------------------------------------------- the rules, in plain Python


def _guard(ok: bool) -> None:
    if not ok:
        raise NotEnabled


def _clear_client(s: ConcreteState, m: str) -> None:
    s.client_epoch[m] = 0
    for r in s.roles:
        s.owned[r][m] = frozenset()


def _drop(s: ConcreteState, m: str) -> None:
    s.joined.discard(m)
    s.away.discard(m)
    s.last_assigned[m] = s.assigned["act"][m]
    for t in s.held("act", m):
        s.epoch_owner[t] = None
    if s.protocol == "streams":
        p = s.process_of[m]
        for t in s.held("sby", m):
            s.standby_procs[t] -= {p}
        for t in s.held("wup", m):
            s.warmup_procs[t] -= {p}
    for r in s.roles:
        for fld in (s.assigned, s.pending, s.target):
            fld[r][m] = frozenset()
    s.group_epoch += 1


def epoch_ok(s: ConcreteState, m: str, mutant: str | None, reported: bool = True, stale: bool = False) -> bool:
    ce, ep = (s.dup_epoch[m] if stale else s.client_epoch[m]), s.epoch[m]
    sent = s.dup_owned if stale else s.owned
    subset = reported and all(sent[r][m] <= s.assigned[r][m] for r in s.roles)
    if mutant == "lost-response-no-subset":
        subset = True
    lower = ce == s.prev_epoch[m] and subset
    if mutant == "accept-stale-epoch":
        lower = ce < ep
    return ce == 0 or ce == ep or lower


def _unreleased(s: ConcreteState, r: str, m: str, t: str, mutant: str | None) -> bool:
    owner = s.epoch_owner[t]
    held = owner is not None
    if mutant == "grant-before-ack":
        held = owner is not None and t in s.assigned["act"][owner]
    if s.protocol == "consumer":
        if mutant == "no-withholding":
            return False
        return held and t not in s.pending["act"][m]
    p = s.process_of[m]
    same = p in s.standby_procs[t] or p in s.warmup_procs[t]
    if r == "act":
        return held or same
    return (held and owner is not None and s.process_of[owner] == p) or same


def _heartbeat(s: ConcreteState, m: str, delivered: bool, mutant: str | None, reported: bool = True,
               stale: bool = False) -> None:
    _guard(m in s.joined and m not in s.away and epoch_ok(s, m, mutant, reported, stale))
    if stale:  # the copy must not understate what the client owns now
        _guard(m in s.has_dup and all(s.owned[r][m] <= s.dup_owned[r][m] for r in s.roles))
    st, ep, te = s.mstate[m], s.epoch[m], s.assignment_epoch
    sent = s.dup_owned if stale else s.owned
    # not reported: the coordinator assumes the client owns everything it holds
    claimed = {r: sent[r][m] if reported else s.held(r, m) for r in s.roles}
    owns_pending = any(claimed[r] & s.pending[r][m] for r in s.roles)
    reconcile = ((st == "STABLE" and ep != te) or (st == "UNREVOKED" and not owns_pending)
                 or st == "UNRELEASED")
    old_held = {r: s.held(r, m) for r in s.roles}
    old_pending_act = s.pending["act"][m]
    if reconcile:
        s.shrinking.discard(m)
        # consumer 4.2+: the target of a topic the member no longer subscribes to counts as empty
        tgt = {r: s.target[r][m] if s.protocol == "streams" else s.target[r][m] & s.subscribed[m]
               for r in s.roles}
        keep = {r: s.assigned[r][m] & tgt[r] for r in s.roles}
        revoke = {r: s.assigned[r][m] - tgt[r] for r in s.roles}
        new = {r: tgt[r] - s.assigned[r][m] for r in s.roles}
        unrel = {r: frozenset(t for t in new[r] if _unreleased(s, r, m, t, mutant))
                 for r in s.roles}
        owns_revoke = any(claimed[r] & revoke[r] for r in s.roles)
        base = ep + 1 if s.protocol == "streams" and st == "UNREVOKED" else ep
        s.prev_epoch[m] = ep
        if owns_revoke:
            if base == te:  # revoking at the target epoch (a subscription change)
                s.shrinking.add(m)
            s.epoch[m] = te if mutant == "bump-while-revoking" else base
            s.mstate[m] = "UNREVOKED"
            for r in s.roles:
                s.assigned[r][m], s.pending[r][m] = keep[r], revoke[r]
        else:
            s.epoch[m] = te
            s.mstate[m] = "UNRELEASED" if any(unrel.values()) else "STABLE"
            for r in s.roles:
                s.assigned[r][m] = keep[r] | (new[r] - unrel[r])
                s.pending[r][m] = frozenset()
    for t in s.tasks:
        if t in s.held("act", m):
            lost = (mutant == "lost-partition-epoch" and t in old_pending_act
                    and t in s.assigned["act"][m])
            s.epoch_owner[t] = None if lost else m
        elif t in old_held["act"]:
            s.epoch_owner[t] = None
    if s.protocol == "streams":
        p = s.process_of[m]
        for r, procs in (("sby", s.standby_procs), ("wup", s.warmup_procs)):
            for t in s.tasks:
                if t in s.held(r, m):
                    procs[t] |= {p}
                elif t in old_held[r]:
                    procs[t] -= {p}
    if delivered:
        s.client_epoch[m] = s.epoch[m]
        for r in s.roles:
            s.owned[r][m] = s.assigned[r][m]


def target_ok(s: ConcreteState, mutant: str | None, subscription: bool = True) -> bool:
    """Python twin of ``rules.target_valid``; unmutated, the overlap and process halves are the
    executable checks' rule (:mod:`kgspec.invariants.exclusivity`)."""
    for r in s.roles:
        for m in s.members:
            if s.target[r][m] and (m not in s.joined
                                   or (subscription and not s.target[r][m] <= s.subscribed[m])):
                return False
    if mutant != "assignor-double-assign" and _shared(s.target, s.members):
        return False
    if s.protocol == "streams":
        if mutant == "standby-on-active-process":
            return _proc_exclusive_except(s, s.target, {("act", "sby")})
        return not _process_conflicts(s, s.target, s.members)
    return True


def _shared(fld: dict[str, dict[str, Tasks]], members: Any) -> bool:
    """no-double-ownership's rule over the active role of ``fld`` (members ``members``)."""
    return bool(shared((m, t) for m in members for t in sorted(fld["act"][m])))


def _process_conflicts(s: ConcreteState, fld: dict[str, dict[str, Tasks]], members: Any) -> bool:
    """processid-exclusivity's process half (:func:`task_conflicts`) over ``fld``."""
    held: list[HeldTask] = [(m, s.process_of[m], ROLE_NAMES[r], t, 0, True)
                            for m in members for r in s.roles for t in sorted(fld[r][m])]
    return any(c.kind == PROCESS_TWICE for c in task_conflicts(held))


def _proc_exclusive_except(s: ConcreteState, fld: dict[str, dict[str, Tasks]], skip: set[tuple[str, str]]) -> bool:
    """The standby-on-active-process mutant's process rule: no two (member, role) holders on one
    process share a task, pairs of roles in ``skip`` aside."""
    holders = [(m, r) for m in s.members for r in s.roles]
    for i, (m1, r1) in enumerate(holders):
        for m2, r2 in holders[i + 1:]:
            if (r1, r2) in skip or (r2, r1) in skip:
                continue
            if s.process_of[m1] == s.process_of[m2] and fld[r1][m1] & fld[r2][m2]:
                return False
    return True


def _roles_in(s: ConcreteState, v: Any) -> dict[str, Tasks]:
    if s.protocol == "streams":
        return {ROLE_CODES[k]: frozenset(x) for k, x in v.items()}
    return {"act": frozenset(v)}


def apply(state: ConcreteState, step: dict[str, Any], mutant: str | None = None) -> ConcreteState:
    """The state after one step; raises :class:`NotEnabled` if the step's guard fails."""
    s = copy.deepcopy(state)
    act, m = step["action"], step.get("member", "")
    if act == "join":
        _guard(m not in s.joined and not any(s.owned[r][m] for r in s.roles))
        s.joined.add(m)
        s.away.discard(m)
        s.epoch[m] = s.prev_epoch[m] = s.client_epoch[m] = 0
        s.mstate[m] = "STABLE"
        s.subscribed[m] = frozenset(step["subscribed"])
        s.last_assigned[m] = frozenset()
        s.has_dup.discard(m)
        s.shrinking.discard(m)
        for r in s.roles:
            s.assigned[r][m] = s.pending[r][m] = s.target[r][m] = frozenset()
        s.group_epoch += 1
    elif act == "shrink":
        st, drop = s.mstate[m], s.assigned["act"][m] - s.subscribed[m]
        _guard(s.protocol == "consumer" and m in s.joined and m not in s.away and bool(drop) and (
            (st == "STABLE" and s.epoch[m] == s.assignment_epoch)
            or (st == "UNREVOKED" and bool(s.owned["act"][m] & s.pending["act"][m]))))
        owns_drop = bool(s.owned["act"][m] & drop)
        unrevoked = owns_drop or st == "UNREVOKED"
        s.assigned["act"][m] -= drop
        s.prev_epoch[m] = s.epoch[m]
        if unrevoked:
            s.pending["act"][m] |= drop
            if st != "UNREVOKED" and owns_drop:
                s.shrinking.add(m)
            s.mstate[m] = "UNREVOKED"
        else:
            for t in drop:
                s.epoch_owner[t] = None
    elif act == "resubscribe":
        _guard(m in s.joined and m not in s.away)
        s.subscribed[m] = frozenset(step["subscribed"])
    elif act == "leave":
        _guard(m in s.joined and m not in s.away)
        _drop(s, m)
        _clear_client(s, m)
    elif act == "session_timeout":
        _guard(m in s.joined)
        if mutant != "no-session-fencing":
            _drop(s, m)
    elif act == "rebalance_timeout":
        _guard(m in s.joined and m not in s.away and s.mstate[m] == "UNREVOKED")
        _drop(s, m)
    elif act == "bump":
        s.group_epoch += 1
    elif act == "recompute":
        _guard(s.group_epoch > s.assignment_epoch)
        s.assignment_epoch = s.group_epoch
        for r in s.roles:
            s.target[r] = dict.fromkeys(s.members, frozenset())
        for x, v in step["target"].items():
            for r, ts in _roles_in(s, v).items():
                s.target[r][x] = ts
        _guard(target_ok(s, mutant))
    elif act == "heartbeat":
        _heartbeat(s, m, step.get("response", "delivered") == "delivered", mutant,
                   step.get("reported", True))
    elif act == "duplicate":
        _guard(m in s.joined)
        s.has_dup.add(m)
        s.dup_epoch[m] = s.client_epoch[m]
        for r in s.roles:
            s.dup_owned[r][m] = s.owned[r][m]
    elif act == "heartbeat_stale":
        _heartbeat(s, m, False, mutant, stale=True)
    elif act == "heartbeat_fenced":
        _guard(m in s.joined and m not in s.away and not epoch_ok(s, m, mutant))
        _clear_client(s, m)
    elif act == "zombie_heartbeat":
        _guard(m not in s.joined)
        _clear_client(s, m)
    elif act == "static_leave":  # static membership: consumer only here
        _guard(s.protocol == "consumer" and m in s.joined and m not in s.away)
        _clear_client(s, m)
        s.away.add(m)
        for t in s.pending["act"][m]:
            s.epoch_owner[t] = None
        s.pending["act"][m] = frozenset()
    elif act == "static_return":
        _guard(s.protocol == "consumer" and m in s.joined and m in s.away and s.client_epoch[m] == 0
               and not s.owned["act"][m])
        s.away.discard(m)
        s.epoch[m] = s.prev_epoch[m] = 0
        s.mstate[m] = "STABLE"
        s.has_dup.discard(m)
    elif act == "replace":
        n = step["new_member"]
        _guard(s.protocol == "consumer" and m != n and m in s.joined and m in s.away and n not in s.joined
               and not s.owned["act"][n])
        s.joined = (s.joined | {n}) - {m}
        s.away -= {m, n}
        s.epoch[n] = s.prev_epoch[n] = s.client_epoch[n] = 0
        s.mstate[n] = "STABLE"
        s.subscribed[n] = s.subscribed[m]
        s.last_assigned[n], s.last_assigned[m] = frozenset(), s.assigned["act"][m]
        s.has_dup.discard(n)
        for t in s.assigned["act"][m]:
            if s.epoch_owner[t] is not None:
                s.epoch_owner[t] = n
        for fld in (s.assigned, s.target):
            fld["act"][n], fld["act"][m] = fld["act"][m], frozenset()
    elif act == "client_receive":
        if m in s.joined and m not in s.away:
            _guard(step["client_epoch"] == s.epoch[m])
        else:
            _guard(m not in s.joined and step["client_epoch"] >= s.client_epoch[m])
        s.client_epoch[m] = step["client_epoch"]
    elif act == "client_reconcile":
        owned = _roles_in(s, step["owned"])
        if m in s.joined:
            _guard(m not in s.away and s.client_epoch[m] == s.epoch[m]
                   and all(owned.get(r, frozenset()) <= s.assigned[r][m] for r in s.roles))
        for r in s.roles:
            s.owned[r][m] = owned.get(r, frozenset())
    elif act == "client_release":
        owned = _roles_in(s, step["owned"])
        ce = step.get("client_epoch", s.client_epoch[m])
        _guard(ce in (0, s.client_epoch[m])
               and all(owned.get(r, frozenset()) <= s.owned[r][m] for r in s.roles))
        s.client_epoch[m] = ce
        for r in s.roles:
            s.owned[r][m] = owned.get(r, frozenset())
    elif act == "failover":
        _guard(mutant == "replay-drops-tombstone" and m not in s.joined
               and bool(s.last_assigned[m]))
        s.joined.add(m)
        s.mstate[m] = "STABLE"
        s.assigned["act"][m] = s.last_assigned[m]
        for t in s.last_assigned[m]:
            s.epoch_owner[t] = m
    else:
        raise ValueError(f"unknown action {act!r}")
    return s


def python_holds(name: str, s: ConcreteState) -> bool:
    """The core invariants' state parts in Python: the executable checks' rules
    (:mod:`kgspec.invariants.exclusivity`) over a concrete state, else a direct twin."""
    cur = [m for m in s.members if m in s.joined]
    held = {r: {m: s.held(r, m) for m in s.members} for r in s.roles}
    if name == NO_DOUBLE_OWNERSHIP:
        return not _shared(held, s.members) and not _shared(s.owned, cur)
    if name == PROCESSID_EXCLUSIVITY:
        return not _process_conflicts(s, held, s.members) and not _process_conflicts(s, s.owned, cur)
    if name == EPOCH_MONOTONICITY:
        ok = 1 <= s.assignment_epoch <= s.group_epoch and all(
            0 <= s.prev_epoch[m] <= s.epoch[m] <= s.assignment_epoch for m in cur)
        return ok and all(s.epoch[m] < s.assignment_epoch for m in cur
                          if s.mstate[m] == "UNREVOKED" and m not in s.shrinking)
    if name == COMMIT_FENCING:
        return all(s.dup_owned["act"][m] <= s.held("act", m) for m in cur
                   if m in s.has_dup and m not in s.away and s.dup_epoch[m] == s.epoch[m])
    if name == TARGET_VALIDITY:
        return target_ok(s, None, subscription=False)
    raise ValueError(f"no Python twin for {name!r}")


# ------------------------------------------------------- evaluation of the Z3 relation


class _Universe:
    """A finite symbolic instance (sorts, a pre- and a post-state) for one set of members,
    tasks and processes. Formulas are built once per universe and cached: a refinement run
    evaluates thousands of steps over few universes, and building (grounding) the formulas
    costs far more than solving them on pinned states."""

    def __init__(self, key: tuple[Any, ...]) -> None:
        protocol, members, tasks, processes, process_of = key
        self.streams = protocol == "streams"
        self.sorts = finite_sorts(members, tasks, processes if self.streams else ())
        self.pid = make_process_of(self.sorts)
        self.fixed: list[Any] = []
        if self.pid is not None:
            self.fixed += [self.pid(self.sorts.members[m]) == self.sorts.processes[p]
                           for m, p in process_of]
        self.pre = State(self.sorts, self.streams, "@pre", self.pid)
        self.post = State(self.sorts, self.streams, "@post", self.pid)
        self._rules: dict[tuple[str | None, str, str, str], Any] = {}
        self._invariants: dict[str, Any] = {}

    def rule(self, mutant: str | None, name: str, m: str, n: str) -> Any:
        key = (mutant, name, m, n)
        if key not in self._rules:
            ctx = Ctx(streams=self.streams, mutant=mutant)
            rules = actions(ctx)
            M = self.sorts.members
            self._rules[key] = (rules[name](ctx, self.pre, self.post, M[m], M[n])
                                if name in rules else z3.BoolVal(False))
        return self._rules[key]

    def invariant(self, name: str) -> Any:
        if name not in self._invariants:
            self._invariants[name] = z3.And(INVARIANTS[name].state(self.pre))
        return self._invariants[name]

    def pin(self, st: State, s: ConcreteState) -> list[Any]:
        """Equalities fixing every state function of ``st`` to the values of ``s``."""
        M, T, P = self.sorts.members, self.sorts.tasks, self.sorts.processes
        fn = st.funcs
        f = [st.ge == s.group_epoch, st.ae == s.assignment_epoch]
        for m, mc in M.items():
            f += [fn["joined"](mc) == (m in s.joined), fn["away"](mc) == (m in s.away),
                  fn["has_dup"](mc) == (m in s.has_dup), fn["dup_epoch"](mc) == s.dup_epoch[m],
                  fn["shrinking"](mc) == (m in s.shrinking),
                  fn["epoch"](mc) == s.epoch[m], fn["prev_epoch"](mc) == s.prev_epoch[m],
                  fn["client_epoch"](mc) == s.client_epoch[m],
                  fn["mstate"](mc) == self.sorts.mstates[s.mstate[m]]]
            for t, tc in T.items():
                f += [fn["subscribed"](mc, tc) == (t in s.subscribed[m]),
                      fn["last_assigned"](mc, tc) == (t in s.last_assigned[m])]
                for r in s.roles:
                    f += [fn[f"assigned_{r}"](mc, tc) == (t in s.assigned[r][m]),
                          fn[f"pending_{r}"](mc, tc) == (t in s.pending[r][m]),
                          fn[f"target_{r}"](mc, tc) == (t in s.target[r][m]),
                          fn[f"owned_{r}"](mc, tc) == (t in s.owned[r][m]),
                          fn[f"dup_owned_{r}"](mc, tc) == (t in s.dup_owned[r][m])]
        for t, tc in T.items():
            owner = s.epoch_owner[t]
            f.append(fn["has_epoch"](tc) == (owner is not None))
            if owner is not None:
                f.append(fn["epoch_owner"](tc) == M[owner])
            for p, pc in P.items():
                f += [fn["standby_procs"](pc, tc) == (p in s.standby_procs[t]),
                      fn["warmup_procs"](pc, tc) == (p in s.warmup_procs[t])]
        return f

    def sat(self, *formulas: Any) -> bool:
        solver = z3.Solver()
        solver.set(timeout=30_000)
        solver.add(*self.fixed, *formulas)
        return bool(solver.check() == z3.sat)


_UNIVERSES: dict[tuple[Any, ...], _Universe] = {}


def _universe(s: ConcreteState) -> _Universe:
    key = (s.protocol, s.members, s.tasks, s.processes, tuple(sorted(s.process_of.items())))
    if key not in _UNIVERSES:
        if len(_UNIVERSES) > 32:  # a long run meets many member sets; keep memory bounded
            _UNIVERSES.clear()
        _UNIVERSES[key] = _Universe(key)
    return _UNIVERSES[key]


def rule_name(step: dict[str, Any]) -> str:
    if step["action"] == "heartbeat":
        name = "heartbeat" if step.get("reported", True) else "heartbeat_unreported"
        return name + "_lost" if step.get("response") == "lost" else name
    return str(step["action"])


def step_satisfies_transition(pre: ConcreteState, step: dict[str, Any], post: ConcreteState,
                              mutant: str | None = None) -> bool:
    """Does (pre, step, post) satisfy the Z3 transition relation of ``step``'s action?"""
    u = _universe(pre)
    m = step.get("member", pre.members[0])
    n = step.get("new_member", m)
    formula = u.rule(mutant, rule_name(step), m, n)
    return u.sat(*u.pin(u.pre, pre), *u.pin(u.post, post), formula)


def state_satisfies(invariant_name: str, concrete_state: ConcreteState) -> bool:
    """Does the concrete state satisfy the invariant's (state) formula?"""
    u = _universe(concrete_state)
    return u.sat(*u.pin(u.pre, concrete_state), u.invariant(invariant_name))


def failing_invariants(concrete_state: ConcreteState, names: list[str]) -> list[str]:
    """The invariants among ``names`` the state violates (one Z3 query when all hold)."""
    u = _universe(concrete_state)
    facts = u.pin(u.pre, concrete_state)
    if u.sat(*facts, *(u.invariant(n) for n in names)):
        return []
    return [n for n in names if not u.sat(*facts, u.invariant(n))]
