"""The uniform assignor: Kafka's golden cases plus validity, balance and stickiness properties."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kgspec.model.assignors import ASSIGNORS, DEFAULT_ASSIGNOR, get_assignor
from kgspec.model.assignors.api import (
    GroupAssignment,
    GroupSpec,
    MemberSpec,
    PartitionAssignorError,
    SubscriptionType,
)
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.assignors.guarantees import local_balance_problems, uniform_guarantee_problems
from kgspec.model.assignors.topic_order import java_hash_set_order
from kgspec.model.assignors.uniform import UniformAssignor
from kgspec.model.assignors.uniform_heterogeneous import HeterogeneousBuilder

HOMO = SubscriptionType.HOMOGENEOUS
HETERO = SubscriptionType.HETEROGENEOUS

# Topic ids used by Kafka's OptimizedUniformAssignmentBuilderTest and
# UniformHeterogeneousAssignmentBuilderTest.
T1 = "T1-A4s3VTwiI5CTbEp6POw"
T2 = "T2-B4s3VTwiI5YHbPp6YUe"
T3 = "T3-CU8fVTLCz5YMkLoDQsa"
T4 = "T4-Tw9fVTLCz5HbPp6YQsa"

Subs = Mapping[str, tuple[set[str], dict[str, set[int]]]]


def spec(kind: SubscriptionType, members: Subs) -> GroupSpec:
    return GroupSpec(
        members={
            member_id: MemberSpec(
                member_id=member_id,
                instance_id=None,
                rack_id=None,
                subscribed_topic_ids=frozenset(topics),
                assignment={t: frozenset(p) for t, p in owned.items()},
            )
            for member_id, (topics, owned) in members.items()
        },
        subscription_type=kind,
    )


def plain(assignment: GroupAssignment) -> dict[str, dict[str, set[int]]]:
    return {m: {t: set(p) for t, p in a.items()} for m, a in assignment.items()}


def assign(kind: SubscriptionType, counts: dict[str, int], members: Subs) -> dict[str, dict[str, set[int]]]:
    return plain(UniformAssignor().assign(spec(kind, members), MappingTopicDescriber(counts)))


def test_registry() -> None:
    assert set(ASSIGNORS) == {"uniform", "range"}
    assert DEFAULT_ASSIGNOR == "uniform"
    assert get_assignor("uniform").name == "uniform"
    assert get_assignor("range").name == "range"
    with pytest.raises(PartitionAssignorError):
        get_assignor("sticky")


def test_java_hash_set_order_matches_kafka_iteration() -> None:
    # Kafka's goldens imply topic3 is visited before topic1 in a HashSet.
    assert java_hash_set_order([T1, T3]) == [T3, T1]


# --- homogeneous: Kafka's OptimizedUniformAssignmentBuilderTest -------------------------

@pytest.mark.parametrize("kind", [HOMO, HETERO])
def test_empty_group_and_no_subscriptions(kind: SubscriptionType) -> None:
    assert assign(kind, {T1: 3}, {}) == {}
    assert assign(kind, {T1: 3}, {"A": (set(), {}), "B": (set(), {})}) == {}


@pytest.mark.parametrize("kind", [HOMO, HETERO])
def test_unknown_topic_raises(kind: SubscriptionType) -> None:
    with pytest.raises(PartitionAssignorError, match=T2):
        assign(kind, {T1: 3}, {"A": ({T2}, {})})


def test_homogeneous_first_assignment_two_members_two_topics() -> None:
    got = assign(HOMO, {T1: 3, T3: 2}, {"A": ({T1, T3}, {}), "B": ({T1, T3}, {})})
    assert got == {"A": {T3: {0, 1}}, "B": {T1: {0, 1, 2}}}


def test_homogeneous_more_members_than_partitions() -> None:
    got = assign(HOMO, {T3: 2}, {m: ({T3}, {}) for m in "ABC"})
    assert got == {"A": {}, "B": {T3: {0}}, "C": {T3: {1}}}


def test_homogeneous_unbalanced_previous_assignment() -> None:
    got = assign(HOMO, {T1: 3, T2: 3}, {
        "A": ({T1, T2}, {T1: {0, 1}, T2: {0, 1}}),
        "B": ({T1, T2}, {T1: {2}, T2: {2}}),
    })
    assert got == {"A": {T1: {0, 1}, T2: {0}}, "B": {T1: {2}, T2: {1, 2}}}


def test_homogeneous_partitions_added() -> None:
    got = assign(HOMO, {T1: 6, T2: 5}, {
        "A": ({T1, T2}, {T1: {0, 2}, T2: {0}}),
        "B": ({T1, T2}, {T1: {1}, T2: {1, 2}}),
    })
    assert got == {"A": {T1: {0, 2}, T2: {0, 3, 4}}, "B": {T1: {1, 3, 4, 5}, T2: {1, 2}}}


def test_homogeneous_member_added_reference_golden() -> None:
    got = assign(HOMO, {T1: 3, T2: 3}, {
        "A": ({T1, T2}, {T1: {0, 2}, T2: {0}}),
        "B": ({T1, T2}, {T1: {1}, T2: {1, 2}}),
        "C": ({T1, T2}, {}),
    })
    assert got == {"A": {T1: {0, 2}}, "B": {T1: {1}, T2: {1}}, "C": {T2: {0, 2}}}


def test_homogeneous_member_removed() -> None:
    got = assign(HOMO, {T1: 3, T2: 3}, {
        "A": ({T1, T2}, {T1: {0}, T2: {0}}),
        "B": ({T1, T2}, {T1: {1}, T2: {1}}),
    })
    assert got == {"A": {T1: {0}, T2: {0, 2}}, "B": {T1: {1, 2}, T2: {1}}}


def test_homogeneous_subscription_removed() -> None:
    got = assign(HOMO, {T1: 2, T2: 2}, {
        "A": ({T2}, {T1: {0}, T2: {0}}),
        "B": ({T2}, {T1: {1}, T2: {1}}),
    })
    assert got == {"A": {T2: {0}}, "B": {T2: {1}}}


def test_homogeneous_stickiness_when_already_balanced_kafka_18688() -> None:
    # Two members need an extra partition; A and C already hold one, so B must not take it.
    got = assign(HOMO, {T1: 5}, {
        "A": ({T1}, {T1: {0, 3}}),
        "B": ({T1}, {T1: {1}}),
        "C": ({T1}, {T1: {2, 4}}),
    })
    assert got == {"A": {T1: {0, 3}}, "B": {T1: {1}}, "C": {T1: {2, 4}}}


def test_homogeneous_last_members_must_take_the_extra_slot() -> None:
    # 4 partitions, 3 members: one extra slot. A and B own one each and give it up;
    # C is the last member and must take it even though it owns nothing.
    got = assign(HOMO, {T1: 4}, {
        "A": ({T1}, {T1: {0}}),
        "B": ({T1}, {T1: {1}}),
        "C": ({T1}, {}),
    })
    assert got == {"A": {T1: {0}}, "B": {T1: {1}}, "C": {T1: {2, 3}}}


def test_homogeneous_unchanged_targets_are_returned_equal() -> None:
    members = {"A": ({T1}, {T1: {0, 1}}), "B": ({T1}, {T1: {2, 3}})}
    assert assign(HOMO, {T1: 4}, members) == {"A": {T1: {0, 1}}, "B": {T1: {2, 3}}}


# --- heterogeneous: Kafka's UniformHeterogeneousAssignmentBuilderTest --------------------

def test_hetero_first_assignment_two_members_two_topics() -> None:
    got = assign(HETERO, {T1: 3, T3: 6}, {"A": ({T1, T3}, {}), "B": ({T3}, {})})
    assert got == {"A": {T1: {0, 1, 2}, T3: {4}}, "B": {T3: {0, 1, 2, 3, 5}}}


def test_hetero_more_members_than_partitions() -> None:
    got = assign(HETERO, {T1: 2, T3: 1}, {"A": ({T3}, {}), "B": ({T3}, {}), "C": ({T1}, {})})
    assert got == {"A": {T3: {0}}, "B": {}, "C": {T1: {0, 1}}}


def test_hetero_unbalanced_previous_three_topics() -> None:
    got = assign(HETERO, {T1: 6, T2: 4, T3: 4}, {
        "A": ({T1}, {T1: {0, 1, 2}}),
        "B": ({T1, T2}, {T1: {3}, T2: {0}}),
        "C": ({T1, T2, T3}, {T1: {4, 5}, T2: {1, 2, 3}, T3: {0, 1, 2, 3}}),
    })
    assert got == {
        "A": {T1: {0, 1, 2, 5}},
        "B": {T1: {3}, T2: {0, 1, 2, 3}},
        "C": {T1: {4}, T3: {0, 1, 2, 3}},
    }


def test_hetero_partitions_added() -> None:
    got = assign(HETERO, {T1: 6, T2: 5, T3: 3, T4: 3}, {
        "A": ({T1, T3}, {T1: {0, 1, 2, 3}, T3: {0, 1}}),
        "B": ({T1, T2, T3, T4}, {T2: {0, 1, 2}, T4: {0, 1, 2}}),
    })
    assert got == {
        "A": {T1: {0, 1, 2, 3, 4, 5}, T3: {0, 1, 2}},
        "B": {T2: {0, 1, 2, 3, 4}, T4: {0, 1, 2}},
    }


def test_hetero_member_and_partitions_added() -> None:
    got = assign(HETERO, {T1: 6, T2: 7}, {
        "A": ({T1}, {T1: {0, 2}, T2: {0}}),
        "B": ({T1, T2}, {T1: {1}, T2: {1, 2}}),
        "C": ({T1, T2}, {}),
    })
    assert got == {
        "A": {T1: {0, 2, 3, 4, 5}},
        "B": {T1: {1}, T2: {1, 2, 6}},
        "C": {T2: {0, 3, 4, 5}},
    }


def test_hetero_member_removed() -> None:
    got = assign(HETERO, {T1: 3, T2: 8, T3: 3}, {
        "A": ({T1, T3}, {T1: {0, 1, 2}, T3: {0, 1}}),
        "B": ({T2}, {T2: {3, 4, 5, 6}}),
    })
    assert got == {"A": {T1: {0, 1, 2}, T3: {0, 1, 2}}, "B": {T2: set(range(8))}}


def test_hetero_subscription_removed() -> None:
    got = assign(HETERO, {T1: 3, T2: 5}, {
        "A": ({T1}, {T1: {0, 2}, T2: {1, 3}}),
        "B": ({T1, T2}, {T1: {1}, T2: {0, 2, 4}}),
    })
    assert got == {"A": {T1: {0, 1, 2}}, "B": {T2: {0, 1, 2, 3, 4}}}


def test_hetero_partitions_run_out_before_balance() -> None:
    got = assign(HETERO, {T1: 2, T2: 2, T3: 2}, {
        "A": ({T1, T2, T3}, {T1: {0, 1}, T2: {0, 1}, T3: {0, 1}}),
        "B": ({T1, T2, T3}, {}),
    })
    assert got == {"A": {T2: {0}, T3: {0, 1}}, "B": {T1: {0, 1}, T2: {1}}}


def test_hetero_member_without_subscriptions_gets_empty_target() -> None:
    got = assign(HETERO, {T1: 3}, {"A": ({T1}, {}), "B": (set(), {})})
    assert got == {"A": {T1: {0, 1, 2}}, "B": {}}


def test_hetero_overlapping_subscriptions_javadoc_example_is_locally_balanced() -> None:
    # The builder's Javadoc: M1 on t1, M2 on t1+t2, M3 on t2 can end 9/10/11.
    members: Subs = {"M1": ({T1}, {}), "M2": ({T1, T2}, {}), "M3": ({T2}, {})}
    s = spec(HETERO, members)
    counts = MappingTopicDescriber({T1: 19, T2: 11})
    result = UniformAssignor().assign(s, counts)
    assert uniform_guarantee_problems(s, counts, result) == []
    assert local_balance_problems(s, counts, result) == []


# --- properties ---------------------------------------------------------------------

TOPIC_POOL = [T1, T2, T3, T4]


@st.composite
def homogeneous_case(draw: st.DrawFn) -> tuple[GroupSpec, MappingTopicDescriber]:
    topics = draw(st.lists(st.sampled_from(TOPIC_POOL), min_size=1, max_size=4, unique=True))
    counts = {t: draw(st.integers(0, 12)) for t in topics}
    member_ids = draw(st.lists(st.sampled_from("ABCDEFGH"), min_size=1, max_size=8, unique=True))
    # A previous target: a random partial, disjoint assignment, plus stale topics.
    owned: dict[str, dict[str, set[int]]] = {m: {} for m in member_ids}
    for t, n in counts.items():
        for p in range(n):
            holder = draw(st.sampled_from([None, *member_ids]))
            if holder is not None:
                owned[holder].setdefault(t, set()).add(p)
    subs = set(topics)
    return spec(HOMO, {m: (subs, owned[m]) for m in member_ids}), MappingTopicDescriber(counts)


@settings(max_examples=150, deadline=None)
@given(homogeneous_case())
def test_homogeneous_valid_balanced_maximally_sticky(case: tuple[GroupSpec, MappingTopicDescriber]) -> None:
    s, counts = case
    result = UniformAssignor().assign(s, counts)
    assert uniform_guarantee_problems(s, counts, result) == []
    # Running again on its own output changes nothing (a stable target).
    again = spec(HOMO, {m: (set(s.members[m].subscribed_topic_ids), {t: set(p) for t, p in a.items()})
                        for m, a in result.items()}) if result else s
    assert plain(UniformAssignor().assign(again, counts)) == plain(result)


@st.composite
def heterogeneous_case(draw: st.DrawFn) -> tuple[GroupSpec, MappingTopicDescriber]:
    counts = {t: draw(st.integers(0, 10)) for t in TOPIC_POOL}
    member_ids = draw(st.lists(st.sampled_from("ABCDEFGH"), min_size=1, max_size=8, unique=True))
    subs = {m: set(draw(st.lists(st.sampled_from(TOPIC_POOL), max_size=4, unique=True)))
            for m in member_ids}
    owned: dict[str, dict[str, set[int]]] = {m: {} for m in member_ids}
    for t, n in counts.items():
        for p in range(n):
            holder = draw(st.sampled_from([None, *member_ids]))
            if holder is not None:  # may hold a topic it no longer subscribes to
                owned[holder].setdefault(t, set()).add(p)
    return spec(HETERO, {m: (subs[m], owned[m]) for m in member_ids}), MappingTopicDescriber(counts)


@settings(max_examples=150, deadline=None)
@given(heterogeneous_case())
def test_heterogeneous_valid_and_locally_balanced(case: tuple[GroupSpec, MappingTopicDescriber]) -> None:
    s, counts = case
    builder = HeterogeneousBuilder(s, counts)
    result = builder.build()
    assert uniform_guarantee_problems(s, counts, result) == []
    if builder.converged:
        assert local_balance_problems(s, counts, result) == []


@settings(max_examples=60, deadline=None)
@given(heterogeneous_case())
def test_heterogeneous_identical_subscriptions_behave_like_homogeneous_balance(
    case: tuple[GroupSpec, MappingTopicDescriber],
) -> None:
    s, counts = case
    first = next(iter(s.members.values())).subscribed_topic_ids
    same = spec(HETERO, {m: (set(first), {t: set(p) for t, p in ms.assignment.items()})
                         for m, ms in s.members.items()})
    result = UniformAssignor().assign(same, counts)
    sizes = [sum(len(p) for p in a.values()) for a in result.values()]
    assert not sizes or max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("also_unsubscribed", [False, True])
def test_hetero_partition_beyond_the_topic_fails_like_kafka(also_unsubscribed: bool) -> None:
    # Kafka indexes an array by partition: an out-of-bounds partition fails the assignment.
    # Both import paths (every topic still subscribed, or some dropped) say so.
    owned = {T1: {0, 5}, **({T3: {0}} if also_unsubscribed else {})}
    with pytest.raises(PartitionAssignorError) as info:
        assign(HETERO, {T1: 2, T2: 2}, {"A": ({T1}, owned), "B": ({T2}, {})})
    assert str(info.value) == f"Member A holds a partition of topic {T1} beyond its 2 partitions."
