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

from kgspec.model.javaorder import java_str_key

from .api import (
    GroupAssignment,
    GroupSpec,
    MemberSpec,
    PartitionAssignorError,
    SubscriptionType,
    TopicDescriber,
)


def range_member_order(spec: GroupSpec) -> list[str]:
    """Static members by instance id, then dynamic members by member id."""

    def key(item: tuple[str, MemberSpec]) -> tuple[int, str]:
        member_id, member = item
        if member.instance_id is not None:
            return (0, java_str_key(member.instance_id))
        return (1, java_str_key(member_id))

    return [member_id for member_id, _ in sorted(spec.members.items(), key=key)]


def _partition_count(topics: TopicDescriber, topic_id: str) -> int:
    count = topics.num_partitions(topic_id)
    if count == -1:
        raise PartitionAssignorError(f"Member is subscribed to a non-existent topic {topic_id}")
    return count


def _cut_ranges(
    topic_id: str, count: int, subscribers: list[str], result: GroupAssignment
) -> None:
    """Give the k-th subscriber the k-th contiguous range of the topic's partitions."""
    quota, extra = divmod(count, len(subscribers))
    # With quota 0 only the first `extra` subscribers get anything: skip the rest.
    receivers = subscribers if quota else subscribers[:extra]
    start = 0
    for position, member_id in enumerate(receivers):
        end = start + quota + (1 if position < extra else 0)
        result[member_id][topic_id] = frozenset(range(start, end))
        start = end


class RangeAssignor:
    name = "range"

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        if not spec.members:
            return {}
        order = range_member_order(spec)
        members = spec.members
        result: GroupAssignment = {member_id: {} for member_id in order}
        if spec.subscription_type is SubscriptionType.HOMOGENEOUS:
            # Kafka reads the subscription of the first sorted member only.
            for topic_id in members[order[0]].subscribed_topic_ids:
                _cut_ranges(topic_id, _partition_count(topics, topic_id), order, result)
            return result

        subscribers: dict[str, list[str]] = {}
        for member_id in order:
            for topic_id in members[member_id].subscribed_topic_ids:
                listed = subscribers.get(topic_id)
                if listed is None:
                    _partition_count(topics, topic_id)  # fail on unknown topics first
                    subscribers[topic_id] = [member_id]
                else:
                    listed.append(member_id)
        for topic_id, listed in subscribers.items():
            _cut_ranges(topic_id, topics.num_partitions(topic_id), listed, result)
        return result
