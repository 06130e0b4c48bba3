"""Kafka's ``UniformHeterogeneousAssignmentBuilder`` (the KAFKA-17710 rework, 4.0+).

1. Import each member's current target, dropping topics it no longer subscribes to.
2. Hand out unassigned partitions topic by topic (most partitions per subscriber
   first, then fewer subscribers, then topic id), each to the least-loaded subscriber.
3. Move partitions from the most- to the least-loaded subscribers of each topic with
   two or more subscribers, looping over the topics at most 16 times and stopping
   after a full loop without a move.

Balance is per topic: within each topic's subscribers, total loads differ by at most
one *unless* a loaded subscriber has no partition of that topic to give up, or the
16-round limit stops the loop. Nothing stronger holds across overlapping subscriptions.
"""

from __future__ import annotations

from typing import cast

from .api import GroupAssignment, GroupSpec, PartitionAssignorError, TopicDescriber
from .load_balancer import LoadBalancer
from .topic_order import uuid_compare_key

MAX_ITERATION_COUNT = 16


class HeterogeneousBuilder:
    def __init__(self, spec: GroupSpec, topics: TopicDescriber) -> None:
        self.spec = spec
        self.member_ids = list(spec.members)
        self.partition_counts: dict[str, int] = {}
        # Subscriber indexes per topic, ascending. Members usually share a handful of
        # distinct subscriptions, so group them first and extend per topic.
        members_by_subscription: dict[frozenset[str], list[int]] = {}
        for index, member in enumerate(spec.members.values()):
            members_by_subscription.setdefault(member.subscribed_topic_ids, []).append(index)
        self.subscribers: dict[str, list[int]] = {}
        merged: set[str] = set()
        for subscription, indexes in members_by_subscription.items():
            for topic_id in subscription:
                listed = self.subscribers.get(topic_id)
                if listed is None:
                    count = topics.num_partitions(topic_id)
                    if count == -1:
                        raise PartitionAssignorError(
                            f"Members are subscribed to topic {topic_id} which doesn't exist "
                            "in the topic metadata."
                        )
                    self.partition_counts[topic_id] = count
                    self.subscribers[topic_id] = list(indexes)
                else:
                    listed.extend(indexes)
                    merged.add(topic_id)
        for topic_id in merged:
            self.subscribers[topic_id].sort()
        self.sizes = [0] * len(self.member_ids)
        # owners[topic][partition] = member index, or -1 while unassigned.
        self.owners = {t: [-1] * n for t, n in self.partition_counts.items()}
        # Copy-on-write at two levels. `base` holds each member's imported target;
        # `edited` gets a shallow copy for members the builder changes. Topic entries
        # stay frozensets (filling replaces them with unions) until a balancing move
        # edits one in place: then it becomes a set and the member joins `unfrozen`.
        self.base: list[dict[str, frozenset[int]]] = []
        self.edited: list[dict[str, frozenset[int] | set[int]] | None] = [None] * len(self.member_ids)
        self.unfrozen: set[int] = set()
        # False when balancing stopped at MAX_ITERATION_COUNT rather than at a fixed point.
        self.converged = True

    def build(self) -> GroupAssignment:
        if not self.subscribers:
            return {}
        self._import_targets()
        self._assign_unassigned()
        self._balance()
        result: GroupAssignment = {}
        for index, member_id in enumerate(self.member_ids):
            edited = self.edited[index]
            if edited is None:
                result[member_id] = self.base[index]
            elif index in self.unfrozen:
                result[member_id] = {t: frozenset(p) for t, p in edited.items() if p}
            else:
                result[member_id] = cast(dict[str, frozenset[int]], edited)
        return result

    def _topic_order_key(self, topic_id: str) -> tuple[float, int, int, int, str]:
        # Kafka compares the ratio as a Java double; Python floats are the same IEEE doubles.
        count = len(self.subscribers[topic_id])
        return (-(self.partition_counts[topic_id] / count), count, *uuid_compare_key(topic_id))

    def _import_targets(self) -> None:
        sizes, owners, base = self.sizes, self.owners, self.base
        for index, member in enumerate(self.spec.members.values()):
            old = member.assignment
            if not old:
                base.append({})
                continue
            subscribed = member.subscribed_topic_ids
            if subscribed.issuperset(old):  # the usual case: every topic kept, no copy
                size = 0
                try:
                    for topic_id, partitions in old.items():
                        owner_of = owners[topic_id]
                        size += len(partitions)
                        for partition in partitions:
                            owner_of[partition] = index
                except IndexError:
                    raise PartitionAssignorError(
                        f"Member {self.member_ids[index]} holds a partition of topic {topic_id} "
                        f"beyond its {len(owner_of)} partitions."
                    ) from None
                sizes[index] = size
                base.append(old if type(old) is dict else dict(old))
                continue
            kept: dict[str, frozenset[int]] | None = None
            for topic_id, partitions in old.items():
                if topic_id not in subscribed:
                    if kept is None:
                        kept = dict(old)
                    del kept[topic_id]
                    continue
                owner_of = owners[topic_id]
                sizes[index] += len(partitions)
                try:
                    for partition in partitions:  # mostly one or two: a plain loop beats map()
                        owner_of[partition] = index
                except IndexError:
                    # Kafka would fail the same way (an array index out of bounds).
                    raise PartitionAssignorError(
                        f"Member {self.member_ids[index]} holds a partition of topic {topic_id} "
                        f"beyond its {len(owner_of)} partitions."
                    ) from None
            # An unchanged target is shared with the spec; _editable copies before any change.
            base.append(kept if kept is not None else old if type(old) is dict else dict(old))

    def _move(self, topic_id: str, partition: int, member: int) -> None:
        """Move `partition` from its current owner to `member` (balancing only)."""
        owner_of = self.owners[topic_id]
        previous = owner_of[partition]
        self._mutable_topic(previous, topic_id).discard(partition)
        self.sizes[previous] -= 1
        self._mutable_topic(member, topic_id).add(partition)
        owner_of[partition] = member
        self.sizes[member] += 1

    def _editable(self, member: int) -> dict[str, frozenset[int] | set[int]]:
        edited = self.edited[member]
        if edited is None:
            edited = self.edited[member] = dict(self.base[member])
        return edited

    def _mutable_topic(self, member: int, topic_id: str) -> set[int]:
        target = self._editable(member)
        held = target.get(topic_id)
        if not isinstance(held, set):
            held = target[topic_id] = set(held or ())
            self.unfrozen.add(member)
        return held

    def _assign_unassigned(self) -> None:
        unassigned: dict[str, list[int]] = {}
        imported: set[str] = set()  # topics of which some member kept partitions
        for topic_id, owner_of in self.owners.items():
            free_count = owner_of.count(-1)  # C-level: most topics are all free or all owned
            if free_count == len(owner_of):
                if free_count:
                    unassigned[topic_id] = list(range(free_count))
                continue
            imported.add(topic_id)
            if free_count:
                unassigned[topic_id] = [p for p, owner in enumerate(owner_of) if owner < 0]
        if not unassigned:
            return
        balancer = LoadBalancer(self.sizes)
        sizes, edited, editable = self.sizes, self.edited, self._editable
        # One frozenset per partition number, shared: most members get one partition of a topic.
        singles = [frozenset((p,)) for p in range(max(map(len, self.owners.values())))]
        for topic_id in sorted(unassigned, key=self._topic_order_key):
            partitions = unassigned[topic_id]
            balancer.reset(self.subscribers[topic_id])
            receivers = balancer.least_loaded_batch(len(partitions))
            owner_of = self.owners[topic_id]
            if len(partitions) == len(owner_of):
                owner_of[:] = receivers  # every partition was free: ``partitions`` is 0..n-1
            else:
                for partition, member in zip(partitions, receivers, strict=True):
                    owner_of[partition] = member
            if topic_id not in imported and len(set(receivers)) == len(receivers):
                # The common case: each receiver gets one partition and held none of the topic.
                for member, partition in zip(receivers, partitions, strict=True):
                    sizes[member] += 1
                    target = edited[member]
                    if target is None:
                        target = editable(member)
                    target[topic_id] = singles[partition]
                continue
            gained: dict[int, list[int]] = {}
            for partition, member in zip(partitions, receivers, strict=True):
                got = gained.get(member)
                if got is None:
                    gained[member] = [partition]
                else:
                    got.append(partition)
            for member, got in gained.items():
                sizes[member] += len(got)
                target = editable(member)
                held = target.get(topic_id)
                target[topic_id] = frozenset(got) if held is None else held.union(got)

    def _balance(self) -> None:
        movable = [t for t, subs in self.subscribers.items() if len(subs) >= 2]
        if not movable:
            return
        ordered = sorted(movable, key=self._topic_order_key)
        balancer = LoadBalancer(self.sizes)
        last_moved = -1
        for _ in range(MAX_ITERATION_COUNT):
            for position, topic_id in enumerate(ordered):
                if position == last_moved:
                    # A whole loop over the topics since the last move: nothing left to do.
                    return
                moved = self._balance_topic(topic_id, balancer)
                if moved > 0 or last_moved == -1:
                    last_moved = position
        self.converged = False

    def _balance_topic(self, topic_id: str, balancer: LoadBalancer) -> int:
        if balancer.reset(self.subscribers[topic_id]) <= 1:
            return 0
        owner_of = self.owners[topic_id]
        # Partitions grouped by owner (stable sort: ascending partition within an owner),
        # so each owner's partitions are a slice [start, end) we can pop from the end.
        by_owner = sorted(range(len(owner_of)), key=owner_of.__getitem__)
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for position, partition in enumerate(by_owner):
            owner = owner_of[partition]
            if owner not in start:
                start[owner] = position
            end[owner] = position + 1

        moved = 0
        while not balancer.is_balanced():
            while True:
                donor = balancer.next_most_loaded()
                if donor == -1 or end.get(donor, 0) - start.get(donor, 0) > 0:
                    break
                balancer.exclude_most_loaded()
            if donor == -1:
                break
            last = end[donor] - 1
            end[donor] = last
            partition = by_owner[last]
            receiver = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            self._move(topic_id, partition, receiver)
            moved += 1
        return moved


def assign_heterogeneous(spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
    return HeterogeneousBuilder(spec, topics).build()
