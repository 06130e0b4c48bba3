"""The invariants the trace checker applies after each replayed record.

Contract: state-based checks apply after each record, as Kafka's own replay does; the
target assignment as a whole is checked only at the target-assignment metadata record
that completes it (types 6 and 20).
"""

from __future__ import annotations

from typing import Any

from kgspec.invariants.catalogue import EPOCH_MONOTONICITY
from kgspec.invariants.epochs import Epochs, EpochSnapshot, epoch_changes
from kgspec.invariants.target import target_overlaps
from kgspec.model.coordinator import Coordinator
from kgspec.model.records import (
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    Record,
)


def record_invariant_problems(coord: Coordinator, group_id: str, record: Record) -> list[tuple[str, str]]:
    if record.type != CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA or record.value is None:
        return []
    group = coord.groups.get(group_id)
    if group is None:
        return []
    problems = target_overlaps(group.target)
    if group.assignment_epoch > group.group_epoch:
        problems.append((EPOCH_MONOTONICITY,
                         f"assignment epoch {group.assignment_epoch} is ahead of group epoch {group.group_epoch}"))
    return problems


class ObservedTarget:
    """The target assignment as the trace's own records state it (calls and records compared).

    Record comparison says *that* a target record departs; this says whether the target the
    records build is even valid, by the check record replay applies, so a trace with calls
    and records names the same invariant as a dump-log of the same run.
    """

    __slots__ = ("members",)

    def __init__(self) -> None:
        self.members: dict[str, dict[str, list[int]]] = {}

    def observe(self, record: Record) -> list[tuple[str, str]]:
        if record.type == CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER:
            member_id = str(record.key.get("memberId"))
            if record.value is None:
                self.members.pop(member_id, None)
            else:
                self.members[member_id] = _partitions(record.value.get("topicPartitions"))
        elif record.type == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA and record.value is not None:
            return target_overlaps(self.members)
        return []


def _partitions(entries: Any) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("partitions"), list):
            out.setdefault(str(entry.get("topicId")), []).extend(
                p for p in entry["partitions"] if isinstance(p, int))
    return out


def member_epochs(coord: Coordinator, group_id: str, member_id: str) -> EpochSnapshot | None:
    """The epochs ``epoch-monotonicity`` compares, for one member of the model's group."""
    epochs = member_epoch_values(coord, group_id, member_id)
    return None if epochs is None else EpochSnapshot(*epochs)


def member_epoch_values(coord: Coordinator, group_id: str, member_id: str) -> Epochs | None:
    """:func:`member_epochs` as a plain tuple (what record replay keeps)."""
    group = coord.groups.get(group_id)
    if group is None:
        return None
    member = group.members.get(member_id)
    members = {member_id: (member.member_epoch, member.state)} if member is not None else {}
    return group.group_epoch, group.assignment_epoch, members


def member_record_problems(before: Epochs | None, coord: Coordinator, group_id: str,
                           member_id: str) -> list[tuple[str, str]]:
    """``epoch-monotonicity`` across one replayed current-assignment record (type 8).

    Only once the trace has shown the group's target-assignment metadata (type 6, written
    before the members' records of the same step), so that the assignment epoch is the
    coordinator's and not the replay's initial value.
    """
    after = member_epoch_values(coord, group_id, member_id)
    found = epoch_changes(before, after) if after is not None else []
    return [(EPOCH_MONOTONICITY, m) for m in found] if found else []
