"""The committed offsets of one coordinator (``OffsetMetadataManager.offsets``), hard state.

Changed only by replaying offset records. ``simple_groups`` are the groups Kafka creates on a
commit (or the replay of one) for a group id no group owns: an EMPTY classic group without a
protocol type (``getOrMaybeCreateClassicGroup(groupId, true)``). kgspec keeps them here, for
the offsets' validation only: they are not listed or described (docs/offsets.md).
"""

from __future__ import annotations

from typing import Any

from kgspec.model.offsets.records import Committed

GroupOffsets = dict[str, dict[int, Committed]]  # topic name -> partition -> committed offset


class OffsetStore:
    __slots__ = ("offsets", "simple_groups")

    def __init__(self) -> None:
        self.offsets: dict[str, GroupOffsets] = {}
        self.simple_groups: set[str] = set()

    def get(self, group_id: str, topic: str, partition: int) -> Committed | None:
        return self.offsets.get(group_id, {}).get(topic, {}).get(partition)

    def put(self, group_id: str, topic: str, partition: int, committed: Committed) -> None:
        self.offsets.setdefault(group_id, {}).setdefault(topic, {})[partition] = committed

    def remove(self, group_id: str, topic: str, partition: int) -> None:
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
        }
