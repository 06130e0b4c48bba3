"""Kafka's server-side ``RangeAssignor`` ("range").

Stateless and not sticky: the previous target is ignored. Members are sorted
(static members first by instance id, then dynamic members by member id) and each
topic's partitions are cut into contiguous ranges, one per subscriber in that
order; the first ``P % n`` subscribers get one extra partition. When every member
subscribes to the same topics and they have equal partition counts, member *i* gets
the same partition numbers of every topic (co-partitioning).

The algorithm is identical in Kafka 4.1, 4.3 and trunk (RangeAssignor.java differs
only in Javadoc markup between them).
"""

from __future__ import annotations

from .api import (
    GroupAssignment,
    GroupSpec,
    MemberSpec,
    PartitionAssignorError,
    SubscriptionType,
    TopicDescriber,
)


def _java_string_key(text: str) -> bytes:
    # Java's String.compareTo compares UTF-16 code units; big-endian UTF-16 bytes
    # compare the same way (Python's str order differs above U+FFFF).
    return text.encode("utf-16-be")


def range_member_order(spec: GroupSpec) -> list[str]:
    """Static members by instance id, then dynamic members by member id."""

    def key(item: tuple[str, MemberSpec]) -> tuple[int, bytes]:
        member_id, member = item
        if member.instance_id is not None:
            return (0, _java_string_key(member.instance_id))
        return (1, _java_string_key(member_id))

    return [member_id for member_id, _ in sorted(spec.members.items(), key=key)]


class _TopicRanges:
    """Hands out the next contiguous range of one topic."""

    __slots__ = ("extra", "next_start", "partitions", "quota", "subscribers", "topic_id")

    def __init__(self, topic_id: str, partitions: int) -> None:
        self.topic_id = topic_id
        self.partitions = partitions
        self.subscribers = 0
        self.quota = -1
        self.extra = -1
        self.next_start = 0

    def take(self) -> range:
        if self.quota == -1:
            self.quota, self.extra = divmod(self.partitions, self.subscribers)
        size = self.quota
        if self.extra > 0:
            size += 1
            self.extra -= 1
        start = self.next_start
        end = min(start + size, self.partitions)
        self.next_start = end
        return range(start, end)


def _describe(topics: TopicDescriber, topic_id: str) -> _TopicRanges:
    count = topics.num_partitions(topic_id)
    if count == -1:
        raise PartitionAssignorError(f"Member is subscribed to a non-existent topic {topic_id}")
    return _TopicRanges(topic_id, count)


class RangeAssignor:
    name = "range"

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        if not spec.members:
            return {}
        order = range_member_order(spec)
        members = spec.members
        ranges: dict[str, _TopicRanges] = {}
        if spec.subscription_type is SubscriptionType.HOMOGENEOUS:
            # Kafka reads the subscription of the first sorted member only.
            for topic_id in members[order[0]].subscribed_topic_ids:
                ranges[topic_id] = _describe(topics, topic_id)
                ranges[topic_id].subscribers = len(order)
            shared = list(ranges.values())
            subscriptions = dict.fromkeys(order, shared)
        else:
            subscriptions = {}
            for member_id in order:
                mine = []
                for topic_id in members[member_id].subscribed_topic_ids:
                    topic = ranges.get(topic_id)
                    if topic is None:
                        topic = ranges[topic_id] = _describe(topics, topic_id)
                    topic.subscribers += 1
                    mine.append(topic)
                subscriptions[member_id] = mine

        result: GroupAssignment = {}
        for member_id in order:
            assignment: dict[str, frozenset[int]] = {}
            for topic in subscriptions[member_id]:
                taken = topic.take()
                if taken:
                    assignment[topic.topic_id] = frozenset(taken)
            result[member_id] = assignment
        return result
