"""Target-assignment validity."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kgspec.invariants.catalogue import TARGET_VALIDITY
from kgspec.invariants.exclusivity import Exclusive
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.hashing import compute_group_hash, compute_topic_hash
from kgspec.model.topics import TopicsImage


def subscribed_names(group: ConsumerGroup, member_id: str) -> set[str]:
    """Topic names a member subscribes to: its names plus its resolved regex, if any."""
    member = group.members[member_id]
    names = set(member.subscribed_topic_names)
    regex = member.subscribed_topic_regex
    if regex and regex in group.resolved_regexes:
        names |= group.resolved_regexes[regex].topics
    return names


def target_is_current(group: ConsumerGroup, topics: TopicsImage) -> bool:
    """The target was computed for the group as it is now.

    The group epoch equals the assignment epoch and the subscribed topics' metadata hash
    is the one the group recorded, so no membership, subscription or metadata change is
    waiting for the next computation (assignment batching, metadata refresh).
    """
    if group.group_epoch != group.assignment_epoch:
        return False
    hashes: dict[str, int] = {}
    for mid in group.members:
        for name in subscribed_names(group, mid):
            info = topics.by_name(name)
            if info is not None and name not in hashes:
                hashes[name] = compute_topic_hash(info.topic_id, info.name, info.partitions)
    return compute_group_hash(hashes) == group.metadata_hash


def target_validity(group: ConsumerGroup, topics: TopicsImage | None = None) -> list[str]:
    """Target validity.

    Always: targets exist only for members, and a partition is in at most one member's
    target. When the target is current (see :func:`target_is_current`) and some member
    subscribes to a topic: every partition of every subscribed, existing topic is in
    exactly one target, and only in the target of a member subscribed to that topic.
    Check it at a TargetAssignmentMetadata record (or after a whole call): a new target is
    written one member at a time.
    """
    problems = [f"target for {mid}, which is not a member" for mid in sorted(group.target)
                if mid not in group.members]
    problems += [message for _, message in target_overlaps(group.target)]
    if topics is None or not group.members or not target_is_current(group, topics):
        return problems
    seen = {(topic_id, p): mid for mid in sorted(group.target, reverse=True)
            for topic_id, parts in group.target[mid].items() for p in parts}  # the first holder wins
    by_topic: dict[str, set[str]] = {}
    for mid in group.members:
        for name in subscribed_names(group, mid):
            found = topics.id_of(name)
            if found is not None:
                by_topic.setdefault(found, set()).add(mid)
    for topic_id, subscribers in sorted(by_topic.items()):
        for p in range(topics.num_partitions(topic_id)):
            owner = seen.get((topic_id, p))
            if owner is None:
                problems.append(f"partition {topic_id}-{p} of a subscribed topic is in no target")
            elif owner not in subscribers:
                problems.append(f"partition {topic_id}-{p} is in the target of {owner}, "
                                f"which does not subscribe to it")
    for (topic_id, p), owner in sorted(seen.items()):
        if topic_id not in by_topic:
            problems.append(f"partition {topic_id}-{p} in {owner}'s target belongs to no subscribed topic")
        elif p >= topics.num_partitions(topic_id):
            problems.append(f"partition {topic_id}-{p} in {owner}'s target does not exist")
    return problems


def target_overlaps(target: Mapping[str, Mapping[str, Iterable[int]]]) -> list[tuple[str, str]]:
    """``target-validity``'s overlap half: (name, message) for each partition in the targets of
    two members (``target``: member id -> topic id -> partitions). Record replay checks it at
    the target-assignment metadata record, the simulator through :func:`target_validity`."""
    if _disjoint(target):
        return []  # the common case, decided without sorting
    owners: Exclusive[str, tuple[str, int]] = Exclusive()
    problems: list[tuple[str, str]] = []
    for member_id, assignment in sorted(target.items()):
        for topic_id, parts in assignment.items():
            for p in sorted(parts):
                other = owners.claim(member_id, (topic_id, p))
                if other is not None:
                    problems.append((TARGET_VALIDITY,
                                     f"partition {topic_id}-{p} is in the targets of both {other} and {member_id}"))
    return problems


def _disjoint(target: Mapping[str, Mapping[str, Iterable[int]]]) -> bool:
    """Whether no partition is in the targets of two members (``target_overlaps`` finds none).

    False also for member ids other than strings (a broken record's key), which the general
    path sorts as it always has."""
    owned: dict[str, set[int]] = {}
    for member_id, assignment in target.items():
        if type(member_id) is not str:
            return False
        for topic_id, parts in assignment.items():
            seen = owned.get(topic_id)
            if seen is None:
                owned[topic_id] = set(parts)
            elif seen.isdisjoint(parts):
                seen.update(parts)
            else:
                return False
    return True
