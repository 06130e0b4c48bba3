"""Hypothesis strategies for assignor inputs (needs ``kgspec[fuzz]``): docs/assignors.md §6.

Consumer side: ``topic_ids``, ``topic_metadata`` (topic id -> partition count), ``subscriptions``,
``current_assignments`` (previous targets: disjoint by default), ``group_specs`` (a ``ConsumerCase``:
spec + metadata, the subscription type derived from the subscriptions as Kafka derives it) and
``incremental_changes`` (a case after the assignor's result is fed back and the group changes).
Streams side: ``topologies``, ``task_group_specs``. Everything shrinks towards few members,
few topics and small partition counts, so a failure is reported at its smallest.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kgspec.model.assignors.api import GroupAssignment, GroupSpec, MemberSpec, SubscriptionType
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.streams.assignor import SubtopologyTasks, TaskMemberSpec
from kgspec.model.streams.task_api import TaskGroupSpec

TopicAssignment = dict[str, frozenset[int]]


@dataclass(frozen=True, slots=True)
class ConsumerCase:
    """One consumer assignor input."""

    spec: GroupSpec
    partitions: Mapping[str, int]  # topic id -> partition count

    @property
    def topics(self) -> MappingTopicDescriber:
        return MappingTopicDescriber(self.partitions)

    def to_json(self) -> dict[str, Any]:
        """The case as the exec protocol's request (kgspec/external.py), to replay anywhere."""
        from kgspec.external import consumer_request

        return consumer_request("case", self.spec, self.topics)


def topic_ids() -> st.SearchStrategy[str]:
    """Kafka Uuid strings (22 URL-safe base64 characters); shrinks to AAAAAAAAAAAAAAAAAAAAAA."""
    return st.binary(min_size=16, max_size=16).map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="))


def topic_metadata(min_topics: int = 1, max_topics: int = 4, max_partitions: int = 8) -> st.SearchStrategy[dict[str, int]]:
    return st.dictionaries(topic_ids(), st.integers(1, max_partitions), min_size=min_topics, max_size=max_topics)


def subscriptions(topics: Sequence[str], members: int, homogeneous: bool | None = None
                  ) -> st.SearchStrategy[list[frozenset[str]]]:
    """``members`` subscriptions to non-empty subsets of ``topics`` (all equal when homogeneous)."""
    subset = st.sets(st.sampled_from(sorted(topics)), min_size=1).map(frozenset)
    if homogeneous is True:
        return subset.map(lambda s: [s] * members)
    same = subset.map(lambda s: [s] * members)
    mixed = st.lists(subset, min_size=members, max_size=members)
    return mixed if homogeneous is False else st.one_of(same, mixed)


@st.composite
def current_assignments(draw: st.DrawFn, partitions: Mapping[str, int], subscribed: Mapping[str, frozenset[str]],
                        disjoint: bool = True) -> dict[str, TopicAssignment]:
    """Previous targets: each partition of a topic owned by at most one subscriber (``disjoint``)
    or, when not, possibly by several members, subscribers or not (what a buggy history leaves)."""
    members = sorted(subscribed)
    owned: dict[str, dict[str, set[int]]] = {m: {} for m in members}
    for topic_id, count in sorted(partitions.items()):
        takers = members if not disjoint else [m for m in members if topic_id in subscribed[m]]
        if not takers:
            continue
        # 0 = no owner (what everything shrinks to), k = the k-th taker
        owner = st.integers(0, len(takers))
        for p in range(count):
            for _ in range(1 if disjoint else 2):
                k = draw(owner)
                if k:
                    owned[takers[k - 1]].setdefault(topic_id, set()).add(p)
    return {m: {t: frozenset(ps) for t, ps in a.items()} for m, a in owned.items()}


def subscription_type_of(subs: Sequence[frozenset[str]]) -> SubscriptionType:
    """Kafka's rule without regexes: HOMOGENEOUS iff every member subscribes to the same topics."""
    return SubscriptionType.HOMOGENEOUS if len(set(subs)) <= 1 else SubscriptionType.HETEROGENEOUS


@st.composite
def group_specs(draw: st.DrawFn, min_members: int = 1, max_members: int = 6, homogeneous: bool | None = None,
                with_assignment: bool = True, racks: bool = True, max_topics: int = 4,
                max_partitions: int = 8) -> ConsumerCase:
    """A group: members ``m0``, ``m1``, ... (optionally static and racked), their subscriptions and,
    ``with_assignment``, a disjoint current target; the topic metadata they subscribe to."""
    partitions = draw(topic_metadata(1, max_topics, max_partitions))
    count = draw(st.integers(min_members, max_members))
    subs = draw(subscriptions(list(partitions), count, homogeneous))
    ids = [f"m{i}" for i in range(count)]
    subscribed = dict(zip(ids, subs, strict=True))
    previous = draw(current_assignments(partitions, subscribed)) if with_assignment else {}
    rack = st.sampled_from([None, "rack0", "rack1"]) if racks else st.none()
    members = {}
    for m in ids:
        instance = draw(st.sampled_from([None, f"i-{m}"]))
        members[m] = MemberSpec(m, instance, draw(rack), subscribed[m], previous.get(m, {}))
    return ConsumerCase(GroupSpec(members, subscription_type_of(subs)), partitions)


@st.composite
def incremental_changes(draw: st.DrawFn, case: ConsumerCase, result: GroupAssignment) -> ConsumerCase:
    """``case`` after a rebalance: ``result`` becomes the members' targets, then one change:
    a member joins, one leaves, one changes its subscription, or a topic grows."""
    members = {m: MemberSpec(s.member_id, s.instance_id, s.rack_id, s.subscribed_topic_ids, result.get(m, {}))
               for m, s in case.spec.members.items()}
    partitions = dict(case.partitions)
    change = draw(st.sampled_from(["join", "leave", "resubscribe", "grow"]))
    topics = sorted(partitions)
    if change == "join" or (change == "leave" and len(members) < 2):
        new = f"m{len(members)}"
        while new in members:
            new += "x"
        homo = case.spec.subscription_type is SubscriptionType.HOMOGENEOUS and draw(st.booleans())
        first = next(iter(members.values()))
        subs = first.subscribed_topic_ids if homo else draw(subscriptions(topics, 1, True))[0]
        members[new] = MemberSpec(new, None, None, subs)
    elif change == "leave":
        del members[draw(st.sampled_from(sorted(members)))]
    elif change == "resubscribe":
        who = draw(st.sampled_from(sorted(members)))
        old = members[who]
        members[who] = MemberSpec(who, old.instance_id, old.rack_id, draw(subscriptions(topics, 1, True))[0],
                                  old.assignment)
    else:
        grown = draw(st.sampled_from(topics))
        partitions[grown] += draw(st.integers(1, 4))
    kind = subscription_type_of([m.subscribed_topic_ids for m in members.values()])
    return ConsumerCase(GroupSpec(members, kind), partitions)


def topologies(max_subtopologies: int = 4, max_tasks: int = 6) -> st.SearchStrategy[list[SubtopologyTasks]]:
    """Subtopologies ``0``, ``1``, ... with 1..max_tasks tasks, stateful or not."""
    return st.lists(st.tuples(st.integers(1, max_tasks), st.booleans()), min_size=1, max_size=max_subtopologies).map(
        lambda rows: [SubtopologyTasks(str(i), n, stateful) for i, (n, stateful) in enumerate(rows)])


@st.composite
def task_group_specs(draw: st.DrawFn, max_members: int = 6, max_standby: int = 2,
                     with_assignment: bool = True) -> TaskGroupSpec:
    """Members ``m0``... on processes ``p0``... (some shared), a topology, a standby count and,
    ``with_assignment``, a current target: each task active on at most one member."""
    subs = draw(topologies())
    count = draw(st.integers(1, max_members))
    processes = [f"p{draw(st.integers(0, max(0, count - 1)))}" for _ in range(count)]
    active: dict[str, dict[str, set[int]]] = {f"m{i}": {} for i in range(count)}
    if with_assignment:
        for s in subs:
            for p in range(s.num_tasks):
                owner = draw(st.sampled_from([None, *active]))
                if owner is not None:
                    active[owner].setdefault(s.subtopology_id, set()).add(p)
    members = [TaskMemberSpec(f"m{i}", processes[i], {k: frozenset(v) for k, v in active[f"m{i}"].items()})
               for i in range(count)]
    replicas = draw(st.integers(0, max_standby))
    return TaskGroupSpec(members, subs, replicas, {"num.standby.replicas": str(replicas)})


__all__ = [
    "ConsumerCase",
    "current_assignments",
    "group_specs",
    "incremental_changes",
    "subscription_type_of",
    "subscriptions",
    "task_group_specs",
    "topic_ids",
    "topic_metadata",
    "topologies",
]
