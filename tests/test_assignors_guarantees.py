"""The guarantee checkers flag bad assignments by name, and the subscription-type rule."""

from __future__ import annotations

from kgspec.model.assignors.api import GroupSpec, MemberSpec, SubscriptionType
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.assignors.guarantees import (
    local_balance_problems,
    range_expected,
    range_problems,
    uniform_guarantee_problems,
    validate_assignment,
)
from kgspec.model.assignors.subscription import subscription_type

HOMO = SubscriptionType.HOMOGENEOUS
HETERO = SubscriptionType.HETEROGENEOUS
TOPICS = MappingTopicDescriber({"foo": 4, "bar": 2})


def member(member_id: str, topics: set[str], owned: dict[str, set[int]] | None = None) -> MemberSpec:
    return MemberSpec(member_id, None, None, frozenset(topics),
                      {t: frozenset(p) for t, p in (owned or {}).items()})


def group(kind: SubscriptionType, *members: MemberSpec) -> GroupSpec:
    return GroupSpec({m.member_id: m for m in members}, kind)


def fs(assignment: dict[str, dict[str, set[int]]]) -> dict[str, dict[str, frozenset[int]]]:
    return {m: {t: frozenset(p) for t, p in a.items()} for m, a in assignment.items()}


HOMO_AB = group(HOMO, member("A", {"foo"}), member("B", {"foo"}))


def test_valid_assignment_has_no_problems() -> None:
    assert validate_assignment(HOMO_AB, TOPICS, fs({"A": {"foo": {0, 1}}, "B": {"foo": {2, 3}}})) == []


def test_validity_problems_name_partition_and_member() -> None:
    problems = validate_assignment(HOMO_AB, TOPICS, fs({
        "A": {"foo": {0, 1, 7}, "bar": {0}},
        "B": {"foo": {1}},
        "Z": {"foo": {3}},
    }))
    assert problems == [
        "member A is assigned foo-7, which does not exist (topic has 4 partitions)",
        "member A is assigned bar [0] but does not subscribe to that topic",
        "foo-1 is assigned to both A and B",
        "member Z is not in the group but has a target",
        "foo-2 is not assigned to any member",
        "foo-3 is not assigned to any member",
    ]


def test_missing_member_counts_as_empty_target() -> None:
    assert validate_assignment(HOMO_AB, TOPICS, fs({"A": {"foo": {0, 1, 2, 3}}})) == []
    assert uniform_guarantee_problems(HOMO_AB, TOPICS, fs({"A": {"foo": {0, 1, 2, 3}}})) == [
        "unbalanced: member A has 4 partitions but member B has 0 "
        "(homogeneous targets may differ by at most 1)"
    ]


def test_homogeneous_accepts_a_different_balanced_sticky_assignment() -> None:
    # Kafka's result depends on member order; either member may take the extra slot here.
    s = group(HOMO, member("A", {"foo"}), member("B", {"foo"}), member("C", {"foo"}))
    for assignment in (
        {"A": {"foo": {0, 1}}, "B": {"foo": {2}}, "C": {"foo": {3}}},
        {"A": {"foo": {3}}, "B": {"foo": {0}}, "C": {"foo": {1, 2}}},
    ):
        assert uniform_guarantee_problems(s, TOPICS, fs(assignment)) == []


def test_homogeneous_stickiness_violation_is_named() -> None:
    s = group(HOMO, member("A", {"foo"}, {"foo": {0, 1}}), member("B", {"foo"}, {"foo": {2, 3}}))
    problems = uniform_guarantee_problems(s, TOPICS, fs({"A": {"foo": {0, 2}}, "B": {"foo": {1, 3}}}))
    assert problems == [
        "member A kept 1 of its 2 partitions but is entitled to keep 2; it lost e.g. foo-1",
        "member B kept 1 of its 2 partitions but is entitled to keep 2; it lost e.g. foo-2",
        "not maximally sticky: 2 previously assigned partitions stayed with their owner, "
        "a balanced assignment can keep 4",
    ]


def test_homogeneous_extra_slot_must_go_to_an_owner() -> None:
    # 5 partitions over 2 members: one extra slot. A owned 3: it may keep all 3.
    topics = MappingTopicDescriber({"foo": 5})
    s = group(HOMO, member("A", {"foo"}, {"foo": {0, 1, 2}}), member("B", {"foo"}, {"foo": {3}}))
    good = fs({"A": {"foo": {0, 1, 2}}, "B": {"foo": {3, 4}}})
    bad = fs({"A": {"foo": {0, 1}}, "B": {"foo": {2, 3, 4}}})
    assert uniform_guarantee_problems(s, topics, good) == []
    assert uniform_guarantee_problems(s, topics, bad) == [
        "not maximally sticky: 3 previously assigned partitions stayed with their owner, "
        "a balanced assignment can keep 4"
    ]


def test_heterogeneous_checks_validity_only_and_local_balance_separately() -> None:
    s = group(HETERO, member("A", {"foo"}), member("B", {"foo", "bar"}))
    lopsided = fs({"A": {}, "B": {"foo": {0, 1, 2, 3}, "bar": {0, 1}}})
    assert uniform_guarantee_problems(s, TOPICS, lopsided) == []
    assert local_balance_problems(s, TOPICS, lopsided) == [
        "foo-0 could move from member B (6 partitions) to member A (0)"
    ]


def test_range_problems_compare_with_the_one_range_assignment() -> None:
    s = group(HOMO, member("A", {"foo"}), member("B", {"foo"}))
    assert range_expected(s, TOPICS) == {"A": {"foo": frozenset({0, 1})}, "B": {"foo": frozenset({2, 3})}}
    assert range_problems(s, TOPICS, fs({"A": {"foo": {0, 1}}, "B": {"foo": {2, 3}}})) == []
    assert range_problems(s, TOPICS, fs({"A": {"foo": {0, 2}}, "B": {"foo": {1, 3}}})) == [
        "member A has foo [0, 2], range assigns [0, 1]",
        "member B has foo [1, 3], range assigns [2, 3]",
    ]


# --- ConsumerGroup.subscriptionType --------------------------------------------------

def test_subscription_type_by_name() -> None:
    assert subscription_type({}, {}, {}) is HOMO
    assert subscription_type({"A": set(), "B": set()}, {}, {}) is HOMO
    assert subscription_type({"A": {"foo", "bar"}, "B": {"bar", "foo"}}, {}, {}) is HOMO
    assert subscription_type({"A": {"foo"}, "B": {"foo", "bar"}}, {}, {}) is HETERO
    assert subscription_type({"A": {"foo"}, "B": set()}, {}, {}) is HETERO


def test_subscription_type_with_regex() -> None:
    names = {"A": set[str](), "B": set[str]()}
    both = {"A": "foo.*", "B": "foo.*"}
    resolved = {"foo.*": {"foo1", "foo2"}}
    assert subscription_type(names, both, resolved) is HOMO
    # Unresolved regex: no topics counted yet.
    assert subscription_type(names, both, {}) is HOMO
    # Not every member uses the regex, or two regexes are in use.
    assert subscription_type(names, {"A": "foo.*", "B": None}, resolved) is HETERO
    assert subscription_type(names, {"A": "foo.*", "B": ""}, resolved) is HETERO
    assert subscription_type(names, {"A": "foo.*", "B": "bar.*"}, resolved) is HETERO
    # A topic also subscribed by name, or matched by two resolved regexes.
    assert subscription_type({"A": {"foo1"}, "B": set()}, both, resolved) is HETERO
    assert subscription_type(names, both, {**resolved, "f.*": {"foo1"}}) is HETERO
    # Resolved topics of a regex nobody uses any more still count (Kafka's map does).
    assert subscription_type({"A": {"x"}, "B": {"x"}}, {}, {"old": {"y"}}) is HETERO
