"""A TopicDescriber over a plain mapping, for the model and for tests."""

from __future__ import annotations

from collections.abc import Mapping


class MappingTopicDescriber:
    """topic id -> partition count; unknown topics answer -1 like Kafka's describer."""

    __slots__ = ("_counts",)

    def __init__(self, partition_counts: Mapping[str, int]) -> None:
        self._counts = dict(partition_counts)

    def num_partitions(self, topic_id: str) -> int:
        return self._counts.get(topic_id, -1)
