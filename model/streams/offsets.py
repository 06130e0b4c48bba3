"""Reported task changelog offsets (``streams/MemberTaskOffsets.java``, trunk, KAFKA-20116).

Transient: kept on the live group per member, never written to a record (KIP-1071: "not
persisted, as they are constantly changing"), dropped with the member and lost on failover.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kgspec.model.errors import CoordinatorError, Errors

Offsets = dict[str, dict[int, int]]  # subtopology id -> partition -> cumulative offset


def _nested(entries: Sequence[Mapping[str, Any]]) -> Offsets:
    """``toNestedMap``: a duplicate (subtopology, partition) is rejected, not resolved."""
    out: Offsets = {}
    for e in entries:
        sid, p = e["subtopologyId"], int(e["partition"])
        by_partition = out.setdefault(sid, {})
        if p in by_partition:
            raise CoordinatorError(Errors.INVALID_REQUEST, "Task offsets contain a duplicate entry for subtopology "
                                   f"{sid} and partition {p}.")
        by_partition[p] = int(e["offset"])
    return out


@dataclass(frozen=True, slots=True)
class MemberTaskOffsets:
    task_offsets: Offsets = field(default_factory=dict)
    task_end_offsets: Offsets = field(default_factory=dict)

    EMPTY: ClassVar[MemberTaskOffsets]

    def update(self, offsets: Sequence[Mapping[str, Any]] | None,
               end_offsets: Sequence[Mapping[str, Any]] | None) -> MemberTaskOffsets:
        """A null list means "unchanged since the last heartbeat": that half is kept."""
        return MemberTaskOffsets(self.task_offsets if offsets is None else _nested(offsets),
                                 self.task_end_offsets if end_offsets is None else _nested(end_offsets))

    def offset(self, sid: str, p: int) -> int | None:
        return self.task_offsets.get(sid, {}).get(p)

    def end_offset(self, sid: str, p: int) -> int | None:
        return self.task_end_offsets.get(sid, {}).get(p)


MemberTaskOffsets.EMPTY = MemberTaskOffsets()


def describe_json(offsets: Offsets) -> list[dict[str, Any]]:
    """``taskOffsetsFromMap``: sorted by subtopology id, then partition."""
    return [{"subtopologyId": sid, "partition": p, "offset": offsets[sid][p]}
            for sid in sorted(offsets) for p in sorted(offsets[sid])]
