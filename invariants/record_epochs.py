"""``epoch-monotonicity`` where a sequence of records shows it (issue #21 A.2), for a group known
only by its records (a dump of ``__consumer_offsets``), from the records' own values:

- the group epoch (records 3, 17 and the Connect draft's 1000) never goes back, except across a tombstone of the group's
  metadata record (the group was deleted; a group created later under that id starts afresh);
- the assignment epoch (records 6 and 20) is never ahead of the group epoch;
- a member's epoch (records 8 and 22) is never ahead of the group epoch, nor (streams) of the
  assignment epoch.

A bound is used only once its record has been seen: a compacted log keeps the latest record per
key, so a member's record may come before the group's and the group epoch is then unknown.
The consumer's assignment and member epochs are also checked against the replayed model
(``conformance/invariant_hooks.py``): there the first problem found per record is reported once.
"""

from __future__ import annotations

from typing import Any, Final

from kgspec.invariants.catalogue import EPOCH_MONOTONICITY
from kgspec.model.records import (
    CONNECT_WORKER_GROUP_METADATA,
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONSUMER_GROUP_METADATA,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    STREAMS_GROUP_METADATA,
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA,
    Record,
)

# The Connect draft's group epoch (record 1000) too; its other epochs are checked on the replayed
# group after each record (connect-epoch-bound, invariants/connect.py).
GROUP_EPOCH_RECORDS: Final = frozenset({CONSUMER_GROUP_METADATA, STREAMS_GROUP_METADATA, CONNECT_WORKER_GROUP_METADATA})
ASSIGNMENT_EPOCH_RECORDS: Final = frozenset({CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
                                             STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA})
MEMBER_EPOCH_RECORDS: Final = frozenset({CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
                                         STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT})
EPOCH_RECORDS: Final = GROUP_EPOCH_RECORDS | ASSIGNMENT_EPOCH_RECORDS | MEMBER_EPOCH_RECORDS


class RecordEpochs:
    """The epochs one group's records have shown so far."""

    __slots__ = ("assignment_epoch", "group_epoch")

    def __init__(self) -> None:
        self.group_epoch: int | None = None
        self.assignment_epoch: int | None = None

    def observe(self, record: Record) -> list[tuple[str, str]]:
        """The problems ``record`` shows; then it is remembered."""
        rtype, value = record.type, record.value
        if rtype not in EPOCH_RECORDS:
            return []
        if value is None:
            if rtype in GROUP_EPOCH_RECORDS:  # the group is deleted: a new one starts afresh
                self.group_epoch = self.assignment_epoch = None
            return []
        if rtype in GROUP_EPOCH_RECORDS:
            epoch = _int(value.get("epoch"))
            if epoch is None:
                return []
            before, self.group_epoch = self.group_epoch, epoch
            if before is not None and epoch < before:
                return [(EPOCH_MONOTONICITY, f"group epoch went back from {before} to {epoch} "
                                             "with no tombstone of the group between")]
            return []
        if rtype in ASSIGNMENT_EPOCH_RECORDS:
            epoch = _int(value.get("assignmentEpoch"))
            if epoch is None:
                return []
            self.assignment_epoch = epoch
            if self.group_epoch is not None and epoch > self.group_epoch:
                return [(EPOCH_MONOTONICITY, f"assignment epoch {epoch} is ahead of group epoch {self.group_epoch}")]
            return []
        epoch = _int(value.get("memberEpoch"))
        member = record.key.get("memberId")
        if epoch is None:
            return []
        if self.group_epoch is not None and epoch > self.group_epoch:
            return [(EPOCH_MONOTONICITY, f"member {member} at epoch {epoch} is ahead of group epoch {self.group_epoch}")]
        if rtype == STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT and self.assignment_epoch is not None \
                and epoch > self.assignment_epoch:
            return [(EPOCH_MONOTONICITY, f"member {member} at epoch {epoch} runs ahead of the assignment epoch "
                                         f"{self.assignment_epoch}")]
        return []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
