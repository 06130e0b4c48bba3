"""The range assignor: Kafka's RangeAssignorTest cases, exact."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kgspec.model.assignors.api import (
    GroupSpec,
    MemberSpec,
    PartitionAssignorError,
    SubscriptionType,
)
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.assignors.guarantees import range_problems, validate_assignment
from kgspec.model.assignors.range import RangeAssignor, range_member_order

HOMO = SubscriptionType.HOMOGENEOUS
HETERO = SubscriptionType.HETEROGENEOUS
T1 = "T1-A4s3VTwiI5CTbEp6POw"
T2 = "T2-B4s3VTwiI5YHbPp6YUe"
T3 = "T3-CU8fVTLCz5YMkLoDQsa"

# member id -> (instance id, subscribed topics, previous target)
Members = Mapping[str, tuple[str | None, set[str], dict[str, set[int]]]]


def spec(kind: SubscriptionType, members: Members) -> GroupSpec:
    return GroupSpec(
        members={
            m: MemberSpec(m, instance, None, frozenset(topics), {t: frozenset(p) for t, p in owned.items()})
            for m, (instance, topics, owned) in members.items()
        },
        subscription_type=kind,
    )


def assign(kind: SubscriptionType, counts: dict[str, int], members: Members) -> dict[str, dict[str, set[int]]]:
    result = RangeAssignor().assign(spec(kind, members), MappingTopicDescriber(counts))
    return {m: {t: set(p) for t, p in a.items()} for m, a in result.items()}


def dynamic(topics: set[str], owned: dict[str, set[int]] | None = None) -> tuple[None, set[str], dict[str, set[int]]]:
    return (None, topics, owned or {})


def test_empty_group() -> None:
    assert assign(HOMO, {T1: 3}, {}) == {}


def test_one_member_no_topic() -> None:
    assert assign(HOMO, {}, {"A": dynamic(set())}) == {"A": {}}


@pytest.mark.parametrize("kind", [HOMO, HETERO])
def test_unknown_topic_raises(kind: SubscriptionType) -> None:
    with pytest.raises(PartitionAssignorError, match=T2):
        assign(kind, {T1: 3}, {"A": dynamic({T2})})


def test_first_assignment_two_members_same_subscriptions() -> None:
    got = assign(HOMO, {T1: 3, T3: 2}, {"A": dynamic({T1, T3}), "B": dynamic({T1, T3})})
    assert got == {"A": {T1: {0, 1}, T3: {0}}, "B": {T1: {2}, T3: {1}}}


def test_first_assignment_three_members_different_subscriptions() -> None:
    got = assign(HETERO, {T1: 3, T2: 3, T3: 2}, {
        "A": dynamic({T1, T2}), "B": dynamic({T3}), "C": dynamic({T2, T3}),
    })
    assert got == {"A": {T1: {0, 1, 2}, T2: {0, 1}}, "B": {T3: {0}}, "C": {T2: {2}, T3: {1}}}


def test_more_members_than_partitions() -> None:
    got = assign(HOMO, {T1: 3, T3: 2}, {m: dynamic({T1, T3}) for m in "ABC"})
    assert got == {"A": {T1: {0}, T3: {0}}, "B": {T1: {1}, T3: {1}}, "C": {T1: {2}}}


def test_static_member_rejoining_with_new_id_keeps_its_range() -> None:
    before = assign(HOMO, {T1: 3}, {"A": ("instanceA", {T1}, {}), "B": ("instanceB", {T1}, {})})
    after = assign(HOMO, {T1: 3}, {"B": ("instanceB", {T1}, {}), "A1": ("instanceA", {T1}, {})})
    assert before == {"A": {T1: {0, 1}}, "B": {T1: {2}}}
    assert after == {"A1": {T1: {0, 1}}, "B": {T1: {2}}}


def test_mixed_static_membership_sorts_static_first() -> None:
    members = {"A": ("instanceA", {T1}, {}), "C": ("instanceC", {T1}, {}), "B": dynamic({T1})}
    before = assign(HOMO, {T1: 5}, members)
    assert before == {"A": {T1: {0, 1}}, "C": {T1: {2, 3}}, "B": {T1: {4}}}
    renamed = {"memberA1": ("instanceA", {T1}, {}), "C": members["C"], "B": members["B"]}
    assert assign(HOMO, {T1: 5}, renamed) == {"memberA1": {T1: {0, 1}}, "C": {T1: {2, 3}}, "B": {T1: {4}}}


def test_member_order_static_by_instance_then_dynamic_by_member_id() -> None:
    s = spec(HOMO, {"z": dynamic(set()), "a": ("i2", set(), {}), "b": ("i1", set(), {}), "c": dynamic(set())})
    assert range_member_order(s) == ["b", "a", "c", "z"]


def test_member_order_is_java_utf16_order() -> None:
    # U+FF5E sorts before U+1F600 in UTF-16 code units (0xFF5E < 0xD83D) but not by code point.
    s = spec(HOMO, {"\U0001F600": dynamic(set()), "\uFF5E": dynamic(set())})
    assert range_member_order(s) == ["\U0001F600", "\uFF5E"]


def test_reference_golden_member_added_is_not_sticky() -> None:
    # A owned {0,1}, B {2} on both topics; adding C gives A {0}, B {1}, C {2}.
    got = assign(HOMO, {T1: 3, T2: 3}, {
        "A": dynamic({T1, T2}, {T1: {0, 1}, T2: {0, 1}}),
        "B": dynamic({T1, T2}, {T1: {2}, T2: {2}}),
        "C": dynamic({T1, T2}),
    })
    assert got == {"A": {T1: {0}, T2: {0}}, "B": {T1: {1}, T2: {1}}, "C": {T1: {2}, T2: {2}}}


def test_member_added_beyond_partition_count_gets_nothing() -> None:
    got = assign(HOMO, {T1: 2, T2: 2}, {
        "A": dynamic({T1, T2}, {T1: {0}, T2: {0}}),
        "B": dynamic({T1, T2}, {T1: {1}, T2: {1}}),
        "C": dynamic({T1, T2}),
    })
    assert got == {"A": {T1: {0}, T2: {0}}, "B": {T1: {1}, T2: {1}}, "C": {}}


def test_partition_added() -> None:
    got = assign(HOMO, {T1: 4, T2: 4}, {
        "A": dynamic({T1, T2}, {T1: {0, 1}, T2: {0, 1}}),
        "B": dynamic({T1, T2}, {T1: {2}, T2: {2}}),
    })
    assert got == {"A": {T1: {0, 1}, T2: {0, 1}}, "B": {T1: {2, 3}, T2: {2, 3}}}


def test_member_and_partition_added_heterogeneous() -> None:
    got = assign(HETERO, {T1: 4, T2: 3}, {
        "A": dynamic({T1, T2}, {T1: {0, 1}, T2: {0, 1}}),
        "B": dynamic({T1, T2}, {T1: {2}, T2: {2}}),
        "C": dynamic({T1}),
    })
    assert got == {"A": {T1: {0, 1}, T2: {0, 1}}, "B": {T1: {2}, T2: {2}}, "C": {T1: {3}}}


def test_member_removed() -> None:
    got = assign(HOMO, {T1: 3, T2: 3}, {"B": dynamic({T1, T2}, {T1: {2}, T2: {2}})})
    assert got == {"B": {T1: {0, 1, 2}, T2: {0, 1, 2}}}


def test_multiple_subscriptions_changed() -> None:
    got = assign(HETERO, {T1: 3, T2: 3, T3: 2}, {
        "A": dynamic({T1}, {T1: {0, 1, 2}, T2: {0}}),
        "B": dynamic({T1, T2, T3}, {T2: {1}}),
        "C": dynamic({T2}, {T2: {2}, T3: {0, 1}}),
    })
    assert got == {"A": {T1: {0, 1}}, "B": {T1: {2}, T2: {0, 1}, T3: {0, 1}}, "C": {T2: {2}}}


@settings(max_examples=120, deadline=None)
@given(
    st.dictionaries(st.sampled_from([T1, T2, T3]), st.integers(0, 9), min_size=1),
    st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=6, unique=True),
    st.data(),
)
def test_valid_and_co_partitioned(counts: dict[str, int], member_ids: list[str], data: st.DataObject) -> None:
    topics = sorted(counts)
    hetero = {m: set(data.draw(st.lists(st.sampled_from(topics), unique=True))) for m in member_ids}
    s = spec(HETERO, {m: dynamic(hetero[m]) for m in member_ids})
    result = RangeAssignor().assign(s, MappingTopicDescriber(counts))
    assert validate_assignment(s, MappingTopicDescriber(counts), result) == []
    assert range_problems(s, MappingTopicDescriber(counts), result) == []
    # Every range is contiguous.
    for target in result.values():
        for partitions in target.values():
            assert max(partitions) - min(partitions) + 1 == len(partitions)
    # Homogeneous with equal partition counts: each member gets the same numbers of every topic.
    equal = dict.fromkeys(topics, counts[topics[0]])
    s = spec(HOMO, {m: dynamic(set(topics)) for m in member_ids})
    result = RangeAssignor().assign(s, MappingTopicDescriber(equal))
    for target in result.values():
        assert len({frozenset(p) for p in target.values()}) <= 1
