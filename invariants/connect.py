"""Connect draft invariants (docs/connect.md), on the model's group state.

- ``connect-no-double-ownership``: a connector or task is owned (assigned or pending revocation)
  by at most one worker — the draft's exclusivity ('revoked before it can be assigned').
- ``connect-target-validity``: the installed target gives each connector or task to at most one
  worker ('A connector/task is assigned only once'). (Unconfigured work may linger in a target
  after a connector is removed, until the next install, so it is not an invariant.)
- ``connect-epoch-bound``: no worker is ahead of the assignment epoch, and the assignment epoch
  is not ahead of the group epoch ('It will eventually match the group epoch').

Used by the trace checker after every Connect event (``conformance/connect.py``) and by tests.
"""

from __future__ import annotations

from kgspec.invariants.catalogue import (
    CONNECT_EPOCH_BOUND,
    CONNECT_NO_DOUBLE_OWNERSHIP,
    CONNECT_TARGET_VALIDITY,
)
from kgspec.invariants.epochs import epoch_changes
from kgspec.invariants.exclusivity import shared
from kgspec.model.connect.group import ConnectGroup
from kgspec.model.connect.resources import items, label

Problem = tuple[str, str]


def no_double_ownership(group: ConnectGroup) -> list[Problem]:
    owners = shared((mid, x) for mid in sorted(group.members)
                    for x in items(group.members[mid].assigned) | items(group.members[mid].pending_revocation))
    return [(CONNECT_NO_DOUBLE_OWNERSHIP, f"{label(x)} is owned by workers {ws} at once")
            for x, ws in sorted(owners.items())]


def target_validity(group: ConnectGroup) -> list[Problem]:
    owners = shared((mid, x) for mid, t in group.target.items() for x in items(t.resources))
    return [(CONNECT_TARGET_VALIDITY, f"the target gives {label(x)} to {len(ws)} workers")
            for x, ws in sorted(owners.items())]


def epoch_bound(group: ConnectGroup) -> list[Problem]:
    """epoch-monotonicity's bounds within one state (:func:`kgspec.invariants.epochs.epoch_changes`)."""
    members = {mid: (group.members[mid].member_epoch, 0) for mid in sorted(group.members)}
    return [(CONNECT_EPOCH_BOUND, m)
            for m in epoch_changes(None, (group.group_epoch, group.assignment_epoch, members))]


def group_problems(group: ConnectGroup | None) -> list[Problem]:
    if group is None:
        return []
    return no_double_ownership(group) + target_validity(group) + epoch_bound(group)
