"""Classic <-> streams groups as Kafka implements them (no online migration): one test per rule,
named after the GroupMetadataManagerTest case (4.3, and HEAD where it is the same), with the
profiles where the releases differ (KAFKA-19570, #20288, is in 4.2 and later, not in 4.1)."""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.step import Decision
from kgspec.model.streams import records as srec
from kgspec.spec.classic import PREPARING_REBALANCE

from tests.streams.helpers import request, sub, topology

GID = "classic-group-id"
TOPOLOGY = topology(sub("subtopology1", ["foo"]))


def coordinator(profile: str = "kafka-4.3", **configs: Any) -> Coordinator:
    # No topics: Kafka's test context has an empty metadata image (metadata hash 0).
    return Coordinator(profile, {"group.streams.initial.rebalance.delay.ms": 0, **configs},
                       member_ids=lambda n: "new-member")


def empty_classic_group(c: Coordinator, gid: str = GID) -> None:
    """``context.replay(newGroupMetadataRecord(new ClassicGroup(..., EMPTY, ...)))``."""
    c.replay(group_metadata_record(ClassicGroup(gid, 0), {}))


def streams_join(c: Coordinator, gid: str = GID, now: int = 0, epoch: int = 0, **fields: Any) -> Decision:
    base: dict[str, Any] = {"rebalanceTimeoutMs": 12000, "topology": TOPOLOGY, "activeTasks": [],
                            "standbyTasks": [], "warmupTasks": []} if epoch == 0 else {}
    base.update(fields)
    return c.handle(88, 0, request("member", epoch, group=gid, **base), now=now, client_id="client")


def streams_group_with_member(c: Coordinator, gid: str, epoch: int, members: list[str]) -> None:
    """``StreamsGroupBuilder(gid, epoch).withMember(...)``: 19*, 17, 21*, 20, 22*."""
    from kgspec.model.streams.member import STABLE, StreamsMember

    ms = [StreamsMember(m, epoch, epoch - 1 if epoch else 0, STABLE, client_id="client", client_host="/127.0.0.1")
          for m in members]
    records = [srec.member_metadata_record(gid, m) for m in ms]
    records.append(srec.group_metadata_record(gid, epoch, 0, -1, {"num.standby.replicas": "0"}))
    records += [srec.target_member_record(gid, m.member_id, {}) for m in ms]
    records.append(srec.target_metadata_record(gid, epoch, 0))
    records += [srec.current_assignment_record(gid, m, c.profile) for m in ms]
    c.apply(records)


def classic_join(c: Coordinator, gid: str, version: int = 9, protocols: list[dict[str, str]] | None = None,
                 protocol_type: str = "consumer") -> Decision:
    req = {"groupId": gid, "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 30000, "memberId": "",
           "groupInstanceId": None, "protocolType": protocol_type, "reason": None,
           "protocols": [{"name": "range", "metadata": ""}] if protocols is None else protocols}
    return c.handle(11, version, req, now=0, client_id="client")


# --- StreamsGroupHeartbeat to a classic group ------------------------------------------------------


@pytest.mark.parametrize(("profile", "epoch"), [("kafka-4.2", 1), ("kafka-4.3", 2), ("kafka-trunk", 2)])
def test_streams_group_heartbeat_with_empty_classic_group(profile: str, epoch: int) -> None:
    """The classic group's tombstone, then the new group's records (4.2: epoch 1; 4.3, HEAD: 2)."""
    c = coordinator(profile)
    empty_classic_group(c)
    result = streams_join(c, now=0)
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert [(r.type, r.value is None) for r in result.records] == [
        (2, True), (19, False), (23, False), (17, False), (21, False), (20, False), (22, False)]
    assert result.records[0].key == {"group": GID}
    assert result.records[3].value == {"epoch": epoch, "metadataHash": 0,
                                       "lastAssignmentConfigs": [{"key": "num.standby.replicas", "value": "0"}]}
    assert result.records[4].value == {"activeTasks": [], "standbyTasks": [], "warmupTasks": []}
    assert result.records[5].value == {"assignmentEpoch": epoch}  # timestamp 0 (the test clock's)
    current = result.records[6].value
    assert current is not None
    assert (current["memberEpoch"], current["previousMemberEpoch"], current["state"]) == (epoch, 0, 1)
    member = result.records[1].value
    assert member is not None
    assert (member["rebalanceTimeoutMs"], member["topologyEpoch"]) == (12000, 0)
    assert "classicMemberMetadata" not in member
    assert result.response["memberEpoch"] == epoch
    assert GID not in c.classic_groups
    assert GID not in c.classic_log
    assert c.streams_groups[GID].group_epoch == epoch


@pytest.mark.parametrize("profile", ["kafka-4.3", "kafka-trunk", "kip"])
def test_streams_group_heartbeat_with_non_empty_classic_group(profile: str) -> None:
    """A classic group in PREPARING_REBALANCE: castToStreamsGroup's GROUP_ID_NOT_FOUND (kip too:
    an online upgrade needs the consumer protocol type, so a group without one is refused)."""
    c = coordinator(profile)
    empty_classic_group(c)
    c.classic_groups[GID].transition("prepare_rebalance", 0)
    assert c.classic_groups[GID].state == PREPARING_REBALANCE
    result = streams_join(c)
    assert result.response is not None
    if profile == "kip":
        assert (result.response["errorCode"], result.response["errorMessage"]) == (
            int(Errors.GROUP_ID_NOT_FOUND), f"Cannot upgrade classic group {GID} to streams group because the group "
            "does not use the consumer embedded protocol.")
    else:
        assert (result.response["errorCode"], result.response["errorMessage"]) == (
            int(Errors.GROUP_ID_NOT_FOUND), f"Group {GID} is not a streams group.")
    assert result.records == []
    assert GID in c.classic_groups
    assert GID not in c.streams_groups


def test_streams_group_heartbeat_with_empty_classic_group_on_4_1() -> None:
    """4.1's getOrCreateStreamsGroup has no deletion: an empty classic group is refused too."""
    c = coordinator("kafka-4.1")
    empty_classic_group(c)
    result = streams_join(c)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["errorMessage"]) == (
        int(Errors.GROUP_ID_NOT_FOUND), f"Group {GID} is not a streams group.")
    assert result.records == []
    assert GID in c.classic_groups


@pytest.mark.parametrize("epoch", [1, -1])
def test_streams_group_heartbeat_with_epoch_to_classic_group(epoch: int) -> None:
    """getStreamsGroupOrThrow (heartbeat) and streamsGroup (leave -1): castToStreamsGroup's message,
    not "Streams group g not found." — also for an empty classic group."""
    c = coordinator()
    empty_classic_group(c)
    result = streams_join(c, epoch=epoch)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["errorMessage"], result.response["memberId"]) == (
        int(Errors.GROUP_ID_NOT_FOUND), f"Group {GID} is not a streams group.", "")
    assert GID in c.classic_groups


def test_streams_group_describe_on_classic_group() -> None:
    c = coordinator()
    empty_classic_group(c)
    group = c.handle(89, 0, {"groupIds": [GID]}, now=0).response["groups"][0]  # type: ignore[index]
    assert (group["errorCode"], group["errorMessage"]) == (int(Errors.GROUP_ID_NOT_FOUND),
                                                           f"Group {GID} is not a streams group.")


# --- classic calls to a streams group ------------------------------------------------------------


def test_classic_group_join_with_empty_streams_group() -> None:
    """StreamsGroupBuilder(g, 10), JoinGroup v9 with an unknown member: MEMBER_ID_REQUIRED; the
    records start with the streams tombstones 20, 17, 23 (no members), then the empty GroupMetadata."""
    c = coordinator()
    gid = "streams-group-id"
    streams_group_with_member(c, gid, 10, [])
    result = classic_join(c, gid)
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.MEMBER_ID_REQUIRED)
    assert result.records[:3] == [srec.target_metadata_tombstone(gid), srec.group_metadata_tombstone(gid),
                                  srec.topology_tombstone(gid)]
    assert [r.type for r in result.records] == [20, 17, 23, 2]
    assert result.records[3].value is not None
    assert result.records[3].value["members"] == []
    assert gid not in c.streams_groups
    assert gid in c.classic_groups


def test_classic_group_join_with_empty_streams_group_cancels_its_initial_rebalance_timer() -> None:
    """maybeDeleteEmptyStreamsGroup -> createGroupTombstoneRecordsAndCancelTimers: the initial
    rebalance delay a member that left armed is cancelled with the group."""
    c = coordinator(**{"group.streams.initial.rebalance.delay.ms": 3000})
    gid = "streams-group-id"
    streams_join(c, gid)
    assert "initial-rebalance-timeout-streams-group-id" in c.timers
    streams_join(c, gid, now=10, epoch=-1)
    assert c.streams_groups[gid].is_empty()
    classic_join(c, gid)
    assert "initial-rebalance-timeout-streams-group-id" not in c.timers


@pytest.mark.parametrize("profile", ["kafka-4.3", "kafka-trunk"])
def test_classic_group_join_with_non_empty_streams_group(profile: str) -> None:
    c = coordinator(profile)
    gid = "streams-group-id"
    streams_group_with_member(c, gid, 10, ["m"])
    result = classic_join(c, gid)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["memberId"]) == (int(Errors.INCONSISTENT_GROUP_PROTOCOL), "")
    assert result.records == []
    assert gid in c.streams_groups
    assert gid not in c.classic_groups


def test_classic_group_join_with_empty_streams_group_on_4_1() -> None:
    """4.1's classicGroupJoin sends every streams group to INCONSISTENT_GROUP_PROTOCOL."""
    c = coordinator("kafka-4.1")
    gid = "streams-group-id"
    streams_group_with_member(c, gid, 10, [])
    result = classic_join(c, gid)
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.INCONSISTENT_GROUP_PROTOCOL)
    assert result.records == []
    assert gid in c.streams_groups


def test_classic_group_join_on_streams_group() -> None:
    """testClassicGroupJoinOnStreamsGroup: protocol type consumer, no protocols."""
    c = coordinator()
    streams_group_with_member(c, "group-foo", 1, ["m"])
    result = classic_join(c, "group-foo", protocols=[])
    assert result.response is not None
    assert result.pending is None
    assert (result.response["errorCode"], result.response["memberId"]) == (int(Errors.INCONSISTENT_GROUP_PROTOCOL), "")
    assert result.records == []
    assert "group-foo" in c.streams_groups


def test_classic_group_sync_on_streams_group() -> None:
    """testClassicGroupSyncOnStreamsGroup: UNKNOWN_MEMBER_ID, no records, answered at once."""
    c = coordinator()
    streams_group_with_member(c, "group-foo", 1, ["m"])
    result = c.handle(14, 5, {"groupId": "group-foo", "generationId": 1, "memberId": "m", "groupInstanceId": None,
                              "protocolType": "consumer", "protocolName": "range", "assignments": []}, now=0)
    assert result.response is not None
    assert result.response["errorCode"] == int(Errors.UNKNOWN_MEMBER_ID)
    assert result.records == []
    assert result.pending is None


def test_classic_group_heartbeat_on_streams_group() -> None:
    """classicGroupHeartbeat: UnknownMemberIdException "Group g not found." -> UNKNOWN_MEMBER_ID."""
    c = coordinator()
    streams_group_with_member(c, "group-foo", 1, ["m"])
    result = c.handle(12, 4, {"groupId": "group-foo", "generationId": 1, "memberId": "m",
                              "groupInstanceId": None}, now=0)
    assert result.response == {"throttleTimeMs": 0, "errorCode": int(Errors.UNKNOWN_MEMBER_ID)}


def test_classic_group_leave_on_streams_group() -> None:
    """testClassicGroupLeaveOnStreamsGroup: UnknownMemberIdException, which the service turns into
    a per-member UNKNOWN_MEMBER_ID with top-level error NONE."""
    c = coordinator()
    streams_group_with_member(c, "group-foo", 1, ["m"])
    result = c.handle(13, 5, {"groupId": "group-foo", "members": [{"memberId": "m", "groupInstanceId": None,
                                                                   "reason": None}]}, now=0)
    assert result.response is not None
    assert result.response["errorCode"] == 0
    assert result.response["members"] == [{"memberId": "m", "groupInstanceId": None,
                                           "errorCode": int(Errors.UNKNOWN_MEMBER_ID)}]
    assert result.records == []
    assert "m" in c.streams_groups["group-foo"].members


def test_consumer_group_heartbeat_on_streams_group() -> None:
    c = coordinator()
    streams_group_with_member(c, "group-foo", 1, ["m"])
    result = c.handle(68, 1, {"groupId": "group-foo", "memberId": "m", "memberEpoch": 0, "serverAssignor": "range",
                              "rebalanceTimeoutMs": 5000, "subscribedTopicNames": ["foo", "bar"],
                              "topicPartitions": []}, now=0)
    assert result.response is not None
    assert (result.response["errorCode"], result.response["errorMessage"]) == (
        int(Errors.GROUP_ID_NOT_FOUND), "Group group-foo is not a consumer group.")


@pytest.mark.parametrize("kind", ["streams", "classic"])
def test_consumer_group_describe_on_streams_group(kind: str) -> None:
    """testConsumerGroupDescribeOnStreamsGroup (and a classic group: the same consumerGroup cast)."""
    c = coordinator()
    if kind == "streams":
        streams_group_with_member(c, "group-foo", 1, ["m"])
    else:
        empty_classic_group(c, "group-foo")
    group = c.handle(69, 1, {"groupIds": ["group-foo"]}, now=0).response["groups"][0]  # type: ignore[index]
    assert (group["errorCode"], group["errorMessage"]) == (int(Errors.GROUP_ID_NOT_FOUND),
                                                           "Group group-foo is not a consumer group.")
