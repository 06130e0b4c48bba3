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

from itertools import chain

from kgspec.model.javaorder import java_str_key

from .api import (
    GroupAssignment,
    GroupSpec,
    PartitionAssignorError,
    SubscriptionType,
    TopicDescriber,
)


def range_member_order(spec: GroupSpec) -> list[str]:
    """Static members by instance id, then dynamic members by member id."""
    statics: list[tuple[str, str]] = []
    dynamics: list[str] = []
    for member_id, member in spec.members.items():
        if member.instance_id is None:
            dynamics.append(member_id)
        else:
            statics.append((java_str_key(member.instance_id), member_id))
    # Java's String order is Python's for text without surrogates: one C check, then a plain sort.
    if "".join(dynamics).isascii():
        dynamics.sort()
    else:
        dynamics.sort(key=java_str_key)
    statics.sort()
    return [member_id for _, member_id in statics] + dynamics


def _partition_count(topics: TopicDescriber, topic_id: str) -> int:
    count = topics.num_partitions(topic_id)
    if count == -1:
        raise PartitionAssignorError(f"Member is subscribed to a non-existent topic {topic_id}")
    return count


def _cut_ranges(
    topic_ids: list[str], count: int, subscribers: list[str], result: GroupAssignment
) -> None:
    """Give the k-th subscriber the k-th contiguous range of each topic's partitions.

    The topics share their subscribers and partition count, so the k-th subscriber gets the same
    range of each: one frozenset, shared (it is immutable), and one C-level ``dict.fromkeys``."""
    quota, extra = divmod(count, len(subscribers))
    # With quota 0 only the first `extra` subscribers get anything: skip the rest.
    receivers = subscribers if quota else subscribers[:extra]
    start = 0
    fromkeys = dict.fromkeys
    for position, member_id in enumerate(receivers):
        end = start + quota + (1 if position < extra else 0)
        part = frozenset(range(start, end))
        target = result[member_id]
        if target:
            target.update(fromkeys(topic_ids, part))
        else:
            result[member_id] = fromkeys(topic_ids, part)
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
            by_count: dict[int, list[str]] = {}
            for topic_id in members[order[0]].subscribed_topic_ids:
                by_count.setdefault(_partition_count(topics, topic_id), []).append(topic_id)
            for count, same in by_count.items():
                _cut_ranges(same, count, order, result)
            return result

        # Members with equal subscriptions, in sorted order; groups in order of first appearance.
        groups: dict[frozenset[str], list[str]] = {}
        for member_id in order:
            subscribed = members[member_id].subscribed_topic_ids
            listed = groups.get(subscribed)
            if listed is None:
                groups[subscribed] = [member_id]
            else:
                listed.append(member_id)
        # topic -> the groups subscribing to it; unknown topics fail in the order Kafka meets them
        # (sorted members, each member's topics), which is the groups' order.
        topic_groups: dict[str, list[int]] = {}
        for index, subscribed in enumerate(groups):
            for topic_id in subscribed:
                seen = topic_groups.get(topic_id)
                if seen is None:
                    _partition_count(topics, topic_id)
                    topic_groups[topic_id] = [index]
                else:
                    seen.append(index)
        # Topics with the same subscribers and partition count are cut together.
        alike: dict[tuple[tuple[int, ...], int], list[str]] = {}
        for topic_id, group_indexes in topic_groups.items():
            alike.setdefault((tuple(group_indexes), topics.num_partitions(topic_id)), []).append(topic_id)
        lists = list(groups.values())
        position: dict[str, int] | None = None
        for (indexes, count), same in alike.items():
            if len(indexes) == 1:
                subscribers = lists[indexes[0]]
            else:  # several groups: their members in sorted order
                if position is None:
                    position = {member_id: i for i, member_id in enumerate(order)}
                subscribers = sorted(chain.from_iterable(lists[i] for i in indexes), key=position.__getitem__)
            _cut_ranges(same, count, subscribers, result)
        return result
