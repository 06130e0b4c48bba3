"""Topic metadata as the coordinator sees it (Kafka's ``MetadataImage``, reduced to what groups use).

Topic metadata is the broker's, not a group's: one image may be shared by many coordinators
(the checker gives every group's model the same one). The image memoizes each topic's hash
(``Utils.computeTopicHash``, O(1) memory per topic whatever its partition count) and keeps an
index from topic name to the followers (coordinators) whose groups subscribe to it, so that a
change reaches only the groups it concerns, as ``GroupMetadataManager.onMetadataUpdate`` does
with its ``groupsByTopics`` index.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from kgspec.model.hashing import compute_topic_hash

# The model's bound on a topic's partition count. Kafka's own bound is the int32 of the protocol
# (no lower per-topic limit was verified in its source); a cluster-wide count beyond a million
# partitions is outside what Kafka documents as supported, so ``kgspec check`` reports a topic
# event beyond this as unsupported on its line instead of allocating for it.
MAX_PARTITIONS = 1_000_000


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    topic_id: str
    partitions: int


class TopicFollower(Protocol):
    """Something whose groups follow topic metadata (a coordinator)."""

    def followed_topics(self) -> tuple[Iterable[str], bool]:
        """The topic names its groups subscribe to (by name, resolved regex or a topology's
        required topics), and whether any group has a regex subscription (a new topic may match)."""
        ...


class TopicsImage:
    """Mutable registry of topics by name and id; every change bumps :attr:`version`."""

    __slots__ = ("_by_id", "_by_name", "_dirty", "_followed", "_followers", "_followers_of",
                 "_regex_followers", "_sorted_names", "_topic_hash_cache", "version")

    def __init__(self) -> None:
        self._by_name: dict[str, TopicInfo] = {}
        self._by_id: dict[str, TopicInfo] = {}
        self.version = 0
        self._topic_hash_cache: dict[str, int] = {}  # a memo of compute_topic_hash, by name
        self._sorted_names: list[str] | None = None  # a memo of sorted(names())
        # Followers by registration key (their order is registration order).
        self._followers: list[TopicFollower] = []
        self._followed: dict[int, frozenset[str]] = {}  # key -> names it was indexed under
        self._followers_of: dict[str, dict[int, None]] = {}  # topic name -> follower keys
        self._regex_followers: dict[int, None] = {}  # followers with a regex subscription
        self._dirty: dict[int, None] = {}  # followers whose subscriptions may have changed

    # --- topics ------------------------------------------------------------------------------

    def upsert(self, name: str, topic_id: str, partitions: int) -> TopicInfo | None:
        """Create or update a topic; returns the previous info (None when new)."""
        previous = self._by_name.get(name)
        if previous is not None and previous.topic_id != topic_id:
            # A topic re-created under the same name has a new id: the old one is gone.
            del self._by_id[previous.topic_id]
        if previous is None or previous.partitions != partitions or previous.topic_id != topic_id:
            self._topic_hash_cache.pop(name, None)
            if previous is None:
                self._sorted_names = None
            info = TopicInfo(name, topic_id, partitions)
            self._by_name[name] = info
            self._by_id[topic_id] = info
        self.version += 1
        return previous

    def delete(self, name: str) -> TopicInfo | None:
        info = self._by_name.pop(name, None)
        if info is not None:
            del self._by_id[info.topic_id]
            self._topic_hash_cache.pop(name, None)
            self._sorted_names = None
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

    def names_by_id(self) -> dict[str, str]:
        """topic id -> name, for messages."""
        return {info.topic_id: name for name, info in self._by_name.items()}

    def sorted_names(self) -> list[str]:
        """The topic names in sorted order (memoized until a topic is created or deleted;
        the caller must not change the list)."""
        names = self._sorted_names
        if names is None:
            names = self._sorted_names = sorted(self._by_name)
        return names

    def partition_counts(self) -> Mapping[str, int]:
        """name -> partition count, a read-only view (no copy of a large image)."""
        return PartitionCounts(self._by_name)

    def topic_hash(self, name: str) -> int | None:
        """``Utils.computeTopicHash`` of an existing topic (None when absent), memoized."""
        value = self._topic_hash_cache.get(name)
        if value is None:
            info = self._by_name.get(name)
            if info is None:
                return None
            value = self._topic_hash_cache[name] = compute_topic_hash(info.topic_id, info.name, info.partitions)
        return value

    def __len__(self) -> int:
        return len(self._by_name)

    # --- who follows which topic -------------------------------------------------------------

    def follow(self, follower: TopicFollower) -> int:
        """Register a follower; returns its key (registration order). It is indexed lazily:
        call :meth:`touched` whenever its subscriptions may have changed."""
        key = len(self._followers)
        self._followers.append(follower)
        self._followed[key] = frozenset()
        self._dirty[key] = None
        return key

    def touched(self, key: int) -> None:
        """The follower's subscriptions may have changed (re-indexed before the next change)."""
        self._dirty[key] = None

    def concerned(self, name: str, new_topic: bool) -> list[tuple[int, TopicFollower]]:
        """The followers a change of topic ``name`` concerns, in registration order: those
        subscribed to it and, when the topic is new, those with a regex subscription."""
        self._reindex()
        keys = set(self._followers_of.get(name, ()))
        if new_topic:
            keys.update(self._regex_followers)
        return [(key, self._followers[key]) for key in sorted(keys)]

    def _reindex(self) -> None:
        dirty, self._dirty = self._dirty, {}
        for key in dirty:
            names, regex = self._followers[key].followed_topics()
            now = frozenset(names)
            before = self._followed[key]
            if now != before:
                for gone in before - now:
                    keys = self._followers_of[gone]
                    del keys[key]
                    if not keys:
                        del self._followers_of[gone]
                for new in now - before:
                    self._followers_of.setdefault(new, {})[key] = None
                self._followed[key] = now
            if regex:
                self._regex_followers[key] = None
            else:
                self._regex_followers.pop(key, None)


class PartitionCounts(Mapping[str, int]):
    """A read-only view of an image's partition counts by topic name."""

    __slots__ = ("_by_name",)

    def __init__(self, by_name: dict[str, TopicInfo]) -> None:
        self._by_name = by_name

    def __getitem__(self, name: str) -> int:
        return self._by_name[name].partitions

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)
