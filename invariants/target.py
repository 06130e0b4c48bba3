"""Target-assignment validity."""

from __future__ import annotations

from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.hashing import compute_group_hash, compute_topic_hash
from kgspec.model.topics import TopicsImage

TARGET_VALIDITY = "target-validity"


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
    problems: list[str] = []
    seen: dict[tuple[str, int], str] = {}
    for mid in sorted(group.target):
        if mid not in group.members:
            problems.append(f"target for {mid}, which is not a member")
        for topic_id, parts in group.target[mid].items():
            for p in parts:
                first = seen.setdefault((topic_id, p), mid)
                if first != mid:
                    problems.append(f"partition {topic_id}-{p} is in the targets of {first} and {mid}")
    if topics is None or not group.members or not target_is_current(group, topics):
        return problems
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
