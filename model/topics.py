"""Topic metadata as the coordinator sees it (Kafka's ``MetadataImage``, reduced to what groups use)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    topic_id: str
    partitions: int


class TopicsImage:
    """Mutable registry of topics by name and id; every change bumps :attr:`version`."""

    __slots__ = ("_by_id", "_by_name", "version")

    def __init__(self) -> None:
        self._by_name: dict[str, TopicInfo] = {}
        self._by_id: dict[str, TopicInfo] = {}
        self.version = 0

    def upsert(self, name: str, topic_id: str, partitions: int) -> TopicInfo | None:
        """Create or update a topic; returns the previous info (None when new)."""
        previous = self._by_name.get(name)
        if previous is not None and previous.topic_id != topic_id:
            # A topic re-created under the same name has a new id: the old one is gone.
            del self._by_id[previous.topic_id]
        info = TopicInfo(name, topic_id, partitions)
        self._by_name[name] = info
        self._by_id[topic_id] = info
        self.version += 1
        return previous

    def delete(self, name: str) -> TopicInfo | None:
        info = self._by_name.pop(name, None)
        if info is not None:
            del self._by_id[info.topic_id]
            self.version += 1
        return info

    def by_name(self, name: str) -> TopicInfo | None:
        return self._by_name.get(name)

    def by_id(self, topic_id: str) -> TopicInfo | None:
        return self._by_id.get(topic_id)

    def id_of(self, name: str) -> str | None:
        info = self._by_name.get(name)
        return info.topic_id if info else None

    def name_of(self, topic_id: str) -> str | None:
        info = self._by_id.get(topic_id)
        return info.name if info else None

    def num_partitions(self, topic_id: str) -> int:
        info = self._by_id.get(topic_id)
        return info.partitions if info else -1

    def names(self) -> list[str]:
        return list(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)
