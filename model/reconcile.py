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
    phase = Phase.UNRELEASED if split.has_unreleased else Phase.STABLE
    return Outcome(phase, target_epoch, assigned, {role: {} for role in split.keep})


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
