"""One symbolic state: every state variable as a Z3 constant or uninterpreted function.

Field names (the same in :mod:`kgspec.invariants.symbolic.concrete`):

==================  =================================  =========================================
field               signature                          meaning
==================  =================================  =========================================
group_epoch         Int                                group epoch
assignment_epoch    Int                                epoch of the target assignment
joined              Member → Bool                      the coordinator holds a member record
away                Member → Bool                      static member after a -2 leave (consumer)
epoch               Member → Int                       coordinator-side member epoch
prev_epoch          Member → Int                       previousMemberEpoch
client_epoch        Member → Int                       the epoch the client last heard
mstate              Member → MemberState               STABLE / UNREVOKED / UNRELEASED
subscribed          Member × Task → Bool               the member may be given the task
assigned_<r>        Member × Task → Bool               coordinator: assigned, role r
pending_<r>         Member × Task → Bool               coordinator: pending revocation, role r
target_<r>          Member × Task → Bool               target assignment, role r
owned_<r>           Member × Task → Bool               what the client believes it owns, role r
last_assigned       Member × Task → Bool               records left behind by a fence (replay)
has_epoch           Task → Bool                        the partition-epoch map has an entry
epoch_owner         Task → Member                      ... and the member it points at
standby_procs       Process × Task → Bool              streams: currentStandbyTaskProcessIds
warmup_procs        Process × Task → Bool              streams: currentWarmupTaskProcessIds
process_of          Member → Process                   streams: processId (rigid, all states)
shrinking           Member → Bool                      UNREVOKED by a subscription shrink (consumer)
has_dup             Member → Bool                      the network holds a copy of a request of m
dup_epoch           Member → Int                       ... its member epoch
dup_owned_<r>       Member × Task → Bool               ... the owned tasks it reports, role r
==================  =================================  =========================================

Roles: the consumer protocol has one role, ``act`` (a partition); streams has ``act``
(active), ``sby`` (standby) and ``wup`` (warm-up).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3
from kgspec.invariants.symbolic.sorts import Sorts

CONSUMER_ROLES = ("act",)
STREAMS_ROLES = ("act", "sby", "wup")
ROLE_NAMES = {"act": "active", "sby": "standby", "wup": "warmup"}

Expr = Any  # a z3 expression; z3 ships no type hints


class State:
    """The state variables of one step, named with a suffix (``@0``, ``'`` ...)."""

    def __init__(self, sorts: Sorts, streams: bool, tag: str, process_of: Expr) -> None:
        m, t, b, i = sorts.member, sorts.task, z3.BoolSort(), z3.IntSort()
        self.sorts, self.streams, self.tag = sorts, streams, tag
        self.roles = STREAMS_ROLES if streams else CONSUMER_ROLES
        self.scalars: dict[str, Expr] = {
            "group_epoch": z3.Int(f"group_epoch{tag}"),
            "assignment_epoch": z3.Int(f"assignment_epoch{tag}"),
        }
        sigs: dict[str, tuple[Any, ...]] = {
            "joined": (m, b), "away": (m, b), "epoch": (m, i), "prev_epoch": (m, i),
            "client_epoch": (m, i), "mstate": (m, sorts.mstate), "subscribed": (m, t, b),
            "last_assigned": (m, t, b), "has_epoch": (t, b), "epoch_owner": (t, m),
            "has_dup": (m, b), "dup_epoch": (m, i), "shrinking": (m, b),
        }
        for r in self.roles:
            for kind in ("assigned", "pending", "target", "owned", "dup_owned"):
                sigs[f"{kind}_{r}"] = (m, t, b)
        if streams:
            sigs["standby_procs"] = (sorts.process, t, b)
            sigs["warmup_procs"] = (sorts.process, t, b)
        self.sigs = sigs
        self.funcs: dict[str, Expr] = {n: z3.Function(f"{n}{tag}", *s) for n, s in sigs.items()}
        self.process_of = process_of

    # Short accessors keep the transition rules readable.
    def f(self, name: str) -> Callable[..., Expr]:
        fn: Callable[..., Expr] = self.funcs[name]
        return fn

    @property
    def ge(self) -> Expr:
        return self.scalars["group_epoch"]

    @property
    def ae(self) -> Expr:
        return self.scalars["assignment_epoch"]

    def A(self, r: str, m: Expr, t: Expr) -> Expr:
        return self.funcs[f"assigned_{r}"](m, t)

    def R(self, r: str, m: Expr, t: Expr) -> Expr:
        return self.funcs[f"pending_{r}"](m, t)

    def T(self, r: str, m: Expr, t: Expr) -> Expr:
        return self.funcs[f"target_{r}"](m, t)

    def O(self, r: str, m: Expr, t: Expr) -> Expr:  # noqa: E743 (owned, next to A, R, T)
        return self.funcs[f"owned_{r}"](m, t)

    def H(self, r: str, m: Expr, t: Expr) -> Expr:
        """Held by the member on the coordinator: assigned ∪ pending revocation."""
        return z3.Or(self.A(r, m, t), self.R(r, m, t))


def make_process_of(sorts: Sorts) -> Expr:
    if sorts.process is None:
        return None
    return z3.Function("process_of", sorts.member, sorts.process)


def bound_vars(sorts: Sorts, argsorts: tuple[Any, ...], prefix: str = "x") -> list[Expr]:
    return [z3.Const(f"{prefix}{k}!{s}", s) for k, s in enumerate(argsorts)]


def _domain(sorts: Sorts, sort: Any) -> list[Expr] | None:
    for values in (sorts.members, sorts.tasks, sorts.processes):
        if values and next(iter(values.values())).sort() == sort:
            return list(values.values())
    return None


def forall(sorts: Sorts, xs: list[Expr], body: Expr) -> Expr:
    """∀ over the sorts; over a finite instance, the grounded conjunction (much faster for BMC)."""
    if not sorts.finite:
        return z3.ForAll(xs, body)
    return z3.And(_ground(sorts, xs, body))


def exists(sorts: Sorts, xs: list[Expr], body: Expr) -> Expr:
    if not sorts.finite:
        return z3.Exists(xs, body)
    return z3.Or(_ground(sorts, xs, body))


def _ground(sorts: Sorts, xs: list[Expr], body: Expr) -> list[Expr]:
    out = [body]
    for x in xs:
        dom = _domain(sorts, x.sort())
        assert dom is not None, f"no finite domain for {x.sort()}"
        out = [z3.substitute(b, (x, c)) for b in out for c in dom]
    return out


def frame(pre: State, post: State, updates: dict[str, Callable[..., Expr]]) -> Expr:
    """post = pre except the fields in ``updates`` (each a function of the field's arguments).

    An update may return ``None`` for "unconstrained" (nondeterministic choice).
    """
    conj: list[Expr] = []
    for name, var in pre.scalars.items():
        upd = updates.get(name)
        conj.append(post.scalars[name] == (upd() if upd else var))
    for name, sig in pre.sigs.items():
        xs = bound_vars(pre.sorts, sig[:-1])
        upd = updates.get(name)
        rhs = upd(*xs) if upd else pre.funcs[name](*xs)
        if rhs is None:
            continue
        conj.append(forall(pre.sorts, xs, post.funcs[name](*xs) == rhs))
    return z3.And(conj)
