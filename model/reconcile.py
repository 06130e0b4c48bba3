"""The one reconciliation engine: exclusive resources are revoked before they are reassigned.

Consumer partitions, streams tasks (active, standby, warm-up) and Connect connectors/tasks
are all *holdings*: per role, per container (a topic id, a subtopology id, ...), a map from
index to the assignment epoch at which the member got it. Kafka's
``CurrentAssignmentBuilder`` (consumer and streams) moves a member towards its target in
the same four-way shape; each protocol supplies only its ownership rules:

- which containers are in scope for the member (the consumer's subscription),
- whether a wanted resource is still held elsewhere (*unreleased*), so it is withheld,
- whether the member still owns any resource it must revoke (it reported them).

The engine is pure: it reads holdings and returns a new :class:`Outcome`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.mutants import Mutants
from kgspec.spec.members import TEMPORARILY_LEFT

# container -> index -> assignment epoch
Holding = dict[str, dict[int, int]]
# role -> holding
Holdings = dict[str, Holding]
# role -> container -> indexes
Targets = Mapping[str, Mapping[str, AbstractSet[int]]]


_NOTHING: frozenset[int] = frozenset()


class Phase(Enum):
    """The protocol-neutral member reconciliation states."""

    STABLE = "STABLE"
    UNREVOKED = "UNREVOKED"  # waiting for the client to acknowledge revocation
    UNRELEASED = "UNRELEASED"  # waiting for others to release what it was assigned
    UNKNOWN = "UNKNOWN"


#: The member machines' trigger for each outcome of ``CurrentAssignmentBuilder`` (spec/members.py).
# Both heartbeats' static leave (ConsumerGroupHeartbeatRequest / StreamsGroupHeartbeatRequest
# LEAVE_GROUP_STATIC_MEMBER_EPOCH): the member is kept, TEMPORARILY_LEFT.
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2

PHASE_TRIGGERS = {Phase.STABLE: "reconciled", Phase.UNREVOKED: "revocation_needed",
                  Phase.UNRELEASED: "assigned_with_unreleased"}


@dataclass(slots=True)
class Outcome:
    phase: Phase
    member_epoch: int
    assigned: Holdings
    pending_revocation: Holdings


@dataclass(slots=True)
class Split:
    """The member's current holdings split against its target."""

    keep: Holdings
    revoke: Holdings
    grant: dict[str, dict[str, set[int]]]
    has_unreleased: bool


def is_empty(holdings: Mapping[str, Mapping[str, object]]) -> bool:
    return not any(holdings.values())


def split_towards_target(
    roles: tuple[str, ...],
    current: Holdings,
    target: Targets,
    in_scope: Callable[[str, str], bool],
    is_unreleased: Callable[[str, str, int], bool],
) -> Split:
    """keep = current ∩ target; revoke = current − keep; grant = target − keep − unreleased.

    Kept resources keep their assignment epochs (KIP-1251).
    """
    keep: Holdings = {}
    revoke: Holdings = {}
    grant: dict[str, dict[str, set[int]]] = {}
    has_unreleased = False
    for role in roles:
        cur_role = current.get(role, {})
        tgt_role = target.get(role, {})
        keep_role: Holding = {}
        revoke_role: Holding = {}
        grant_role: dict[str, set[int]] = {}
        # Sorted, so the holdings (and the records built from them) do not depend on string hashing.
        for container in sorted(set(tgt_role) | set(cur_role)):
            wanted: AbstractSet[int] = tgt_role.get(container, _NOTHING) if in_scope(role, container) else _NOTHING
            held = cur_role.get(container, {})
            kept = {i: e for i, e in held.items() if i in wanted}
            if kept:
                keep_role[container] = kept
            if len(kept) != len(held):
                revoke_role[container] = {i: e for i, e in held.items() if i not in kept}
            pending = set()
            for i in wanted:
                if i in kept:
                    continue
                if is_unreleased(role, container, i):
                    has_unreleased = True
                else:
                    pending.add(i)
            if pending:
                grant_role[container] = pending
        keep[role] = keep_role
        revoke[role] = revoke_role
        grant[role] = grant_role
    return Split(keep, revoke, grant, has_unreleased)


def decide(
    split: Split,
    member_epoch: int,
    target_epoch: int,
    owns_any: Callable[[Holdings], bool],
    *,
    epoch_while_revoking: int | None = None,
) -> Outcome:
    """Kafka's four outcomes of ``computeNextAssignment``.

    While the member still owns something it must revoke it stays at its epoch
    (``epoch_while_revoking`` lets a mutant break exactly that rule).
    """
    if not is_empty(split.revoke) and owns_any(split.revoke):
        epoch = member_epoch if epoch_while_revoking is None else epoch_while_revoking
        return Outcome(Phase.UNREVOKED, epoch, split.keep, split.revoke)
    assigned = split.keep
    if not is_empty(split.grant):
        for role, containers in split.grant.items():
            role_holding = assigned.setdefault(role, {})
            for container, indexes in containers.items():
                slot = role_holding.setdefault(container, {})
                for i in indexes:
                    slot[i] = target_epoch
    phase = Phase.UNRELEASED if split.has_unreleased else Phase.STABLE
    return Outcome(phase, target_epoch, assigned, {role: {} for role in split.keep})


def check_member_epoch(group_type: str, received: int, current: int, previous: int,
                       owned_contained: Callable[[], bool], mutants: Mutants) -> str | None:
    """``throwIf{Consumer,Streams}GroupMemberEpochIsInvalid`` for a heartbeat at ``received`` > 0.

    A greater epoch is fenced; a smaller one too, unless it is the member's ``previous`` epoch
    and what it reports owning is contained in its assignment (``owned_contained``): the
    response that moved it on may have been lost. Returns why a previous epoch was accepted.
    """
    if received > current:
        raise CoordinatorError(
            Errors.FENCED_MEMBER_EPOCH,
            f"The {group_type} group member has a greater member epoch ({received}) than the one known by the "
            f"group coordinator ({current}). The member must abandon all its partitions and rejoin.")
    if received == current:
        return None
    if mutants.active("accept-stale-epoch"):
        return None
    if received != previous or not (mutants.active("lost-response-no-subset") or owned_contained()):
        raise CoordinatorError(
            Errors.FENCED_MEMBER_EPOCH,
            f"The {group_type} group member has a smaller member epoch ({received}) than the one known by the "
            f"group coordinator ({current}). The member must abandon all its partitions and rejoin.")
    return f"accepted previous epoch {received} (the response with epoch {current} may have been lost)"


def owns_any_of(owned: Mapping[str, Mapping[str, AbstractSet[int]]] | None) -> Callable[[Holdings], bool]:
    """``ownsRevoked``: an absent owned list counts as owning everything."""

    def check(pending: Holdings) -> bool:
        if owned is None:
            return True
        for role, containers in pending.items():
            owned_role = owned.get(role, {})
            for container, indexes in containers.items():
                reported = owned_role.get(container)
                if reported and any(i in reported for i in indexes):
                    return True
        return False

    return check


@dataclass(frozen=True, slots=True)
class RoleChange:
    """A resource the member keeps while its role changes from ``source`` to ``dest``.

    Streams (trunk, KAFKA-20665) recycles a task instead of closing and re-creating it:

    * ``wait_for_grant=False``: the new role is granted in this step if the usual rules grant
      it at all (it is in ``grant``), even while the member still revokes other things;
    * ``wait_for_grant=True``: the member keeps the old role until the new one is granted
      (promotion to an exclusive role, whose previous owner must release it first);
    * ``source_needs_no_ack``: the old role leaves without a revocation acknowledgement
      (streams' standby and warm-up tasks run the same code on the client).
    """

    source: str
    dest: str
    source_needs_no_ack: bool
    wait_for_grant: bool


def _drop(holding: dict[str, dict[int, int]], container: str, index: int) -> None:
    slot = holding.get(container)
    if slot is not None and slot.pop(index, None) is not None and not slot:
        del holding[container]


def apply_role_changes(split: Split, current: Holdings, target: Targets, changes: tuple[RoleChange, ...],
                       owns_any: Callable[[Holdings], bool], epoch: int) -> None:
    """Rewrite ``split`` in place for resources the member holds in another role (in order).

    Immediate changes run first, then the waiting ones, which need to know whether the member
    still revokes anything (``owns_any`` on what is left to revoke).
    """
    for change in changes:
        if change.wait_for_grant:
            continue
        grant = split.grant.get(change.dest, {})
        for container, held in current.get(change.source, {}).items():
            for i in held:
                pending = grant.get(container)
                if pending is None or i not in pending:
                    continue
                pending.discard(i)
                if not pending:
                    del grant[container]
                split.keep.setdefault(change.dest, {}).setdefault(container, {})[i] = epoch
                if change.source_needs_no_ack:
                    _drop(split.revoke.setdefault(change.source, {}), container, i)
    waiting = [c for c in changes if c.wait_for_grant]
    for change in waiting:
        wanted = target.get(change.dest, {})
        for container, held in current.get(change.source, {}).items():
            for i in held:
                if i in wanted.get(container, _NOTHING) and change.source_needs_no_ack:
                    _drop(split.revoke.setdefault(change.source, {}), container, i)
    revoking = not is_empty(split.revoke) and owns_any(split.revoke)
    for change in waiting:
        wanted = target.get(change.dest, {})
        granted = split.grant.get(change.dest, {})
        for container, held in current.get(change.source, {}).items():
            for i, e in held.items():
                if i not in wanted.get(container, _NOTHING):
                    continue
                if not revoking and i in granted.get(container, _NOTHING):
                    continue  # promoted in this step: the old role goes
                split.keep.setdefault(change.source, {}).setdefault(container, {})[i] = e


class _LifecycleMember(Protocol):
    member_id: str
    member_epoch: int
    instance_id: str | None
    state: int


def member_lifecycle_state(member: _LifecycleMember, members: Mapping[str, object],
                           static_member: Callable[[str | None], _LifecycleMember | None],
                           state_names: Mapping[int, str]) -> str:
    """A consumer or streams member's state in its ``*-member`` machine (spec/members.py):
    TEMPORARILY_LEFT at epoch -2 (Kafka keeps the MemberState byte), else the byte's name. A
    static member's replacement, not in the group yet, carries on the lifecycle of the member it
    replaces."""
    if member.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        return TEMPORARILY_LEFT
    if member.instance_id is not None and member.member_id not in members:
        replaced = static_member(member.instance_id)
        if replaced is not None:
            return member_lifecycle_state(replaced, members, static_member, state_names)
    return state_names[member.state]
