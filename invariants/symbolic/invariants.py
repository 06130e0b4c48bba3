"""The invariants, as Z3 formulas over one state (or two, for the action properties).

Core invariants (the names the CLI and the rest of the project use):

* ``no-double-ownership``: a partition / active task is in at most one member's
  assigned ∪ pending-revocation, and no two current members' clients believe they own it.
* ``processid-exclusivity`` (streams): no process holds a task twice, in any roles, on the
  coordinator or in its current members' clients.
* ``epoch-monotonicity``: assignment epoch ≤ group epoch; for members
  0 ≤ previous epoch ≤ member epoch ≤ assignment epoch; (consumer) a member with revocations
  pending is strictly behind the assignment epoch; across a step, group, assignment, member
  (while it stays a member) and client epochs never decrease (a client epoch only resets to 0,
  on rejoin).
* ``target-validity``: a partition / active task is in at most one member's target; targets go
  only to members (and, when computed, within their subscriptions: the ``recompute`` rule);
  (streams) one process never gets a task in two roles.
* ``epoch-fencing`` (action level, heartbeats): a heartbeat is accepted only at epoch 0, the
  member epoch, or exactly the previous epoch with owned ⊆ assigned.
* ``session-expiry`` (action level, session timeouts): a member whose session timer fires is
  no longer in the group afterwards.

Auxiliary (strengthening) invariants, needed to make the core ones inductive:

* ``partition-epoch-index``: a held partition has an entry in the partition-epoch map, pointing
  at its holder (this is ``ConsumerGroup.partitionEpochs``; it is what withholding reads).
* ``process-role-maps`` (streams): a member's standby / warm-up task is recorded for its process.
* ``holders-are-members``: only members hold tasks.
* ``pending-only-when-unrevoked``: pending revocations exist only in state UNREVOKED.
* ``assigned-pending-disjoint``: a task is never both assigned and pending for one member.
* ``client-within-coordinator``: a member's client owns only what the coordinator has it holding.
* ``away-client-closed`` (consumer): a static member after -2 has a closed client and nothing
  pending.
* ``client-epoch-bounded``: a member's client epoch never runs ahead of the member epoch.
* ``reconciled-within-target``: a member at the assignment epoch is assigned only target tasks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3
from kgspec.invariants.catalogue import (
    ASSIGNED_PENDING_DISJOINT,
    AWAY_CLIENT_CLOSED,
    CLIENT_EPOCH_BOUNDED,
    CLIENT_WITHIN_COORDINATOR,
    COMMIT_FENCING,
    COPY_EPOCH_BOUNDED,
    EPOCH_FENCING,
    EPOCH_MONOTONICITY,
    HOLDERS_ARE_MEMBERS,
    NO_DOUBLE_OWNERSHIP,
    PARTITION_EPOCH_INDEX,
    PENDING_ONLY_WHEN_UNREVOKED,
    PROCESS_ROLE_MAPS,
    PROCESSID_EXCLUSIVITY,
    RECONCILED_WITHIN_TARGET,
    SESSION_EXPIRY,
    TARGET_VALIDITY,
    UNREVOKED_BEHIND_TARGET,
)
from kgspec.invariants.symbolic.rules import Ctx, epoch_ok, target_valid
from kgspec.invariants.symbolic.state import Expr, State, bound_vars, forall

CORE = (NO_DOUBLE_OWNERSHIP, PROCESSID_EXCLUSIVITY, EPOCH_MONOTONICITY, TARGET_VALIDITY,
        EPOCH_FENCING, SESSION_EXPIRY, COMMIT_FENCING)

# A property of one action's steps: (pre, post, m, n) -> formula that must hold.
StepProperty = Callable[[State, State, Expr, Expr], Expr]


@dataclass(frozen=True)
class Invariant:
    name: str
    core: bool
    protocols: tuple[str, ...]
    support: tuple[str, ...]  # invariants assumed in its consecution check
    state: Callable[[State], list[Expr]]
    action: Callable[[State, State], list[Expr]] | None = None
    # Action-level invariants: checked only on the steps of the named actions.
    steps: dict[str, StepProperty] | None = None
    # Its violations need the asynchronous client (BMC leaves the client-local actions out by
    # default: atomic delivery gives shorter traces).
    async_client: bool = False


def _vars(s: State, *kinds: str) -> list[Expr]:
    srt = s.sorts
    sort = {"m": srt.member, "t": srt.task, "q": srt.process}
    return bound_vars(srt, tuple(sort[k] for k in kinds), "_" + "".join(kinds))


def _excl(s: State, fn: Callable[[str, Expr, Expr], Expr], guard: Callable[[Expr], Expr]) -> Expr:
    m1, m2, t = _vars(s, "m", "m", "t")
    return forall(s.sorts, [m1, m2, t], z3.Implies(
        z3.And(m1 != m2, guard(m1), guard(m2)), z3.Not(z3.And(fn("act", m1, t), fn("act", m2, t)))))


def no_double_ownership(s: State) -> list[Expr]:
    return [_excl(s, s.H, lambda m: z3.BoolVal(True)), _excl(s, s.O, s.f("joined"))]


def _proc_excl(s: State, fn: Callable[[str, Expr, Expr], Expr],
               guard: Callable[[Expr], Expr]) -> list[Expr]:
    m1, m2, t = _vars(s, "m", "m", "t")
    out: list[Expr] = []
    for i, r1 in enumerate(s.roles):
        for r2 in s.roles[i:]:
            same = z3.And(s.process_of(m1) == s.process_of(m2), guard(m1), guard(m2))
            if r1 == r2:
                same = z3.And(same, m1 != m2)
            out.append(forall(s.sorts, [m1, m2, t], z3.Implies(
                same, z3.Not(z3.And(fn(r1, m1, t), fn(r2, m2, t))))))
    return out


def processid_exclusivity(s: State) -> list[Expr]:
    return _proc_excl(s, s.H, lambda m: z3.BoolVal(True)) + _proc_excl(s, s.O, s.f("joined"))


def epoch_state(s: State) -> list[Expr]:
    (m,) = _vars(s, "m")
    ep, pv = s.f("epoch")(m), s.f("prev_epoch")(m)
    # Both protocols: revocations run at the old epoch, strictly behind the target, except a
    # consumer's subscription shrink (``shrinking``), which revokes at its epoch. (Streams
    # leaves UNREVOKED at memberEpoch + 1; that stays behind because a new revocation needs a
    # new target: unrevoked-behind-target.)
    return [s.ae >= 1, s.ae <= s.ge,
            forall(s.sorts, [m], z3.Implies(s.f("joined")(m), z3.And(pv >= 0, pv <= ep, ep <= s.ae))),
            forall(s.sorts, [m], z3.Implies(
                z3.And(s.f("joined")(m), s.f("mstate")(m) == s.sorts.mstates["UNREVOKED"],
                       z3.Not(s.f("shrinking")(m))), ep < s.ae))]


def epoch_action(pre: State, post: State) -> list[Expr]:
    (m,) = _vars(pre, "m")
    ce0, ce1 = pre.f("client_epoch")(m), post.f("client_epoch")(m)
    return [post.ge >= pre.ge, post.ae >= pre.ae,
            # (an away static member's epoch is Kafka's -2; it restarts from 0 when it returns)
            forall(pre.sorts, [m], z3.Implies(z3.And(pre.f("joined")(m), z3.Not(pre.f("away")(m)),
                                                     post.f("joined")(m)),
                                      post.f("epoch")(m) >= pre.f("epoch")(m))),
            forall(pre.sorts, [m], z3.Or(ce1 >= ce0, ce1 == 0))]


def target_validity(s: State) -> list[Expr]:
    return [target_valid(Ctx(streams=s.streams), s, subscription=False)]


def _per_mtr(s: State, body: Callable[[str, Expr, Expr], Expr], roles: tuple[str, ...] = ()) -> Expr:
    m, t = _vars(s, "m", "t")
    return forall(s.sorts, [m, t], z3.And([body(r, m, t) for r in (roles or s.roles)]))


def partition_epoch_index(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        s.H(r, m, t), z3.And(s.f("has_epoch")(t), s.f("epoch_owner")(t) == m)), ("act",))]


def process_role_maps(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        s.H(r, m, t), s.f("standby_procs" if r == "sby" else "warmup_procs")(s.process_of(m), t)),
        ("sby", "wup"))]


def holders_are_members(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        z3.Or(s.H(r, m, t), s.T(r, m, t)), s.f("joined")(m)))]


def pending_only_when_unrevoked(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        s.R(r, m, t), s.f("mstate")(m) == s.sorts.mstates["UNREVOKED"]))]


def assigned_pending_disjoint(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Not(z3.And(s.A(r, m, t), s.R(r, m, t))))]


def client_within_coordinator(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        z3.And(s.f("joined")(m), s.O(r, m, t)), s.H(r, m, t)))]


def away_client_closed(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(s.f("away")(m), z3.And(
        s.f("joined")(m), z3.Not(s.O(r, m, t)), z3.Not(s.R(r, m, t)))))]


def client_epoch_bounded(s: State) -> list[Expr]:
    (m,) = _vars(s, "m")
    return [forall(s.sorts, [m], z3.Implies(s.f("joined")(m),
                                      s.f("client_epoch")(m) <= s.f("epoch")(m)))]


def unrevoked_behind_target(s: State) -> list[Expr]:
    """Streams: a revoking member still assigned something outside the target is at least two
    epochs behind it (the target changed since it started revoking), so leaving UNREVOKED at
    memberEpoch + 1 with more to revoke stays behind the target; streams members never revoke
    at the target epoch."""
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        z3.And(s.f("joined")(m), s.f("mstate")(m) == s.sorts.mstates["UNREVOKED"],
               s.A(r, m, t), z3.Not(s.T(r, m, t))),
        s.f("epoch")(m) + 1 < s.ae)),
            # and (no subscriptions to shrink) it never revokes at the target epoch
            forall(s.sorts, _vars(s, "m"), z3.Not(s.f("shrinking")(_vars(s, "m")[0])))]


def copy_epoch_bounded(s: State) -> list[Expr]:
    """The network's copy of a member's request never carries an epoch above the member's."""
    (m,) = _vars(s, "m")
    return [forall(s.sorts, [m], z3.Implies(z3.And(s.f("joined")(m), s.f("has_dup")(m)),
                                            s.f("dup_epoch")(m) <= s.f("epoch")(m)))]


def commit_fencing(s: State) -> list[Expr]:
    """A request of m's client still in the network (a duplicate heartbeat, or an OffsetCommit
    for the tasks it owned) that carries m's current epoch names only active tasks m still
    holds: validateOffsetCommit accepts a commit at the current member epoch without looking
    at the partitions, so a task may leave a member only with an epoch bump. (A static member
    after its -2 leave is at epoch -2 in Kafka, which fences every commit.)"""
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        z3.And(s.f("joined")(m), z3.Not(s.f("away")(m)), s.f("has_dup")(m),
               s.f("dup_epoch")(m) == s.f("epoch")(m),
               s.f("dup_owned_act")(m, t)), s.H("act", m, t)), ("act",))]


def reconciled_within_target(s: State) -> list[Expr]:
    return [_per_mtr(s, lambda r, m, t: z3.Implies(
        z3.And(s.f("joined")(m), s.f("epoch")(m) == s.ae, s.A(r, m, t)), s.T(r, m, t)))]


def _epoch_fencing(reported: bool = True, stale: bool = False) -> StepProperty:
    """The heartbeat was accepted at epoch 0, the member epoch, or the previous epoch with
    owned ⊆ assigned (``throwIf…MemberEpochIsInvalid`` of the unmutated coordinator), for the
    request the step sends (``reported``: with its owned tasks; ``stale``: the network's copy)."""
    def prop(pre: State, post: State, m: Expr, n: Expr) -> Expr:
        return epoch_ok(Ctx(streams=pre.streams), pre, m, reported=reported, stale=stale)
    return prop


def _session_expiry(pre: State, post: State, m: Expr, n: Expr) -> Expr:
    """A member whose session timer fires is out of the group afterwards (its tasks released:
    holders-are-members)."""
    return z3.Not(post.f("joined")(m))


_BOTH = ("consumer", "streams")
_OWNERSHIP = (PARTITION_EPOCH_INDEX, HOLDERS_ARE_MEMBERS, PENDING_ONLY_WHEN_UNREVOKED,
              ASSIGNED_PENDING_DISJOINT, CLIENT_WITHIN_COORDINATOR, AWAY_CLIENT_CLOSED)
INVARIANTS: dict[str, Invariant] = {i.name: i for i in (
    Invariant(NO_DOUBLE_OWNERSHIP, True, _BOTH, _OWNERSHIP, no_double_ownership),
    Invariant(PROCESSID_EXCLUSIVITY, True, ("streams",),
              (*_OWNERSHIP, NO_DOUBLE_OWNERSHIP, PROCESS_ROLE_MAPS, TARGET_VALIDITY),
              processid_exclusivity),
    Invariant(EPOCH_MONOTONICITY, True, _BOTH,
              (CLIENT_EPOCH_BOUNDED, RECONCILED_WITHIN_TARGET, HOLDERS_ARE_MEMBERS,
               AWAY_CLIENT_CLOSED, UNREVOKED_BEHIND_TARGET), epoch_state, epoch_action),
    Invariant(COMMIT_FENCING, True, ("streams",),
              (*_OWNERSHIP, EPOCH_MONOTONICITY, COPY_EPOCH_BOUNDED), commit_fencing,
              async_client=True),
    Invariant(TARGET_VALIDITY, True, _BOTH, (HOLDERS_ARE_MEMBERS,), target_validity),
    Invariant(EPOCH_FENCING, True, _BOTH, (), lambda s: [],
              steps={"heartbeat": _epoch_fencing(), "heartbeat_lost": _epoch_fencing(),
                     "heartbeat_unreported": _epoch_fencing(reported=False),
                     "heartbeat_unreported_lost": _epoch_fencing(reported=False),
                     "heartbeat_stale": _epoch_fencing(stale=True)}),
    Invariant(SESSION_EXPIRY, True, _BOTH, (), lambda s: [],
              steps={"session_timeout": _session_expiry}),
    Invariant(PARTITION_EPOCH_INDEX, False, _BOTH, (*_OWNERSHIP, NO_DOUBLE_OWNERSHIP),
              partition_epoch_index),
    Invariant(PROCESS_ROLE_MAPS, False, ("streams",),
              (PROCESSID_EXCLUSIVITY, *_OWNERSHIP), process_role_maps),
    Invariant(HOLDERS_ARE_MEMBERS, False, _BOTH, (AWAY_CLIENT_CLOSED,), holders_are_members),
    Invariant(PENDING_ONLY_WHEN_UNREVOKED, False, _BOTH,
              (AWAY_CLIENT_CLOSED, HOLDERS_ARE_MEMBERS), pending_only_when_unrevoked),
    Invariant(ASSIGNED_PENDING_DISJOINT, False, _BOTH,
              (AWAY_CLIENT_CLOSED, HOLDERS_ARE_MEMBERS), assigned_pending_disjoint),
    Invariant(CLIENT_WITHIN_COORDINATOR, False, _BOTH, _OWNERSHIP, client_within_coordinator),
    Invariant(AWAY_CLIENT_CLOSED, False, ("consumer",), (), away_client_closed),
    Invariant(CLIENT_EPOCH_BOUNDED, False, _BOTH, (EPOCH_MONOTONICITY,), client_epoch_bounded),
    Invariant(RECONCILED_WITHIN_TARGET, False, _BOTH, (EPOCH_MONOTONICITY,),
              reconciled_within_target),
    Invariant(UNREVOKED_BEHIND_TARGET, False, ("streams",), (EPOCH_MONOTONICITY,),
              unrevoked_behind_target),
    Invariant(COPY_EPOCH_BOUNDED, False, _BOTH, (EPOCH_MONOTONICITY, CLIENT_EPOCH_BOUNDED),
              copy_epoch_bounded),
)}


def for_protocol(protocol: str) -> list[Invariant]:
    return [i for i in INVARIANTS.values() if protocol in i.protocols]


def closure(name: str, protocol: str) -> list[str]:
    """The invariant and everything its proof assumes, transitively (same protocol only)."""
    seen: list[str] = []
    todo = [name]
    while todo:
        n = todo.pop()
        inv = INVARIANTS[n]
        if n in seen or protocol not in inv.protocols:
            continue
        seen.append(n)
        todo.extend(inv.support)
    return seen
