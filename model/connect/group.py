"""A Connect worker group (draft 'Worker Group', 'Target Assignment') and its soft state.

Hard state is what the records rebuild (``model/connect/records.py``). The assignment
computation (who computes, what it prepared) is soft state, like Kafka's timers: lost on
failover and rebuilt from ``group_epoch > assignment_epoch`` (``ops.on_loaded``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgspec.model.connect.member import Assignor, ConnectMember
from kgspec.model.connect.resources import Resources, empty, labels
from kgspec.spec.connect import EMPTY, IDLE
from kgspec.spec.groups import derive_consumer_group_state


@dataclass(frozen=True, slots=True)
class TargetEntry:
    """One worker's part of the target assignment."""

    resources: Resources
    error: int = 0
    version: int = 0
    metadata: str | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The group metadata a ConnectGroupPrepareAssignment handed out ('Assignment Validation')."""

    group_epoch: int
    members: frozenset[str]
    config: Resources
    target: dict[str, TargetEntry]


@dataclass(slots=True)
class Computation:
    """The ``connect-assignment`` lifecycle (spec/connect.py), driven through its table."""

    phase: str = IDLE
    member_id: str | None = None  # the chosen worker; None: the first eligible worker to heartbeat
    sticky: str | None = None  # the worker that installed last (Connect's sticky leader)
    declined: set[str] = field(default_factory=set)  # adopted from a trace: not chosen this round
    snapshot: Snapshot | None = None


@dataclass(slots=True)
class ConnectGroup:
    group_id: str
    group_epoch: int = 0
    assignment_epoch: int = 0
    members: dict[str, ConnectMember] = field(default_factory=dict)
    config: Resources = field(default_factory=empty)  # connectors and tasks to run
    target: dict[str, TargetEntry] = field(default_factory=dict)
    target_error: int = 0
    delayed_until: int = -1  # end of the scheduled rebalance delay the target started, or -1
    computation: Computation = field(default_factory=Computation)  # soft state

    def state(self) -> str:
        if not self.members:
            return EMPTY
        reconciled = all(m.is_reconciled_to(self.assignment_epoch) for m in self.members.values())
        return derive_consumer_group_state(len(self.members), self.group_epoch, self.assignment_epoch, reconciled)

    def target_of(self, member_id: str) -> TargetEntry:
        return self.target.get(member_id) or TargetEntry(empty())

    def snapshot(self) -> dict[str, Any]:
        """Hard state only (replay equivalence compares it)."""
        return {
            "groupEpoch": self.group_epoch, "assignmentEpoch": self.assignment_epoch,
            "config": labels(self.config), "targetError": self.target_error, "delayedUntil": self.delayed_until,
            "target": {m: (labels(t.resources), t.error, t.version, t.metadata) for m, t in sorted(self.target.items())},
            "members": {m: self.members[m].snapshot() for m in sorted(self.members)},
        }


def selected_assignor(members: dict[str, ConnectMember]) -> str | None:
    """'Assignor Selection': the first assignor every worker supports, in the precedence order of
    the longest-standing worker (lowest join epoch, then member id) — kgspec's reading when
    workers list them in different orders."""
    if not members:
        return None
    common = set.intersection(*({a.name for a in m.assignors} for m in members.values()))
    eldest = min(members.values(), key=lambda m: (m.joined_epoch, m.member_id))
    return next((a.name for a in eldest.assignors if a.name in common), None)


def eligible_workers(members: dict[str, ConnectMember]) -> set[str]:
    """'Worker Selection': workers whose version range for the selected assignor covers every
    worker's (A [1-5], B [3-4], C [2-4]: only A)."""
    name = selected_assignor(members)
    if name is None:
        return set()
    ranges: dict[str, Assignor] = {mid: a for mid, m in members.items() if (a := m.assignor(name)) is not None}
    low = min(a.minimum_version for a in ranges.values())
    high = max(a.maximum_version for a in ranges.values())
    # A worker still on the classic protocol cannot call Prepare/Install (online migration): it
    # counts for the version ranges but is never asked to compute.
    return {mid for mid, a in ranges.items() if a.minimum_version <= low and a.maximum_version >= high
            and members[mid].classic_member_metadata is None}


def overlaps_everyone(member: ConnectMember, others: list[ConnectMember]) -> bool:
    """UNSUPPORTED_ASSIGNOR rule: some assignor of the worker, listed by every other worker, whose
    version range overlaps each of theirs."""
    for mine in member.assignors:
        theirs = [o.assignor(mine.name) for o in others]
        if all(t is not None and t.overlaps(mine) for t in theirs):
            return True
    return not others
