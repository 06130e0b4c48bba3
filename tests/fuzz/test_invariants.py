"""Each invariant on hand-built states: it holds on a good state and names what breaks."""

from __future__ import annotations

from typing import Any

from kgspec.invariants import (
    CONSUMER_INVARIANTS,
    STREAMS_GROUP_INVARIANTS,
    EpochSnapshot,
    Observation,
    StreamsHolding,
    StreamsObservation,
    check_all,
    check_consumer_group,
    check_streams,
    client_no_double_ownership,
    convergence,
    convergence_bound_ms,
    epoch_fencing,
    epoch_monotonicity,
    lost_assignments,
    no_double_ownership,
    partition_epoch_index,
    processid_exclusivity,
    replay_equivalence,
    replay_records,
    session_expiry,
    state_derivation,
    streams_convergence,
    streams_epoch_fencing,
    target_validity,
)
from kgspec.invariants.liveness import ClientView
from kgspec.invariants.streams import state_problems
from kgspec.invariants.streams_group import holdings, no_tasks_while_not_ready
from kgspec.model.config import Config
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import STABLE, UNREVOKED_PARTITIONS, ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.hashing import compute_group_hash, compute_topic_hash
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import UNREVOKED_TASKS, StreamsMember
from kgspec.model.topics import TopicsImage

T = "AAAAAAAAAAAAAAAAAAAAAQ"  # a topic id


def _member(mid: str, epoch: int, assigned: dict[int, int], pending: dict[int, int] | None = None,
            state: int = STABLE, previous: int = 0) -> ConsumerMember:
    return ConsumerMember(mid, subscribed_topic_names=("foo",), member_epoch=epoch,
                          previous_member_epoch=previous, state=state,
                          assigned={T: dict(assigned)} if assigned else {},
                          pending_revocation={T: dict(pending)} if pending else {})


def _group(*members: ConsumerMember, epoch: int = 3) -> ConsumerGroup:
    group = ConsumerGroup("g", epoch)
    for m in members:
        group.put_member(m)
    group.set_assignment_metadata(epoch, 0)
    return group


def test_registry_names() -> None:
    assert list(CONSUMER_INVARIANTS) == [
        "no-double-ownership", "partition-epoch-index", "client-no-double-ownership",
        "epoch-monotonicity", "epoch-fencing", "target-validity", "state-derivation",
        "replay-equivalence", "session-expiry", "convergence"]


def test_no_double_ownership() -> None:
    a, b = _member("a", 3, {0: 3}), _member("b", 3, {1: 3})
    assert no_double_ownership(_group(a, b)) == []
    b.pending_revocation = {T: {0: 2}}  # written behind the index's back
    assert no_double_ownership(_group(a)) == []
    group = _group(a)
    group.members["b"] = b
    assert no_double_ownership(group) == [f"partition {T}-0 is held by both a and b"]


def test_partition_epoch_index() -> None:
    group = _group(_member("a", 3, {0: 3}))
    assert partition_epoch_index(group) == []
    group.partition_epochs[T][1] = 2
    assert partition_epoch_index(group) == [
        f"partition {T}-1: index says epoch 2, its holder's member epoch is -1"]


def test_client_no_double_ownership() -> None:
    assert client_no_double_ownership({"c1": {T: {0}}, "c2": {T: {1}}}) == []
    assert client_no_double_ownership({"c1": {T: {0}}, "c2": {T: {0, 1}}}) == [
        f"clients c1 and c2 both own {T}-0"]


def test_epoch_monotonicity() -> None:
    before = EpochSnapshot(4, 4, {"a": (4, STABLE)})
    assert epoch_monotonicity(before, EpochSnapshot(5, 4, {"a": (4, STABLE)})) == []
    assert epoch_monotonicity(before, EpochSnapshot(3, 5, {"a": (6, STABLE)})) == [
        "assignment epoch 5 is ahead of group epoch 3",
        "member a at epoch 6 runs ahead of the assignment epoch 5",
        "group epoch went back from 4 to 3",
    ]
    assert epoch_monotonicity(before, EpochSnapshot(5, 5, {"a": (5, UNREVOKED_PARTITIONS)})) == [
        "member a moved from epoch 4 to 5 while entering UNREVOKED_PARTITIONS (was STABLE)"]
    assert epoch_monotonicity(before, EpochSnapshot(5, 5, {"a": (-2, STABLE)})) == []
    assert epoch_monotonicity(before, EpochSnapshot(5, 5, {"a": (3, STABLE)})) == [
        "member a's epoch went back from 4 to 3"]


def test_epoch_fencing() -> None:
    member = _member("a", 5, {0: 5}, previous=4)
    owned = [{"topicId": T, "partitions": [0]}]
    ok = {"errorCode": 0}
    assert epoch_fencing(member, {"memberEpoch": 5}, ok) == []
    assert epoch_fencing(member, {"memberEpoch": 4, "topicPartitions": owned}, ok) == []
    assert epoch_fencing(member, {"memberEpoch": 3}, {"errorCode": 110}) == []
    assert epoch_fencing(member, {"memberEpoch": 3}, ok) == [
        "member a was accepted with stale epoch 3 (current 5, previous 4)"]
    assert epoch_fencing(member, {"memberEpoch": 4}, ok) == [
        "member a was accepted with its previous epoch 4 without reporting its owned partitions"]
    bad = [{"topicId": T, "partitions": [0, 1]}]
    assert epoch_fencing(member, {"memberEpoch": 4, "topicPartitions": bad}, ok) == [
        f"member a was accepted with its previous epoch 4 while reporting {T}-1, which it is not assigned"]
    assert epoch_fencing(member, {"memberEpoch": 6}, ok) == [
        "member a was accepted with epoch 6, ahead of its epoch 5"]


def _topics(partitions: int) -> TopicsImage:
    topics = TopicsImage()
    topics.upsert("foo", T, partitions)
    return topics


def test_target_validity() -> None:
    topics = _topics(2)
    group = _group(_member("a", 3, {}), _member("b", 3, {}))
    group.metadata_hash = compute_group_hash({"foo": compute_topic_hash(T, "foo", 2)})
    group.target = {"a": {T: frozenset({0})}, "b": {T: frozenset({1})}}
    assert target_validity(group, topics) == []
    group.target = {"a": {T: frozenset({0})}, "b": {T: frozenset({0})}}
    assert target_validity(group, topics) == [
        f"partition {T}-0 is in the targets of both a and b",
        f"partition {T}-1 of a subscribed topic is in no target",
    ]
    group.group_epoch = 4  # a newer epoch awaits its target: only uniqueness is checked
    assert target_validity(group, topics) == [f"partition {T}-0 is in the targets of both a and b"]


def test_state_derivation() -> None:
    group = _group(_member("a", 3, {0: 3}))
    assert group.state == "STABLE"
    assert state_derivation(group) == []
    group.unreconciled.add("a")
    assert state_derivation(group) == [
        "group state is RECONCILING, derivation gives STABLE",
        "unreconciled index ['a'] differs from []",
    ]


def test_replay_equivalence_and_check_consumer_group() -> None:
    coord = Coordinator()
    coord.update_topic("foo", T, 2)
    request = {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 30000,
               "subscribedTopicNames": ["foo"], "topicPartitions": []}
    result = coord.handle(68, 1, request, now=0, client_id="c1")
    replayed = replay_records(result.records)
    live = coord.groups["g"]
    assert replay_equivalence(live, replayed.groups["g"]) == []
    assert check_consumer_group(live, topics=coord.topics, replayed=replayed.groups["g"],
                                check_replay=True) == []
    replayed.groups["g"].group_epoch = 7
    assert replay_equivalence(live, replayed.groups["g"]) == [
        "groupEpoch: live 2, replayed 7", "state: live 'STABLE', replayed 'ASSIGNING'"]
    assert replay_equivalence(live, None) == ["the group exists only in the live coordinator"]


def test_session_expiry() -> None:
    group = _group(_member("a", 3, {0: 3}))
    assert session_expiry(group, 1000, {"a": 1001}) == []
    assert session_expiry(group, 1001, {"a": 1001}) == [
        "member a's session ended at 1001 but it is still in the group at 1001"]


def test_convergence() -> None:
    group = _group(_member("a", 3, {0: 3}))
    group.target = {"a": {T: frozenset({0})}}
    assert convergence(group, {"a": ClientView(3, "STABLE", {T: frozenset({0})})}) == []
    assert convergence(group, {"a": ClientView(2, "RECONCILING", {})}) == [
        "client of a is RECONCILING at epoch 2, not STABLE at 3",
        f"member a owns {{}}, is assigned {{{T}: [0]}}, target {{{T}: [0]}}",
    ]
    assert convergence_bound_ms(Config(), 20) == 45000 + 1000 + 3 * 5000 + 12 * 20


def test_processid_exclusivity() -> None:
    members = {"m1": StreamsHolding("p1", active={"0": {0}}), "m2": StreamsHolding("p1", standby={"0": {0}}),
               "m3": StreamsHolding("p2", active={"0": {0}})}
    assert processid_exclusivity(members) == [
        "process p1 holds task 0_0 twice: m1 (active) and m2 (standby)",
        "task 0_0 is active on both m1 and m3",
    ]


def test_processid_exclusivity_allows_in_place_demotion_as_check_does() -> None:
    """Trunk's in-place demotion (KAFKA-20665): a member keeps its active task pending revocation
    and holds it as a standby at once. The simulator's check counts it as ``kgspec check`` does:
    once on its process; another member's standby on that process still breaks the rule."""
    group = StreamsGroup("g", 3)
    a = group.members["a"] = _streams_member("a", 3, [])
    a.assigned["standby"] = {"0": {0: 3}}
    a.pending_revocation = {"active": {"0": {0: 3}}, "standby": {}, "warmup": {}}
    assert holdings(group) == {"a": StreamsHolding("p1", {"0": {0}}, {"0": {0}}, {}, {"0": {0}})}
    assert check_streams(StreamsObservation("g", group), ("processid-exclusivity",)) == []
    assert state_problems(group) == []
    b = group.members["b"] = _streams_member("b", 3, [])
    b.assigned["standby"] = {"0": {0: 3}}
    assert [v.message for v in check_streams(StreamsObservation("g", group), ("processid-exclusivity",))] == [
        "process p1 holds task 0_0 twice: a (standby) and b (standby)"]
    assert state_problems(group) == [
        ("streams-process-exclusivity", "process p1 holds task 0_0 2 times (standby on a, standby on b)")]


def test_check_all_skips_checks_without_inputs() -> None:
    obs = Observation("g", _group(_member("a", 3, {0: 3})))
    assert check_all(obs) == []


def _streams_member(mid: str, epoch: int, active: list[int], previous: int = 0) -> StreamsMember:
    return StreamsMember(mid, epoch, previous, process_id="p1",
                         assigned={"active": {"0": dict.fromkeys(active, epoch)} if active else {},
                                   "standby": {}, "warmup": {}})


def test_streams_epoch_fencing() -> None:
    member = _streams_member("a", 5, [0], previous=4)
    ok = {"errorCode": 0}
    owned = {"activeTasks": [{"subtopologyId": "0", "partitions": [0]}], "standbyTasks": [], "warmupTasks": []}
    assert streams_epoch_fencing(member, {"memberEpoch": 5}, ok) == []
    assert streams_epoch_fencing(member, {"memberEpoch": 4, **owned}, ok) == []
    assert streams_epoch_fencing(member, {"memberEpoch": 3}, {"errorCode": 110}) == []
    assert streams_epoch_fencing(None, {"memberEpoch": 6}, ok) == []
    assert streams_epoch_fencing(member, {"memberEpoch": 3}, ok) == [
        "member a was accepted with stale epoch 3 (current 5, previous 4)"]
    assert streams_epoch_fencing(member, {"memberEpoch": 4}, ok) == [
        "member a was accepted with its previous epoch 4 although its activeTasks None are not within its "
        "assigned active tasks"]
    standby = [{"subtopologyId": "0", "partitions": [1]}]
    assert streams_epoch_fencing(member, {"memberEpoch": 4, **owned, "standbyTasks": standby}, ok) == [
        f"member a was accepted with its previous epoch 4 although its standbyTasks {standby!r} are not "
        "within its assigned standby tasks"]
    assert streams_epoch_fencing(member, {"memberEpoch": 6}, ok) == [
        "member a was accepted with epoch 6, ahead of its epoch 5"]


def test_streams_convergence_and_lost_assignments() -> None:
    group = StreamsGroup("g", 3)
    a = group.members["a"] = _streams_member("a", 3, [0])
    group.target = {"a": {"active": {"0": frozenset({0})}, "standby": {}, "warmup": {}}}
    good = {"a": ClientView(3, "STABLE", {"active": {"0": frozenset({0})}})}
    assert group.state == "NOT_READY"  # no topology
    assert streams_convergence(group, good, ready_expected=False) == []
    assert streams_convergence(group, good, ready_expected=True) == [
        "group is NOT_READY, not Stable, although nothing needs an operator"]
    lost = {"a": ClientView(3, "STABLE", {})}
    assigned = {"active": {"0": frozenset({0})}}
    assert lost_assignments(group, lost) == [
        f"member a is STABLE at epoch 3 with {assigned}, but its client runs only {{}}: the response that "
        "carried the assignment was lost"]
    assert lost_assignments(group, good) == []
    assert streams_convergence(group, lost, False) == [
        f"member a owns {{}}, is assigned {assigned}, target {assigned}"]
    assert streams_convergence(group, lost, False, tolerate_lost_assignment=True) == []
    assert streams_convergence(group, {"a": ClientView(2, "RECONCILING", {}), "b": ClientView(0, "JOINING", {})},
                               False) == [
        "members [] have no live client; live clients ['b'] are not members",
        "client of a is RECONCILING at epoch 2, not STABLE at 3",
        f"member a owns {{}}, is assigned {assigned}, target {assigned}"]
    assert streams_convergence(None, good, False) == ["no members, but clients ['a'] are live"]
    assert streams_convergence(None, {}, False) == []
    group.group_epoch, a.state = 4, UNREVOKED_TASKS
    assert streams_convergence(group, good, False) == [
        "assignment epoch 3 never caught up with group epoch 4",
        f"member a is at epoch 3 state {UNREVOKED_TASKS}, not STABLE at 3"]


def test_check_streams_runs_each_named_check() -> None:
    group = StreamsGroup("g", 3)
    group.members["a"] = _streams_member("a", 3, [0])
    group.members["b"] = _streams_member("b", 3, [0])
    obs = StreamsObservation("g", group, now=10, session_deadlines={"b": 10})
    assert [(v.invariant, v.message) for v in check_streams(obs)] == [
        ("processid-exclusivity", "task 0_0 is active on both a and b"),
        ("processid-exclusivity", "process p1 holds task 0_0 twice: a (active) and b (active)"),
        ("session-expiry", "member b's session ended at 10 but it is still in the group at 10"),
    ]
    assert [v.invariant for v in check_streams(obs, ("session-expiry",))] == ["session-expiry"]
    assert list(STREAMS_GROUP_INVARIANTS) == [
        "processid-exclusivity", "client-no-double-ownership", "epoch-monotonicity", "epoch-fencing",
        "target-validity", "no-tasks-while-not-ready", "replay-equivalence", "session-expiry"]


def test_no_tasks_while_not_ready_allows_the_target_the_assignment_interval_kept() -> None:
    """NotReady (no topology here) with the target of epoch 3 kept at group epoch 4 (4.3's
    assignment interval): b may be granted its target's 0_1, nothing else; once the target is
    current (computed NotReady) it must be empty and grants nothing."""
    group = StreamsGroup("g", 4)
    group.members["b"] = _streams_member("b", 3, [])
    group.assignment_epoch = 3
    group.target = {"b": {"active": {"0": frozenset({1})}, "standby": {}, "warmup": {}}}
    before = _streams_member("b", 3, [])

    def call(partitions: list[int]) -> Any:
        tasks = [{"subtopologyId": "0", "partitions": partitions}]
        return before, {"memberId": "b"}, {"errorCode": 0, "activeTasks": tasks, "standbyTasks": [], "warmupTasks": []}

    assert group.state == "NOT_READY"
    assert no_tasks_while_not_ready(group, call([1])) == []
    assert no_tasks_while_not_ready(group, call([1, 2])) == ["group is NotReady but member b is granted active task 0_2"]
    group.assignment_epoch = 4
    assert no_tasks_while_not_ready(group, call([1])) == [
        "group is NotReady but the target at epoch 4 gives b active 0_1",
        "group is NotReady but member b is granted active task 0_1"]
