"""The committed offsets of one coordinator (``OffsetMetadataManager.offsets``), hard state.

Changed only by replaying offset records (and transaction end markers). ``pending`` are the
offsets of open transactions (``pendingTransactionalOffsets``, by producer id), moved into
``offsets`` by a COMMIT marker unless a later record committed the partition since (Kafka
compares the records' log offsets: ``positions`` here), dropped by an ABORT. ``simple_groups`` are the groups Kafka creates on a
commit (or the replay of one) for a group id no group owns: an EMPTY classic group without a
protocol type (``getOrMaybeCreateClassicGroup(groupId, true)``). kgspec keeps them here, for
the offsets' validation only: they are not listed or described (docs/offsets.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgspec.model.offsets.records import Committed

GroupOffsets = dict[str, dict[int, Committed]]  # topic name -> partition -> committed offset


class OffsetStore:
    __slots__ = ("log_end", "offsets", "pending", "positions", "simple_groups")

    def __init__(self) -> None:
        self.offsets: dict[str, GroupOffsets] = {}
        self.simple_groups: set[str] = set()
        self.pending: dict[int, dict[str, GroupOffsets]] = {}  # producer id -> group -> offsets
        # The log position of the record behind each committed or pending offset (Kafka's
        # recordOffset), keyed (producer id or -1, group, topic, partition).
        self.positions: dict[tuple[int, str, str, int], int] = {}
        self.log_end = 0  # offset records replayed so far: the next record's position

    def put_pending(self, producer_id: int, group_id: str, topic: str, partition: int, committed: Committed) -> None:
        """``replay`` of a transactional record: pending until its transaction ends."""
        self.pending.setdefault(producer_id, {}).setdefault(group_id, {}).setdefault(topic, {})[partition] = committed
        self.positions[(producer_id, group_id, topic, partition)] = self.log_end
        self.log_end += 1

    def has_pending(self, group_id: str, topic: str | None = None, partition: int | None = None) -> bool:
        """``openTransactions.contains``: a pending offset of the group (of the topic-partition)."""
        for by_group in self.pending.values():
            topics = by_group.get(group_id)
            if topics is None:
                continue
            if topic is None:
                return True
            if partition in topics.get(topic, {}):
                return True
        return False

    def pending_partitions(self, group_id: str) -> list[tuple[str, int]]:
        """``openTransactions.forEachTopicPartition``: the group's partitions with a pending offset."""
        seen: dict[tuple[str, int], None] = {}
        for by_group in self.pending.values():
            for topic, parts in by_group.get(group_id, {}).items():
                for partition in parts:
                    seen[(topic, partition)] = None
        return list(seen)

    def end_transaction(self, producer_id: int, committed: bool, owns: Callable[[str], bool]) -> list[str]:
        """``replayEndTransactionMarker`` for the groups ``owns`` says the marker's partition holds:
        COMMIT moves each pending offset in unless a later record committed the partition;
        ABORT drops them. The groups touched."""
        by_group = self.pending.get(producer_id)
        if by_group is None:
            return []
        touched = [gid for gid in by_group if owns(gid)]
        for gid in touched:
            for topic, parts in by_group.pop(gid).items():
                for partition, c in parts.items():
                    position = self.positions.pop((producer_id, gid, topic, partition))
                    if not committed:
                        continue
                    current = self.positions.get((-1, gid, topic, partition))
                    if current is None or position > current:
                        self.put(gid, topic, partition, c, position)
        if not by_group:
            del self.pending[producer_id]
        return touched

    def get(self, group_id: str, topic: str, partition: int) -> Committed | None:
        return self.offsets.get(group_id, {}).get(topic, {}).get(partition)

    def put(self, group_id: str, topic: str, partition: int, committed: Committed, position: int | None = None) -> None:
        self.offsets.setdefault(group_id, {}).setdefault(topic, {})[partition] = committed
        if position is None:  # a record replayed now; else a pending offset's own record
            position = self.log_end
            self.log_end += 1
        self.positions[(-1, group_id, topic, partition)] = position

    def remove(self, group_id: str, topic: str, partition: int) -> None:
        """A tombstone: the offset goes, and every pending one of the partition."""
        self.log_end += 1
        self.positions.pop((-1, group_id, topic, partition), None)
        for producer_id in list(self.pending):
            by_group = self.pending[producer_id]
            parts = by_group.get(group_id, {}).get(topic)
            if parts is not None and partition in parts:
                del parts[partition]
                self.positions.pop((producer_id, group_id, topic, partition), None)
                if not parts:
                    del by_group[group_id][topic]
                if not by_group[group_id]:
                    del by_group[group_id]
                if not by_group:
                    del self.pending[producer_id]
        self._remove_committed(group_id, topic, partition)

    def _remove_committed(self, group_id: str, topic: str, partition: int) -> None:
        by_topic = self.offsets.get(group_id)
        if by_topic is None:
            return
        by_partition = by_topic.get(topic)
        if by_partition is None:
            return
        by_partition.pop(partition, None)
        if not by_partition:
            del by_topic[topic]
        if not by_topic:
            del self.offsets[group_id]

    def group(self, group_id: str) -> GroupOffsets:
        return self.offsets.get(group_id, {})

    def snapshot(self) -> dict[str, Any]:
        return {
            "offsets": {gid: {t: {p: c.snapshot() for p, c in sorted(parts.items())}
                              for t, parts in sorted(topics.items())}
                        for gid, topics in sorted(self.offsets.items())},
            "simpleGroups": sorted(self.simple_groups),
            "pending": {pid: {gid: {t: {p: c.snapshot() for p, c in sorted(parts.items())}
                                    for t, parts in sorted(topics.items())}
                              for gid, topics in sorted(by_group.items())}
                        for pid, by_group in sorted(self.pending.items())},
        }
