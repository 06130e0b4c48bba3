"""Which ``__consumer_offsets`` partition (coordinator shard) owns a group, and the order in
which Kafka's ``GroupCoordinatorService`` answers a multi-group read.

Describe calls (DescribeGroups, ConsumerGroupDescribe, StreamsGroupDescribe) put the request's
group ids in a ``HashMap<TopicPartition, List<String>>`` (``groupsByTopicPartition``, filled by
``computeIfAbsent``), run one read per shard, and concatenate the shards' answers in that map's
iteration order, after the answers for empty ids. So a response lists its groups by shard, not in request order. The model
is every shard's coordinator; ``offsets.topic.num.partitions`` (default 50) says how many.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgspec.model.javaorder import bucket_index, java_string_hash, to_signed32

GROUP_METADATA_TOPIC = "__consumer_offsets"
_TOPIC_HASH = java_string_hash(GROUP_METADATA_TOPIC)


def partition_for(group_id: str, num_partitions: int) -> int:
    """``Utils.abs(groupId.hashCode()) % numPartitions`` (``abs(Integer.MIN_VALUE)`` is 0)."""
    h = to_signed32(java_string_hash(group_id))
    return (0 if h == -(2**31) else abs(h)) % num_partitions


def _partition_hash(partition: int) -> int:
    """``TopicPartition.hashCode`` of ``__consumer_offsets-partition``, unsigned 32-bit."""
    return (31 * (31 + partition) + _TOPIC_HASH) & 0xFFFFFFFF


def by_shard(group_ids: Iterable[str], num_partitions: int) -> list[list[str]]:
    """The ids grouped by partition, in ``groupsByTopicPartition``'s iteration order; within a
    partition, request order (duplicates kept, as Kafka keeps them).

    The map is filled by ``computeIfAbsent``, which differs from ``put`` twice: it grows the
    table at the *start* of a call once the size has passed the threshold (so after the last
    new key only a later call, for any key, grows it), and it puts a new key at the head of its
    bin, so partitions sharing a bucket iterate newest first (a resize keeps a bin's order).
    Checked against a JVM (Java 17) on 1,200 random requests.
    """
    shards: dict[int, list[str]] = {}
    capacity = 16  # the first call allocates the default table
    for gid in group_ids:
        if len(shards) > capacity * 3 // 4:
            capacity *= 2
        shards.setdefault(partition_for(gid, num_partitions), []).append(gid)
    inserted = {p: i for i, p in enumerate(shards)}
    order = sorted(shards, key=lambda p: (bucket_index(_partition_hash(p), capacity), -inserted[p]))
    return [shards[p] for p in order]


def ordered_ids(group_ids: Iterable[str | None], num_partitions: int) -> list[str]:
    """The non-empty ids in the order their answers follow the empty ids' (``by_shard``)."""
    return [gid for shard in by_shard((g for g in group_ids if g), num_partitions) for gid in shard]
