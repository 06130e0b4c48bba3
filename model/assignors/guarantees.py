"""What the built-in assignors promise, as checks a trace checker can run.

The uniform assignor's exact output depends on member iteration order (Kafka walks
a HashMap), so a checker must accept any assignment that keeps its promises:

* every assignor (``validate_assignment``): each partition of each topic some member
  subscribes to is in exactly one member's target, and only in the target of a member
  subscribed to its topic; targets name only existing partitions and known members.
  Members missing from the assignment count as empty (TargetAssignmentBuilder gives
  them an empty target).
* uniform, HOMOGENEOUS (``uniform_guarantee_problems``): validity; target sizes
  differ by at most one; and maximal stickiness under that balance. With
  ``q = P // M`` and ``e = P % M``, every member keeps at least ``min(owned, q)`` of
  the partitions it held (and still subscribes to), and in total exactly
  ``sum(min(owned, q)) + min(e, #members owning more than q)`` are kept, the most any
  balanced assignment can keep. Stickiness is only judged when the previous targets
  were themselves disjoint.
* uniform, HETEROGENEOUS: validity only. Kafka's balancing works per topic and stops
  after 16 rounds, so no balance bound holds in general. ``local_balance_problems``
  checks the stronger property the balancing loop reaches when it converges within
  those rounds (always, when the subscribers of each topic share one subscription):
  no partition can move from its owner to another subscriber of its topic that has
  two or more fewer partitions.
* range: deterministic, so ``range_problems`` compares with ``range_expected``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kgspec.model.exclusivity import Exclusive  # the ownership rule: target-validity's overlap half

from .api import GroupAssignment, GroupSpec, SubscriptionType, TopicAssignment, TopicDescriber
from .range import RangeAssignor

AnyAssignment = Mapping[str, TopicAssignment]


def _size(assignment: TopicAssignment) -> int:
    return sum(len(partitions) for partitions in assignment.values())


def validate_assignment(spec: GroupSpec, topics: TopicDescriber, assignment: AnyAssignment) -> list[str]:
    problems: list[str] = []
    owner: Exclusive[str, tuple[str, int]] = Exclusive()
    counts: dict[str, int] = {}

    for member_id, target in assignment.items():
        member = spec.members.get(member_id)
        if member is None:
            if _size(target):
                problems.append(f"member {member_id} is not in the group but has a target")
            continue
        for topic_id, partitions in target.items():
            count = counts.get(topic_id)
            if count is None:
                count = counts[topic_id] = topics.num_partitions(topic_id)
            if topic_id not in member.subscribed_topic_ids and partitions:
                problems.append(
                    f"member {member_id} is assigned {topic_id} {sorted(partitions)} "
                    "but does not subscribe to that topic"
                )
            for partition in sorted(partitions):
                if not 0 <= partition < count:
                    problems.append(
                        f"member {member_id} is assigned {topic_id}-{partition}, which does not "
                        f"exist (topic has {max(count, 0)} partitions)"
                    )
                    continue
                first = owner.claim(member_id, (topic_id, partition))
                if first is not None:
                    problems.append(
                        f"{topic_id}-{partition} is assigned to both {first} and {member_id}"
                    )

    subscribed = sorted({t for m in spec.members.values() for t in m.subscribed_topic_ids})
    for topic_id in subscribed:
        count = topics.num_partitions(topic_id)
        if count == -1:
            problems.append(f"topic {topic_id} is subscribed but unknown")
            continue
        for partition in range(count):
            if (topic_id, partition) not in owner.first:
                problems.append(f"{topic_id}-{partition} is not assigned to any member")
    return problems


def uniform_guarantee_problems(
    spec: GroupSpec, topics: TopicDescriber, assignment: AnyAssignment
) -> list[str]:
    problems = validate_assignment(spec, topics, assignment)
    if spec.subscription_type is SubscriptionType.HOMOGENEOUS and spec.members:
        problems += _homogeneous_balance_problems(spec, assignment)
        if not problems:
            problems += _stickiness_problems(spec, topics, assignment)
    return problems


def _homogeneous_balance_problems(spec: GroupSpec, assignment: AnyAssignment) -> list[str]:
    sizes = {m: _size(assignment.get(m, {})) for m in spec.members}
    smallest = min(sizes, key=sizes.__getitem__)
    largest = max(sizes, key=sizes.__getitem__)
    if sizes[largest] - sizes[smallest] <= 1:
        return []
    return [
        f"unbalanced: member {largest} has {sizes[largest]} partitions but member "
        f"{smallest} has {sizes[smallest]} (homogeneous targets may differ by at most 1)"
    ]


def _previously_owned(spec: GroupSpec, topics: TopicDescriber) -> dict[str, set[tuple[str, int]]] | None:
    """Each member's previous partitions that it still subscribes to; None if they overlap."""
    owned: dict[str, set[tuple[str, int]]] = {}
    seen: set[tuple[str, int]] = set()
    for member_id, member in spec.members.items():
        mine: set[tuple[str, int]] = set()
        for topic_id, partitions in member.assignment.items():
            if topic_id not in member.subscribed_topic_ids:
                continue
            count = topics.num_partitions(topic_id)
            for partition in partitions:
                if 0 <= partition < count:
                    key = (topic_id, partition)
                    if key in seen:
                        return None
                    seen.add(key)
                    mine.add(key)
        owned[member_id] = mine
    return owned


def _stickiness_problems(spec: GroupSpec, topics: TopicDescriber, assignment: AnyAssignment) -> list[str]:
    owned = _previously_owned(spec, topics)
    if owned is None:
        return []
    subscribed = next(iter(spec.members.values())).subscribed_topic_ids
    total = sum(max(topics.num_partitions(t), 0) for t in subscribed)
    quota, extra = divmod(total, len(spec.members))

    problems: list[str] = []
    kept_total = 0
    for member_id, previous in owned.items():
        now = {(t, p) for t, ps in assignment.get(member_id, {}).items() for p in ps}
        kept = len(previous & now)
        kept_total += kept
        entitled = min(len(previous), quota)
        if kept < entitled:
            lost = sorted(previous - now)[:5]
            problems.append(
                f"member {member_id} kept {kept} of its {len(previous)} partitions but is "
                f"entitled to keep {entitled}; it lost e.g. {', '.join(f'{t}-{p}' for t, p in lost)}"
            )
    over_quota = sum(1 for previous in owned.values() if len(previous) > quota)
    best = sum(min(len(p), quota) for p in owned.values()) + min(extra, over_quota)
    if kept_total != best:
        problems.append(
            f"not maximally sticky: {kept_total} previously assigned partitions stayed with "
            f"their owner, a balanced assignment can keep {best}"
        )
    return problems


def local_balance_problems(
    spec: GroupSpec, topics: TopicDescriber, assignment: AnyAssignment
) -> list[str]:
    """Partitions that could move to a subscriber of their topic with 2+ fewer partitions."""
    sizes = {m: _size(assignment.get(m, {})) for m in spec.members}
    subscribers: dict[str, list[str]] = {}
    for member_id, member in spec.members.items():
        for topic_id in member.subscribed_topic_ids:
            subscribers.setdefault(topic_id, []).append(member_id)
    problems: list[str] = []
    for topic_id in sorted(subscribers):
        members = subscribers[topic_id]
        if len(members) < 2:
            continue
        lightest = min(members, key=sizes.__getitem__)
        for member_id in members:
            partitions = assignment.get(member_id, {}).get(topic_id)
            if partitions and sizes[member_id] - sizes[lightest] >= 2:
                problems.append(
                    f"{topic_id}-{min(partitions)} could move from member {member_id} "
                    f"({sizes[member_id]} partitions) to member {lightest} ({sizes[lightest]})"
                )
    return problems


def range_expected(spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
    return RangeAssignor().assign(spec, topics)


def range_problems(spec: GroupSpec, topics: TopicDescriber, assignment: AnyAssignment) -> list[str]:
    """Differences from the one assignment the range assignor can produce."""
    expected = range_expected(spec, topics)
    problems: list[str] = []
    for member_id in sorted(expected.keys() | assignment.keys()):
        want = {t: p for t, p in expected.get(member_id, {}).items() if p}
        got = {t: frozenset(p) for t, p in assignment.get(member_id, {}).items() if p}
        for topic_id in sorted(want.keys() | got.keys()):
            w = sorted(want.get(topic_id, frozenset()))
            g = sorted(got.get(topic_id, frozenset()))
            if w != g:
                problems.append(f"member {member_id} has {topic_id} {g}, range assigns {w}")
    return problems
