"""Connect reconciliation on the shared engine (``model/reconcile.py``).

Draft 'Member Epoch - Reconciliation of the group': (1) revoke what left the worker's target
(the response carries current ∩ target; the epoch stays), (2) on the acknowledgement move it to
its target epoch, (3) give it the target minus what other workers have not revoked yet.

Connect's ownership rule: connectors and tasks are exclusive across *all* workers, so a target
resource is unreleased while any other worker holds it, assigned or pending revocation. Every
outcome is checked against the ``connect-member`` table (spec/connect.py).
"""

from __future__ import annotations

from kgspec.model.connect.group import ConnectGroup
from kgspec.model.connect.member import STABLE, STATE_NAMES, UNRELEASED, UNREVOKED, ConnectMember
from kgspec.model.connect.resources import ROLES, Resources, normalize
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.reconcile import Phase, decide, owns_any_of, split_towards_target
from kgspec.spec.tables import fire

_PHASE = {Phase.STABLE: (STABLE, "reconciled"), Phase.UNREVOKED: (UNREVOKED, "revocation_needed"),
          Phase.UNRELEASED: (UNRELEASED, "assigned_with_unreleased")}


def reconcile(group: ConnectGroup, member: ConnectMember, owned: Resources | None,
              mutants: Mutants = NONE) -> ConnectMember:
    """The worker after this heartbeat (unchanged when nothing moves)."""
    epoch, target_epoch = member.member_epoch, group.assignment_epoch
    if member.state == STABLE and epoch == target_epoch:
        return member
    if member.state == UNREVOKED and (owned is None or owns_any_of(owned)(member.pending_revocation)):
        return member  # not acknowledged yet
    entry = group.target_of(member.member_id)
    held_elsewhere = _held_by_others(group, member.member_id)
    split = split_towards_target(
        ROLES, normalize(member.assigned), entry.resources, in_scope=lambda _r, _c: True,
        is_unreleased=lambda role, c, i: (role, c, i) in held_elsewhere and not mutants.active("grant-before-ack"))
    outcome = decide(split, epoch, target_epoch, owns_any_of(owned),
                     epoch_while_revoking=target_epoch if mutants.active("bump-while-revoking") else None)
    state, trigger = _PHASE[outcome.phase]
    fire("connect-member", STATE_NAMES[member.state], trigger)  # raises if the spec does not allow it
    updated = member.copy()
    updated.state = state
    updated.previous_member_epoch = epoch
    updated.member_epoch = outcome.member_epoch
    updated.assigned = normalize(outcome.assigned)
    updated.pending_revocation = normalize(outcome.pending_revocation)
    if outcome.member_epoch == target_epoch:
        updated.error, updated.version, updated.metadata = entry.error, entry.version, entry.metadata
    if updated.assignment_equals(member):
        return member
    return updated


def _held_by_others(group: ConnectGroup, member_id: str) -> set[tuple[str, str, int]]:
    held: set[tuple[str, str, int]] = set()
    for other in group.members.values():
        if other.member_id == member_id:
            continue
        for h in (other.assigned, other.pending_revocation):
            for role in ROLES:
                for c, idx in h.get(role, {}).items():
                    held.update((role, c, i) for i in idx)
    return held

