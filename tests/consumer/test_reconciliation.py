"""Reconciliation: S2 (GroupMetadataManagerTest.testReconciliationProcess) and the
CurrentAssignmentBuilderTest units (S7), UNRELEASED withholding, KAFKA-19449, subscription shrink."""

from __future__ import annotations

import pytest
from kgspec.model.consumer.heartbeat import build_current_assignment
from kgspec.model.consumer.member import (
    STABLE,
    UNKNOWN,
    UNRELEASED_PARTITIONS,
    UNREVOKED_PARTITIONS,
)
from kgspec.model.errors import CoordinatorError

from tests.consumer.helpers import (
    Harness,
    MockAssignor,
    assignment,
    code,
    epoch,
    member,
    tid,
    types,
)


def state(h: Harness, mid: str) -> tuple[int, int, int]:
    m = h.member(mid)
    return m.state, m.member_epoch, m.previous_member_epoch


def test_s2_reconciliation_process() -> None:
    mock = MockAssignor()
    h = Harness({"foo": 6, "bar": 3}, mock=mock)
    h.now = 100_000
    h.seed(10, [member("m1", 10, {"foo": [0, 1, 2], "bar": [0, 1]}, prev=9, assignor="mock"),
                member("m2", 10, {"foo": [3, 4, 5], "bar": [2]}, prev=9, assignor="mock")],
           {"m1": {"foo": [0, 1, 2], "bar": [0, 1]}, "m2": {"foo": [3, 4, 5], "bar": [2]}})
    assert h.group.state == "STABLE"
    mock.prepare({"m1": {"foo": [0, 1], "bar": [0]}, "m2": {"foo": [2, 3], "bar": [2]},
                  "m3": {"foo": [4, 5], "bar": [1]}})

    # (a) m3 joins: epoch 11, UNRELEASED, nothing yet.
    r = h.join("m3", ["foo", "bar"], assignor="mock")
    assert (epoch(r), assignment(r)) == (11, {})
    assert types(r.records)[:2] == ["5", "3"]
    assert sorted(types(r.records)[2:5]) == ["7", "7", "7"]
    assert types(r.records)[5:] == ["6", "8"]
    assert state(h, "m3") == (UNRELEASED_PARTITIONS, 11, 0)
    assert h.group.state == "RECONCILING"

    # (b) m1 heartbeats at 10 (no owned list): revoke foo2, bar1; stays at 10.
    r = h.heartbeat("m1", 10)
    assert (epoch(r), assignment(r)) == (10, {"foo": [0, 1], "bar": [0]})
    assert types(r.records) == ["8"]
    assert state(h, "m1") == (UNREVOKED_PARTITIONS, 10, 10)
    assert h.assigned("m1") == {"foo": {0: 10, 1: 10}, "bar": {0: 10}}
    assert h.pending("m1") == {"foo": {2: 10}, "bar": {1: 10}}

    # (c) m2 heartbeats at 10: revoke foo4, foo5.
    r = h.heartbeat("m2", 10)
    assert (epoch(r), assignment(r)) == (10, {"foo": [3], "bar": [2]})
    assert state(h, "m2") == (UNREVOKED_PARTITIONS, 10, 10)
    assert h.assigned("m2") == {"foo": {3: 10}, "bar": {2: 10}}
    assert h.pending("m2") == {"foo": {4: 10, 5: 10}}

    # (d) m3: still nothing to take; record 8 rewritten with previous epoch 11, no assignment sent.
    r = h.heartbeat("m3", 11)
    assert r.response is not None
    assert (epoch(r), r.response["assignment"]) == (11, None)
    assert types(r.records) == ["8"]
    assert state(h, "m3") == (UNRELEASED_PARTITIONS, 11, 11)

    # (e) m1 acks: STABLE at 11, kept partitions keep assignment epoch 10.
    r = h.heartbeat("m1", 10, {"foo": [0, 1], "bar": [0]})
    assert r.response is not None
    assert (epoch(r), r.response["assignment"]) == (11, None)
    assert state(h, "m1") == (STABLE, 11, 10)
    assert h.assigned("m1") == {"foo": {0: 10, 1: 10}, "bar": {0: 10}}
    assert h.pending("m1") == {}

    # (f) m2 heartbeats without an owned list: nothing changes, nothing written.
    r = h.heartbeat("m2", 10)
    assert r.response is not None
    assert (epoch(r), r.response["assignment"], r.records) == (10, None, [])

    # (g) m3 gets bar1 (released by m1), still waits for foo4, foo5.
    r = h.heartbeat("m3", 11)
    assert (epoch(r), assignment(r)) == (11, {"bar": [1]})
    assert state(h, "m3") == (UNRELEASED_PARTITIONS, 11, 11)
    assert h.assigned("m3") == {"bar": {1: 11}}

    # (h) m2 acks: STABLE at 11 with foo2 at 11, foo3 and bar2 at 10.
    r = h.heartbeat("m2", 10, {"foo": [3], "bar": [2]})
    assert (epoch(r), assignment(r)) == (11, {"foo": [2, 3], "bar": [2]})
    assert state(h, "m2") == (STABLE, 11, 10)
    assert h.assigned("m2") == {"foo": {2: 11, 3: 10}, "bar": {2: 10}}

    # (i) m3 acks bar1: STABLE with foo4, foo5 and bar1; the group is STABLE.
    r = h.heartbeat("m3", 11, {"bar": [1]})
    assert (epoch(r), assignment(r)) == (11, {"foo": [4, 5], "bar": [1]})
    assert state(h, "m3") == (STABLE, 11, 11)
    assert h.assigned("m3") == {"foo": {4: 11, 5: 11}, "bar": {1: 11}}
    assert h.group.state == "STABLE"
    assert h.group.partition_epochs == {
        tid("foo"): {0: 11, 1: 11, 2: 11, 3: 11, 4: 11, 5: 11}, tid("bar"): {0: 11, 1: 11, 2: 11}}


# --- S7: CurrentAssignmentBuilder units --------------------------------------------------------------


T1, T2 = "foo", "bar"


def builder_harness(*members_: object, profile: str = "kafka-4.3") -> Harness:
    h = Harness({"foo": 8, "bar": 8}, profile=profile)
    ms = list(members_)
    h.seed(12, ms, {m.member_id: {} for m in ms})  # type: ignore[attr-defined]
    return h


def build(h: Harness, mid: str, target_epoch: int, target: dict[str, list[int]],
          owned: dict[str, list[int]] | None, subscription_changed: bool = False) -> object:
    owned_ids = None if owned is None else {tid(t): frozenset(p) for t, p in owned.items()}
    return build_current_assignment(h.coord, h.group, h.member(mid), target_epoch,
                                    {tid(t): frozenset(p) for t, p in target.items()},
                                    subscription_changed, owned_ids)


def view(h: Harness, m: object) -> tuple[int, int, int, dict[str, list[int]], dict[str, list[int]]]:
    from tests.consumer.helpers import held_names
    return (m.state, m.member_epoch, m.previous_member_epoch,  # type: ignore[attr-defined]
            held_names(h.coord, m.assigned), held_names(h.coord, m.pending_revocation))  # type: ignore[attr-defined]


def test_stable_to_unrevoked_without_owned() -> None:
    h = builder_harness(member("m", 10, {T1: [1, 2, 3], T2: [4, 5, 6]}))
    m = build(h, "m", 11, {T1: [2, 3, 4], T2: [5, 6, 7]}, None)
    assert view(h, m) == (UNREVOKED_PARTITIONS, 10, 10, {T1: [2, 3], T2: [5, 6]}, {T1: [1], T2: [4]})


def test_stable_to_stable_with_owned_equal_target() -> None:
    h = builder_harness(member("m", 10, {T1: [1, 2, 3], T2: [4, 5, 6]}))
    m = build(h, "m", 11, {T1: [1, 2, 3], T2: [4, 5, 6]}, {T1: [1, 2, 3], T2: [4, 5, 6]})
    assert view(h, m) == (STABLE, 11, 10, {T1: [1, 2, 3], T2: [4, 5, 6]}, {})
    assert m.assigned[tid(T1)] == {1: 10, 2: 10, 3: 10}  # type: ignore[attr-defined]


def test_stable_to_stable_with_new_partitions() -> None:
    h = builder_harness(member("m", 10, {T1: [1, 2, 3], T2: [4, 5, 6]}))
    m = build(h, "m", 11, {T1: [1, 2, 3, 4], T2: [4, 5, 6, 7]}, None)
    assert view(h, m) == (STABLE, 11, 10, {T1: [1, 2, 3, 4], T2: [4, 5, 6, 7]}, {})
    assert m.assigned[tid(T1)] == {1: 10, 2: 10, 3: 10, 4: 11}  # type: ignore[attr-defined]


def test_unrevoked_to_stable_after_ack() -> None:
    h = builder_harness(member("m", 10, {T1: [2, 3], T2: [5, 6]}, prev=10, state=UNREVOKED_PARTITIONS,
                               pending={T1: [1], T2: [4]}))
    m = build(h, "m", 11, {T1: [2, 3], T2: [5, 6]}, {T1: [2, 3], T2: [5, 6]})
    assert view(h, m) == (STABLE, 11, 10, {T1: [2, 3], T2: [5, 6]}, {})


def test_unrevoked_stays_while_still_owned() -> None:
    h = builder_harness(member("m", 10, {T1: [2, 3], T2: [5, 6]}, prev=10, state=UNREVOKED_PARTITIONS,
                               pending={T1: [1], T2: [4]}))
    before = h.member("m")
    assert build(h, "m", 11, {T1: [2, 3], T2: [5, 6]}, {T1: [1, 2, 3], T2: [5, 6]}) is before
    assert build(h, "m", 11, {T1: [2, 3], T2: [5, 6]}, None) is before


def test_unrevoked_to_unrevoked_when_target_shrinks_4_3() -> None:
    h = builder_harness(member("m", 10, {T1: [2, 3], T2: [5, 6]}, prev=10, state=UNREVOKED_PARTITIONS,
                               pending={T1: [1], T2: [4]}))
    m = build(h, "m", 12, {T1: [3], T2: [6]}, {T1: [2, 3], T2: [5, 6]})
    assert view(h, m) == (UNREVOKED_PARTITIONS, 10, 10, {T1: [3], T2: [6]}, {T1: [2], T2: [5]})


def test_unrevoked_to_unrevoked_when_target_shrinks_4_1() -> None:
    # KAFKA-19974: 4.1 uses memberEpoch + 1 (4.1 CurrentAssignmentBuilderTest expects epoch 11).
    h = builder_harness(member("m", 10, {T1: [2, 3], T2: [5, 6]}, prev=10, state=UNREVOKED_PARTITIONS,
                               pending={T1: [1], T2: [4]}), profile="kafka-4.1")
    m = build(h, "m", 12, {T1: [3], T2: [6]}, {T1: [2, 3], T2: [5, 6]})
    assert view(h, m) == (UNREVOKED_PARTITIONS, 11, 10, {T1: [3], T2: [6]}, {T1: [2], T2: [5]})


def test_unreleased_to_unrevoked() -> None:
    # UNRELEASED@11 {t1:2,3; t2:5,6}, target@12 {t1:3; t2:6} -> UNREVOKED@11, pending {t1:2; t2:5}.
    h = builder_harness(member("m", 11, {T1: [2, 3], T2: [5, 6]}, prev=11, state=UNRELEASED_PARTITIONS))
    m = build(h, "m", 12, {T1: [3], T2: [6]}, None)
    assert view(h, m) == (UNREVOKED_PARTITIONS, 11, 11, {T1: [3], T2: [6]}, {T1: [2], T2: [5]})


def test_unreleased_stays_while_partitions_are_owned_elsewhere() -> None:
    h = builder_harness(member("m", 11, {T1: [2, 3]}, prev=11, state=UNRELEASED_PARTITIONS),
                        member("o", 10, {T1: [4]}, prev=10))
    m = build(h, "m", 11, {T1: [2, 3, 4]}, {T1: [2, 3]})
    assert view(h, m) == (UNRELEASED_PARTITIONS, 11, 11, {T1: [2, 3]}, {})


def test_unreleased_to_stable_when_released() -> None:
    h = builder_harness(member("m", 11, {T1: [2, 3]}, prev=11, state=UNRELEASED_PARTITIONS))
    m = build(h, "m", 11, {T1: [2, 3, 4]}, {T1: [2, 3]})
    assert view(h, m) == (STABLE, 11, 11, {T1: [2, 3, 4]}, {})


def test_new_partitions_partially_withheld() -> None:
    # Free partitions are granted, the owned one is withheld: UNRELEASED at the target epoch.
    h = builder_harness(member("m", 10, {T1: [1]}), member("o", 10, {T1: [2]}))
    m = build(h, "m", 11, {T1: [1, 2, 3]}, None)
    assert view(h, m) == (UNRELEASED_PARTITIONS, 11, 10, {T1: [1, 3]}, {})
    assert m.assigned[tid(T1)] == {1: 10, 3: 11}  # type: ignore[attr-defined]


def test_unknown_state_is_fenced_unless_it_owns_nothing() -> None:
    h = builder_harness(member("m", 11, {T1: [1]}, prev=11, state=UNKNOWN))
    for owned in (None, {T1: [1]}):
        with pytest.raises(CoordinatorError) as info:
            build(h, "m", 12, {T1: [1]}, owned)
        assert int(info.value.error) == 110
        assert info.value.message == ("The consumer group member is in a unknown state. "
                                      "The member must abandon all its partitions and rejoin.")
    m = build(h, "m", 12, {T1: [1]}, {})
    assert view(h, m) == (STABLE, 12, 11, {T1: [1]}, {})


def test_kafka_19449_own_pending_revocation_is_not_unreleased() -> None:
    # The member revokes foo1 at epoch 10 (still reported owned by nobody: the owned list is empty),
    # then the target gives foo1 back: it is the member's own partition, so it is granted at once.
    h = builder_harness(member("m", 10, {T1: [2]}, prev=10, state=UNREVOKED_PARTITIONS, pending={T1: [1]}))
    assert h.group.partition_epochs[tid(T1)] == {1: 10, 2: 10}
    m = build(h, "m", 12, {T1: [1, 2]}, {T1: [2]})
    assert view(h, m) == (STABLE, 12, 10, {T1: [1, 2]}, {})


# --- updateCurrentAssignment: the subscription shrinks -------------------------------------------------


def test_subscription_shrink_revokes_owned_topic() -> None:
    h = builder_harness(member("m", 12, {T1: [1, 2], T2: [3]}, topics=[T1, T2]))
    h.member("m").subscribed_topic_names = (T1,)
    m = build(h, "m", 12, {T1: [1, 2], T2: [3]}, None, subscription_changed=True)
    assert view(h, m) == (UNREVOKED_PARTITIONS, 12, 12, {T1: [1, 2]}, {T2: [3]})


def test_subscription_shrink_already_released() -> None:
    # The member no longer reports bar: only the assigned set shrinks, the state is kept.
    h = builder_harness(member("m", 12, {T1: [1, 2], T2: [3]}, topics=[T1, T2]))
    h.member("m").subscribed_topic_names = (T1,)
    m = build(h, "m", 12, {T1: [1, 2], T2: [3]}, {T1: [1, 2]}, subscription_changed=True)
    assert view(h, m) == (STABLE, 12, 12, {T1: [1, 2]}, {})


def test_no_subscription_and_no_pending_moves_everything_to_pending() -> None:
    h = builder_harness(member("m", 12, {T1: [1, 2], T2: [3]}, topics=[T1, T2]))
    h.member("m").subscribed_topic_names = ()
    m = build(h, "m", 12, {T1: [1, 2], T2: [3]}, None, subscription_changed=True)
    assert view(h, m) == (UNREVOKED_PARTITIONS, 12, 12, {}, {T1: [1, 2], T2: [3]})


def test_subscription_change_through_heartbeats() -> None:
    h = Harness({"foo": 2, "bar": 2})
    h.now = 10_000
    h.join("m", ["foo", "bar"], assignor="range")
    assert h.assigned("m") == {"foo": {0: 2, 1: 2}, "bar": {0: 2, 1: 2}}
    h.sleep(2000)
    r = h.heartbeat("m", 2, subscribedTopicNames=["foo"])
    assert code(r) == 0
    assert (epoch(r), assignment(r)) == (2, {"foo": [0, 1]})
    assert h.member("m").state == UNREVOKED_PARTITIONS
    assert h.pending("m") == {"bar": {0: 2, 1: 2}}
    r = h.heartbeat("m", 2, {"foo": [0, 1]})
    assert epoch(r) == 3
    assert h.member("m").state == STABLE
    assert h.assigned("m") == {"foo": {0: 2, 1: 2}}
