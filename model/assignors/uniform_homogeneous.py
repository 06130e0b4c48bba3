"""Kafka's ``UniformHomogeneousAssignmentBuilder``: every member subscribes to the same topics.

Balance first (sizes differ by at most one), then stickiness. Linear in members,
topics and partitions: nothing is sorted except the owned partitions of a member
that holds more of a topic than its quota (to pick which ones it keeps).

Laid out for CPython (the output is unchanged; the golden and guarantee tests hold it):

* one pass over the members decides what each keeps and gathers the inverted target
  (topic -> the owned partition sets, unioned once per topic in C afterwards);
* a member that keeps everything it owns is judged by ``frozenset.issuperset`` and its size,
  not a per-topic quota walk, and shares its current target's dict
  (Kafka shares the member's assignment object too); only members that change are copied;
* unassigned partitions are *runs* ``(topic, [partition, ...])``, so filling a member is a
  slice; the topic order (a Java ``HashSet`` walk) is computed once per subscription set.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import filterfalse

from .api import GroupAssignment, GroupSpec, PartitionAssignorError, TopicAssignment, TopicDescriber
from .topic_order import java_hash_set_order

Run = tuple[str, list[int]]


@lru_cache(maxsize=256)
def _topic_order(subscribed: frozenset[str]) -> tuple[str, ...]:
    return tuple(java_hash_set_order(subscribed))


@lru_cache(maxsize=1024)
def _all_partitions(count: int) -> frozenset[int]:
    return frozenset(range(count))


def assign_homogeneous(spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
    members = spec.members
    subscribed = next(iter(members.values())).subscribed_topic_ids
    if not subscribed:
        return {}
    order = _topic_order(subscribed)
    counts: list[int] = []
    for topic_id in order:
        count = topics.num_partitions(topic_id)
        if count == -1:
            raise PartitionAssignorError(
                f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata."
            )
        counts.append(count)
    member_count = len(members)
    min_quota, extra_left = divmod(sum(counts), member_count)
    if not any(member.assignment for member in members.values()):
        # FULL: nobody owns anything, so every partition is free and (KAFKA-18688) the
        # extra slots go to the last `extra_left` members.
        everything = [(topic_id, list(range(count))) for topic_id, count in zip(order, counts, strict=True) if count]
        return _fill_fresh(list(members), min_quota, extra_left, everything)

    target: GroupAssignment = {}
    unfilled: list[tuple[str, int]] = []
    revoked: list[Run] = []
    # Kafka asks the inverted target ("is this partition assigned to anyone?"); the members'
    # current targets are exactly that map, revoked partitions included.
    owned_sets: dict[str, list[frozenset[int]]] = {}
    superset = subscribed.issuperset
    claim = owned_sets.setdefault

    for index, (member_id, member) in enumerate(members.items()):
        old = member.assignment
        has_extra = extra_left > 0
        quota = min_quota + 1 if has_extra else min_quota
        new: dict[str, frozenset[int]] | None = None
        if old:
            if superset(old):
                owned_total = 0
                for topic_id, partitions in old.items():
                    claim(topic_id, []).append(partitions)
                    owned_total += len(partitions)
                if owned_total <= quota:
                    quota -= owned_total  # the common case: keep everything
                else:
                    quota, new = _revoke(old, subscribed, quota, revoked)
            else:
                for topic_id, partitions in old.items():
                    if topic_id in subscribed:
                        claim(topic_id, []).append(partitions)
                quota, new = _revoke(old, subscribed, quota, revoked)

        # KAFKA-18688: a member that could not fill its extra slot from what it owns
        # hands the slot on, unless only the last `extra_left` members remain.
        if quota > 0 and has_extra and member_count - index > extra_left:
            quota -= 1
            has_extra = False
        if has_extra:
            extra_left -= 1
        if quota > 0:
            unfilled.append((member_id, quota))
            target[member_id] = new if new is not None else dict(old)
        elif new is not None:
            target[member_id] = new
        else:
            target[member_id] = old if type(old) is dict else dict(old)

    # Free partitions first (in topic order), then the revoked ones (in member order).
    unassigned: list[Run] = []
    for topic_id, count in zip(order, counts, strict=True):
        sets = owned_sets.get(topic_id)
        if sets is None:
            free = list(range(count))
        else:
            taken = frozenset().union(*sets)
            # all owned (the usual INCREMENTAL case): one C-level set comparison, no walk
            free = [] if len(taken) == count and taken == _all_partitions(count) \
                else list(filterfalse(taken.__contains__, range(count)))
        if free:
            unassigned.append((topic_id, free))
    unassigned += revoked
    _fill(target, unfilled, unassigned)
    return target


def _revoke(old: TopicAssignment, subscribed: frozenset[str], quota: int,
            revoked: list[Run]) -> tuple[int, dict[str, frozenset[int]]]:
    """Walk a member's topics: drop unsubscribed ones, keep owned partitions up to ``quota``."""
    new = dict(old)
    for topic_id, partitions in old.items():
        if topic_id not in subscribed:
            del new[topic_id]
            continue
        owned = len(partitions)
        if owned <= quota:
            quota -= owned
            continue
        # Kafka keeps the first `quota` in set iteration order (ascending for
        # small partition ids); the model keeps the lowest ids.
        ordered = sorted(partitions)
        if quota:
            new[topic_id] = frozenset(ordered[:quota])
        else:
            del new[topic_id]
        revoked.append((topic_id, ordered[quota:]))
        quota = 0
    return quota, new


def _fill_fresh(member_ids: list[str], min_quota: int, extra: int, unassigned: list[Run]) -> GroupAssignment:
    """``_fill`` for a group where nobody owns anything: build each target as it is filled.

    (Cutting equal quotas with a comprehension per run measured slower: runs are short.)"""
    target: GroupAssignment = {}
    runs = iter(unassigned)
    topic_id, partitions = next(runs, ("", []))
    size = len(partitions)
    offset = 0
    new_set = frozenset
    plain = len(member_ids) - extra
    for index, member_id in enumerate(member_ids):
        quota = min_quota if index < plain else min_quota + 1
        end = offset + quota
        if end <= size:  # within the current run: one slice (quota 0: an empty target)
            target[member_id] = {topic_id: new_set(partitions[offset:end])} if quota else {}
            offset = end
            continue
        assignment: dict[str, frozenset[int]] = {}
        while quota:
            if offset == size:
                topic_id, partitions = next(runs)  # the quotas add up to the partitions
                size = len(partitions)
                offset = 0
            end = min(offset + quota, size)
            taken = partitions[offset:end]
            quota -= end - offset
            offset = end
            held = assignment.get(topic_id)
            assignment[topic_id] = new_set(taken) if held is None else held.union(taken)
        target[member_id] = assignment
    return target


def _fill(target: GroupAssignment, unfilled: list[tuple[str, int]], unassigned: list[Run]) -> None:
    """Hand out the unassigned runs in order, each unfilled member taking its quota."""
    runs = iter(unassigned)
    topic_id, partitions = next(runs, ("", []))
    size = len(partitions)
    offset = 0
    new_set = frozenset
    for member_id, quota in unfilled:
        assignment = target[member_id]
        while quota:
            if offset == size:
                following = next(runs, None)
                if following is None:
                    break
                topic_id, partitions = following
                size = len(partitions)
                offset = 0
            end = offset + quota
            if end > size:
                end = size
            taken = partitions[offset:end]
            quota -= end - offset
            offset = end
            held = assignment.get(topic_id)
            assignment[topic_id] = new_set(taken) if held is None else held.union(taken)
    if offset < size or next(runs, None) is not None:
        raise PartitionAssignorError("Partitions were left unassigned")
