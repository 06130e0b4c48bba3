"""kafka-trunk: static streams members (KAFKA-20169). Scenarios from Kafka's
``StreamsGroupStaticMemberGroupMetadataManagerTest`` (trunk), with the model's exact values."""

from __future__ import annotations

from typing import Any

from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.step import Decision

from tests.streams.helpers import S8_TOPOLOGY, coordinator, request, tasks

ALL = {"sub1": [0, 1, 2, 3, 4, 5], "sub2": [0, 1, 2]}


def call(c: Coordinator, now: int, member: str, epoch: int, instance: str = "i1", **fields: Any) -> Decision:
    c.advance(now)
    return c.handle(88, 0, request(member, epoch, instanceId=instance, **fields), now=now, client_id="app")


def static_join(c: Coordinator, now: int, member: str, instance: str = "i1", process: str = "p1") -> Decision:
    return call(c, now, member, 0, instance, rebalanceTimeoutMs=30000, topology=S8_TOPOLOGY, processId=process,
                activeTasks=[], standbyTasks=[], warmupTasks=[])


def summary(r: Decision) -> list[tuple[int, str | None, Any]]:
    return [(x.type, x.key.get("memberId"), None if x.value is None else x.value.get("memberEpoch", x.value.get("epoch")))
            for x in r.records]


def test_static_join_registers_the_instance_and_bumps() -> None:
    """testStaticMemberJoinEmptyStreamsGroupRegistersStaticMember1."""
    c = coordinator("kafka-trunk")
    r = static_join(c, 0, "m1")
    assert r.response is not None
    assert r.response["errorCode"] == 0
    assert r.records[0].value is not None
    assert r.records[0].value["instanceId"] == "i1"
    assert (r.response["memberEpoch"], tasks(r.response)) == (2, ALL)
    assert c.streams_groups["g"].static_members == {"i1": "m1"}


def test_43_rejects_instance_id() -> None:
    r = static_join(coordinator(), 0, "m1")
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (42, "Static membership is not yet supported.")


def test_temporary_leave_writes_only_record_22_at_minus_two() -> None:
    """testStaticMemberLeaveWithLeaveGroupStaticMemberEpoch: epoch -2, active epochs reset to 0."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    r = call(c, 100, "m1", -2)
    assert r.response is not None
    assert (r.response["memberId"], r.response["memberEpoch"], r.response["status"]) == ("m1", -2, [])
    assert (r.response["activeTasks"], r.response["heartbeatIntervalMs"]) == (None, 0)
    assert summary(r) == [(22, "m1", -2)]
    value = r.records[0].value
    assert value is not None
    assert value["activeTasks"][0] == {"subtopologyId": "sub1", "partitions": [0, 1, 2, 3, 4, 5],
                                       "assignmentEpochs": [0, 0, 0, 0, 0, 0]}
    assert value["activeTasksPendingRevocation"] == []
    assert c.streams_groups["g"].group_epoch == 2  # no bump


def test_rejoin_after_temporary_leave_replaces_the_member_without_a_bump() -> None:
    """verifyStaticMemberLeaveAndRejoinNoGroupBump: replacement records, tasks inherited, epochs kept."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    call(c, 100, "m1", -2)
    r = static_join(c, 200, "m2")
    assert r.response is not None
    assert summary(r) == [(22, "m1", None), (21, "m1", None), (19, "m1", None), (19, "m2", None),
                          (21, "m2", None), (22, "m2", 0), (22, "m2", 2)]
    assert (r.response["memberId"], r.response["memberEpoch"], tasks(r.response)) == ("m2", 2, ALL)
    assert (r.response["standbyTasks"], r.response["warmupTasks"]) == ([], [])
    g = c.streams_groups["g"]
    assert (g.group_epoch, g.assignment_epoch, g.static_members, sorted(g.members)) == (2, 2, {"i1": "m2"}, ["m2"])
    final = r.records[-1].value
    assert final is not None
    assert final["previousMemberEpoch"] == 0
    assert final["activeTasks"][1]["assignmentEpochs"] == [0, 0, 0]  # kept tasks keep the reset epochs


def test_rejoin_with_same_member_id_after_temporary_leave() -> None:
    """testStaticMemberLeaveWithLeaveGroupStaticMemberEpochAndRejoinWithSameMemberId."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    call(c, 100, "m1", -2)
    r = static_join(c, 200, "m1")
    assert r.response is not None
    assert summary(r) == [(22, "m1", None), (21, "m1", None), (19, "m1", None), (19, "m1", None),
                          (21, "m1", None), (22, "m1", 0), (22, "m1", 2)]
    assert c.streams_groups["g"].group_epoch == 2


def test_join_while_instance_is_owned_is_unreleased() -> None:
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    r = static_join(c, 100, "m2")
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (
        int(Errors.UNRELEASED_INSTANCE_ID),
        "Static member m2 with instance id i1 cannot join the group because the instance id is owned by m1 member.")
    assert r.records == []


def test_unknown_instance_id_with_positive_epoch() -> None:
    """testUnknownStaticMemberHeartbeatWithPositiveEpochThrowsUnknownMemberIdInStreamsGroup."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    r = call(c, 100, "m1", 2, instance="i9")
    assert r.response is not None
    assert (r.response["errorCode"], r.response["errorMessage"]) == (25, "Instance id i9 is unknown.")
    for epoch in (-1, -2):  # leaving: streamsGroupLeave checks the instance id too
        r = call(c, 200, "m1", epoch, instance="i9")
        assert r.response is not None
        assert (r.response["errorCode"], r.response["errorMessage"]) == (25, "Instance id i9 is unknown.")
        assert r.records == []


def test_mismatched_member_id_is_fenced_instance_id() -> None:
    """testStaticMemberLeaveWithMismatchedMemberIdThrowsFencedInstanceIdInStreamsGroup."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    for epoch in (2, -2):
        r = call(c, 100, "mX", epoch)
        assert r.response is not None
        assert (r.response["errorCode"], r.response["errorMessage"]) == (
            82, "Static member mX with instance id i1 was fenced by member m1.")


def test_leave_with_minus_one_fences_and_bumps() -> None:
    """testStaticMemberLeaveWithMinusOneFencesMemberAndBumpsStreamsGroupEpoch; the last member's fence
    also resets the assignment epoch (KAFKA-20442, record 20 with timestamp 0)."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    r = call(c, 100, "m1", -1)
    assert r.response is not None
    assert r.response["memberEpoch"] == -1
    assert summary(r) == [(22, "m1", None), (21, "m1", None), (19, "m1", None), (17, None, 3), (20, None, None)]
    assert r.records[-1].value == {"assignmentEpoch": 3}
    g = c.streams_groups["g"]
    assert (g.group_epoch, g.assignment_epoch, g.static_members) == (3, 3, {})


def test_rejoin_with_other_process_id_bumps() -> None:
    """testStaticMemberRejoinWithUpdatedProcessIdBumpsStreamsGroupEpoch (and the same process does not)."""
    for process, epoch in (("p2", 3), ("p1", 2)):
        c = coordinator("kafka-trunk")
        static_join(c, 0, "m1")
        call(c, 100, "m1", -2)
        static_join(c, 200, "m2", process=process)
        assert c.streams_groups["g"].group_epoch == epoch


def test_max_size_exempts_the_rejoining_instance() -> None:
    """testStreamsStaticRejoinWithLeaveGroupStaticEpochAtMaxSizeSucceeds /
    testStreamsStaticJoinWithNewInstanceAtMaxSizeThrowsGroupMaxSizeReached."""
    c = coordinator("kafka-trunk", **{"group.streams.max.size": 1})
    static_join(c, 0, "m1")
    call(c, 100, "m1", -2)
    full = static_join(c, 150, "m3", instance="i3")
    assert full.response is not None
    assert (full.response["errorCode"], full.response["errorMessage"]) == (
        81, "The streams group has reached its maximum capacity of 1 members.")
    ok = static_join(c, 200, "m2")
    assert ok.response is not None
    assert ok.response["errorCode"] == 0


def test_session_timeout_after_temporary_leave_fences() -> None:
    """testStreamsStaticMemberTemporaryLeaveSessionTimeoutExpiration: the session timer keeps running."""
    c = coordinator("kafka-trunk")
    static_join(c, 0, "m1")
    call(c, 100, "m1", -2)
    c.advance(100 + 45000)
    assert c.streams_groups["g"].members == {}
    assert c.streams_groups["g"].group_epoch == 3
