"""The invariants the trace checker applies after each replayed record.

Contract: state-based checks apply after each record, as Kafka's own replay does; the
target assignment as a whole is checked only at the target-assignment metadata record
that completes it (types 6 and 20).
"""

from __future__ import annotations

from kgspec.model.coordinator import Coordinator
from kgspec.model.records import CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, Record


def record_invariant_problems(coord: Coordinator, group_id: str, record: Record) -> list[tuple[str, str]]:
    group = coord.groups.get(group_id)
    if group is None:
        return []
    problems: list[tuple[str, str]] = []
    if record.type == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA and record.value is not None:
        owners: dict[tuple[str, int], str] = {}
        for member_id, target in sorted(group.target.items()):
            for topic_id, parts in target.items():
                for p in sorted(parts):
                    other = owners.setdefault((topic_id, p), member_id)
                    if other != member_id:
                        problems.append(("target-validity",
                                         f"partition {topic_id}-{p} is in the targets of both {other} and {member_id}"))
        if group.assignment_epoch > group.group_epoch:
            problems.append(("epoch-monotonicity",
                             f"assignment epoch {group.assignment_epoch} is ahead of group epoch {group.group_epoch}"))
    return problems
