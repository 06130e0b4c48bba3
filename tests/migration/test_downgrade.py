"""Consumer -> classic when only classic-protocol members remain (GroupMetadataManagerTest, Kafka 4.3)."""

from __future__ import annotations

from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.migration.protocol import decode_assignment
from kgspec.spec.classic import PREPARING_REBALANCE, STABLE

from tests.migration.harness import GROUP, MixedHarness, describe_records, subscription

PROTOCOLS = (("range", subscription(["foo", "bar"], {"foo": [0, 1, 2], "bar": [0, 1]})),)


def _mixed_group(policy: str = "downgrade", **configs: object) -> MixedHarness:
    """member-1 uses the classic protocol, member-2 the consumer protocol; group epoch 10."""
    h = MixedHarness({"foo": 6, "bar": 3}, configs={"group.consumer.migration.policy": policy, **configs})
    m1 = h.classic_member("member-1", 10, {"foo": [0, 1, 2], "bar": [0, 1]}, protocols=PROTOCOLS)
    m2 = h.consumer_member("member-2", 10, {"foo": [3, 4, 5], "bar": [2]})
    h.seed_consumer_group(10, [m1, m2])
    return h


def _partitions(b64: str) -> set[tuple[str, int]]:
    return {(t, p) for t, ps in decode_assignment(b64).partitions for p in ps}


def test_last_consumer_protocol_member_leaving_downgrades() -> None:
    """testLastConsumerProtocolMemberLeavingConsumerGroup: tombstones, then the GroupMetadata record;
    the classic group is STABLE at generation 10 in the record, then PREPARING_REBALANCE in memory."""
    h = _mixed_group()
    h.advance(1000)
    result = h.hb("member-2", -1, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo", "bar"], topicPartitions=[])
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert result.response["memberEpoch"] == -1
    shape = describe_records(result.records)
    assert sorted(shape[0:2]) == [(8, "member-1", True), (8, "member-2", True)]
    assert sorted(shape[2:4]) == [(7, "member-1", True), (7, "member-2", True)]
    assert shape[4] == (6, None, True)
    assert sorted(shape[5:7]) == [(5, "member-1", True), (5, "member-2", True)]
    assert shape[7:] == [(4, None, True), (3, None, True), (2, None, False)]
    value = result.records[-1].value
    assert value is not None
    assert {k: value[k] for k in ("protocolType", "generation", "protocol", "leader", "currentStateTimestamp")} == {
        "protocolType": "consumer", "generation": 10, "protocol": "range", "leader": "member-1",
        "currentStateTimestamp": 1000}
    [member] = value["members"]
    assert (member["memberId"], member["rebalanceTimeout"], member["sessionTimeout"]) == ("member-1", 45000, 5000)
    assert member["subscription"] == PROTOCOLS[0][1]
    assert decode_assignment(member["assignment"]).version == 3
    assert _partitions(member["assignment"]) == {("foo", 0), ("foo", 1), ("foo", 2), ("bar", 0), ("bar", 1)}
    assert GROUP not in h.coord.groups
    classic = h.coord.classic_groups[GROUP]
    assert classic.state == PREPARING_REBALANCE
    assert classic.generation_id == 10
    timers = h.timers()
    assert timers[f"heartbeat-{GROUP}-member-1"] == 1000 + 5000
    assert timers[f"join-{GROUP}"] == 1000 + 45000  # the rebalance timeout
    assert h.coord.classic_log[GROUP] is result.records[-1]


def test_session_timeout_of_last_consumer_member_downgrades() -> None:
    """testLastConsumerProtocolMemberSessionTimeoutInConsumerGroup."""
    h = _mixed_group()
    consumer_ops.schedule_session_timeout(h.coord, GROUP, "member-1", 0, 60_000)
    consumer_ops.schedule_session_timeout(h.coord, GROUP, "member-2", 0)  # 45 s: runs out first
    firings = h.advance(45_000)
    [firing] = [f for f in firings if f.records]
    assert firing.records[-1].type == 2
    assert h.coord.classic_groups[GROUP].state == PREPARING_REBALANCE
    assert GROUP not in h.coord.groups


def test_rebalance_timeout_of_last_consumer_member_downgrades() -> None:
    """testLastConsumerProtocolMemberRebalanceTimeoutInConsumerGroup: the fenced member was revoking."""
    from kgspec.model.consumer.member import UNREVOKED_PARTITIONS

    h = _mixed_group()
    consumer_ops.schedule_session_timeout(h.coord, GROUP, "member-1", 0, 600_000)
    consumer_ops.schedule_session_timeout(h.coord, GROUP, "member-2", 0, 600_000)
    m2 = h.coord.groups[GROUP].members["member-2"]
    consumer_ops.schedule_rebalance_timeout(h.coord, GROUP, m2, 0)
    h.coord.groups[GROUP].members["member-2"].state = UNREVOKED_PARTITIONS
    firings = h.advance(45_000)
    assert [f.timer.kind for f in firings if f.records] == ["consumer-rebalance"]
    assert h.coord.classic_groups[GROUP].generation_id == 10


def test_no_downgrade_when_policy_does_not_allow_it() -> None:
    """validateOnlineDowngradeWithFencedMembers: UPGRADE / DISABLED keep the consumer group."""
    for policy in ("upgrade", "disabled"):
        h = _mixed_group(policy)
        result = h.hb("member-2", -1)
        assert describe_records(result.records) == [(8, "member-2", True), (7, "member-2", True),
                                                    (5, "member-2", True), (3, None, False)]
        assert GROUP not in h.coord.classic_groups
        assert h.coord.groups[GROUP].group_epoch == 11


def test_no_conversion_when_size_exceeds_classic_max_group_size() -> None:
    """testNoConversionWhenSizeExceedsClassicMaxGroupSize."""
    h = MixedHarness({"foo": 6, "bar": 3}, configs={"group.max.size": 1})
    m1 = h.classic_member("member-1", 10, {"foo": [0]}, protocols=PROTOCOLS)
    m2 = h.classic_member("member-2", 10, {"foo": [1]}, protocols=PROTOCOLS)
    m3 = h.consumer_member("member-3", 10, {"foo": [2]})
    h.seed_consumer_group(10, [m1, m2, m3])
    result = h.hb("member-3", -1)
    assert [r.type for r in result.records] == [8, 7, 5, 3]
    assert GROUP in h.coord.groups


def test_last_member_leaving_never_downgrades_an_empty_group() -> None:
    h = MixedHarness({"foo": 6, "bar": 3})
    h.seed_consumer_group(10, [h.classic_member("member-1", 10, {"foo": [0]}, protocols=PROTOCOLS)])
    result = h.leave_classic([("member-1", None)])
    assert result.response is not None
    assert result.response["members"] == [
        {"memberId": "member-1", "groupInstanceId": None, "errorCode": 0}]
    assert [r.type for r in result.records] == [8, 7, 5, 3]
    assert GROUP in h.coord.groups
    assert not h.coord.groups[GROUP].members


def test_static_consumer_member_replaced_by_classic_member_downgrades() -> None:
    """testLastStaticConsumerProtocolMemberReplacedByClassicProtocolMember: the static consumer
    member's instance id joins with the classic protocol; all others are classic -> downgrade,
    the joining member takes the replaced member's assignment; no rebalance (target up to date)."""
    h = _mixed_group("bidirectional")
    group = h.coord.groups[GROUP]
    m2 = group.members["member-2"].copy()
    m2.instance_id = "instance-2"
    from kgspec.model.consumer import records as rec

    h.coord.replay(rec.member_metadata_record(GROUP, m2))
    sub = subscription(["foo", "bar"], {"foo": [3, 4, 5], "bar": [2]})
    h.coord.config._values["group.min.session.timeout.ms"] = 0
    result = h.join_classic("", [("range", sub)], instance="instance-2", session=5000, rebalance=45000)
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert result.response["generationId"] == 10
    assert result.response["protocolName"] == "range"
    new_id = result.response["memberId"]
    assert describe_records(result.records)[:8] == [
        (8, "member-2", True), (7, "member-2", True), (5, "member-2", True),   # replaceMember
        (5, new_id, False), (7, new_id, False), (8, new_id, False),
        (5, new_id, False), (8, new_id, False)]                                 # classic metadata, reconciled
    assert result.records[-1].type == 2
    tombstoned = {r.key.get("memberId") for r in result.records if r.type == 8 and r.value is None}
    assert tombstoned == {"member-1", new_id, "member-2"}  # the replacement's own, then the group's
    value = result.records[-1].value
    assert value is not None
    members = {m["memberId"]: m for m in value["members"]}
    assert set(members) == {"member-1", new_id}
    assert _partitions(members[new_id]["assignment"]) == {("foo", 3), ("foo", 4), ("foo", 5), ("bar", 2)}
    classic = h.coord.classic_groups[GROUP]
    assert classic.state == STABLE
    assert classic.static_members == {"instance-2": new_id}
