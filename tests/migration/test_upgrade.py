"""Classic -> consumer on a ConsumerGroupHeartbeat (GroupMetadataManagerTest, Kafka 4.3)."""

from __future__ import annotations

from kgspec.model.consumer.member import STABLE, UNRELEASED_PARTITIONS
from kgspec.model.errors import Errors
from kgspec.spec.classic import EMPTY

from tests.migration.harness import (
    GROUP,
    MixedHarness,
    MockAssignor,
    assignment_bytes,
    describe_records,
    subscription,
    tid,
)

FOO_BAR = subscription(["foo", "bar"], {"foo": [0], "bar": [0]})


def _stable_group(h: MixedHarness, generation: int = 0) -> None:
    h.stable_classic_group(generation, [("member-id-1", "client-id", 10000, 5000, FOO_BAR,
                                         assignment_bytes({"foo": [0], "bar": [0]}))])


def test_heartbeat_with_stable_classic_group_converts_then_joins() -> None:
    """testConsumerGroupHeartbeatWithStableClassicGroup: the record sequence and both members."""
    mock = MockAssignor()
    mock.prepare({"member-id-1": {"foo": [0]}, "member-id-2": {"bar": [0]}})
    h = MixedHarness({"foo": 1, "bar": 1}, configs={"group.consumer.migration.policy": "upgrade"}, mock=mock)
    _stable_group(h)
    h.advance(100)
    result = h.join_consumer("member-id-2", ["foo", "bar"])
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert describe_records(result.records) == [
        (2, None, True),                                   # the classic group's tombstone
        (5, "member-id-1", False), (3, None, False), (7, "member-id-1", False), (6, None, False),
        (8, "member-id-1", False),                         # the converted group
        (5, "member-id-2", False), (3, None, False), (7, "member-id-2", False), (7, "member-id-1", False),
        (6, None, False), (8, "member-id-2", False),       # member 2 joins: epoch 1, new target
    ]
    m1_meta = result.records[1].value
    assert m1_meta is not None
    assert m1_meta["clientId"] == "client-id"
    assert m1_meta["clientHost"] == "client-host"
    assert m1_meta["rebalanceTimeoutMs"] == 10000
    assert m1_meta["serverAssignor"] is None
    assert sorted(m1_meta["subscribedTopicNames"]) == ["bar", "foo"]
    assert m1_meta["classicMemberMetadata"] == {"sessionTimeoutMs": 5000,
                                                "supportedProtocols": [{"name": "range", "metadata": FOO_BAR}]}
    epoch_record = result.records[2].value
    assert epoch_record is not None
    assert epoch_record["epoch"] == 0
    assert epoch_record["metadataHash"] == h.coord.metadata_hash({"foo", "bar"})
    assert result.records[4].value == {"assignmentEpoch": 0}  # timestamp 0
    m1 = result.records[5].value
    assert m1 is not None
    assert (m1["memberEpoch"], m1["previousMemberEpoch"], m1["state"]) == (0, 0, STABLE)
    assert {(e["topicId"], tuple(e["partitions"])) for e in m1["assignedPartitions"]} == {
        (tid("foo"), (0,)), (tid("bar"), (0,))}
    assert result.records[7].value == {"epoch": 1, "metadataHash": h.coord.metadata_hash({"foo", "bar"})}
    assert result.records[10].value == {"assignmentEpoch": 1, "assignmentTimestamp": 100}
    m2 = result.records[11].value
    assert m2 is not None
    assert (m2["memberEpoch"], m2["previousMemberEpoch"], m2["state"]) == (1, 0, UNRELEASED_PARTITIONS)
    assert m2["assignedPartitions"] == []  # bar-0 is still member 1's
    assert result.response["memberEpoch"] == 1
    group = h.coord.groups[GROUP]
    assert GROUP not in h.coord.classic_groups
    assert (group.group_epoch, group.assignment_epoch) == (1, 1)
    timers = h.timers()
    assert timers[f"session-timeout-{GROUP}-member-id-1"] == 100 + 5000  # the classic session timeout
    assert timers[f"session-timeout-{GROUP}-member-id-2"] == 100 + 45000


def test_heartbeat_with_empty_classic_group_replaces_it() -> None:
    """testConsumerGroupHeartbeatWithEmptyClassicGroup: tombstone, then a new group at epoch 2 (4.3)."""
    h = MixedHarness({"foo": 1, "bar": 1}, configs={"group.consumer.migration.policy": "disabled"})
    h.stable_classic_group(0, [])
    assert h.coord.classic_groups[GROUP].state == EMPTY
    result = h.join_consumer("m", ["foo", "bar"])
    assert result.response is not None
    assert result.response["memberEpoch"] == 2
    assert describe_records(result.records) == [
        (2, None, True), (5, "m", False), (3, None, False), (7, "m", False), (6, None, False), (8, "m", False)]
    assert GROUP not in h.coord.classic_groups
    assert GROUP in h.coord.groups


def test_non_empty_classic_group_without_consumer_protocol_is_not_found() -> None:
    """testConsumerGroupHeartbeatWithNonEmptyClassicGroup: PREPARING_REBALANCE, no protocol type."""
    h = MixedHarness({"foo": 1})
    h.stable_classic_group(0, [], protocol_type=None)
    h.coord.classic_groups[GROUP].transition("prepare_rebalance", 0)
    result = h.join_consumer("m", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.GROUP_ID_NOT_FOUND)
    assert result.response["errorMessage"] == (f"Cannot upgrade classic group {GROUP} to consumer group because "
                                               "the group does not use the consumer embedded protocol.")
    assert result.records == []


def test_upgrade_disabled_by_policy() -> None:
    """validateOnlineUpgrade: DOWNGRADE and DISABLED (and an unparseable value) refuse the upgrade."""
    for policy in ("downgrade", "disabled", "sideways"):
        h = MixedHarness({"foo": 1, "bar": 1}, configs={"group.consumer.migration.policy": policy})
        _stable_group(h)
        result = h.join_consumer("m", ["foo"])
        assert result.response is not None
        assert result.response["errorCode"] == int(Errors.GROUP_ID_NOT_FOUND)
        assert result.response["errorMessage"] == (f"Cannot upgrade classic group {GROUP} to consumer group because "
                                                   "online upgrade is disabled.")
        assert GROUP in h.coord.classic_groups


def test_upgrade_refused_when_classic_group_exceeds_consumer_max_size() -> None:
    h = MixedHarness({"foo": 1, "bar": 1}, configs={"group.consumer.max.size": 0})
    _stable_group(h)
    result = h.join_consumer("m", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.GROUP_ID_NOT_FOUND)
    assert "exceeds the consumer group maximum size" in result.response["errorMessage"]


def test_upgrade_with_custom_assignor_user_data_is_refused() -> None:
    """testConsumerGroupHeartbeatWithCustomAssignorClassicGroup: userData would be lost."""
    from kgspec.model.migration.protocol import encode_assignment

    h = MixedHarness({"foo": 1, "bar": 1})
    h.stable_classic_group(0, [("m1", "c", 10000, 5000, FOO_BAR,
                                encode_assignment([("foo", [0])], 3, user_data=b"\x01"))])
    result = h.join_consumer("m2", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.GROUP_ID_NOT_FOUND)
    assert "an unsupported custom assignor is in use" in result.response["errorMessage"]
    # Empty user data is no custom data: the upgrade goes through.
    h = MixedHarness({"foo": 1, "bar": 1})
    h.stable_classic_group(0, [("m1", "c", 10000, 5000, FOO_BAR, encode_assignment([("foo", [0])], 3, user_data=b""))])
    result = h.join_consumer("m2", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == 0


def test_upgrade_with_malformed_protocol_is_refused() -> None:
    """testConsumerGroupHeartbeatWithStableClassicGroupFailsOnMalformedProtocol."""
    h = MixedHarness({"foo": 1})
    h.stable_classic_group(0, [("m1", "c", 10000, 5000, "AAE=", "")])  # version 1, then nothing
    result = h.join_consumer("m2", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.GROUP_ID_NOT_FOUND)
    assert result.response["errorMessage"] == (f"Cannot upgrade classic group {GROUP} to consumer group because "
                                               "the embedded consumer protocol is malformed.")


def test_upgrade_member_that_never_synced_has_an_empty_assignment() -> None:
    """testConsumerGroupHeartbeatToClassicGroupWithEmptyAssignmentMember."""
    h = MixedHarness({"foo": 1, "bar": 1})
    h.stable_classic_group(3, [("m1", "c", 10000, 5000, FOO_BAR, "")])
    result = h.join_consumer("m2", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == 0
    m1 = result.records[5].value
    assert m1 is not None
    assert (m1["memberEpoch"], m1["assignedPartitions"]) == (3, [])


def test_non_joining_heartbeat_to_classic_group_is_not_found() -> None:
    h = MixedHarness({"foo": 1, "bar": 1})
    _stable_group(h)
    result = h.hb("member-id-1", 1)
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.GROUP_ID_NOT_FOUND)
    assert result.response["errorMessage"] == f"Group {GROUP} is not a consumer group."


def test_upgrade_of_rebalancing_group_fails_parked_calls() -> None:
    """testConsumerGroupHeartbeatWithPreparingRebalanceClassicGroup: the parked JoinGroup of a member
    that rejoined is answered REBALANCE_IN_PROGRESS with its member id; the group still converts."""
    from kgspec.model.migration.protocol import encode_assignment

    h = MixedHarness({"foo": 2}, configs={"group.min.session.timeout.ms": 0})
    sub = subscription(["foo"])
    h.stable_classic_group(2, [("m1", "c1", 10000, 5000, sub, encode_assignment([("foo", [0])], 3)),
                               ("m2", "c2", 10000, 5000, sub, encode_assignment([("foo", [1])], 3))], leader="m1")
    parked = h.join_classic("m1", [("range", sub)])  # the leader rejoins: PREPARING_REBALANCE, parked
    assert parked.response is None
    assert parked.pending is not None
    result = h.join_consumer("m3", ["foo"])
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert h.done[parked.pending]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert h.done[parked.pending]["memberId"] == "m1"
    assert [r.type for r in result.records][:2] == [2, 5]
    group = h.coord.groups[GROUP]
    assert group.members["m1"].member_epoch == 2
    assert group.members["m2"].member_epoch == 2
