"""Bounded model checking over a small finite instance, with counterexamples as event traces.

The encoding is the one the proofs use (:mod:`.rules`), over ``EnumSort`` members, tasks and
processes. The unrolling is incremental: for each depth ``k`` the negated invariant is checked
inside ``push``/``pop``, then the transition to ``k + 1`` is added, so the first trace found is
a shortest one. ``process_of`` is left to the solver (the trace reports it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3
from kgspec.invariants.symbolic.invariants import INVARIANTS
from kgspec.invariants.symbolic.rules import Ctx, actions, init
from kgspec.invariants.symbolic.sorts import finite_sorts
from kgspec.invariants.symbolic.state import (
    ROLE_NAMES,
    State,
    bound_vars,
    exists,
    forall,
    make_process_of,
)

SEED = 7


@dataclass(frozen=True)
class Instance:
    members: tuple[str, ...] = ("m1", "m2")
    tasks: tuple[str, ...] = ("p0", "p1")
    processes: tuple[str, ...] = ()


CONSUMER_INSTANCE = Instance(("m1", "m2", "m3"), ("p0",))
STREAMS_INSTANCE = Instance(("m1", "m2"), ("t0",), ("P0", "P1"))


@dataclass
class Counterexample:
    protocol: str
    mutant: str | None
    invariant: str
    instance: Instance
    process_of: dict[str, str]
    steps: list[dict[str, Any]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "mutant": self.mutant, "invariant": self.invariant,
                "members": list(self.instance.members), "tasks": list(self.instance.tasks),
                "processes": list(self.instance.processes), "process_of": self.process_of,
                "steps": self.steps, "text": self.text}


@dataclass
class BmcResult:
    invariant: str
    found: bool
    depth: int  # length of the counterexample, or the depth explored without one
    seconds: float
    result: str  # "violated", "holds-to-depth" or "unknown"
    counterexample: Counterexample | None = None


class Unrolling:
    def __init__(self, protocol: str, mutant: str | None, inst: Instance,
                 async_client: bool = False, network: bool = True) -> None:
        streams = protocol == "streams"
        self.protocol, self.mutant, self.inst = protocol, mutant, inst
        self.ctx = Ctx(streams=streams, mutant=mutant, async_client=async_client, network=network)
        self.sorts = finite_sorts(inst.members, inst.tasks, inst.processes if streams else ())
        self.pid = make_process_of(self.sorts)
        self.acts = actions(self.ctx)
        self.names = list(self.acts)
        self.states: list[State] = [State(self.sorts, streams, "@0", self.pid)]
        self.act: list[Any] = []
        self.arg_m: list[Any] = []
        self.arg_n: list[Any] = []

    def add_step(self) -> Any:
        k = len(self.act)
        pre = self.states[-1]
        post = State(self.sorts, pre.streams, f"@{k + 1}", self.pid)
        a = z3.Int(f"act@{k}")
        m = z3.Const(f"m@{k}", self.sorts.member)
        n = z3.Const(f"n@{k}", self.sorts.member)
        self.states.append(post)
        self.act.append(a)
        self.arg_m.append(m)
        self.arg_n.append(n)
        return z3.Or([z3.And(a == i, rule(self.ctx, pre, post, m, n))
                      for i, rule in enumerate(self.acts.values())])


def bad(u: Unrolling, name: str) -> Any:
    inv = INVARIANTS[name]
    s = u.states[-1]
    if inv.steps is not None:  # violated by the last step, if it is one of the actions
        if len(u.states) < 2:
            return z3.BoolVal(False)
        code = {a: i for i, a in enumerate(u.names)}
        return z3.Or([z3.And(u.act[-1] == code[a], z3.Not(prop(u.states[-2], s, u.arg_m[-1], u.arg_n[-1])))
                      for a, prop in inv.steps.items() if a in code] or [z3.BoolVal(False)])
    conds = list(inv.state(s))
    if inv.action and len(u.states) > 1:
        conds += inv.action(u.states[-2], s)
    return z3.Not(z3.And(conds))


def realizable(u: Unrolling) -> Any:
    """Constraints making a trace replayable, event by event, by the executable model with
    ``group.consumer.assignment.interval.ms = 0`` (every heartbeat of a member behind the
    group epoch computes the target first). A join, or a static replacement, is one
    heartbeat: join (or replace), recompute, heartbeat of the same member. A recompute
    happens only inside a heartbeat, and a heartbeat never runs behind the group epoch. No
    bare epoch bumps (they need metadata changes), no subscription changes or static returns
    (not replayed by the export). Members subscribe to every task, and a
    target gives every subscribed task to someone, so the target is one the checker accepts
    from the ``uniform`` assignor (every instance has one task, so it is balanced)."""
    names = u.names
    code = {n: i for i, n in enumerate(names)}
    k = len(u.act)
    def hb(i: int) -> Any:
        return z3.Or(u.act[i] == code["heartbeat"], u.act[i] == code["heartbeat_lost"])

    def any_hb(i: int) -> Any:
        return z3.Or(hb(i), u.act[i] == code["heartbeat_stale"]) if "heartbeat_stale" in code else hb(i)

    def within(j: int) -> bool:
        return j < k

    conj: list[Any] = []
    srt = u.sorts
    for i in range(k):
        a, m, pre, post = u.act[i], u.arg_m[i], u.states[i], u.states[i + 1]
        join_ok = z3.And(u.act[i + 1] == code["recompute"], hb(i + 2), u.arg_m[i + 2] == m) \
            if within(i + 2) else z3.BoolVal(False)
        conj.append(z3.Implies(a == code["join"], join_ok))
        if "replace" in code:
            n = u.arg_n[i]
            direct = z3.And(hb(i + 1), u.arg_m[i + 1] == n) if within(i + 1) else z3.BoolVal(False)
            via = z3.And(u.act[i + 1] == code["recompute"], hb(i + 2), u.arg_m[i + 2] == n) \
                if within(i + 2) else z3.BoolVal(False)
            conj.append(z3.Implies(a == code["replace"], z3.Or(direct, via)))
        conj.append(z3.Implies(a == code["recompute"], hb(i + 1) if within(i + 1) else z3.BoolVal(False)))
        conj.append(z3.Implies(any_hb(i), pre.ge == pre.ae))
        conj.append(a != code["bump"])
        # not replayed by the export (yet): subscription changes, a static member's own return
        conj += [a != code[x] for x in ("resubscribe", "shrink", "static_return") if x in code]
        t = bound_vars(srt, (srt.task,), "rt")[0]
        x, y = bound_vars(srt, (srt.member, srt.member), "rm")
        conj.append(z3.Implies(a == code["join"], forall(srt, [t], post.f("subscribed")(m, t))))
        complete = forall(srt, [t], z3.Implies(
            exists(srt, [x], z3.And(post.f("joined")(x), post.f("subscribed")(x, t))),
            exists(srt, [y], post.T("act", y, t))))
        conj.append(z3.Implies(a == code["recompute"], complete))
        if u.ctx.streams:
            conj.append(z3.Implies(a == code["recompute"], _sticky_streams_target(u, pre, post)))
    return z3.And(conj)


def _sticky_streams_target(u: Unrolling, pre: State, post: State) -> Any:
    """What the sticky task assignor does on a streams instance of one subtopology (tasks in
    partition order): with quota q = ⌈tasks / members⌉, each active task goes back to its
    previous owner while that member is still in the group and under the quota (tasks
    considered in order), no member gets more than q, and every task has an owner (the rest go
    to whoever has room). No warm-ups (the trace sets none); standbys only with
    ``standby-on-active-process`` (one replica)."""
    srt = u.sorts
    y, t = bound_vars(srt, (srt.member, srt.task), "st")
    members, tasks = list(srt.members.values()), list(srt.tasks.values())
    joined = z3.Sum([z3.If(post.f("joined")(x), 1, 0) for x in members])
    q = z3.Int(f"quota@{post.tag}")
    conj = [z3.Implies(joined > 0, z3.And(q * joined >= len(tasks), (q - 1) * joined < len(tasks))),
            forall(srt, [y, t], z3.Not(post.T("wup", y, t)))]
    for x in members:
        kept: list[Any] = []
        for tc in tasks:
            keep = z3.And(pre.T("act", x, tc), post.f("joined")(x),
                          z3.Sum([z3.If(k, 1, 0) for k in kept] or [z3.IntVal(0)]) < q)
            conj.append(z3.Implies(keep, post.T("act", x, tc)))
            kept.append(keep)
        conj.append(z3.Sum([z3.If(post.T("act", x, tc), 1, 0) for tc in tasks]) <= q)
    if not u.ctx.on("standby-on-active-process"):
        conj.append(forall(srt, [y, t], z3.Not(post.T("sby", y, t))))
    return z3.And(conj)


STREAMS_TWO_TASKS = Instance(("m1", "m2"), ("t0", "t1"), ("P0", "P1"))


def run_bmc(protocol: str, invariant: str, mutant: str | None = None, depth: int = 10,
            timeout_s: float = 60.0, inst: Instance | None = None,
            replayable: bool = False, async_client: bool = False, network: bool = True) -> BmcResult:
    """A shortest trace from the initial state to a violation of ``invariant`` (step or
    state part), up to ``depth`` steps; ``replayable`` adds :func:`realizable`;
    ``async_client`` / ``network`` switch the client-local / network actions on."""
    inst = inst or (STREAMS_INSTANCE if protocol == "streams" else CONSUMER_INSTANCE)
    u = Unrolling(protocol, mutant, inst, async_client, network)
    s = z3.Solver()
    s.set(random_seed=SEED)
    s.add(init(u.ctx, u.states[0]))
    t0 = time.perf_counter()
    for k in range(depth + 1):
        left = timeout_s - (time.perf_counter() - t0)
        if left <= 0:
            return BmcResult(invariant, False, k, time.perf_counter() - t0, "unknown")
        s.set(timeout=max(1, int(left * 1000)))
        s.push()
        s.add(bad(u, invariant))
        if replayable:
            s.add(realizable(u))
        res = s.check()
        if res == z3.sat:
            cex = extract(u, s.model(), invariant)
            s.pop()
            return BmcResult(invariant, True, k, time.perf_counter() - t0, "violated", cex)
        s.pop()
        if res != z3.unsat:
            return BmcResult(invariant, False, k, time.perf_counter() - t0, "unknown")
        if k < depth:
            s.add(u.add_step())
    return BmcResult(invariant, False, depth, time.perf_counter() - t0, "holds-to-depth")


class _Reader:
    def __init__(self, u: Unrolling, model: Any) -> None:
        self.u, self.model = u, model

    def val(self, e: Any) -> Any:
        return self.model.eval(e, model_completion=True)

    def name(self, e: Any) -> str:
        return str(self.val(e))

    def tasks(self, s: State, fld: str, m: Any) -> list[str]:
        return [t for t, tc in self.u.sorts.tasks.items() if z3.is_true(self.val(s.f(fld)(m, tc)))]

    def roles(self, s: State, kind: str, m: Any) -> Any:
        if not s.streams:
            return self.tasks(s, f"{kind}_act", m)
        return {ROLE_NAMES[r]: self.tasks(s, f"{kind}_{r}", m) for r in s.roles}


def _fmt(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}:{_fmt(x)}" for k, x in v.items() if x) + "}"
    return "{" + ",".join(v) + "}"


def extract(u: Unrolling, model: Any, invariant: str) -> Counterexample:
    rd = _Reader(u, model)
    pid = {}
    if u.pid is not None:
        pid = {m: rd.name(u.pid(mc)) for m, mc in u.sorts.members.items()}
    cex = Counterexample(u.protocol, u.mutant, invariant, u.inst, pid)
    for k, a in enumerate(u.act):
        action = u.names[model.eval(a, model_completion=True).as_long()]
        post = u.states[k + 1]
        m = rd.val(u.arg_m[k])
        mname = str(m)
        step: dict[str, Any] = {"action": action}
        line = action
        if action == "recompute":
            target = {x: rd.roles(post, "target", xc) for x, xc in u.sorts.members.items()}
            target = {x: v for x, v in target.items() if any(v.values() if isinstance(v, dict)
                                                             else v)}
            ae = rd.val(post.ae).as_long()
            step.update(assignment_epoch=ae, target=target)
            line = f"recompute target (epoch {ae}) " + "{" + ", ".join(
                f"{x}:{_fmt(v)}" for x, v in target.items()) + "}"
        elif action == "bump":
            line = f"bump group epoch → {rd.val(post.ge).as_long()}"
        else:
            step["member"] = mname
            line = f"{action} {mname}"
        if action in ("join", "resubscribe"):
            subs = rd.tasks(post, "subscribed", m)
            step["subscribed"] = subs
            line += f" (subscribes {_fmt(subs)})"
        elif action == "replace":
            step["new_member"] = rd.name(u.arg_n[k])
            line = f"replace {mname} by {step['new_member']} (static, same instance id)"
        elif action == "duplicate":
            pre = u.states[k]
            sent = rd.roles(pre, "owned", m)
            step.update(client_epoch=rd.val(pre.f("client_epoch")(m)).as_long(), owned=sent)
            line = (f"duplicate {mname}: the network keeps a copy of its request "
                    f"(epoch {step['client_epoch']}, owned {_fmt(sent)})")
        elif action in ("client_receive", "client_reconcile", "client_release"):
            ce = rd.val(post.f("client_epoch")(m)).as_long()
            owned = rd.roles(post, "owned", m)
            if action != "client_reconcile":
                step["client_epoch"] = ce
            if action != "client_receive":
                step["owned"] = owned
            line += f" (client epoch {ce}, owns {_fmt(owned)})"
        elif action in ("heartbeat", "heartbeat_lost", "heartbeat_stale", "heartbeat_unreported",
                        "heartbeat_unreported_lost"):
            stale = action == "heartbeat_stale"
            unreported = action.startswith("heartbeat_unreported")
            lost = action.endswith("_lost")
            step["action"] = "heartbeat_stale" if stale else "heartbeat"
            if not stale:
                step["response"] = "lost" if lost else "delivered"
            if unreported:
                step["reported"] = False
            res = {"epoch": rd.val(post.f("epoch")(m)).as_long(),
                   "state": rd.name(post.f("mstate")(m)),
                   "assigned": rd.roles(post, "assigned", m),
                   "pending": rd.roles(post, "pending", m)}
            step["result"] = res
            sent_epoch = rd.val(u.states[k].f("dup_epoch" if stale else "client_epoch")(m))
            line = (f"{'stale copy of a heartbeat' if stale else 'heartbeat'} {mname} (epoch {sent_epoch}"
                    + (f", owned {_fmt(rd.roles(u.states[k], 'dup_owned', m))}" if stale else "") + ") → "
                    f"epoch {res['epoch']} {res['state']} assigned {_fmt(res['assigned'])}"
                    + (f" pending {_fmt(res['pending'])}" if _fmt(res["pending"]) != "{}" else "")
                    + (" [owned tasks not reported]" if unreported else "")
                    + (" [response lost]" if lost else ""))
        cex.steps.append(step)
        cex.text.append(line)
    cex.text.append("violates " + invariant + ": " + describe_final(rd, u))
    return cex


def describe_final(rd: _Reader, u: Unrolling) -> str:
    s = u.states[-1]
    parts = []
    for x, xc in u.sorts.members.items():
        if not z3.is_true(rd.val(s.f("joined")(xc))):
            own = rd.roles(s, "owned", xc)
            if _fmt(own) != "{}":
                parts.append(f"{x} fenced, client still owns {_fmt(own)}")
            continue
        parts.append(f"{x} epoch {rd.val(s.f('epoch')(xc))} {rd.name(s.f('mstate')(xc))} "
                     f"holds {_fmt(rd.roles(s, 'assigned', xc))}"
                     f"+pending {_fmt(rd.roles(s, 'pending', xc))} "
                     f"client owns {_fmt(rd.roles(s, 'owned', xc))}")
    return "; ".join(parts) + f"; group epoch {rd.val(s.ge)}, assignment epoch {rd.val(s.ae)}"
