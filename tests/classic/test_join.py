"""JoinGroup: creation, MEMBER_ID_REQUIRED, the initial delay, leader election, protocol vote.

Each test names the GroupMetadataManagerTest case it follows (Kafka 4.3)."""

from __future__ import annotations

from kgspec.model.classic.responses import join_response
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.records import GROUP_METADATA
from kgspec.spec.classic import COMPLETING_REBALANCE, EMPTY, PREPARING_REBALANCE, STABLE

from tests.classic.harness import Harness


def test_unknown_member_v4_gets_member_id_required_and_new_group_writes_empty_record() -> None:
    """testJoinGroupUnknownMemberNewGroup (v4+ path)."""
    h = Harness()
    r = h.join(100, client_id="client")
    assert r.response == {"throttleTimeMs": 0, "errorCode": 79, "generationId": -1, "protocolType": None,
                          "protocolName": None, "leader": "", "skipAssignment": False,
                          "memberId": "client-1", "members": []}
    assert r.pending is None
    assert [x.to_json() for x in r.records] == [{
        "key": {"type": GROUP_METADATA, "data": {"group": "g"}},
        "value": {"version": 3, "data": {"protocolType": "", "generation": 0, "protocol": None, "leader": None,
                                         "currentStateTimestamp": 100, "members": []}}}]
    g = h.group()
    assert g.state == EMPTY
    assert g.pending_join == {"client-1"}
    assert len(g.members) == 0
    # The pending member's session timer: its session timeout.
    assert h.coord.timers.get("heartbeat-g-client-1").deadline_ms == 10_100  # type: ignore[union-attr]


def test_first_member_waits_for_the_initial_rebalance_delay() -> None:
    """testJoinGroupUnknownMemberNewGroup, then the delayed join completing (3000 ms)."""
    h = Harness()
    mid = h.join(0).response["memberId"]  # type: ignore[index]
    r = h.join(10, mid)
    assert r.response is None
    assert r.pending is not None
    assert r.records == []
    assert h.group().state == PREPARING_REBALANCE
    h.advance(3009)
    assert r.pending not in h.done
    h.advance(3010)
    assert h.done_at[r.pending] == 3010
    assert h.done[r.pending] == {"throttleTimeMs": 0, "errorCode": 0, "generationId": 1, "protocolType": "consumer",
                                 "protocolName": "range", "leader": mid, "skipAssignment": False, "memberId": mid,
                                 "members": [{"memberId": mid, "groupInstanceId": None, "metadata": "AAE="}]}
    assert h.group().state == COMPLETING_REBALANCE
    # Sync expiry at the rebalance timeout; the member's session restarts.
    assert h.coord.timers.get("sync-g").deadline_ms == 63_010  # type: ignore[union-attr]
    assert h.coord.timers.get(f"heartbeat-g-{mid}").deadline_ms == 13_010  # type: ignore[union-attr]


def test_initial_delay_extends_while_members_keep_joining() -> None:
    """tryCompleteInitialRebalanceElseSchedule: delay 3000, remaining = rebalance timeout - delay."""
    h = Harness()
    a = h.join(0, version=3, client_id="a", rebalance=7000)  # v3: added at once, no MEMBER_ID_REQUIRED
    h.advance(2000)
    b = h.join(2000, version=3, client_id="b", rebalance=7000)
    # At 3000 a member was added: extend by min(3000, 7000); remaining becomes 7000 - 3000 = 1000.
    h.advance(5999)
    assert a.pending not in h.done
    c = h.join(5999, version=3, client_id="c", rebalance=7000)
    # At 6000 a member was added again: extend by min(3000, 1000) = 1000, remaining max(1000 - 3000, 0) = 0.
    h.advance(6999)
    assert a.pending not in h.done
    h.advance(7000)
    assert {h.done_at[x.pending] for x in (a, b, c)} == {7000}  # type: ignore[index]
    assert h.done[a.pending]["generationId"] == 1  # type: ignore[index]


def test_version_3_adds_an_unknown_member_at_once() -> None:
    """JoinGroupRequest.requiresKnownMemberId is false below v4."""
    h = Harness()
    r = h.join(0, version=3, client_id="old")
    assert r.response is None
    assert list(h.group().members.keys()) == ["old-1"]
    h.advance(3000)
    assert h.done[r.pending] == {"throttleTimeMs": 0, "errorCode": 0, "generationId": 1, "protocolName": "range",  # type: ignore[index]
                                 "leader": "old-1", "memberId": "old-1",
                                 "members": [{"memberId": "old-1", "metadata": "AAE="}]}


def test_validation_errors_echo_the_member_id() -> None:
    """GroupCoordinatorService.joinGroup: INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT (6000..1800000)."""
    h = Harness()
    assert h.join(0, "m", group="").response == join_response(9, 24, member_id="m")
    assert h.join(0, "m", session=5999).response == join_response(9, 26, member_id="m")
    assert h.join(0, "m", session=1_800_001).response == join_response(9, 26, member_id="m")
    # A known member id for a group that does not exist: UNKNOWN_MEMBER_ID.
    assert h.join(0, "m").response == join_response(9, 25, member_id="m")
    assert h.coord.classic_groups == {}


def test_inconsistent_protocols() -> None:
    """testJoinGroupWithEmptyProtocolType, testJoinGroupWithEmptyGroupProtocol,
    testClassicGroupJoinInconsistentProtocolType, testJoinGroupInconsistentGroupProtocol."""
    h = Harness()
    assert h.join(0, protocol_type="").response["errorCode"] == 23  # type: ignore[index]
    assert h.join(0, protos=()).response["errorCode"] == 23  # type: ignore[index]
    h.stable_group(1, ts=10)
    other = h.join(7000, protocol_type="connect").response
    assert other == join_response(9, 23)
    assert h.join(7000, protos=(("roundrobin", "AAE="),)).response == join_response(9, 23)


def test_max_size_counts_awaiting_members_while_preparing() -> None:
    """testJoinGroupShouldReceiveErrorIfGroupOverMaxSize (group.max.size 10, v3 joins)."""
    h = Harness({"group.max.size": 10})
    for _ in range(10):
        r = h.join(0, version=3)
        assert r.response is None
    r = h.join(0, version=3)
    assert r.response == join_response(3, 81)
    assert len(h.group().members) == 10


def test_protocol_vote_and_its_tie_break() -> None:
    """ClassicGroup.selectProtocol: first candidate per member; a tie goes to the first in HashMap order."""
    h = Harness()
    a = h.join(0, version=3, client_id="a", protos=(("range", "AAE="), ("roundrobin", "AAI=")))
    h.join(0, version=3, client_id="b", protos=(("roundrobin", "AAM="), ("range", "AAQ=")))
    h.join(0, version=3, client_id="c", protos=(("sticky", "AAU="), ("roundrobin", "AAY="), ("range", "AAc=")))
    h.advance(6000)  # members joined during the delay: extended once
    # Candidates {range, roundrobin}; votes range 1 (a), roundrobin 2 (b, c).
    assert h.done[a.pending]["protocolName"] == "roundrobin"  # type: ignore[index]
    # The leader's member list carries each member's roundrobin metadata, in the members map's order.
    assert h.done[a.pending]["members"] == [  # type: ignore[index]
        {"memberId": "a-1", "metadata": "AAI="}, {"memberId": "b-2", "metadata": "AAM="},
        {"memberId": "c-3", "metadata": "AAY="}]
    tie = Harness()
    x = tie.join(0, version=3, client_id="a", protos=(("range", "AAE="), ("roundrobin", "AAI=")))
    tie.join(0, version=3, client_id="b", protos=(("roundrobin", "AAM="), ("range", "AAQ=")))
    tie.advance(6000)
    assert java_hashmap_order(["range", "roundrobin"])[0] == "range"
    assert tie.done[x.pending]["protocolName"] == "range"  # type: ignore[index]


def test_generation_increments_and_the_leader_keeps_its_role_when_it_rejoins() -> None:
    """testGenerationIdIncrementsOnRebalance, testJoinGroupFromUnchangedLeaderShouldRebalance."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    assert h.group().state == STABLE
    assert h.group().generation_id == 1
    assert h.group().leader_id == m1
    lead = h.join(7000, m1, client_id="c0")  # the leader's rejoin rebalances even unchanged
    assert lead.response is None
    assert h.group().state == PREPARING_REBALANCE
    assert h.heartbeat(7001, m2, 1) == {"throttleTimeMs": 0, "errorCode": 27}
    follow = h.join(7002, m2, client_id="c1")
    assert h.response(lead)["generationId"] == 2
    assert h.response(follow)["generationId"] == 2
    assert h.response(lead)["leader"] == m1
    assert [m["memberId"] for m in h.response(lead)["members"]] == \
        list(h.group().members.keys())
    assert h.response(follow)["members"] == []


def test_unchanged_follower_rejoin_in_stable_does_not_rebalance() -> None:
    """testJoinGroupFromUnchangedFollowerDoesNotRebalance / testJoinGroupExistingMemberDoesNotTriggerRebalanceInStableState."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    r = h.join(7000, m2, client_id="c1")
    assert r.response == join_response(9, 0, member_id=m2, generation_id=1, protocol_type="consumer",
                                       protocol_name="range", leader=m1)
    assert h.group().state == STABLE
    changed = h.join(7100, m2, client_id="c1", protos=(("range", "AAI="),))
    assert changed.response is None
    assert h.group().state == PREPARING_REBALANCE


def test_rejoin_in_completing_rebalance_returns_the_current_generation() -> None:
    """classicGroupJoinExistingMember, COMPLETING_REBALANCE with unchanged metadata (lost response)."""
    h = Harness()
    mid = h.join(0).response["memberId"]  # type: ignore[index]
    h.join(0, mid)
    h.advance(3000)
    again = h.join(3100, mid)
    assert again.response == join_response(9, 0, member_id=mid, generation_id=1, protocol_type="consumer",
                                           protocol_name="range", leader=mid,
                                           members=[{"memberId": mid, "groupInstanceId": None, "metadata": "AAE="}])


def test_leader_that_does_not_rejoin_is_replaced_by_a_member_that_did() -> None:
    """completeClassicGroupJoin: a dynamic member that did not rejoin is removed; the leader
    becomes the first member (HashMap order) awaiting join."""
    h = Harness()
    m1, m2 = h.stable_group(2)
    r = h.join(7000, m2, client_id="c1", protos=(("range", "AAI="),))  # metadata change: rebalance
    for t in range(7001, 67_000, 9000):  # m1 keeps its session alive but never rejoins
        assert h.heartbeat(t, m1, 1)["errorCode"] == 27
    h.advance(66_999)
    assert r.pending not in h.done
    h.advance(67_000)  # rebalance timeout (60 s) of the join phase started at 7000
    assert h.done[r.pending]["leader"] == m2
    assert h.done[r.pending]["generationId"] == 2
    assert list(h.group().members.keys()) == [m2]


def test_join_reason_is_informational() -> None:
    """JoinGroupRequest.joinReason: the v8+ reason only reaches the log."""
    h = Harness()
    _m1, m2 = h.stable_group(2)
    r = h.join(7000, m2, client_id="c1", reason="rebalance please")
    current = {"throttleTimeMs": 0, "errorCode": 0, "generationId": 1, "protocolType": "consumer",
               "protocolName": "range", "leader": "c0-1", "memberId": "c1-2", "members": []}
    assert r.response == {**current, "skipAssignment": False}
    assert h.group().state == STABLE
    r8 = h.join(7000, m2, client_id="c1", version=8, reason="x")
    assert r8.response == current  # no skipAssignment before v9
