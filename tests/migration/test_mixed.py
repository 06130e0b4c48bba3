"""Classic-protocol members inside a consumer group (GroupMetadataManagerTest, Kafka 4.3)."""

from __future__ import annotations

import base64

from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer.member import STABLE, UNREVOKED_PARTITIONS
from kgspec.model.errors import Errors
from kgspec.model.migration.protocol import decode_assignment

from tests.migration.harness import (
    GROUP,
    MixedHarness,
    MockAssignor,
    describe_records,
    subscription,
    tid,
)

LOW_SESSION = {"group.min.session.timeout.ms": 100}


def _group_with_consumer_member(mock: MockAssignor | None = None, **configs: object) -> MixedHarness:
    """A consumer group at epoch 10 whose one member (consumer protocol) owns foo-0, foo-1."""
    h = MixedHarness({"foo": 2, "bar": 1}, configs={**LOW_SESSION, **configs}, mock=mock)
    member = h.consumer_member("member-1", 10, {"foo": [0, 1]}, topics=("foo",))
    member.previous_member_epoch = 10
    h.seed_consumer_group(10, [member])
    h.advance(1000)
    return h


def test_joining_consumer_group_with_new_dynamic_member() -> None:
    """testJoiningConsumerGroupWithNewDynamicMember, for every ConsumerProtocol version 0-3."""
    for version in range(4):
        mock = MockAssignor()
        h = _group_with_consumer_member(mock)
        sub = subscription(["foo", "bar"], {}, version)
        first = h.join_classic("", [("range", sub)], session=500, rebalance=500)
        assert first.response is not None
        assert first.response["errorCode"] == int(Errors.MEMBER_ID_REQUIRED)
        assert first.records == []
        new_id = first.response["memberId"]
        assert new_id == "gen-1"  # Uuid.randomUuid(): no client-id prefix
        mock.prepare({"member-1": {"foo": [0]}, new_id: {"bar": [0]}})
        second = h.join_classic(new_id, [("range", sub)], session=500, rebalance=500)
        assert second.response == {"throttleTimeMs": 0, "errorCode": 0, "generationId": 11,
                                   "protocolType": "consumer", "protocolName": "range", "leader": "",
                                   "skipAssignment": False, "memberId": new_id, "members": []}
        shape = describe_records(second.records)
        assert shape[:2] == [(5, new_id, False), (3, None, False)]
        assert sorted(shape[2:4]) == sorted([(7, "member-1", False), (7, new_id, False)])
        assert shape[4:] == [(6, None, False), (8, new_id, False)]
        meta = second.records[0].value
        assert meta is not None
        assert meta["classicMemberMetadata"] == {
            "sessionTimeoutMs": 500, "supportedProtocols": [{"name": "range", "metadata": sub}]}
        assert meta["rebalanceTimeoutMs"] == 500
        assert meta["subscribedTopicRegex"] == ""
        current = second.records[-1].value
        assert current is not None
        assert (current["memberEpoch"], current["previousMemberEpoch"], current["state"]) == (11, 0, STABLE)
        assert current["assignedPartitions"] == [{"topicId": tid("bar"), "partitions": [0], "assignmentEpochs": [11]}]
        timers = h.timers()
        assert timers[f"session-timeout-{GROUP}-{new_id}"] == 1000 + 500
        assert timers[f"sync-{GROUP}-{new_id}"] == 1000 + 500
        assert f"rebalance-timeout-{GROUP}-{new_id}" not in timers


def _joined_classic_member(version: int = 3) -> tuple[MixedHarness, str]:
    mock = MockAssignor()
    h = _group_with_consumer_member(mock)
    mock.prepare({"member-1": {"foo": [0, 1]}, "classic-1": {"bar": [0]}})
    sub = subscription(["foo", "bar"], {}, version)
    result = h.join_classic("classic-1", [("range", sub), ("roundrobin", sub)], session=6000, rebalance=30000)
    assert result.response is not None
    assert result.response["generationId"] == 11
    return h, "classic-1"


def test_sync_returns_assigned_partitions_at_the_protocol_version() -> None:
    """testClassicGroupSyncToConsumerGroupWithAllConsumerProtocolVersions."""
    for version in range(4):
        h, mid = _joined_classic_member(version)
        h.advance(2000)
        result = h.sync_classic(mid, 11)
        assert result.response is not None
        assert result.response["errorCode"] == 0
        assert (result.response["protocolType"], result.response["protocolName"]) == ("consumer", "range")
        assignment = decode_assignment(result.response["assignment"])
        assert (assignment.version, assignment.partitions, assignment.user_data) == (version, (("bar", (0,)),), None)
        assert base64.b64decode(result.response["assignment"])[:2] == version.to_bytes(2, "big")
        timers = h.timers()
        assert f"sync-{GROUP}-{mid}" not in timers
        assert timers[f"session-timeout-{GROUP}-{mid}"] == 2000 + 6000


def test_sync_errors() -> None:
    """testClassicGroupSyncToConsumerGroupWith{UnknownMemberId,FencedInstanceId,IllegalGeneration,
    InconsistentGroupProtocol}: each check in Kafka's order."""
    h, mid = _joined_classic_member()
    cases = [
        ({"member_id": "unknown", "generation": 11}, Errors.UNKNOWN_MEMBER_ID),
        ({"member_id": "member-1", "generation": 10}, Errors.UNKNOWN_MEMBER_ID),  # not a classic member
        ({"member_id": mid, "generation": 11, "instance": "unknown-instance"}, Errors.UNKNOWN_MEMBER_ID),
        ({"member_id": mid, "generation": 10}, Errors.ILLEGAL_GENERATION),
        ({"member_id": mid, "generation": 11, "name": "roundrobin"}, Errors.INCONSISTENT_GROUP_PROTOCOL),
        ({"member_id": mid, "generation": 11, "protocol_type": "connect"}, Errors.INCONSISTENT_GROUP_PROTOCOL),
    ]
    for kwargs, error in cases:
        member_id, generation = str(kwargs.pop("member_id")), int(kwargs.pop("generation"))  # type: ignore[call-overload]
        result = h.sync_classic(member_id, generation, **kwargs)  # type: ignore[arg-type]
        assert result.response == {"throttleTimeMs": 0, "errorCode": int(error), "protocolType": None,
                                   "protocolName": None, "assignment": ""}, (kwargs, error)


def test_sync_rebalance_in_progress_arms_the_join_timeout() -> None:
    """testClassicGroupSyncToConsumerGroupRebalanceInProgress: assignment epoch > member epoch."""
    h, mid = _joined_classic_member()
    group = h.coord.groups[GROUP]
    group.set_assignment_metadata(12, 0)
    result = h.sync_classic(mid, 11)
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert h.timers()[f"join-{GROUP}-{mid}"] == 1000 + 30000
    # scheduleIfAbsent: a second one keeps the first deadline.
    h.advance(5000)
    h.sync_classic(mid, 11)
    assert h.timers()[f"join-{GROUP}-{mid}"] == 1000 + 30000


def test_heartbeat_rules() -> None:
    """testClassicGroupHeartbeatToConsumerGroupMaintainsSession / ...RebalanceInProgress / errors."""
    h, mid = _joined_classic_member()
    h.advance(3000)
    assert h.heartbeat_classic(mid, 11) == {"throttleTimeMs": 0, "errorCode": 0}
    assert h.timers()[f"session-timeout-{GROUP}-{mid}"] == 3000 + 6000
    assert h.heartbeat_classic(mid, 10)["errorCode"] == int(Errors.ILLEGAL_GENERATION)
    assert h.heartbeat_classic("unknown", 11)["errorCode"] == int(Errors.UNKNOWN_MEMBER_ID)
    assert h.heartbeat_classic("member-1", 10)["errorCode"] == int(Errors.UNKNOWN_MEMBER_ID)
    assert h.heartbeat_classic(mid, 11, instance="i")["errorCode"] == int(Errors.UNKNOWN_MEMBER_ID)
    group = h.coord.groups[GROUP]
    group.set_assignment_metadata(12, 0)  # a new target epoch: the member must rejoin
    assert h.heartbeat_classic(mid, 11)["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert h.timers()[f"join-{GROUP}-{mid}"] == 3000 + 30000
    group.set_assignment_metadata(11, 0)
    member = group.members[mid]
    member.state = UNREVOKED_PARTITIONS
    assert h.heartbeat_classic(mid, 11)["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)


def test_join_timeout_fences_the_classic_member() -> None:
    """testConsumerGroupMemberUsingClassicProtocolFencedWhenJoinTimeout."""
    h, mid = _joined_classic_member()
    h.coord.groups[GROUP].set_assignment_metadata(12, 0)
    h.heartbeat_classic(mid, 11)
    h.coord.timers.cancel(f"sync-{GROUP}-{mid}")
    h.coord.timers.cancel(f"session-timeout-{GROUP}-{mid}")
    firings = [f for f in h.advance(1000 + 30000) if f.records]
    assert [f.timer.key for f in firings] == [f"join-{GROUP}-{mid}"]
    assert [r.type for r in firings[0].records] == [8, 7, 5, 3]
    assert mid not in h.coord.groups[GROUP].members


def test_sync_timeout_and_session_timeout_fence() -> None:
    """testConsumerGroupMemberUsingClassicProtocolFencedWhenSessionTimeout; the sync timeout."""
    h, mid = _joined_classic_member()
    firings = [f for f in h.advance(1000 + 6000) if f.records]
    assert [f.timer.key for f in firings] == [f"session-timeout-{GROUP}-{mid}"]
    assert f"sync-{GROUP}-{mid}" not in h.timers()  # cancelTimers cancels join and sync too
    h2, mid2 = _joined_classic_member()
    h2.heartbeat_classic(mid2, 11)
    consumer_ops.schedule_session_timeout(h2.coord, GROUP, mid2, 1000, 100_000)
    firings = [f for f in h2.advance(1000 + 30000) if f.records]
    assert [f.timer.key for f in firings] == [f"sync-{GROUP}-{mid2}"]


def test_join_refused_when_migration_disabled() -> None:
    """testClassicMemberJoinToConsumerGroupWithDisabledMigrationPolicy (dynamic and static)."""
    for instance in (None, "instance"):
        h = _group_with_consumer_member(**{"group.consumer.migration.policy": "disabled"})
        result = h.join_classic("", [("range", subscription(["foo"]))], instance=instance)
        assert result.response is not None
        assert result.response["errorCode"] == int(Errors.INCONSISTENT_GROUP_PROTOCOL)
        assert result.response["memberId"] == ""
        assert result.records == []


def test_join_refused_when_protocols_unsupported() -> None:
    """testJoiningConsumerGroupThrowsExceptionIfProtocolIsNotSupported."""
    h, _ = _joined_classic_member()
    result = h.join_classic("", [("sticky", subscription(["foo"]))])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.INCONSISTENT_GROUP_PROTOCOL)
    result = h.join_classic("", [("range", subscription(["foo"]))], protocol_type="connect")
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.INCONSISTENT_GROUP_PROTOCOL)


def test_join_refused_when_group_is_full_but_static_member_may_rejoin() -> None:
    """testJoiningConsumerGroupThrowsExceptionIfGroupOverMaxSize /
    testStaticMemberCanRejoinConsumerGroupWithClassicProtocolWhenGroupIsFull."""
    h = _group_with_consumer_member(**{"group.consumer.max.size": 1})
    result = h.join_classic("", [("range", subscription(["foo"]))])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.GROUP_MAX_SIZE_REACHED)


def test_malformed_subscription_is_inconsistent_group_protocol() -> None:
    """testClassicGroupJoinToConsumerGroupFailsOnMalformedSubscriptionMetadata."""
    h = _group_with_consumer_member()
    result = h.join_classic("new", [("range", "AAE=")])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.INCONSISTENT_GROUP_PROTOCOL)


def test_join_to_empty_consumer_group_makes_a_classic_group() -> None:
    """testClassicGroupJoinWithEmptyConsumerGroup: 6, 4, 3 tombstones then the empty GroupMetadata."""
    h = MixedHarness({"foo": 1})
    h.seed_consumer_group(10, [])
    result = h.join_classic("", [("range", subscription(["foo"]))], session=6000)
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.MEMBER_ID_REQUIRED)
    assert describe_records(result.records) == [(6, None, True), (4, None, True), (3, None, True), (2, None, False)]
    assert GROUP not in h.coord.groups
    assert GROUP in h.coord.classic_groups


def test_batch_leave_of_classic_members() -> None:
    """testConsumerGroupMemberUsingClassicProtocolBatchLeaveGroup: per-member answers, one epoch bump."""
    h, mid = _joined_classic_member()
    result = h.leave_classic([(mid, None), ("unknown", None), ("member-1", None), ("", "no-such-instance")])
    assert result.response is not None
    assert result.response["members"] == [
        {"memberId": mid, "groupInstanceId": None, "errorCode": 0},
        {"memberId": "unknown", "groupInstanceId": None, "errorCode": int(Errors.UNKNOWN_MEMBER_ID)},
        {"memberId": "member-1", "groupInstanceId": None, "errorCode": 0},
        {"memberId": "", "groupInstanceId": "no-such-instance", "errorCode": int(Errors.UNKNOWN_MEMBER_ID)},
    ]
    assert [r.type for r in result.records] == [8, 7, 5, 8, 7, 5, 3]
    assert h.coord.groups[GROUP].group_epoch == 12
    assert not h.coord.groups[GROUP].members
