"""SyncGroup and Heartbeat, and the timers behind them (GroupMetadataManagerTest, Kafka 4.3)."""

from __future__ import annotations

from kgspec.model.classic.responses import sync_response
from kgspec.model.records import GROUP_METADATA
from kgspec.spec.classic import COMPLETING_REBALANCE, PREPARING_REBALANCE, STABLE

from tests.classic.harness import Harness


def completing(h: Harness) -> tuple[str, str]:
    """Two members at generation 1, COMPLETING_REBALANCE at 6000 (leader m1)."""
    a = h.join(0, client_id="c0").response["memberId"]  # type: ignore[index]
    b = h.join(0, client_id="c1").response["memberId"]  # type: ignore[index]
    ja = h.join(0, a, client_id="c0")
    h.join(0, b, client_id="c1")
    h.advance(6000)
    assert h.group().state == COMPLETING_REBALANCE
    return h.response(ja)["leader"], b if h.response(ja)["leader"] == a else a


def test_follower_waits_for_the_leader_then_gets_its_assignment() -> None:
    """testSyncGroupFollowerAfterLeader / testSyncGroupLeaderAfterFollower."""
    h = Harness()
    leader, follower = completing(h)
    f = h.sync(6100, follower, 1)
    assert f.response is None
    assert f.pending is not None
    assert f.records == []
    lead = h.sync(6200, leader, 1, assignments={leader: "AAAB", follower: "AAAC"})
    assert lead.response == sync_response(5, protocol_type="consumer", protocol_name="range", assignment="AAAB")
    assert h.done[f.pending] == sync_response(5, protocol_type="consumer", protocol_name="range", assignment="AAAC")
    assert h.done_at[f.pending] == 6200
    assert h.group().state == STABLE
    [record] = lead.records
    assert record.type == GROUP_METADATA
    assert record.version == 3
    assert record.value is not None
    # Written before the transition: COMPLETING_REBALANCE's timestamp (6000).
    assert {k: v for k, v in record.value.items() if k != "members"} == {
        "protocolType": "consumer", "generation": 1, "protocol": "range", "leader": leader,
        "currentStateTimestamp": 6000}
    assert [(m["memberId"], m["assignment"], m["subscription"], m["sessionTimeout"], m["rebalanceTimeout"],
             m["clientHost"]) for m in record.value["members"]] == [
        (mid, {leader: "AAAB", follower: "AAAC"}[mid], "AAE=", 10_000, 60_000, "/127.0.0.1")
        for mid in h.group().members]
    # STABLE: a later SyncGroup gets the stored assignment at once.
    assert h.sync(6300, follower, 1).response == sync_response(5, protocol_type="consumer", protocol_name="range",
                                                               assignment="AAAC")


def test_members_left_out_by_the_leader_get_an_empty_assignment() -> None:
    """testSyncGroupEmptyAssignment."""
    h = Harness()
    leader, follower = completing(h)
    h.sync(6100, leader, 1, assignments={leader: "AAAB"})
    [record] = h.group() and h.coord.classic_log.values()
    assert record.value is not None
    assert {m["memberId"]: m["assignment"] for m in record.value["members"]} == {leader: "AAAB", follower: ""}
    assert h.sync(6200, follower, 1).response == sync_response(5, protocol_type="consumer", protocol_name="range",
                                                               assignment="")


def test_sync_errors() -> None:
    """testSyncGroupFromUnknownGroup, testSyncGroupFromUnknownMember, testSyncGroupFromIllegalGeneration,
    testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent / ...NameIsInconsistent,
    testSyncGroupSucceedWhenProtocolTypeAndNameAreNotProvided (v4)."""
    h = Harness()
    assert h.sync(0, "m", 1).response == sync_response(5, 25)
    _leader, follower = completing(h)
    assert h.sync(6100, "nobody", 1).response == sync_response(5, 25)
    assert h.sync(6100, follower, 2).response == sync_response(5, 22)
    assert h.sync(6100, follower, 1, protocol_type="connect").response == sync_response(5, 23)
    assert h.sync(6100, follower, 1, protocol_name="roundrobin").response == sync_response(5, 23)
    assert h.sync(6100, follower, 1, protocol_name=None).response == sync_response(5, 23)  # mandatory from v5
    assert h.sync(6100, follower, 1, version=4, protocol_type=None, protocol_name=None).response is None
    assert h.sync(6100, "", 1, group="").response == sync_response(5, 24)


def test_sync_during_preparing_rebalance() -> None:
    """classicGroupSyncToClassicGroup: PREPARING_REBALANCE -> REBALANCE_IN_PROGRESS."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    h.join(7000, m1, client_id="c0")
    assert h.group().state == PREPARING_REBALANCE
    assert h.sync(7100, m2, 1).response == sync_response(5, 27)


def test_new_rebalance_fails_parked_syncs_with_rebalance_in_progress() -> None:
    """prepareRebalance in COMPLETING_REBALANCE: resetAndPropagateAssignmentWithError."""
    h = Harness()
    leader, follower = completing(h)
    f = h.sync(6100, follower, 1)
    h.join(6200, leader, client_id="c0", protos=(("range", "AAI="),))  # metadata change
    assert h.done[f.pending] == sync_response(5, 27)  # type: ignore[index]
    assert h.group().state == PREPARING_REBALANCE


def test_heartbeats() -> None:
    """testHeartbeatUnknownGroup, testHeartbeatUnknownMemberExistingGroup, testHeartbeatIllegalGeneration,
    testHeartbeatDuringCompletingRebalance, testHeartbeatDuringPreparingRebalance, testHeartbeatEmptyGroup."""
    h = Harness()
    assert h.heartbeat(0, "m", 1) == {"throttleTimeMs": 0, "errorCode": 25}
    assert h.heartbeat(0, "m", 1, version=0) == {"errorCode": 25}
    mid = h.join(0).response["memberId"]  # type: ignore[index]
    assert h.heartbeat(1, mid, 0)["errorCode"] == 25  # pending, not a member yet (EMPTY group)
    h.join(1, mid)
    assert h.heartbeat(2, mid, 0)["errorCode"] == 27  # PREPARING (generation 0)
    h.advance(3001)
    assert h.heartbeat(3002, mid, 0)["errorCode"] == 22
    assert h.heartbeat(3003, "other", 1)["errorCode"] == 25
    assert h.heartbeat(3004, mid, 1)["errorCode"] == 0  # COMPLETING_REBALANCE
    assert h.heartbeat(3005, mid, 1, group="")["errorCode"] == 24


def test_session_timeout_removes_a_member_and_rebalances() -> None:
    """testClassicGroupMemberSessionTimeout / testClassicGroupMemberHeartbeatMaintainsSession."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    for t in (10_000, 15_000):
        assert h.heartbeat(t, m1, 1)["errorCode"] == 0
    # m2's session restarted when its assignment was propagated (6000) and ran out at 16000.
    h.advance(15_999)
    assert m2 in h.group().members
    h.advance(16_000)
    assert m2 not in h.group().members
    assert h.group().state == PREPARING_REBALANCE
    assert h.heartbeat(20_000, m1, 1)["errorCode"] == 27
    r = h.join(20_001, m1, client_id="c0")  # everyone left has joined: generation 2 at once
    assert r.response is not None
    assert r.response["generationId"] == 2
    assert r.response["leader"] == m1


def test_new_member_join_times_out_after_five_minutes() -> None:
    """testNewMemberJoinExpiration: a parked new member's JoinGroup gets UNKNOWN_MEMBER_ID after 300 s."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    lead = h.join(7000, m1, client_id="c0", rebalance=600_000)  # a long rebalance: m2 does not rejoin
    newbie = h.join(7001, version=3, client_id="new")
    assert newbie.response is None
    for t in range(7002, 307_001, 9000):
        h.heartbeat(t, m1, 1)
        h.heartbeat(t, m2, 1)
    h.advance(307_000)
    assert newbie.pending not in h.done
    h.advance(307_001)
    assert h.done[newbie.pending] == {"throttleTimeMs": 0, "errorCode": 25, "generationId": -1,  # type: ignore[index]
                                      "protocolName": "", "leader": "", "memberId": "", "members": []}
    assert "new-3" not in h.group().members
    assert lead.pending not in h.done


def test_pending_member_expires_after_its_session_timeout() -> None:
    """testHeartbeatExpirationShouldRemovePendingMember."""
    h = Harness()
    mid = h.join(0, session=6000).response["memberId"]  # type: ignore[index]
    h.advance(5999)
    assert h.group().pending_join == {mid}
    h.advance(6000)
    assert h.group().pending_join == set()


def test_pending_sync_expiry_removes_members_that_did_not_sync() -> None:
    """testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers."""
    h = Harness()
    leader, follower = completing(h)
    h.sync(6100, leader, 1, assignments={})
    # STABLE now, but the follower never sent its SyncGroup: removed at the rebalance timeout.
    for t in range(9000, 66_000, 9000):  # both keep their sessions (heartbeats do not sync)
        assert h.heartbeat(t, leader, 1)["errorCode"] == 0
        assert h.heartbeat(t, follower, 1)["errorCode"] == 0
    h.advance(65_999)
    assert follower in h.group().members
    h.advance(66_000)
    assert list(h.group().members.keys()) == [leader]
    assert h.group().state == PREPARING_REBALANCE
