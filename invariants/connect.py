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

from collections import Counter

from kgspec.model.connect.group import ConnectGroup
from kgspec.model.connect.resources import items, label

Problem = tuple[str, str]


def no_double_ownership(group: ConnectGroup) -> list[Problem]:
    owners: dict[tuple[str, str, int], list[str]] = {}
    for mid in sorted(group.members):
        m = group.members[mid]
        for x in items(m.assigned) | items(m.pending_revocation):
            owners.setdefault(x, []).append(mid)
    return [("connect-no-double-ownership", f"{label(x)} is owned by workers {ws} at once")
            for x, ws in sorted(owners.items()) if len(ws) > 1]


def target_validity(group: ConnectGroup) -> list[Problem]:
    counts = Counter(x for t in group.target.values() for x in items(t.resources))
    return [("connect-target-validity", f"the target gives {label(x)} to {n} workers")
            for x, n in sorted(counts.items()) if n > 1]


def epoch_bound(group: ConnectGroup) -> list[Problem]:
    out: list[Problem] = []
    if group.assignment_epoch > group.group_epoch:
        out.append(("connect-epoch-bound", f"assignment epoch {group.assignment_epoch} is ahead of "
                                           f"group epoch {group.group_epoch}"))
    for mid in sorted(group.members):
        epoch = group.members[mid].member_epoch
        if epoch > group.assignment_epoch:
            out.append(("connect-epoch-bound", f"worker {mid} is at epoch {epoch}, ahead of the assignment "
                                               f"epoch {group.assignment_epoch}"))
    return out


def group_problems(group: ConnectGroup | None) -> list[Problem]:
    if group is None:
        return []
    return no_double_ownership(group) + target_validity(group) + epoch_bound(group)
