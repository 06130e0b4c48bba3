"""The transition relation: one Z3 formula per action, over a pre- and a post-state.

Each action is ``rule(ctx, pre, post, m, n) -> BoolRef`` (``m``/``n`` are Member terms; most
actions use only ``m``). ``ctx.mutant`` switches a rule to its seeded-bug variant; mutant
names come from :mod:`kgspec.model.mutants`.

Heartbeat reconciliation follows ``CurrentAssignmentBuilder`` (consumer: trunk, 4.2+;
streams: the 4.1 predicates, no in-place role changes):

* STABLE reconciles only when ``epoch != targetEpoch``; UNREVOKED only once the client no
  longer reports any pending-revocation task; UNRELEASED always.
* ``next(e)``: keep = assigned ∩ target, revoke = assigned − target, new = target − assigned.
  A new task is withheld while the partition-epoch map (streams: the process maps) says
  someone still holds it (consumer: unless the member itself has it pending, KAFKA-19449).
* If the client still owns a revoked task: UNREVOKED at epoch ``e`` (no bump) with
  pending = revoke. Otherwise epoch := targetEpoch, pending := {}, assigned := keep ∪ granted,
  UNRELEASED if something was withheld else STABLE.
* Streams leaves UNREVOKED with ``next(memberEpoch + 1)`` (still so in trunk).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3
from kgspec.invariants.symbolic.state import Expr, State, bound_vars, exists, forall, frame


@dataclass(frozen=True)
class Ctx:
    streams: bool
    mutant: str | None = None
    # Client-local actions (a response received later, reconciliation finishing, a client
    # releasing on its own): the asynchronous client of the executable model. The proofs
    # include them; BMC leaves them out unless asked (atomic delivery finds shorter traces).
    async_client: bool = True
    # Network actions: a copy of a member's request kept by the network and delivered late
    # (``duplicate`` / ``heartbeat_stale``).
    network: bool = True

    def on(self, name: str) -> bool:
        return self.mutant == name


Rule = Callable[[Ctx, State, State, Expr, Expr], Expr]


def _tv(pre: State) -> Expr:
    return bound_vars(pre.sorts, (pre.sorts.task,), "t")[0]


def _nothing_owned(pre: State, m: Expr) -> Expr:
    t = _tv(pre)
    return forall(pre.sorts, [t], z3.And([z3.Not(pre.O(r, m, t)) for r in pre.roles]))


def _member_upd(m: Expr, new: Callable[..., Expr], old: Callable[..., Expr]) -> Callable[..., Expr]:
    """Point update of a Member-indexed field at ``m``."""
    return lambda x, *rest: z3.If(x == m, new(*rest), old(x, *rest))


def _clear_client(pre: State, m: Expr) -> dict[str, Callable[..., Expr]]:
    upd: dict[str, Callable[..., Expr]] = {
        "client_epoch": _member_upd(m, lambda: z3.IntVal(0), pre.f("client_epoch"))}
    for r in pre.roles:
        upd[f"owned_{r}"] = _member_upd(m, lambda t: z3.BoolVal(False), pre.f(f"owned_{r}"))
    return upd


def _drop_member(pre: State, m: Expr) -> dict[str, Callable[..., Expr]]:
    """Coordinator side of a fence or leave: tombstones, partition epochs released."""
    false = lambda *a: z3.BoolVal(False)  # noqa: E731
    upd: dict[str, Callable[..., Expr]] = {
        "joined": _member_upd(m, false, pre.f("joined")),
        "away": _member_upd(m, false, pre.f("away")),
        "last_assigned": _member_upd(m, lambda t: pre.A("act", m, t), pre.f("last_assigned")),
        "has_epoch": lambda t: z3.If(pre.H("act", m, t), False, pre.f("has_epoch")(t)),
        "group_epoch": lambda: pre.ge + 1,
    }
    for r in pre.roles:
        for kind in ("assigned", "pending", "target"):
            upd[f"{kind}_{r}"] = _member_upd(m, false, pre.f(f"{kind}_{r}"))
    if pre.streams:
        pm = pre.process_of(m)
        for r, fld in (("sby", "standby_procs"), ("wup", "warmup_procs")):
            old = pre.f(fld)
            upd[fld] = (lambda r_, old_: lambda q, t: z3.If(
                z3.And(q == pm, pre.H(r_, m, t)), False, old_(q, t)))(r, old)
    return upd


def join(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """A new member (client epoch 0, nothing owned) joins; its subscription is chosen freely."""
    false = lambda *a: z3.BoolVal(False)  # noqa: E731
    upd: dict[str, Callable[..., Expr]] = {
        "joined": _member_upd(m, lambda: z3.BoolVal(True), pre.f("joined")),
        "away": _member_upd(m, false, pre.f("away")),
        "epoch": _member_upd(m, lambda: z3.IntVal(0), pre.f("epoch")),
        "prev_epoch": _member_upd(m, lambda: z3.IntVal(0), pre.f("prev_epoch")),
        "client_epoch": _member_upd(m, lambda: z3.IntVal(0), pre.f("client_epoch")),
        "mstate": _member_upd(m, lambda: pre.sorts.mstates["STABLE"], pre.f("mstate")),
        "last_assigned": _member_upd(m, false, pre.f("last_assigned")),
        "has_dup": _member_upd(m, false, pre.f("has_dup")),  # a new incarnation: no copies of its requests
        "shrinking": _member_upd(m, false, pre.f("shrinking")),
        "subscribed": lambda x, t: None,  # free for m; framed for the others below
        "group_epoch": lambda: pre.ge + 1,
    }
    for r in pre.roles:
        for kind in ("assigned", "pending", "target"):
            upd[f"{kind}_{r}"] = _member_upd(m, false, pre.f(f"{kind}_{r}"))
    xm, xt = bound_vars(pre.sorts, (pre.sorts.member, pre.sorts.task), "s")
    subs_frame = forall(pre.sorts, [xm, xt], z3.Implies(
        xm != m, post.f("subscribed")(xm, xt) == pre.f("subscribed")(xm, xt)))
    return z3.And(z3.Not(pre.f("joined")(m)), _nothing_owned(pre, m),
                  frame(pre, post, upd), subs_frame)


def resubscribe(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """A member's heartbeat carries a new subscription (any); the group epoch bump and the
    new target are separate steps (``bump``, ``recompute``)."""
    xm, xt = bound_vars(pre.sorts, (pre.sorts.member, pre.sorts.task), "s")
    subs_frame = forall(pre.sorts, [xm, xt], z3.Implies(
        xm != m, post.f("subscribed")(xm, xt) == pre.f("subscribed")(xm, xt)))
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)))
    return z3.And(guard, frame(pre, post, {"subscribed": lambda x, t: None}), subs_frame)


def shrink(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Consumer, 4.2+: the heartbeat of a resubscribed member that is STABLE at the target
    epoch (or UNREVOKED, still owning a pending partition) drops the partitions it no longer
    subscribes to without a new target (``CurrentAssignmentBuilder.updateCurrentAssignment``):
    if its client owns one, they go pending and the member is UNREVOKED *at its epoch*, which
    may be the target epoch (``shrinking``); otherwise they are just dropped."""
    ms, t = pre.sorts.mstates, _tv(pre)
    ep, st = pre.f("epoch")(m), pre.f("mstate")(m)

    def drop(x: Expr) -> Expr:  # assigned, no longer subscribed
        return z3.And(pre.A("act", m, x), z3.Not(pre.f("subscribed")(m, x)))

    owns_pending = exists(pre.sorts, [t], z3.And(pre.O("act", m, t), pre.R("act", m, t)))
    owns_drop = exists(pre.sorts, [t], z3.And(pre.O("act", m, t), drop(t)))
    some_drop = exists(pre.sorts, [t], drop(t))
    unrevoked = z3.Or(owns_drop, st == ms["UNREVOKED"])
    upd: dict[str, Callable[..., Expr]] = {
        "assigned_act": _member_upd(m, lambda x: z3.And(pre.A("act", m, x), z3.Not(drop(x))),
                                    pre.f("assigned_act")),
        "pending_act": _member_upd(m, lambda x: z3.Or(pre.R("act", m, x), z3.And(unrevoked, drop(x))),
                                   pre.f("pending_act")),
        "mstate": _member_upd(m, lambda: z3.If(unrevoked, ms["UNREVOKED"], st), pre.f("mstate")),
        "shrinking": _member_upd(m, lambda: z3.If(st == ms["UNREVOKED"], pre.f("shrinking")(m), owns_drop),
                                 pre.f("shrinking")),
        "prev_epoch": _member_upd(m, lambda: ep, pre.f("prev_epoch")),
        "has_epoch": lambda x: z3.If(z3.And(drop(x), z3.Not(unrevoked)), False, pre.f("has_epoch")(x)),
    }
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)), some_drop,
                   z3.Or(z3.And(st == ms["STABLE"], ep == pre.ae), z3.And(st == ms["UNREVOKED"], owns_pending)))
    return z3.And(guard, frame(pre, post, upd))


def leave(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Dynamic leave (epoch -1): the client has released everything; the member is removed."""
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)))
    return z3.And(guard, frame(pre, post, {**_drop_member(pre, m), **_clear_client(pre, m)}))


def session_timeout(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Session expiry fences the member; its client (if alive) becomes a zombie."""
    if ctx.on("no-session-fencing"):
        return z3.And(pre.f("joined")(m), frame(pre, post, {}))
    return z3.And(pre.f("joined")(m), frame(pre, post, _drop_member(pre, m)))


def rebalance_timeout(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """A member that does not finish revoking in time is fenced."""
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)),
                   pre.f("mstate")(m) == pre.sorts.mstates["UNREVOKED"])
    return z3.And(guard, frame(pre, post, _drop_member(pre, m)))


def bump(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """A group epoch bump with no member change (metadata, subscription or assignor change)."""
    return frame(pre, post, {"group_epoch": lambda: pre.ge + 1})


def target_valid(ctx: Ctx, s: State, subscription: bool = True) -> Expr:
    """What any assignor must produce (the `target-validity` invariant, mutable by mutants).
    ``subscription``: targets lie within the subscriptions, true when the target is computed
    (``recompute``) but not an invariant: a member that resubscribes keeps its old target until
    the next assignment."""
    srt = s.sorts
    m1, m2 = bound_vars(srt, (srt.member, srt.member), "v")
    t = _tv(s)
    holder = z3.And(s.f("joined")(m1), s.f("subscribed")(m1, t)) if subscription else s.f("joined")(m1)
    conj = [forall(s.sorts, [m1, t], z3.Implies(z3.Or([s.T(r, m1, t) for r in s.roles]), holder))]
    if not ctx.on("assignor-double-assign"):
        conj.append(forall(s.sorts, [m1, m2, t], z3.Implies(
            z3.And(s.T("act", m1, t), s.T("act", m2, t)), m1 == m2)))
    if s.streams:
        for i, r1 in enumerate(s.roles):
            for r2 in s.roles[i:]:
                if ctx.on("standby-on-active-process") and {r1, r2} == {"act", "sby"}:
                    continue
                same = s.process_of(m1) == s.process_of(m2)
                if r1 == r2:
                    same = z3.And(same, m1 != m2)
                conj.append(forall(s.sorts, [m1, m2, t], z3.Implies(
                    same, z3.Not(z3.And(s.T(r1, m1, t), s.T(r2, m2, t))))))
    return z3.And(conj)


def recompute(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Any valid target (nondeterministic assignor), stamped with the group epoch."""
    upd: dict[str, Callable[..., Expr]] = {"assignment_epoch": lambda: pre.ge}
    for r in pre.roles:
        upd[f"target_{r}"] = lambda *a: None
    return z3.And(pre.ge > pre.ae, frame(pre, post, upd), target_valid(ctx, post))


def _sent_owned(pre: State, stale: bool) -> Callable[[str, Expr, Expr], Expr]:
    """What the request reports as owned: the client's tasks, or those of the network's copy."""
    if stale:
        return lambda r, m, t: pre.f(f"dup_owned_{r}")(m, t)
    return pre.O


def epoch_ok(ctx: Ctx, pre: State, m: Expr, reported: bool = True, stale: bool = False) -> Expr:
    """throwIf…MemberEpochIsInvalid: 0, the current epoch, or the previous one with owned ⊆ assigned
    (an owned set not reported is never contained: ``areOwned…ContainedInAssigned…``).
    ``stale``: the request is the network's copy (``dup_epoch``, ``dup_owned``)."""
    ce = pre.f("dup_epoch")(m) if stale else pre.f("client_epoch")(m)
    ep = pre.f("epoch")(m)
    sent = _sent_owned(pre, stale)
    t = _tv(pre)
    subset = forall(pre.sorts, [t], z3.And([z3.Implies(sent(r, m, t), pre.A(r, m, t)) for r in pre.roles])) \
        if reported else z3.BoolVal(False)
    if ctx.on("lost-response-no-subset"):
        subset = z3.BoolVal(True)
    lower = z3.And(ce == pre.f("prev_epoch")(m), subset)
    if ctx.on("accept-stale-epoch"):
        lower = ce < ep
    return z3.Or(ce == 0, ce == ep, lower)


def _unreleased(ctx: Ctx, pre: State, r: str, m: Expr, t: Expr) -> Expr:
    """Is a newly targeted task still held elsewhere (so it must be withheld)?"""
    held_act = pre.f("has_epoch")(t)
    if ctx.on("grant-before-ack"):  # pending revocations no longer count as held
        held_act = z3.And(held_act, pre.A("act", pre.f("epoch_owner")(t), t))
    if not pre.streams:
        if ctx.on("no-withholding"):
            return z3.BoolVal(False)
        return z3.And(held_act, z3.Not(pre.R("act", m, t)))
    p = pre.process_of(m)
    same_proc = z3.Or(pre.f("standby_procs")(p, t), pre.f("warmup_procs")(p, t))
    if r == "act":
        return z3.Or(held_act, same_proc)
    return z3.Or(z3.And(held_act, pre.process_of(pre.f("epoch_owner")(t)) == p), same_proc)


def _heartbeat(ctx: Ctx, pre: State, post: State, m: Expr, delivered: bool, reported: bool = True,
               stale: bool = False) -> Expr:
    roles, ms = pre.roles, pre.sorts.mstates
    ep, te, st = pre.f("epoch")(m), pre.ae, pre.f("mstate")(m)
    t = _tv(pre)
    # consumer 4.2+: the target of a topic the member no longer subscribes to counts as empty
    def tgt(r_: str, x: Expr) -> Expr:
        return pre.T(r_, m, x) if pre.streams else z3.And(pre.T(r_, m, x), pre.f("subscribed")(m, x))

    keep = {r: (lambda r_: lambda x: z3.And(pre.A(r_, m, x), tgt(r_, x)))(r) for r in roles}
    revoke = {r: (lambda r_: lambda x: z3.And(pre.A(r_, m, x), z3.Not(tgt(r_, x))))(r)
              for r in roles}
    new = {r: (lambda r_: lambda x: z3.And(tgt(r_, x), z3.Not(pre.A(r_, m, x))))(r)
           for r in roles}
    unrel = {r: (lambda r_: lambda x: _unreleased(ctx, pre, r_, m, x))(r) for r in roles}
    # An owned set not reported (null task lists) counts as owning everything (``ownsRevoked…``).
    sent = _sent_owned(pre, stale)

    def owns(r_: str, x: Expr) -> Expr:
        return sent(r_, m, x) if reported else z3.BoolVal(True)

    owns_pending = exists(pre.sorts, [t], z3.Or([z3.And(owns(r, t), pre.R(r, m, t)) for r in roles]))
    owns_revoke = exists(pre.sorts, [t], z3.Or([z3.And(owns(r, t), revoke[r](t)) for r in roles]))
    withheld = exists(pre.sorts, [t], z3.Or([z3.And(new[r](t), unrel[r](t)) for r in roles]))
    reconcile = z3.Or(z3.And(st == ms["STABLE"], ep != te),
                      z3.And(st == ms["UNREVOKED"], z3.Not(owns_pending)),
                      st == ms["UNRELEASED"])
    base = z3.If(st == ms["UNREVOKED"], ep + 1, ep) if pre.streams else ep
    rev_epoch = te if ctx.on("bump-while-revoking") else base
    new_epoch = z3.If(reconcile, z3.If(owns_revoke, rev_epoch, te), ep)
    new_state = z3.If(reconcile, z3.If(owns_revoke, ms["UNREVOKED"],
                                       z3.If(withheld, ms["UNRELEASED"], ms["STABLE"])), st)

    def a_new(r: str, x: Expr) -> Expr:
        grant = z3.Or(keep[r](x), z3.And(new[r](x), z3.Not(unrel[r](x))))
        return z3.If(reconcile, z3.If(owns_revoke, keep[r](x), grant), pre.A(r, m, x))

    def r_new(r: str, x: Expr) -> Expr:
        return z3.If(reconcile, z3.If(owns_revoke, revoke[r](x), False), pre.R(r, m, x))

    upd: dict[str, Callable[..., Expr]] = {
        # revoking at the target epoch: only a subscription change does that (consumer 4.2+)
        "shrinking": _member_upd(m, lambda: z3.If(reconcile, z3.And(owns_revoke, base == te),
                                                  pre.f("shrinking")(m)), pre.f("shrinking")),
        "epoch": _member_upd(m, lambda: new_epoch, pre.f("epoch")),
        "prev_epoch": _member_upd(m, lambda: z3.If(reconcile, ep, pre.f("prev_epoch")(m)),
                                  pre.f("prev_epoch")),
        "mstate": _member_upd(m, lambda: new_state, pre.f("mstate")),
    }
    for r in roles:
        upd[f"assigned_{r}"] = (lambda r_: _member_upd(
            m, lambda x: a_new(r_, x), pre.f(f"assigned_{r_}")))(r)
        upd[f"pending_{r}"] = (lambda r_: _member_upd(
            m, lambda x: r_new(r_, x), pre.f(f"pending_{r_}")))(r)
        if delivered:
            upd[f"owned_{r}"] = (lambda r_: _member_upd(
                m, lambda x: a_new(r_, x), pre.f(f"owned_{r_}")))(r)
    if delivered:
        upd["client_epoch"] = _member_upd(m, lambda: new_epoch, pre.f("client_epoch"))

    def held_new(r: str, x: Expr) -> Expr:
        return z3.Or(a_new(r, x), r_new(r, x))

    def has_epoch(x: Expr) -> Expr:
        normal = z3.If(held_new("act", x), True,
                       z3.If(pre.H("act", m, x), False, pre.f("has_epoch")(x)))
        if ctx.on("lost-partition-epoch"):  # KAFKA-16147
            return z3.If(z3.And(pre.R("act", m, x), a_new("act", x)), False, normal)
        return normal

    upd["has_epoch"] = has_epoch
    upd["epoch_owner"] = lambda x: z3.If(held_new("act", x), m, pre.f("epoch_owner")(x))
    if pre.streams:
        pm = pre.process_of(m)
        for r, fld in (("sby", "standby_procs"), ("wup", "warmup_procs")):
            upd[fld] = (lambda r_, old: lambda q, x: z3.If(
                q == pm, z3.Or(held_new(r_, x), z3.And(old(q, x), z3.Not(pre.H(r_, m, x)))),
                old(q, x)))(r, pre.f(fld))
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)), epoch_ok(ctx, pre, m, reported, stale))
    if stale:
        # The copy may be delivered late only while it does not understate what the client
        # owns: a request that omits a task the client took since would let the coordinator
        # release it (Kafka relies on one in-flight request per connection; docs/proofs.md).
        guard = z3.And(guard, pre.f("has_dup")(m), forall(pre.sorts, [t], z3.And(
            [z3.Implies(pre.O(r, m, t), pre.f(f"dup_owned_{r}")(m, t)) for r in roles])))
    return z3.And(guard, frame(pre, post, upd))


def duplicate(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """The network keeps a copy of the request ``m``'s client sends now (its epoch and the
    owned tasks it reports), to deliver it again later (``heartbeat_stale``)."""
    upd: dict[str, Callable[..., Expr]] = {
        "has_dup": _member_upd(m, lambda: z3.BoolVal(True), pre.f("has_dup")),
        "dup_epoch": _member_upd(m, lambda: pre.f("client_epoch")(m), pre.f("dup_epoch")),
    }
    for r in pre.roles:
        upd[f"dup_owned_{r}"] = (lambda r_: _member_upd(
            m, lambda x: pre.O(r_, m, x), pre.f(f"dup_owned_{r_}")))(r)
    return z3.And(pre.f("joined")(m), frame(pre, post, upd))


def heartbeat_stale(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """The network's copy of an earlier request of ``m`` reaches the coordinator (a duplicate,
    or a request overtaken by newer ones): processed like any heartbeat with the copy's epoch
    and owned tasks; the client never sees the response."""
    return _heartbeat(ctx, pre, post, m, delivered=False, stale=True)


def heartbeat_unreported(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """An accepted heartbeat that does not report what the client owns (unchanged since the
    last report): the coordinator assumes it still owns everything it holds."""
    return _heartbeat(ctx, pre, post, m, delivered=True, reported=False)


def heartbeat_unreported_lost(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    return _heartbeat(ctx, pre, post, m, delivered=False, reported=False)


def heartbeat(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Accepted heartbeat, reconciliation, response delivered: the client adopts it."""
    return _heartbeat(ctx, pre, post, m, delivered=True)


def heartbeat_lost(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Accepted heartbeat whose response is lost: the client will retry with its old epoch."""
    return _heartbeat(ctx, pre, post, m, delivered=False)


def heartbeat_fenced(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """FENCED_MEMBER_EPOCH: the client abandons its tasks and will rejoin with epoch 0."""
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)), z3.Not(epoch_ok(ctx, pre, m)))
    return z3.And(guard, frame(pre, post, _clear_client(pre, m)))


def zombie_heartbeat(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """UNKNOWN_MEMBER_ID: a fenced client learns it and abandons its tasks."""
    return z3.And(z3.Not(pre.f("joined")(m)), frame(pre, post, _clear_client(pre, m)))


def static_leave(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Epoch -2: the closing client released everything; the member stays, pending cleared."""
    false = lambda *a: z3.BoolVal(False)  # noqa: E731
    upd = {**_clear_client(pre, m),
           "away": _member_upd(m, lambda: z3.BoolVal(True), pre.f("away")),
           "pending_act": _member_upd(m, false, pre.f("pending_act")),
           "has_epoch": lambda t: z3.If(pre.R("act", m, t), False, pre.f("has_epoch")(t))}
    guard = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)))
    return z3.And(guard, frame(pre, post, upd))


def static_return(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """The away static member's own client rejoins with epoch 0 and the same member id (a
    consumer whose poll timer expired left with -2 and rejoins once the application polls):
    it is back at epoch 0 with its assignment, as a replacement would be."""
    upd: dict[str, Callable[..., Expr]] = {
        "away": _member_upd(m, lambda: z3.BoolVal(False), pre.f("away")),
        "epoch": _member_upd(m, lambda: z3.IntVal(0), pre.f("epoch")),
        "prev_epoch": _member_upd(m, lambda: z3.IntVal(0), pre.f("prev_epoch")),
        "mstate": _member_upd(m, lambda: pre.sorts.mstates["STABLE"], pre.f("mstate")),
        "has_dup": _member_upd(m, lambda: z3.BoolVal(False), pre.f("has_dup")),
    }
    guard = z3.And(pre.f("joined")(m), pre.f("away")(m), _nothing_owned(pre, m),
                   pre.f("client_epoch")(m) == 0)
    return z3.And(guard, frame(pre, post, upd))


def replace(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """A new member ``n`` with the same instance id takes over the away member ``m``."""
    def copy(fld: str, zero: Expr) -> Callable[..., Expr]:
        old = pre.f(fld)
        return lambda x, *rest: z3.If(x == n, old(m, *rest), z3.If(x == m, zero, old(x, *rest)))

    false = z3.BoolVal(False)
    upd: dict[str, Callable[..., Expr]] = {
        "joined": lambda x: z3.If(x == n, True, z3.If(x == m, False, pre.f("joined")(x))),
        "away": lambda x: z3.If(z3.Or(x == n, x == m), False, pre.f("away")(x)),
        "epoch": _member_upd(n, lambda: z3.IntVal(0), pre.f("epoch")),
        "prev_epoch": _member_upd(n, lambda: z3.IntVal(0), pre.f("prev_epoch")),
        "client_epoch": _member_upd(n, lambda: z3.IntVal(0), pre.f("client_epoch")),
        "mstate": _member_upd(n, lambda: pre.sorts.mstates["STABLE"], pre.f("mstate")),
        "assigned_act": copy("assigned_act", false),
        "target_act": copy("target_act", false),
        "subscribed": lambda x, t: z3.If(x == n, pre.f("subscribed")(m, t),
                                         pre.f("subscribed")(x, t)),
        "last_assigned": lambda x, t: z3.If(x == n, False, z3.If(
            x == m, pre.A("act", m, t), pre.f("last_assigned")(x, t))),
        "epoch_owner": lambda t: z3.If(pre.A("act", m, t), n, pre.f("epoch_owner")(t)),
        "has_dup": _member_upd(n, lambda: z3.BoolVal(False), pre.f("has_dup")),  # a new member id
    }
    guard = z3.And(m != n, pre.f("joined")(m), pre.f("away")(m), z3.Not(pre.f("joined")(n)),
                   _nothing_owned(pre, n))
    return z3.And(guard, frame(pre, post, upd))


def _others_framed(pre: State, post: State, m: Expr, fields: tuple[str, ...]) -> Expr:
    """The fields keep their values for every member other than ``m`` (``m``'s are constrained
    by the caller)."""
    conj: list[Expr] = []
    for fld in fields:
        xs = bound_vars(pre.sorts, pre.sigs[fld][:-1], "c")
        conj.append(forall(pre.sorts, xs, z3.Implies(
            xs[0] != m, post.funcs[fld](*xs) == pre.funcs[fld](*xs))))
    return z3.And(conj)


def _client_step(pre: State, post: State, m: Expr, fields: tuple[str, ...], at_m: Expr) -> Expr:
    """A client-local step of ``m``: only ``fields`` of ``m`` change, as ``at_m`` says."""
    free: dict[str, Callable[..., Expr]] = {f: (lambda *a: None) for f in fields}
    return z3.And(frame(pre, post, free), _others_framed(pre, post, m, fields), at_m)


def client_receive(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """The response to an accepted heartbeat reaches the client after the coordinator moved
    on (asynchronous client): it adopts the member epoch; what it owns changes only when it
    reconciles. A fenced member's (zombie's) client adopts the epoch it was answered with."""
    ce0, ce1 = pre.f("client_epoch")(m), post.f("client_epoch")(m)
    live = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)))
    at_m = z3.If(live, ce1 == pre.f("epoch")(m),
                 z3.And(z3.Not(pre.f("joined")(m)), ce1 >= ce0))
    return _client_step(pre, post, m, ("client_epoch",), at_m)


def client_reconcile(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """The client finishes reconciling towards the assignment it was sent: it owns a subset of
    what the coordinator assigns it (revoked tasks released, new ones taken). A zombie's
    client (member fenced meanwhile) may end up owning anything: it no longer counts."""
    t = _tv(pre)
    live = z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)),
                  pre.f("client_epoch")(m) == pre.f("epoch")(m))
    within = forall(pre.sorts, [t], z3.And([z3.Implies(post.O(r, m, t), pre.A(r, m, t))
                                            for r in pre.roles]))
    at_m = z3.Or(z3.And(live, within), z3.Not(pre.f("joined")(m)))
    return _client_step(pre, post, m, tuple(f"owned_{r}" for r in pre.roles), at_m)


def client_release(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """The client gives tasks up on its own (revocation callbacks, leaving, a crash); it may
    forget its epoch (0), as a closed or crashed client does."""
    t = _tv(pre)
    ce0, ce1 = pre.f("client_epoch")(m), post.f("client_epoch")(m)
    shrink = forall(pre.sorts, [t], z3.And([z3.Implies(post.O(r, m, t), pre.O(r, m, t))
                                            for r in pre.roles]))
    at_m = z3.And(shrink, z3.Or(ce1 == ce0, ce1 == 0))
    return _client_step(pre, post, m, ("client_epoch", *(f"owned_{r}" for r in pre.roles)), at_m)


def failover(ctx: Ctx, pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """Coordinator failover. Faithful replay rebuilds the same state (a stutter, omitted);
    with `replay-drops-tombstone` a fenced member comes back with its last assignment."""
    t = _tv(pre)
    last = pre.f("last_assigned")
    upd: dict[str, Callable[..., Expr]] = {
        "joined": _member_upd(m, lambda: z3.BoolVal(True), pre.f("joined")),
        "mstate": _member_upd(m, lambda: pre.sorts.mstates["STABLE"], pre.f("mstate")),
        "assigned_act": _member_upd(m, lambda x: last(m, x), pre.f("assigned_act")),
        "has_epoch": lambda x: z3.Or(last(m, x), pre.f("has_epoch")(x)),
        "epoch_owner": lambda x: z3.If(last(m, x), m, pre.f("epoch_owner")(x)),
    }
    guard = z3.And(z3.Not(pre.f("joined")(m)), exists(pre.sorts, [t], last(m, t)))
    return z3.And(guard, frame(pre, post, upd))


def actions(ctx: Ctx) -> dict[str, Rule]:
    """The enabled actions of the protocol under ``ctx`` (order is the BMC's action codes)."""
    acts: dict[str, Rule] = {
        "join": join, "leave": leave, "session_timeout": session_timeout,
        "rebalance_timeout": rebalance_timeout, "bump": bump, "recompute": recompute,
        "heartbeat": heartbeat, "heartbeat_lost": heartbeat_lost,
        "heartbeat_fenced": heartbeat_fenced, "zombie_heartbeat": zombie_heartbeat,
        "resubscribe": resubscribe,
    }
    if ctx.async_client:
        acts |= {"client_receive": client_receive, "client_reconcile": client_reconcile,
                 "client_release": client_release, "heartbeat_unreported": heartbeat_unreported,
                 "heartbeat_unreported_lost": heartbeat_unreported_lost}
    if ctx.network:
        acts |= {"duplicate": duplicate, "heartbeat_stale": heartbeat_stale}
    if not ctx.streams:
        acts["static_leave"] = static_leave
        acts["replace"] = replace
        acts["static_return"] = static_return
        acts["shrink"] = shrink
    if ctx.on("replay-drops-tombstone"):
        acts["failover"] = failover
    return acts


def init(ctx: Ctx, s: State) -> Expr:
    srt = s.sorts
    m, t = bound_vars(srt, (srt.member, srt.task), "i")
    per_mt = [z3.Not(s.f("last_assigned")(m, t))]
    for r in s.roles:
        per_mt += [z3.Not(s.A(r, m, t)), z3.Not(s.R(r, m, t)), z3.Not(s.T(r, m, t)),
                   z3.Not(s.O(r, m, t)), z3.Not(s.f(f"dup_owned_{r}")(m, t))]
    conj = [s.ge == 1, s.ae == 1,
            forall(s.sorts, [m], z3.And(z3.Not(s.f("joined")(m)), z3.Not(s.f("away")(m)),
                                  s.f("epoch")(m) == 0, s.f("prev_epoch")(m) == 0,
                                  s.f("client_epoch")(m) == 0, z3.Not(s.f("has_dup")(m)),
                                  s.f("dup_epoch")(m) == 0, z3.Not(s.f("shrinking")(m)),
                                  s.f("mstate")(m) == srt.mstates["STABLE"])),
            forall(s.sorts, [m, t], z3.And(per_mt)),
            forall(s.sorts, [t], z3.Not(s.f("has_epoch")(t)))]
    if s.streams:
        q = bound_vars(srt, (srt.process,), "q")[0]
        conj.append(forall(s.sorts, [q, t], z3.And(z3.Not(s.f("standby_procs")(q, t)),
                                             z3.Not(s.f("warmup_procs")(q, t)))))
    return z3.And(conj)
