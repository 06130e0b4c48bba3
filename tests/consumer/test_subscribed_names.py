"""``subscribed_topic_names`` read from the group's subscription counters (issue #19) gives the
set the member walk it replaced gave: every member's names and resolved regex, less the members
taken out, with a replacement (and the static member it replaces) swapped in; and the subscription
type counted per distinct subscription is the one counted per member."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st
from kgspec.model.assignors.subscription import classify_subscriptions, subscription_type
from kgspec.model.consumer.group import ConsumerGroup, ResolvedRegex
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.consumer.ops import subscribed_topic_names
from kgspec.model.coordinator import Coordinator

TOPICS = ("a", "b", "c", "d")
REGEXES = ("", "a|b", "c.*", "x")
RESOLVED = {"a|b": frozenset({"a", "b"}), "c.*": frozenset({"c"})}  # "x" stays unresolved


def walk(group: ConsumerGroup, replace: tuple[ConsumerMember, ConsumerMember] | None,
         without: Iterable[str]) -> set[str]:
    """The member walk (the implementation before issue #19), the reference."""
    removed = set(without)
    members = [m for mid, m in group.members.items() if mid not in removed]
    if replace is not None:
        old, new = replace
        members = [m for m in members if m.member_id != old.member_id]
        if new.instance_id is not None:
            prev = group.static_members.get(new.instance_id)
            members = [m for m in members if m.member_id != prev]
        members.append(new)
    names: set[str] = set()
    for m in members:
        names.update(m.subscribed_topic_names)
        if m.subscribed_topic_regex and m.subscribed_topic_regex in group.resolved_regexes:
            names |= group.resolved_regexes[m.subscribed_topic_regex].topics
    return names


member_st = st.builds(
    lambda i, names, regex, instance: ConsumerMember(
        f"m{i}", instance_id=instance, subscribed_topic_names=tuple(sorted(names)), subscribed_topic_regex=regex),
    st.integers(0, 5), st.sets(st.sampled_from(TOPICS)), st.sampled_from(REGEXES),
    st.sampled_from((None, "i1", "i2")))


@settings(max_examples=300, deadline=None)
@given(st.lists(member_st, max_size=8), st.lists(st.integers(0, 5), max_size=3), member_st,
       st.booleans(), st.sets(st.sampled_from(tuple(f"m{i}" for i in range(6)))))
def test_counters_give_the_member_walk(puts: list[ConsumerMember], removals: list[int], new: ConsumerMember,
                                       with_replace: bool, without: set[str]) -> None:
    coord = Coordinator("kafka-4.3")
    group = ConsumerGroup("g", 1)
    for regex, topics in RESOLVED.items():
        group.resolved_regexes[regex] = ResolvedRegex(topics, 0, 0)
    for m in puts:  # a member put again changes its subscription: the counters follow
        group.put_member(m)
    for i in removals:
        group.remove_member(f"m{i}")
    old = group.members.get(new.member_id, ConsumerMember(new.member_id))
    replace = (old, new) if with_replace else None
    assert subscribed_topic_names(coord, group, replace=replace, without=without) == walk(group, replace, without)


def test_static_replacement_drops_the_replaced_members_topics() -> None:
    coord = Coordinator("kafka-4.3")
    group = ConsumerGroup("g", 1)
    group.put_member(ConsumerMember("old", instance_id="i", subscribed_topic_names=("a",)))
    group.put_member(ConsumerMember("other", subscribed_topic_names=("b",)))
    new = ConsumerMember("new", instance_id="i", subscribed_topic_names=("c",))
    assert subscribed_topic_names(coord, group, replace=(ConsumerMember("new"), new)) == {"b", "c"}
    assert subscribed_topic_names(coord, group, without=["other"]) == {"a"}
    assert subscribed_topic_names(coord, group) == {"a", "b"}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(tuple(f"m{i}" for i in range(6))),
                       st.tuples(st.lists(st.sampled_from(TOPICS), max_size=3), st.sampled_from(REGEXES)),
                       min_size=1),
       st.dictionaries(st.sampled_from(REGEXES[1:]), st.sets(st.sampled_from(TOPICS))))
def test_subscription_type_counted_per_distinct_subscription(subs: dict[str, tuple[list[str], str]],
                                                             resolved: dict[str, set[str]]) -> None:
    """The target computation's count per distinct subscription classifies as the per-member form."""
    per_subscription: dict[tuple[tuple[str, ...], str | None], int] = {}
    for names, regex in subs.values():  # names may repeat, as a replayed record's list may
        key = (tuple(names), regex)
        per_subscription[key] = per_subscription.get(key, 0) + 1
    expected = subscription_type({m: names for m, (names, _) in subs.items()},
                                 {m: regex for m, (_, regex) in subs.items()}, resolved)
    assert classify_subscriptions(per_subscription, resolved) == expected
