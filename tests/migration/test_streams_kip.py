"""The seed's online migration classic <-> streams (KIP-1071, profile ``kip``; Kafka never
implemented it): one test per rule, exact values. The scenario is the seed's example — a
classic Streams group at generation 23 with A and B, C joining with the streams protocol —
on one stateful subtopology of six tasks with one standby replica (no warm-ups, so the
assignments are the sticky assignor's)."""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.migration.protocol import encode_subscription
from kgspec.model.migration.streams_protocol import (
    decode_streams_assignment,
    decode_streams_subscription,
    encode_streams_assignment,
    encode_subscription_user_data,
)
from kgspec.model.step import Decision
from kgspec.model.streams.member import STABLE, UNRELEASED_TASKS, UNREVOKED_TASKS
from kgspec.spec.classic import PREPARING_REBALANCE

from tests.streams.helpers import request, sub, topology

G = "g"
TOPOLOGY = topology(sub("0", ["foo"], ("app-store-changelog",)))
Tasks = dict[str, list[int]]
A_ACTIVE, A_STANDBY = {"0": [0, 2, 4]}, {"0": [1, 3, 5]}
B_ACTIVE, B_STANDBY = {"0": [1, 3, 5]}, {"0": [0, 2, 4]}


def fs(tasks: Tasks) -> dict[str, frozenset[int]]:
    return {s: frozenset(p) for s, p in tasks.items()}


def metadata(process: str, active: Tasks, standby: Tasks, epoch: int = 0) -> str:
    data = encode_subscription_user_data(process, epoch, fs(active), fs(standby))
    return encode_subscription(["foo"], 3, user_data=data)


class Harness:
    def __init__(self, **configs: Any) -> None:
        self.c = Coordinator("kip", {"group.streams.initial.rebalance.delay.ms": 0,
                                     "group.streams.assignment.interval.ms": 0,
                                     "group.streams.num.standby.replicas": 1,
                                     "group.streams.num.warmup.replicas": 0, **configs},
                             member_ids=lambda n: "new-member")
        self.c.update_topic("foo", "AAAAAAAAAAAAAAAAAAAAAA", 6)
        self.c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 6)

    def classic_group(self, generation: int = 23, protocol_type: str = "consumer",
                      a_metadata: str | None = None) -> None:
        """A STABLE classic Streams group: A (leader) and B, their last assignments (GroupMetadata replay)."""
        group = ClassicGroup(G, 0, state="STABLE", generation_id=generation, protocol_type=protocol_type,
                             protocol_name="stream", leader_id="A")
        group.add(ClassicMember("A", None, "c-A", "/127.0.0.1", 30000, 10000, protocol_type,
                                (("stream", a_metadata or metadata("pA", A_ACTIVE, A_STANDBY)),)))
        group.add(ClassicMember("B", None, "c-B", "/127.0.0.1", 30000, 10000, protocol_type,
                                (("stream", metadata("pB", B_ACTIVE, B_STANDBY)),)))
        self.c.replay(group_metadata_record(group, {
            "A": encode_streams_assignment(fs(A_ACTIVE), fs(A_STANDBY), 3),
            "B": encode_streams_assignment(fs(B_ACTIVE), fs(B_STANDBY), 3)}))

    def streams(self, now: int, member: str, epoch: int, **fields: Any) -> Decision:
        self.c.advance(now)
        return self.c.handle(88, 0, request(member, epoch, **fields), now=now, client_id=member)

    def join_streams(self, now: int, member: str = "C", process: str = "pC") -> Decision:
        return self.streams(now, member, 0, rebalanceTimeoutMs=30000, topology=TOPOLOGY, processId=process,
                            activeTasks=[], standbyTasks=[], warmupTasks=[])

    def join(self, now: int, member: str, process: str, active: Tasks, standby: Tasks, version: int = 9,
             name: str = "stream", rebalance: int = 30000) -> dict[str, Any]:
        self.c.advance(now)
        result = self.c.handle(11, version, {
            "groupId": G, "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": rebalance, "memberId": member,
            "groupInstanceId": None, "protocolType": "consumer", "reason": None,
            "protocols": [{"name": name, "metadata": metadata(process, active, standby)}]},
            now=now, client_id=f"c-{member}")
        assert result.response is not None
        return result.response

    def sync(self, now: int, member: str, generation: int) -> dict[str, Any]:
        self.c.advance(now)
        result = self.c.handle(14, 5, {"groupId": G, "generationId": generation, "memberId": member,
                                       "groupInstanceId": None, "protocolType": "consumer",
                                       "protocolName": "stream", "assignments": []}, now=now, client_id=f"c-{member}")
        assert result.response is not None
        return result.response

    def heartbeat(self, now: int, member: str, generation: int) -> int:
        self.c.advance(now)
        result = self.c.handle(12, 4, {"groupId": G, "generationId": generation, "memberId": member,
                                       "groupInstanceId": None}, now=now, client_id=f"c-{member}")
        assert result.response is not None
        return int(result.response["errorCode"])

    def member(self, mid: str) -> Any:
        return self.c.streams_groups[G].members[mid]


def deadline(h: Harness, key: str) -> int | None:
    timer = h.c.timers.get(key)
    return None if timer is None else timer.deadline_ms


def sets(tasks: dict[str, frozenset[int]]) -> Tasks:
    return {s: sorted(p) for s, p in tasks.items()}


def converted() -> tuple[Harness, Decision]:
    h = Harness()
    h.classic_group()
    return h, h.join_streams(100)


# --- the upgrade ------------------------------------------------------------------------------------


def test_first_streams_heartbeat_converts_the_classic_group_at_its_generation() -> None:
    """The GroupMetadata tombstone, 19*, 23 (C's topology initializes the group), 17 (generation
    23, the topology validated), 21*, 20 (23), 22* (STABLE at 23), then C's join: 19, 17 at 24 =
    generation + 1, 21*, 20, 22."""
    h, result = converted()
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert [r.type for r in result.records] == [2, 19, 19, 23, 18, 17, 21, 21, 20, 22, 22, 19, 17, 21, 21, 21, 20, 22]
    assert result.records[0].value is None
    assert result.records[3].value is not None
    assert result.records[3].value["epoch"] == 0
    # kip: the seed's partition metadata record (its topics by name, no racks), then its epoch-only 17
    assert result.records[4].value == {"topics": [
        {"topicId": "CCCCCCCCCCCCCCCCCCCCCC", "topicName": "app-store-changelog", "numPartitions": 6,
         "partitionMetadata": []},
        {"topicId": result.records[4].value["topics"][1]["topicId"], "topicName": "foo", "numPartitions": 6,
         "partitionMetadata": []}]}
    assert result.records[5].value == {"epoch": 23}
    assert result.records[6].value == {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 2, 4]}],
                                       "standbyTasks": [{"subtopologyId": "0", "partitions": [1, 3, 5]}],
                                       "warmupTasks": []}
    assert result.records[8].value == {"assignmentEpoch": 23}
    a19 = result.records[1].value
    assert a19 is not None
    assert a19["processId"] == "pA"
    assert a19["topologyEpoch"] == 0
    assert a19["classicMemberMetadata"]["sessionTimeoutMs"] == 10000
    a22 = result.records[9].value
    assert a22 is not None
    assert (a22["memberEpoch"], a22["previousMemberEpoch"], a22["state"]) == (23, 23, STABLE)
    assert a22["activeTasks"] == [{"subtopologyId": "0", "partitions": [0, 2, 4], "assignmentEpochs": [23, 23, 23]}]
    assert a22["standbyTasks"] == [{"subtopologyId": "0", "partitions": [1, 3, 5]}]
    assert result.records[12].value == {"epoch": 24}
    assert "classicMemberMetadata" not in (result.records[11].value or {})
    assert result.response["memberEpoch"] == 24
    group = h.c.streams_groups[G]
    assert (group.group_epoch, group.assignment_epoch) == (24, 24)
    assert G not in h.c.classic_groups
    # The sticky assignor keeps what the classic members own where it can.
    assert {m: sets(group.target[m]["active"]) for m in "ABC"} == {"A": {"0": [0, 2]}, "B": {"0": [1, 3]},
                                                                   "C": {"0": [4, 5]}}
    assert sets(group.target["C"]["standby"]) == {"0": [0, 1]}
    assert (h.member("A").member_epoch, h.member("A").state) == (23, STABLE)
    assert sets(result.response and {e["subtopologyId"]: frozenset(e["partitions"])
                                     for e in result.response["standbyTasks"]}) == {"0": [0, 1]}
    assert h.member("C").state == UNRELEASED_TASKS  # its actives 4 and 5 are still A's and B's


def test_conversion_of_a_not_ready_topology_targets_no_task() -> None:
    """Without the changelog topic the topology is NotReady: 17 has no validated epoch, 21 is empty
    for every converted member (their current tasks stay in 22 until they revoke them)."""
    h = Harness()
    h.c.delete_topic("app-store-changelog")
    h.classic_group()
    result = h.join_streams(100)
    assert [r.type for r in result.records][:11] == [2, 19, 19, 23, 18, 17, 21, 21, 20, 22, 22]
    assert result.records[5].value is not None
    assert list(result.records[5].value) == ["epoch"]  # the seed's record 17: not ready is not written
    assert h.c.streams_groups["g"].validated_topology_epoch == -1  # derived from records 23 and 18
    assert result.records[6].value == {"activeTasks": [], "standbyTasks": [], "warmupTasks": []}
    assert h.c.streams_groups[G].state == "NOT_READY"


def test_conversion_arms_the_classic_session_timeouts() -> None:
    h, _ = converted()
    assert deadline(h, "session-timeout-g-A") == 100 + 10000
    assert deadline(h, "session-timeout-g-C") == 100 + 45000


@pytest.mark.parametrize(("setup", "message"), [
    ({"protocol_type": "connect"}, "the group does not use the consumer embedded protocol"),
    ({"a_metadata": encode_subscription(["foo"], 3, user_data=b"\x00\x01")}, "the embedded streams protocol is malformed"),
    ({"a_metadata": encode_subscription(["foo"], 3)}, "the embedded streams protocol is malformed"),
])
def test_upgrade_refused(setup: dict[str, Any], message: str) -> None:
    h = Harness()
    h.classic_group(**setup)
    result = h.join_streams(100)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["errorMessage"]) == (
        int(Errors.GROUP_ID_NOT_FOUND), f"Cannot upgrade classic group {G} to streams group because {message}.")
    assert result.records == []
    assert G in h.c.classic_groups


def test_upgrade_refused_above_streams_max_size() -> None:
    h = Harness(**{"group.streams.max.size": 1})
    h.classic_group()
    result = h.join_streams(100)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["errorMessage"]) == (int(Errors.GROUP_ID_NOT_FOUND), (
        f"Cannot upgrade classic group {G} to streams group because the group size exceeds the streams group "
        "maximum size."))
    assert result.records == []
    assert G in h.c.classic_groups


def test_upgrade_fails_parked_calls_with_rebalance_in_progress() -> None:
    """A member's parked JoinGroup is answered REBALANCE_IN_PROGRESS, as convertToConsumerGroup does."""
    h = Harness()
    h.classic_group()
    group = h.c.classic_groups[G]
    parked = h.c.handle(11, 9, {"groupId": G, "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 30000,
                                "memberId": "A", "groupInstanceId": None, "protocolType": "consumer", "reason": None,
                                "protocols": [{"name": "stream", "metadata": metadata("pA", {"0": [0]}, {})}]},
                        now=50, client_id="c-A")
    assert parked.pending is not None
    assert group.state == PREPARING_REBALANCE
    h.join_streams(100)
    done = {c.call.call_id: c.response for c in h.c.take_completed()}
    assert done[parked.pending]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert done[parked.pending]["memberId"] == "A"


# --- classic members inside the streams group ---------------------------------------------------


def test_classic_heartbeat_behind_the_assignment_epoch_must_rejoin() -> None:
    h, _ = converted()
    assert h.heartbeat(200, "A", 23) == int(Errors.REBALANCE_IN_PROGRESS)
    assert deadline(h, "join-g-A") == 200 + 30000
    assert h.heartbeat(200, "A", 22) == int(Errors.ILLEGAL_GENERATION)
    assert h.heartbeat(200, "C", 24) == int(Errors.UNKNOWN_MEMBER_ID)  # C uses the streams protocol


def test_classic_join_is_translated_and_keeps_the_generation_while_revoking() -> None:
    """The seed: A must revoke active 4, so "A does not increase its generation ID"; its SyncGroup
    gets what it keeps (active 0, 2; standby 3), not its revoked task, nor yet task 4 as a standby
    ("Newly assigned standby and warm-up tasks await that any member with the same processId owning
    that task (as active or standby) confirms revocation": A itself). The rejoin confirms it."""
    h, _ = converted()
    join = h.join(300, "A", "pA", A_ACTIVE, A_STANDBY)
    assert (join["errorCode"], join["generationId"], join["memberId"], join["leader"]) == (0, 23, "A", "")
    assert (join["protocolType"], join["protocolName"], join["members"]) == ("consumer", "stream", [])
    assert h.member("A").state == UNREVOKED_TASKS
    assert deadline(h, "sync-g-A") == 300 + 30000
    sync = h.sync(310, "A", 23)
    assert sync["errorCode"] == 0
    active, standby = decode_streams_assignment(sync["assignment"])
    assert (sets(active), sets(standby)) == ({"0": [0, 2]}, {"0": [3]})
    assert "sync-g-A" not in h.c.timers
    # Still revoking: the heartbeat asks for the rejoin that reports the revocation.
    assert h.heartbeat(320, "A", 23) == int(Errors.REBALANCE_IN_PROGRESS)
    rejoin = h.join(330, "A", "pA", {"0": [0, 2]}, {"0": [3]})
    assert rejoin["generationId"] == 24
    assert (h.member("A").member_epoch, h.member("A").state) == (24, STABLE)
    assert sets(h.member("A").assigned_sets()["standby"]) == {"0": [3, 4]}
    assert h.heartbeat(340, "A", 24) == 0


def test_kgspec_user_data_decodes() -> None:
    """kgspec's Streams user data inside a ConsumerProtocol Subscription v3."""
    sub_ = decode_streams_subscription(metadata("pA", {"0": [0]}, {"0": [1, 2]}))
    assert (sub_.process_id, sub_.topology_epoch, sets(sub_.active), sets(sub_.standby)) == (
        "pA", 0, {"0": [0]}, {"0": [1, 2]})


def test_sync_before_the_rejoin_is_rebalance_in_progress() -> None:
    h, _ = converted()
    sync = h.sync(200, "A", 23)
    assert sync["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert deadline(h, "join-g-A") == 200 + 30000


def test_new_classic_member_needs_a_member_id_then_joins() -> None:
    h, _ = converted()
    first = h.join(400, "", "pD", {}, {})
    assert (first["errorCode"], first["memberId"]) == (int(Errors.MEMBER_ID_REQUIRED), "new-member")
    assert "new-member" not in h.c.streams_groups[G].members
    second = h.join(410, "new-member", "pD", {}, {})
    assert (second["errorCode"], second["generationId"]) == (0, 25)
    assert h.c.streams_groups[G].group_epoch == 25
    assert h.member("new-member").classic_member_metadata is not None


def test_classic_join_with_an_unsupported_protocol_is_inconsistent() -> None:
    h, _ = converted()
    join = h.join(400, "A", "pA", A_ACTIVE, A_STANDBY, name="other")
    assert (join["errorCode"], join["memberId"]) == (int(Errors.INCONSISTENT_GROUP_PROTOCOL), "")


def test_classic_calls_are_checked_as_in_a_consumer_group() -> None:
    """SyncGroup's protocol type and name, an unknown instance id (Heartbeat, LeaveGroup): Kafka's
    consumer-group errors and messages."""
    h, _ = converted()
    base = {"groupId": G, "generationId": 23, "memberId": "A", "groupInstanceId": None, "assignments": []}
    for kind, name, message in [
        ("consumer", "other", "The protocol name other from member A request is not equal to the protocol name "
                              "stream returned in the join response."),
        ("connect", "stream", "The protocol type connect from member A request is not equal to the group protocol "
                              "type consumer."),
    ]:
        result = h.c.handle(14, 5, {**base, "protocolType": kind, "protocolName": name}, now=200, client_id="c-A")
        assert result.response is not None
        assert (result.response["errorCode"], result.explain) == (int(Errors.INCONSISTENT_GROUP_PROTOCOL), [message])
    result = h.c.handle(12, 4, {"groupId": G, "generationId": 23, "memberId": "A", "groupInstanceId": "i"},
                        now=200, client_id="c-A")
    assert (result.response, result.explain) == ({"throttleTimeMs": 0, "errorCode": int(Errors.UNKNOWN_MEMBER_ID)},
                                                 [f"Member with instance id i is not a member of group {G}."])
    result = h.c.handle(13, 5, {"groupId": G, "members": [{"memberId": "A", "groupInstanceId": "i", "reason": None}]},
                        now=200)
    assert result.response is not None
    assert result.response["members"] == [{"memberId": "A", "groupInstanceId": "i",
                                           "errorCode": int(Errors.UNKNOWN_MEMBER_ID)}]
    assert result.records == []
    assert sorted(h.c.streams_groups[G].members) == ["A", "B", "C"]


# --- the downgrade ---------------------------------------------------------------------------


def test_last_streams_member_leaving_converts_back_to_classic() -> None:
    """Streams tombstones for every member (22*, 21*, 20, 19*, 17, 23), then GroupMetadata at
    generation = group epoch with the remaining classic members' targets; PREPARING_REBALANCE."""
    h, _ = converted()
    result = h.streams(500, "C", -1)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["memberEpoch"]) == (0, -1)
    types = [(r.type, r.value is None) for r in result.records]
    assert types == [(22, True)] * 3 + [(21, True)] * 3 + [(20, True)] + [(19, True)] * 3 + [
        (18, True), (17, True), (23, True), (2, False)]
    value = result.records[-1].value
    assert value is not None
    assert (value["generation"], value["protocolType"], value["protocol"], value["leader"]) == (24, "consumer",
                                                                                                 "stream", "A")
    assignments = {m["memberId"]: decode_streams_assignment(m["assignment"]) for m in value["members"]}
    assert {m: (sets(a), sets(s)) for m, (a, s) in assignments.items()} == {
        "A": ({"0": [0, 2]}, {"0": [3, 4]}), "B": ({"0": [1, 3]}, {"0": [2, 5]})}
    assert G not in h.c.streams_groups
    classic = h.c.classic_groups[G]
    assert (classic.state, classic.generation_id) == (PREPARING_REBALANCE, 24)
    assert "session-timeout-g-A" not in h.c.timers
    assert "heartbeat-g-A" in h.c.timers
    assert h.heartbeat(510, "A", 24) == int(Errors.REBALANCE_IN_PROGRESS)  # a classic group's answer now


def test_classic_member_leaving_keeps_the_streams_group() -> None:
    """A classic LeaveGroup while a streams member remains: a fence (epoch + 1), no downgrade."""
    h, _ = converted()
    result = h.c.handle(13, 5, {"groupId": G, "members": [{"memberId": "A", "groupInstanceId": None, "reason": None},
                                                          {"memberId": "X", "groupInstanceId": None, "reason": None}]},
                        now=600)
    assert result.response is not None
    assert [m["errorCode"] for m in result.response["members"]] == [0, int(Errors.UNKNOWN_MEMBER_ID)]
    assert [r.type for r in result.records] == [22, 21, 19, 17]
    assert h.c.streams_groups[G].group_epoch == 25
    assert "A" not in h.c.streams_groups[G].members


def test_streams_member_session_timeout_downgrades() -> None:
    h = Harness(**{"group.streams.session.timeout.ms": 5000})  # C's session ends before A's and B's
    h.classic_group()
    h.join_streams(100)
    firings = h.c.advance(100 + 5000)
    assert [f.timer.key for f in firings] == ["session-timeout-g-C"]
    assert [r.type for r in firings[0].records] == [22] * 3 + [21] * 3 + [20] + [19] * 3 + [18, 17, 23, 2]
    value = firings[0].records[-1].value
    assert value is not None
    assert (value["generation"], [m["memberId"] for m in value["members"]]) == (24, ["A", "B"])
    assert h.c.classic_groups[G].state == PREPARING_REBALANCE
    assert G not in h.c.streams_groups


def test_classic_sync_timeout_fences_the_member() -> None:
    h, _ = converted()
    h.join(300, "A", "pA", A_ACTIVE, A_STANDBY, rebalance=5000)
    firings = h.c.advance(300 + 5000)
    assert [f.timer.key for f in firings] == ["sync-g-A"]
    assert [r.type for r in firings[0].records] == [22, 21, 19, 17]
    assert "A" not in h.c.streams_groups[G].members


def test_other_profiles_refuse_the_migration() -> None:
    """kafka-4.3 has no online migration: the non-empty classic group is not a streams group."""
    h = Harness()
    h.c = Coordinator("kafka-4.3")
    h.c.update_topic("foo", "AAAAAAAAAAAAAAAAAAAAAA", 6)
    h.classic_group()
    result = h.join_streams(100)
    assert result.response is not None
    assert result.response["errorMessage"] == f"Group {G} is not a streams group."


def test_describe_marks_members_still_on_the_classic_protocol() -> None:
    """Seed 002 StreamsGroupDescribe ``IsClassic``: "True for classic members that have not been
    upgraded yet." A and B (classic) are, C (streams protocol) is not; Kafka's is always false."""
    h, _ = converted()
    described = h.c.handle(89, 0, {"groupIds": [G], "includeAuthorizedOperations": False}, now=0).response
    assert described is not None
    assert {m["memberId"]: m["isClassic"] for m in described["groups"][0]["members"]} == {
        "A": True, "B": True, "C": False}
