"""Static membership and LeaveGroup (GroupMetadataManagerTest, Kafka 4.3)."""

from __future__ import annotations

from kgspec.model.classic.responses import join_response, leave_response, sync_response
from kgspec.spec.classic import EMPTY, PREPARING_REBALANCE, STABLE

from tests.classic.harness import Harness


def static_stable(h: Harness) -> tuple[str, str]:
    """Static members i1 (leader) and i2 at generation 1, STABLE at 6000."""
    a = h.join(0, instance_id="i1", client_id="c1")
    b = h.join(0, instance_id="i2", client_id="c2")
    h.advance(6000)
    leader = h.response(a)["memberId"]
    follower = h.response(b)["memberId"]
    assert h.response(a)["leader"] == leader
    h.sync(6000, leader, 1, instance_id="i1", assignments={leader: "AAAB", follower: "AAAC"})
    h.sync(6000, follower, 1, instance_id="i2")
    return leader, follower


def test_static_member_joins_without_member_id_required() -> None:
    """testStaticMemberJoinAsFirstMember: the id is <group.instance.id>-<uuid>."""
    h = Harness()
    leader, follower = static_stable(h)
    assert (leader, follower) == ("i1-1", "i2-2")
    assert h.group().static_members == {"i1": "i1-1", "i2": "i2-2"}


def test_static_follower_rejoin_with_unknown_member_id_replaces_it_without_rebalance() -> None:
    """testStaticMemberRejoinAsFollowerWithUnknownMemberId: same protocol, STABLE -> persisted, no rebalance."""
    h = Harness()
    leader, old = static_stable(h)
    r = h.join(7000, instance_id="i2", client_id="c2")
    assert r.response == join_response(9, member_id="i2-3", generation_id=1, protocol_type="consumer",
                                       protocol_name="range", leader=leader)
    assert h.group().state == STABLE
    assert h.group().generation_id == 1
    [record] = r.records
    assert record.value is not None
    assert {m["memberId"]: m["assignment"] for m in record.value["members"]} == {leader: "AAAB", "i2-3": "AAAC"}
    # The old member id is fenced.
    assert h.heartbeat(7100, old, 1, instance_id="i2")["errorCode"] == 82
    assert h.sync(7100, "i2-3", 1, instance_id="i2").response == sync_response(
        5, protocol_type="consumer", protocol_name="range", assignment="AAAC")


def test_static_leader_rejoin_with_unknown_member_id() -> None:
    """testStaticMemberRejoinWithLeaderIdAndUnknownMemberId: v9 tells the new leader to skip the
    assignment; before v9 the old leader id is returned so the client does not act as leader."""
    h = Harness()
    _leader, _follower = static_stable(h)
    r = h.join(7000, instance_id="i1", client_id="c1")
    assert r.response == join_response(
        9, member_id="i1-3", generation_id=1, protocol_type="consumer", protocol_name="range", leader="i1-3",
        skip_assignment=True, members=[{"memberId": m, "groupInstanceId": i, "metadata": "AAE="}
                                       for m, i in ((x.member_id, x.instance_id) for x in h.group().members.values())])
    h2 = Harness()
    leader2, _ = static_stable(h2)
    r8 = h2.join(7000, instance_id="i1", client_id="c1", version=8)
    assert r8.response == join_response(8, member_id="i1-3", generation_id=1, protocol_type="consumer",
                                        protocol_name="range", leader=leader2)
    assert h2.group().leader_id == "i1-3"


def test_static_replacement_with_a_new_selected_protocol_rebalances() -> None:
    """testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged."""
    h = Harness()
    static_stable(h)
    # i2 alone cannot change the vote while i1 supports only range: same protocol, no rebalance.
    h.join(7000, instance_id="i2", client_id="c2", protos=(("roundrobin", "AAI="), ("range", "AAE=")))
    assert h.group().state == STABLE
    h.join(7100, instance_id="i1", client_id="c1", protos=(("roundrobin", "AAI="), ("range", "AAE=")))
    # Now both vote roundrobin: the selected protocol would change, so the group rebalances.
    assert h.group().state == PREPARING_REBALANCE


def test_join_with_a_mismatched_instance_id_is_fenced() -> None:
    """testStaticMemberRejoinAsFollowerWithMismatchedInstanceId / testStaticMemberJoinWithUnknownInstanceIdAndKnownMemberId."""
    h = Harness()
    _leader, follower = static_stable(h)
    assert h.join(7000, follower, instance_id="i1").response == join_response(9, 82, member_id=follower,
                                                                            protocol_name=None)
    assert h.join(7000, follower, instance_id="nope").response == join_response(9, 25, member_id=follower,
                                                                              protocol_name=None)


def test_parked_sync_of_a_replaced_static_member_is_fenced() -> None:
    """testStaticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged: in COMPLETING_REBALANCE the
    old member's parked SyncGroup gets FENCED_INSTANCE_ID, and the group rebalances."""
    h = Harness()
    leader, follower = static_stable(h)
    h.join(7000, leader, instance_id="i1", client_id="c1")  # the leader's rejoin: PREPARING
    h.join(7001, follower, instance_id="i2", client_id="c2")  # all joined: generation 2
    parked = h.sync(7002, follower, 2, instance_id="i2")
    assert parked.response is None
    h.join(7003, instance_id="i2", client_id="c2")  # a duplicate with a new id
    assert h.done[parked.pending] == sync_response(5, 82)  # type: ignore[index]
    assert h.group().state == PREPARING_REBALANCE
    assert h.group().static_members["i2"] == "i2-3"


def test_leave_group_versions_and_member_errors() -> None:
    """testLeaveGroupUnknownGroup, testLeaveGroupUnknownMemberIdExistingGroup, testLeaveGroupWithFencedInstanceId,
    testStaticMembersValidBatchLeaveGroup, testStaticMembersUnknownInstanceBatchLeaveGroup."""
    h = Harness()
    assert h.leave(0, [("m", None)], version=5).response == leave_response(
        5, 0, [{"memberId": "m", "groupInstanceId": None, "errorCode": 25}])
    assert h.leave(0, [("m", None)], version=1).response == {"throttleTimeMs": 0, "errorCode": 25}
    assert h.leave(0, [("m", None)], version=0).response == {"errorCode": 25}
    leader, _follower = static_stable(h)
    r = h.leave(7000, [("", "i2"), ("", "i9"), (leader, "i2"), ("x", None)])
    assert r.response == leave_response(5, 0, [
        {"memberId": "", "groupInstanceId": "i2", "errorCode": 0},
        {"memberId": "", "groupInstanceId": "i9", "errorCode": 25},
        {"memberId": leader, "groupInstanceId": "i2", "errorCode": 25},  # i2 is gone by then
        {"memberId": "x", "groupInstanceId": None, "errorCode": 25}])
    assert list(h.group().members.keys()) == [leader]
    assert h.group().state == PREPARING_REBALANCE
    assert h.leave(7001, [(leader, "i9")]).response == leave_response(
        5, 0, [{"memberId": leader, "groupInstanceId": "i9", "errorCode": 25}])


def test_last_member_leaving_empties_the_group() -> None:
    """LeaveGroup in STABLE: PREPARING, the join completes at once, EMPTY with generation + 1."""
    h = Harness()
    [m] = h.stable_group(1)
    r = h.leave(7000, [(m, None)], version=2)
    assert r.response == {"throttleTimeMs": 0, "errorCode": 0}
    g = h.group()
    assert g.state == EMPTY
    assert g.generation_id == 2
    assert g.protocol_name is None
    assert g.leader_id is None
    [record] = r.records
    assert record.value == {"protocolType": "consumer", "generation": 2, "protocol": None, "leader": None,
                            "currentStateTimestamp": 7000, "members": []}


def test_pending_member_leaves() -> None:
    """testPendingMembersLeaveGroup."""
    h = Harness()
    mid = h.join(0).response["memberId"]  # type: ignore[index]
    r = h.leave(10, [(mid, None)], version=3)
    assert r.response == leave_response(3, 0, [{"memberId": mid, "groupInstanceId": None, "errorCode": 0}])
    assert h.group().pending_join == set()
    assert f"heartbeat-g-{mid}" not in h.coord.timers


def test_leave_during_join_completes_the_rebalance() -> None:
    """classicGroupLeaveToClassicGroup in PREPARING_REBALANCE -> maybeCompleteJoinPhase."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    r = h.join(7000, m1, client_id="c0")
    assert r.response is None
    h.leave(7001, [(m2, None)])
    assert h.done[r.pending]["generationId"] == 2  # type: ignore[index]
    assert h.done[r.pending]["members"] == [{"memberId": m1, "groupInstanceId": None, "metadata": "AAE="}]  # type: ignore[index]
