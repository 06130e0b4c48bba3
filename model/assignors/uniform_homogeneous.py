"""Kafka's ``UniformHomogeneousAssignmentBuilder``: every member subscribes to the same topics.

Balance first (sizes differ by at most one), then stickiness. Linear in members,
topics and partitions: nothing is sorted except the owned partitions of a member
that holds more of a topic than its quota (to pick which ones it keeps).

Unassigned partitions are kept as *runs* ``(topic, [partition, ...])`` rather than
one tuple per partition, so filling a member is a slice, not a Python-level loop.
"""

from __future__ import annotations

from itertools import filterfalse

from .api import GroupAssignment, GroupSpec, PartitionAssignorError, TopicDescriber
from .topic_order import java_hash_set_order

Run = tuple[str, list[int]]


def assign_homogeneous(spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
    members = spec.members
    subscribed = next(iter(members.values())).subscribed_topic_ids
    if not subscribed:
        return {}

    # Kafka asks the inverted target ("is this partition assigned to anyone?");
    # the members' current targets are exactly that map.
    assigned: dict[str, set[int]] = {}
    for member in members.values():
        for topic_id, partitions in member.assignment.items():
            if topic_id in subscribed:
                taken = assigned.get(topic_id)
                if taken is None:
                    assigned[topic_id] = set(partitions)
                else:
                    taken.update(partitions)

    unassigned: list[Run] = []
    total = 0
    for topic_id in java_hash_set_order(subscribed):
        count = topics.num_partitions(topic_id)
        if count == -1:
            raise PartitionAssignorError(
                f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata."
            )
        taken = assigned.get(topic_id)
        free = list(range(count)) if taken is None else list(filterfalse(taken.__contains__, range(count)))
        if free:
            unassigned.append((topic_id, free))
        total += count

    target, unfilled = _keep_owned_up_to_quota(spec, subscribed, total, unassigned)
    _fill(target, unfilled, unassigned)
    return target


def _keep_owned_up_to_quota(
    spec: GroupSpec, subscribed: frozenset[str], total: int, unassigned: list[Run]
) -> tuple[GroupAssignment, list[tuple[str, int]]]:
    """Revoke unsubscribed topics and partitions above quota; return targets and unfilled members."""
    member_count = len(spec.members)
    min_quota, extra_left = divmod(total, member_count)
    target: GroupAssignment = {}
    unfilled: list[tuple[str, int]] = []

    for index, (member_id, member) in enumerate(spec.members.items()):
        old = member.assignment
        new: dict[str, frozenset[int]] | None = None
        has_extra = extra_left > 0
        quota = min_quota + 1 if has_extra else min_quota

        for topic_id, partitions in old.items():
            if topic_id not in subscribed:
                if new is None:
                    new = dict(old)
                del new[topic_id]
                continue
            owned = len(partitions)
            if owned <= quota:
                quota -= owned
                continue
            # Kafka keeps the first `quota` in set iteration order (ascending for
            # small partition ids); the model keeps the lowest ids.
            ordered = sorted(partitions)
            if new is None:
                new = dict(old)
            if quota:
                new[topic_id] = frozenset(ordered[:quota])
            else:
                del new[topic_id]
            unassigned.append((topic_id, ordered[quota:]))
            quota = 0

        # KAFKA-18688: a member that could not fill its extra slot from what it owns
        # hands the slot on, unless only the last `extra_left` members remain.
        if quota > 0 and has_extra and member_count - index > extra_left:
            quota -= 1
            has_extra = False
        if quota > 0:
            unfilled.append((member_id, quota))
        if has_extra:
            extra_left -= 1
        target[member_id] = new if new is not None else dict(old)

    return target, unfilled


def _fill(target: GroupAssignment, unfilled: list[tuple[str, int]], unassigned: list[Run]) -> None:
    run_index = 0
    offset = 0
    for member_id, quota in unfilled:
        assignment = target[member_id]
        while quota > 0 and run_index < len(unassigned):
            topic_id, partitions = unassigned[run_index]
            taken = partitions[offset : offset + quota]
            offset += len(taken)
            quota -= len(taken)
            if offset == len(partitions):
                run_index += 1
                offset = 0
            held = assignment.get(topic_id)
            assignment[topic_id] = frozenset(taken) if held is None else held.union(taken)
    if run_index < len(unassigned):
        raise PartitionAssignorError("Partitions were left unassigned")
