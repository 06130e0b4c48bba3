"""kafka-trunk StreamsGroupHeartbeat/Describe: accepted fields, response fields, task offsets,
rack-aware tags, in-place role changes and the refinement step (each vs kafka-4.3)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgspec.model.coordinator import Coordinator
from kgspec.model.profiles import get_profile
from kgspec.model.streams.assignor import SubtopologyTasks, TaskMemberSpec, assign_tasks
from kgspec.model.streams.member import ACTIVE
from kgspec.model.streams.offsets import MemberTaskOffsets

from tests.streams.helpers import (
    coordinator,
    hb,
    join,
    owned,
    record_types,
    request,
    sub,
    tasks,
    topology,
)

STATEFUL = topology(sub("0", ["bar"], ("app-store-changelog",)))
OFFSETS = [{"subtopologyId": "sub1", "partition": 0, "offset": 10}]


def stateful(profile: str, **configs: Any) -> Coordinator:
    c = coordinator(profile, **configs)
    c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 3)
    return c


def test_trunk_accepts_what_43_rejects() -> None:
    for name, value, message in (("taskOffsets", OFFSETS, "TaskOffsets are not supported yet."),
                                 ("taskEndOffsets", OFFSETS, "TaskEndOffsets are not supported yet.")):
        old = join(coordinator(), 0, "m1", "p1", **{name: value}).response
        new = join(coordinator("kafka-trunk"), 0, "m1", "p1", **{name: value}).response
        assert old is not None
        assert new is not None
        assert (old["errorCode"], old["errorMessage"]) == (42, message)
        assert new["errorCode"] == 0


def test_trunk_still_rejects_source_topic_regex() -> None:
    topo = topology(sub("sub1", ["foo"], sourceTopicRegex=["f.*"]))
    r = join(coordinator("kafka-trunk"), 0, "m1", "p1", topo).response
    assert r is not None
    assert (r["errorCode"], r["errorMessage"]) == (42, "Regular expressions for source topics are not supported yet.")


def _lag_fields(response: dict[str, Any] | None) -> dict[str, Any]:
    assert response is not None
    return {k: v for k, v in response.items() if "RecoveryLag" in k or k == "taskOffsetIntervalMs"}


def test_response_carries_interval_and_recovery_lag_on_trunk() -> None:
    """KAFKA-18652: taskOffsetIntervalMs always; v1 carries the int64 acceptableRecoveryLag, v0 only
    the deprecated int32 acceptableRecoveryLagLegacy, never set (GroupMetadataManagerTest.
    testStreamsGroupHeartbeatResponseVersion0/1); fresh responses (leave, errors) keep v1's default -1."""
    c = coordinator("kafka-trunk")
    v0 = join(c, 0, "m1", "p1").response
    assert v0 is not None
    assert _lag_fields(v0) == {"acceptableRecoveryLagLegacy": 0, "taskOffsetIntervalMs": 60000}
    c.advance(100)
    v1 = c.handle(88, 1, request("m1", 2, activeTasks=v0["activeTasks"], standbyTasks=[], warmupTasks=[]),
                  now=100, client_id="m1").response
    assert _lag_fields(v1) == {"acceptableRecoveryLag": 10000, "taskOffsetIntervalMs": 60000}
    assert _lag_fields(join(coordinator(), 0, "m1", "p1").response) == {
        "acceptableRecoveryLag": 0, "taskOffsetIntervalMs": 0}
    unknown = c.handle(88, 1, request("nobody", 1), now=150, client_id="x").response
    assert _lag_fields(unknown) == {"acceptableRecoveryLag": -1, "taskOffsetIntervalMs": 0}
    assert unknown is not None
    assert unknown["errorCode"] == 25  # UNKNOWN_MEMBER_ID
    assert _lag_fields(hb(c, 200, "m1", -1).response) == {"acceptableRecoveryLagLegacy": 0, "taskOffsetIntervalMs": 0}
    join(c, 300, "m2", "p2")
    leave_v1 = c.handle(88, 1, request("m2", -1), now=400, client_id="m2").response
    assert _lag_fields(leave_v1) == {"acceptableRecoveryLag": -1, "taskOffsetIntervalMs": 0}


def test_task_offsets_are_kept_in_memory_and_described() -> None:
    """testStreamsGroupHeartbeatStoresTaskOffsetsWithoutPersisting / testStreamsGroupDescribeReturnsPerMemberTaskOffsets."""
    c = coordinator("kafka-trunk")
    first = join(c, 0, "m1", "p1").response
    assert first is not None
    ends = [{"subtopologyId": "sub2", "partition": 1, "offset": 7}, {"subtopologyId": "sub1", "partition": 3, "offset": 9}]
    r = hb(c, 100, "m1", 2, taskOffsets=OFFSETS, taskEndOffsets=ends, **owned(first))
    assert r.records == []  # offsets are never persisted
    g = c.streams_groups["g"]
    assert g.offsets_of("m1") == MemberTaskOffsets({"sub1": {0: 10}}, {"sub2": {1: 7}, "sub1": {3: 9}})
    hb(c, 200, "m1", 2, taskOffsets=None, taskEndOffsets=[], **owned(first))  # null keeps, [] clears
    assert g.offsets_of("m1") == MemberTaskOffsets({"sub1": {0: 10}}, {})
    d = c.handle(89, 1, {"groupIds": ["g"], "includeAuthorizedOperations": False}, now=300).response
    assert d is not None
    member = d["groups"][0]["members"][0]
    assert (member["taskOffsets"], member["taskEndOffsets"]) == (
        [{"subtopologyId": "sub1", "partition": 0, "offset": 10}], [])
    assert d["groups"][0]["assignorName"] == "sticky"


def test_duplicate_task_offsets_are_rejected_and_not_stored() -> None:
    """testStreamsGroupHeartbeatRejectsDuplicateTaskOffsets."""
    c = coordinator("kafka-trunk")
    first = join(c, 0, "m1", "p1").response
    assert first is not None
    dup = [{"subtopologyId": "sub1", "partition": 0, "offset": 10}, {"subtopologyId": "sub1", "partition": 0, "offset": 11}]
    r = hb(c, 100, "m1", 2, taskOffsets=dup, **owned(first)).response
    assert r is not None
    assert (r["errorCode"], r["errorMessage"]) == (
        42, "Task offsets contain a duplicate entry for subtopology sub1 and partition 0.")
    assert c.streams_groups["g"].offsets_of("m1") == MemberTaskOffsets.EMPTY


def test_assignor_prefers_the_more_caught_up_standby_candidate() -> None:
    """StickyTaskAssignor (trunk): previous standbys rank first, then by reported offset sum."""
    subs = [SubtopologyTasks("0", 1, True)]
    specs = [TaskMemberSpec("a", "pa", {}, {"0": frozenset({0})}, {"0": {0: 5}}),
             TaskMemberSpec("b", "pb", {}, {"0": frozenset({0})}, {"0": {0: 50}})]
    assert assign_tasks(specs, subs, 0).active == {"a": {}, "b": {"0": frozenset({0})}}
    without = [TaskMemberSpec(s.member_id, s.process_id, s.active_tasks, s.standby_tasks) for s in specs]
    assert assign_tasks(without, subs, 0).active == {"a": {"0": frozenset({0})}, "b": {}}
    # a member with only reported offsets is a weaker candidate than a previous standby
    weak = [TaskMemberSpec("a", "pa", {}, {}, {"0": {0: 500}}), TaskMemberSpec("b", "pb", {}, {"0": frozenset({0})})]
    assert assign_tasks(weak, subs, 0).active == {"a": {}, "b": {"0": frozenset({0})}}


def test_missing_client_tags_status_only_for_v1() -> None:
    """KAFKA-20744: rack.aware.assignment.tags joins record 17; v1 gets MISSING_CLIENT_TAGS (6)."""
    c = coordinator("kafka-trunk", **{"group.streams.rack.aware.assignment.tags": "zone,rack"})
    r = join(c, 0, "m1", "p1", clientTags=[{"key": "zone", "value": "z1"}])
    assert r.response is not None
    assert r.response["status"] == []
    assert r.records[2].value is not None
    assert r.records[2].value["lastAssignmentConfigs"] == [{"key": "num.standby.replicas", "value": "0"},
                                                           {"key": "rack.aware.assignment.tags", "value": "zone,rack"}]
    c.advance(100)
    v1 = c.handle(88, 1, request("m1", 2, activeTasks=r.response["activeTasks"], standbyTasks=[], warmupTasks=[]),
                  now=100, client_id="m1").response
    assert v1 is not None
    assert v1["status"] == [{"statusCode": 6, "statusDetail": "Missing required client tags for rack-aware standby "
                             "assignment: [rack]. Configure them via 'client.tag.<tagKey>' in your Streams config."}]


def _two_members_one_standby(profile: str) -> tuple[Coordinator, dict[str, Any], int]:
    c = stateful(profile, **{"group.streams.num.standby.replicas": 1})
    r1 = join(c, 0, "m1", "p1", STATEFUL).response
    r2 = join(c, 10, "m2", "p2", STATEFUL).response
    assert r1 is not None
    assert r2 is not None
    o1, o2, e1, e2 = owned(r1), owned(r2), 2, 3
    for t in range(3):
        a = hb(c, 2000 + t * 200, "m1", e1, **o1).response
        assert a is not None
        e1, o1 = a["memberEpoch"], owned(a, o1)
        b = hb(c, 2100 + t * 200, "m2", e2, **o2).response
        assert b is not None
        e2, o2 = b["memberEpoch"], owned(b, o2)
    return c, o2, e2


def test_active_demoted_to_standby_in_place() -> None:
    """KAFKA-20665 #22981: the old owner is told to revoke active 0_2 and gets standby 0_2 in the same
    response (4.3 grants the standby only after the revocation)."""
    for profile, standby in (("kafka-4.3", None), ("kafka-trunk", {"0": [2]})):
        c = stateful(profile, **{"group.streams.num.standby.replicas": 1})
        join(c, 0, "m1", "p1", STATEFUL)
        join(c, 10, "m2", "p2", STATEFUL)
        r = hb(c, 2000, "m1", 2, activeTasks=[{"subtopologyId": "0", "partitions": [0, 1, 2]}], standbyTasks=[],
               warmupTasks=[]).response
        assert r is not None
        assert (r["memberEpoch"], tasks(r)) == (2, {"0": [0, 1]})
        assert tasks(r, "standbyTasks") == ({} if standby is None else standby)


def test_standby_promoted_to_active_in_place() -> None:
    """KAFKA-20665 #22923: when the active owner leaves, the standby holder gets the active task in one
    heartbeat and the standby goes (4.3: first UNRELEASED, the standby revoked, then the active)."""
    c, o2, e2 = _two_members_one_standby("kafka-trunk")
    hb(c, 4000, "m1", -1)
    r = hb(c, 5000, "m2", e2, **o2)
    assert r.response is not None
    assert (r.response["memberEpoch"], tasks(r.response), tasks(r.response, "standbyTasks")) == (4, {"0": [0, 1, 2]}, {})
    assert record_types(r) == [21, 20, 22]
    c, o2, e2 = _two_members_one_standby("kafka-4.3")
    hb(c, 4000, "m1", -1)
    r = hb(c, 5000, "m2", e2, **o2)
    assert r.response is not None
    assert (r.response["memberEpoch"], tasks(r.response), tasks(r.response, "standbyTasks")) == (3, {"0": [2]}, {})


def test_refinement_step_bumps_epoch_without_running_the_assignor() -> None:
    """testStreamsGroupHeartbeatRefinementStepBumpsEpochWithoutRunningAssignor: a STABLE group whose member's
    tasks differ from its (refined) target takes a step: 17 and 20 (same timestamp), no 21."""
    for profile, expected in (("kafka-trunk", (3, [17, 20, 22])), ("kafka-4.3", (2, []))):
        c = coordinator(profile)
        first = join(c, 500, "m1", "p1").response
        assert first is not None
        g = c.streams_groups["g"]
        g.target["m1"][ACTIVE]["sub1"] = frozenset(range(6))
        g.members["m1"].assigned[ACTIVE]["sub1"] = dict.fromkeys(range(5), 2)  # only 0..4 held, epochs equal
        assert g.assignment_timestamp == 500
        owned_now = [{"subtopologyId": "sub1", "partitions": [0, 1, 2, 3, 4]},
                     {"subtopologyId": "sub2", "partitions": [0, 1, 2]}]
        r = hb(c, 700, "m1", 2, activeTasks=owned_now, standbyTasks=[], warmupTasks=[])
        assert r.response is not None
        assert (r.response["memberEpoch"], record_types(r)) == expected
        if profile == "kafka-trunk":
            assert r.records[1].value == {"assignmentEpoch": 3, "assignmentTimestamp": 500}
            assert g.refined_for(3) is not None  # frozen for the epoch (num.warmup.replicas = 2)


def test_no_refined_assignment_is_kept_when_warmups_are_disabled() -> None:
    """testStreamsGroupKeepsNoRefinedAssignmentWhenWarmupsAreDisabled."""
    c = coordinator("kafka-trunk", **{"group.streams.num.warmup.replicas": 0})
    join(c, 0, "m1", "p1")
    g = c.streams_groups["g"]
    assert g.refined_for(g.assignment_epoch) is None


def test_describe_v1_fields_follow_the_version() -> None:
    """StreamsGroupDescribe v1 (trunk): assignorName, topologyDescriptionStatus and
    topologyDescription on every group, error entries at their defaults; NOT_STORED (1) when a
    description is requested and no plugin is configured; none of them at v0."""
    c = coordinator("kafka-trunk")
    join(c, 0, "m1", "p1")

    def described(version: int, include: bool = False) -> list[dict[str, Any]]:
        request: dict[str, Any] = {"groupIds": ["g", "nope"], "includeAuthorizedOperations": False}
        if version >= 1:
            request["includeTopologyDescription"] = include
        response = c.handle(89, version, request, now=100).response
        assert response is not None
        return [{k: g.get(k, "absent") for k in ("groupId", "assignorName", "topologyDescriptionStatus",
                                                 "topologyDescription")} for g in response["groups"]]

    # JVM shard order: "g" (partition 3), then "nope" (partition 4)
    assert described(1) == [
        {"groupId": "g", "assignorName": "sticky", "topologyDescriptionStatus": 0, "topologyDescription": None},
        {"groupId": "nope", "assignorName": None, "topologyDescriptionStatus": 0, "topologyDescription": None}]
    assert [g["topologyDescriptionStatus"] for g in described(1, include=True)] == [1, 0]
    absent = {"assignorName": "absent", "topologyDescriptionStatus": "absent", "topologyDescription": "absent"}
    assert described(0) == [{"groupId": "g", **absent}, {"groupId": "nope", **absent}]


def test_a_user_endpoint_with_a_source_topic_missing_fails_the_heartbeat() -> None:
    # docs/upstream.md, finding 3 (4.1 .. trunk): EndpointToPartitionsManager.endpointToPartitions calls
    # Optional.get() on the subtopologies of a topology that is not ready.
    missing = topology(sub("sub1", ["absent"]))
    endpoint = {"host": "localhost", "port": 8080}
    for profile in ("kafka-4.2", "kafka-4.3", "kafka-trunk"):
        c = coordinator(profile)
        result = join(c, 0, "m1", "p1", missing, userEndpoint=endpoint)
        assert result.response is not None
        assert (result.response["errorCode"], result.response["errorMessage"], result.records) == (-1, None, [])
        plain = join(c, 0, "m2", "p2", missing).response  # no endpoint: MISSING_SOURCE_TOPICS
        assert plain is not None
        assert (plain["errorCode"], [s["statusCode"] for s in plain["status"]]) == (0, [1])
    # 4.1 builds the endpoint map from the members the call found (maybeBuildEndpointToPartitions
    # iterates group.members() before the join's records are replayed): the join succeeds and the
    # member's next heartbeat that asks for the map (an endpoint epoch it does not have, as the
    # Java client's first -1), as a member with an endpoint, fails.
    c = coordinator("kafka-4.1")
    first = join(c, 0, "m1", "p1", missing, userEndpoint=endpoint)
    assert first.response is not None
    assert (first.response["errorCode"], first.response["memberEpoch"],
            [s["statusCode"] for s in first.response["status"]]) == (0, 1, [1])
    again = c.decide(88, 0, {"groupId": "g", "memberId": "m1", "memberEpoch": 1, "endpointInformationEpoch": -1},
                     now=10)
    assert again.response is not None
    assert (again.response["errorCode"], again.records) == (-1, [])
    # The fixed behaviour (the profile flag off, as for kip) answers like the member without an endpoint.
    fixed = Coordinator(replace(get_profile("kafka-trunk"), streams_endpoint_info_fails_when_not_ready=False),
                        {"group.streams.initial.rebalance.delay.ms": 0})
    response = join(fixed, 0, "m1", "p1", missing, userEndpoint=endpoint).response
    assert response is not None
    assert (response["errorCode"], [s["statusCode"] for s in response["status"]]) == (0, [1])
    assert response["partitionsByUserEndpoint"] == [
        {"userEndpoint": endpoint, "activePartitions": [], "standbyPartitions": []}]
