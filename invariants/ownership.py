"""Ownership invariants: a partition has at most one owner, on both sides of the protocol."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from kgspec.invariants.exclusivity import Exclusive
from kgspec.model.consumer.group import ConsumerGroup


def no_double_ownership(group: ConsumerGroup) -> list[str]:
    """No double ownership (coordinator side).

    A partition is in at most one member's assigned ∪ pending-revocation set, and never in
    both sets of the same member. This is what ``ConsumerGroup.addPartitionEpochs`` guards
    in Kafka (KAFKA-16147 broke it).
    """
    owners: Exclusive[str, tuple[str, int]] = Exclusive()
    problems: list[str] = []
    for mid, member in group.members.items():
        for topic_id, parts in member.pending_revocation.items():
            both = parts.keys() & member.assigned.get(topic_id, {}).keys()
            if both:
                problems.append(f"member {mid} holds {topic_id}-{sorted(both)} both assigned and "
                                f"pending revocation")
        for holding in (member.assigned, member.pending_revocation):
            for topic_id, parts in holding.items():
                for p in parts:
                    first = owners.claim(mid, (topic_id, p))
                    if first is not None:
                        problems.append(f"partition {topic_id}-{p} is held by both {first} and {mid}")
    return problems


def partition_epoch_index(group: ConsumerGroup) -> list[str]:
    """The partition-epoch index is derived state.

    ``currentPartitionEpoch(t, p)`` equals the member epoch of the one member holding
    ``t-p`` (assigned or pending revocation), and is absent (-1) for a free partition.
    The coordinator withholds partitions by this index, so a stale entry lets it grant a
    partition that is still owned.
    """
    expected: dict[str, dict[int, int]] = {}
    for member in group.members.values():
        for holding in (member.assigned, member.pending_revocation):
            for topic_id, parts in holding.items():
                slot = expected.setdefault(topic_id, {})
                for p in parts:
                    slot[p] = member.member_epoch
    actual = group.partition_epochs
    problems: list[str] = []
    for topic_id in sorted(set(expected) | set(actual)):
        want, have = expected.get(topic_id, {}), actual.get(topic_id, {})
        for p in sorted(set(want) | set(have)):
            if want.get(p, -1) != have.get(p, -1):
                problems.append(f"partition {topic_id}-{p}: index says epoch {have.get(p, -1)}, "
                                f"its holder's member epoch is {want.get(p, -1)}")
    return problems


def client_no_double_ownership(beliefs: Mapping[str, Mapping[str, AbstractSet[int]]]) -> list[str]:
    """No double ownership (client side).

    No two clients in good standing believe they own the same partition at the same time.
    ``beliefs`` maps each such client to the partitions (topic id -> partitions) it has made
    effective. *Good standing* is the caller's filter: the coordinator still has the
    client's member id at the client's member epoch. A client the coordinator has fenced
    but that has not heard of it yet (a zombie) is excluded: Kafka fences its commits by
    epoch instead (KIP-1251), so its belief is not ownership.
    """
    owners: Exclusive[str, tuple[str, int]] = Exclusive()
    problems: list[str] = []
    for client in sorted(beliefs):
        for topic_id, parts in beliefs[client].items():
            for p in parts:
                first = owners.claim(client, (topic_id, p))
                if first is not None:
                    problems.append(f"clients {first} and {client} both own {topic_id}-{p}")
    return problems
