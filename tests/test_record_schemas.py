"""Record and message schema tables (transcribed from Kafka 4.1 / 4.3 / trunk JSON schemas)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.shapes import release_of
from kgspec.model.message_schemas import (
    field_added_in,
    field_names,
    find_field,
    is_nullable,
    message_schema,
    validate_message,
)
from kgspec.model.record_schemas import (
    RECORD_SCHEMAS,
    RELEASES,
    normalize_release,
    record_schema,
    strip_default_tagged,
    validate_record,
    written_version,
)

TID = "AAAAAAAAAAAAAAAAAAAAAQ"
GOLDEN = Path(__file__).parent / "golden"


def _rec(rtype: int, key: dict[str, Any], value: dict[str, Any] | None,
         version: int = 0) -> dict[str, Any]:
    return {
        "key": {"type": rtype, "data": key},
        "value": None if value is None else {"version": version, "data": value},
    }


def _member_metadata() -> dict[str, Any]:
    return {
        "instanceId": None, "rackId": None, "clientId": "c", "clientHost": "/127.0.0.1",
        "subscribedTopicNames": ["foo"], "subscribedTopicRegex": "", "rebalanceTimeoutMs": 30000,
        "serverAssignor": None,
    }


def test_all_types_all_releases_written_at_v0() -> None:
    for rel in RELEASES:
        assert sorted(RECORD_SCHEMAS[rel]) == [2, 3, 4, 5, 6, 7, 8, 16, 17, 19, 20, 21, 22, 23]
        for rtype in RECORD_SCHEMAS[rel]:
            assert written_version(rel, rtype) == (3 if rtype == 2 else 0)  # GROUP_METADATA_VALUE_VERSION


def test_release_differences() -> None:
    def tp_names(rel: str) -> list[str]:
        schema = record_schema(rel, 8)
        assigned = next(f for f in schema.value if f.name == "assignedPartitions")
        return [f.name for f in assigned.fields]

    assert tp_names("4.1") == ["topicId", "partitions"]
    assert tp_names("4.3") == ["topicId", "partitions", "assignmentEpochs"]
    assert tp_names("trunk") == ["topicId", "partitions", "assignmentEpochs"]
    assert record_schema("4.1", 6).value_field_names() == ("assignmentEpoch",)
    assert record_schema("4.3", 6).value_field_names() == ("assignmentEpoch", "assignmentTimestamp")
    assert record_schema("trunk", 6) == record_schema("4.3", 6)
    for rel, names in (("4.1", ("assignmentEpoch",)),
                       ("4.3", ("assignmentEpoch", "assignmentTimestamp")),
                       ("trunk", ("assignmentEpoch", "assignmentTimestamp"))):
        assert record_schema(rel, 20).value_field_names() == names
    assert record_schema("4.1", 17).value_field_names() == ("epoch", "metadataHash")
    assert record_schema("4.3", 17).value_field_names() == (
        "epoch", "metadataHash", "validatedTopologyEpoch", "lastAssignmentConfigs")
    assert record_schema("trunk", 17).value_field_names() == (
        "epoch", "metadataHash", "validatedTopologyEpoch", "lastAssignmentConfigs",
        "storedDescriptionTopologyEpoch", "failedDescriptionTopologyEpoch")
    assert [f.tag for f in record_schema("trunk", 17).value if f.tagged] == [0, 1, 2, 3]
    tasks = ("activeTasks", "standbyTasks", "warmupTasks")
    roles = (*tasks, *(t + "PendingRevocation" for t in tasks))
    for rel, entry in (("4.1", ["subtopologyId", "partitions"]),
                       ("4.3", ["subtopologyId", "partitions", "assignmentEpochs"]),
                       ("trunk", ["subtopologyId", "partitions", "assignmentEpochs"])):
        schema = record_schema(rel, 22)
        assert schema.value_field_names() == ("memberEpoch", "previousMemberEpoch", "state", *roles)
        assert [[f.name for f in role.fields] for role in schema.value[3:]] == [entry] * 6
        assert [[f.name for f in role.fields] for role in record_schema(rel, 21).value] == [
            ["subtopologyId", "partitions"]] * 3
    meta = record_schema("4.1", 3)
    hash_field = next(f for f in meta.value if f.name == "metadataHash")
    assert hash_field.tagged == "0+"
    assert hash_field.default_value() == 0


def test_member_metadata_schema() -> None:
    schema = record_schema("4.3", 5)
    assert schema.key[0].name == "groupId"
    assert [f.name for f in schema.key] == ["groupId", "memberId"]
    by_name = {f.name: f for f in schema.value}
    assert by_name["subscribedTopicRegex"].nullable_in(0)
    assert not by_name["clientHost"].nullable_in(0)
    assert by_name["classicMemberMetadata"].tagged_in(0)
    assert by_name["rebalanceTimeoutMs"].default_value() == -1


def test_valid_records_have_no_findings() -> None:
    for rel in RELEASES:
        assert validate_record(_rec(5, {"groupId": "g", "memberId": "m"}, _member_metadata()),
                               rel) == []
        assert validate_record(_rec(3, {"groupId": "g"}, {"epoch": 1}), rel) == []
        assert validate_record(_rec(3, {"groupId": "g"}, {"epoch": 1, "metadataHash": -5}),
                               rel) == []
        assert validate_record(_rec(7, {"groupId": "g", "memberId": "m"}, None), rel) == []
    assignment = {
        "memberEpoch": 2, "previousMemberEpoch": 1, "state": 0,
        "assignedPartitions": [{"topicId": TID, "partitions": [0, 1], "assignmentEpochs": [2, 2]}],
        "partitionsPendingRevocation": [],
    }
    assert validate_record(_rec(8, {"groupId": "g", "memberId": "m"}, assignment), "4.3") == []


def test_findings_messages() -> None:
    value = _member_metadata()
    del value["clientId"]
    value["bogus"] = 1
    value["rackId"] = 3
    findings = validate_record(_rec(5, {"groupId": "g"}, value), "4.3")
    assert findings == [
        "record 5 ConsumerGroupMemberMetadata key: missing required field `memberId`",
        "record 5 ConsumerGroupMemberMetadata value v0: field `bogus`: unknown field",
        "record 5 ConsumerGroupMemberMetadata value v0: field `rackId` must be a string",
        "record 5 ConsumerGroupMemberMetadata value v0: missing required field `clientId`",
    ]


def test_release_specific_field_is_unknown_on_41() -> None:
    assignment = {
        "memberEpoch": 2, "previousMemberEpoch": 1, "state": 0,
        "assignedPartitions": [{"topicId": TID, "partitions": [0], "assignmentEpochs": [2]}],
        "partitionsPendingRevocation": [],
    }
    assert validate_record(_rec(8, {"groupId": "g", "memberId": "m"}, assignment), "4.1") == [
        "record 8 ConsumerGroupCurrentMemberAssignment value v0: "
        "field `assignedPartitions[0].assignmentEpochs`: unknown field"
    ]


def test_null_and_type_findings() -> None:
    findings = validate_record(
        _rec(6, {"groupId": "g"}, {"assignmentEpoch": None}), "4.3"
    )
    assert findings == [
        "record 6 ConsumerGroupTargetAssignmentMetadata value v0: "
        "field `assignmentEpoch` is null but not nullable in version 0"
    ]
    findings = validate_record(
        _rec(7, {"groupId": "g", "memberId": "m"},
             {"topicPartitions": [{"topicId": "nope", "partitions": [0]}]}), "4.3"
    )
    assert findings == [
        "record 7 ConsumerGroupTargetAssignmentMember value v0: "
        "field `topicPartitions[0].topicId` = 'nope' is not a Kafka uuid (22-char URL-safe base64)"
    ]


def test_version_findings_and_unknown_type() -> None:
    assert validate_record(_rec(3, {"groupId": "g"}, {"epoch": 1}, version=1), "4.3") == [
        "record 3 ConsumerGroupMetadata: value version 1 is not valid (valid: 0)"
    ]
    assert validate_record(_rec(1, {"group": "g"}, {}), "4.3") == []  # no schema kept here
    assert validate_record({"key": {"type": "x"}}, "4.3") == ["record: `key.type` must be an integer"]


def test_strip_default_tagged() -> None:
    schema = record_schema("4.3", 3)
    assert strip_default_tagged({"epoch": 1, "metadataHash": 0}, schema.value, 0) == {"epoch": 1}
    assert strip_default_tagged({"epoch": 1, "metadataHash": 7}, schema.value, 0) == {
        "epoch": 1, "metadataHash": 7}
    s5 = record_schema("4.3", 5)
    data = {**_member_metadata(), "classicMemberMetadata": None}
    assert strip_default_tagged(data, s5.value, 0) == _member_metadata()


def test_normalize_release() -> None:
    assert normalize_release("4.3.0") == "4.3"
    assert normalize_release("HEAD") == "trunk"
    with pytest.raises(ValueError, match="unknown Kafka release"):
        normalize_release("3.9")


def test_golden_records_fit_their_release() -> None:
    """Every record the model wrote into a golden trace fits the schemas of the trace's release."""
    releases = {"kafka-4.1": "4.1", "kafka-4.3": "4.3", "kafka-trunk": "trunk"}
    seen: dict[str, set[int]] = {rel: set() for rel in RELEASES}
    for path in sorted(GOLDEN.glob("*/*.jsonl")):
        header, *events = (json.loads(line) for line in path.read_text().splitlines())
        rel = releases.get(header["header"]["profile"])
        if rel is None:
            continue  # kip / kafka-4.2: no schema table of their own
        for event in events:
            if "record" in event:
                assert validate_record(event["record"], rel) == [], (path.name, event)
                seen[rel].add(int(event["record"]["key"]["type"]))
    # every record type is exercised; the offset records (types 0/1, issue #15) have no schema
    # table yet (their fields are pinned by tests/offsets)
    assert seen["4.3"] - {0, 1} == set(RECORD_SCHEMAS["4.3"])
    assert {3, 5, 6, 7, 8} <= seen["4.1"]
    assert {17, 19, 20, 21, 22, 23} <= seen["trunk"]



HEARTBEAT_RESPONSES = {68: "ConsumerGroupHeartbeatResponse", 88: "StreamsGroupHeartbeatResponse"}


def test_golden_heartbeat_responses_fit_their_release() -> None:
    """Every heartbeat response in a golden trace has exactly the fields of its release and version
    (trunk's v0 streams response carries acceptableRecoveryLagLegacy, not v1's acceptableRecoveryLag).
    Traces leave out throttleTimeMs (the request-log writer adds it), so it is supplied here."""
    releases = {"kafka-4.1": "4.1", "kafka-4.3": "4.3", "kafka-trunk": "trunk", "kip": "trunk"}
    checked: dict[tuple[str, int], int] = {}
    for path in sorted(GOLDEN.glob("*/*.jsonl")):
        header, *events = (json.loads(line) for line in path.read_text().splitlines())
        rel = releases.get(header["header"]["profile"])
        if rel is None:
            continue  # kafka-4.2: no schema table of its own
        for event in events:
            api = event.get("requestHeader", {}).get("requestApiKey")
            if api in HEARTBEAT_RESPONSES:
                version = event["requestHeader"]["requestApiVersion"]
                response = {"throttleTimeMs": 0, **event["response"]}
                api_rel = release_of(header["header"]["profile"], api) or rel  # kip streams: the seed's v0
                assert validate_message(response, api_rel, HEARTBEAT_RESPONSES[api], version) == [], (path.name, event)
                checked[(api_rel, api)] = checked.get((api_rel, api), 0) + 1
    assert set(checked) == {("4.1", 68), ("4.1", 88), ("4.3", 68), ("4.3", 88), ("trunk", 68), ("trunk", 88)}

# ---- message schemas -------------------------------------------------------------------------


def test_cghb_fields_and_nullability() -> None:
    for rel in RELEASES:
        assert message_schema(rel, "ConsumerGroupHeartbeatRequest").valid_versions == "0-1"
        assert field_names(rel, "ConsumerGroupHeartbeatRequest", 0) == (
            "groupId", "memberId", "memberEpoch", "instanceId", "rackId", "rebalanceTimeoutMs",
            "subscribedTopicNames", "serverAssignor", "topicPartitions",
        )
        assert field_names(rel, "ConsumerGroupHeartbeatRequest", 1) == (
            "groupId", "memberId", "memberEpoch", "instanceId", "rackId", "rebalanceTimeoutMs",
            "subscribedTopicNames", "subscribedTopicRegex", "serverAssignor", "topicPartitions",
        )
        assert is_nullable(rel, "ConsumerGroupHeartbeatResponse", "assignment", 1)
        assert is_nullable(rel, "ConsumerGroupHeartbeatResponse", "memberId", 0)
        assert is_nullable(rel, "ConsumerGroupHeartbeatRequest", "topicPartitions", 1)
        assert not is_nullable(rel, "ConsumerGroupHeartbeatRequest", "memberId", 1)
        assert field_names(rel, "ConsumerGroupHeartbeatResponse", 1) == (
            "throttleTimeMs", "errorCode", "errorMessage", "memberId", "memberEpoch",
            "heartbeatIntervalMs", "assignment",
        )


def test_describe_member_type_v1() -> None:
    for rel in RELEASES:
        assert field_added_in(rel, "ConsumerGroupDescribeResponse", "groups.members.memberType") == 1
        v0 = ("memberId", "instanceId", "rackId", "memberEpoch", "clientId", "clientHost",
              "subscribedTopicNames", "subscribedTopicRegex", "assignment", "targetAssignment")
        assert field_names(rel, "ConsumerGroupDescribeResponse", 0, "groups.members") == v0
        assert field_names(rel, "ConsumerGroupDescribeResponse", 1, "groups.members") == (
            *v0, "memberType")


def test_streams_versions() -> None:
    assert message_schema("4.1", "StreamsGroupHeartbeatRequest").valid_versions == "0"
    assert message_schema("4.3", "StreamsGroupDescribeResponse").valid_versions == "0"
    assert message_schema("trunk", "StreamsGroupHeartbeatResponse").valid_versions == "0-1"
    for rel, valid in (("4.1", "0"), ("4.3", "0"), ("trunk", "0-1")):
        for api in ("StreamsGroupHeartbeat", "StreamsGroupDescribe"):
            for kind in ("Request", "Response"):
                assert message_schema(rel, api + kind).valid_versions == valid


def test_streams_release_differences() -> None:
    """4.3 drops the status default; trunk v1 renames the v0 lag field and adds description fields."""
    assert find_field("4.1", "StreamsGroupHeartbeatResponse", "status").default == "null"
    assert find_field("4.3", "StreamsGroupHeartbeatResponse", "status").default is None
    assert find_field("trunk", "StreamsGroupHeartbeatResponse", "status").default is None
    assert message_schema("trunk", "StreamsGroupHeartbeatRequest").fields == message_schema(
        "4.3", "StreamsGroupHeartbeatRequest").fields
    head = ("throttleTimeMs", "errorCode", "errorMessage", "memberId", "memberEpoch",
            "heartbeatIntervalMs")
    tail = ("endpointInformationEpoch", "partitionsByUserEndpoint")
    tasks = ("status", "activeTasks", "standbyTasks", "warmupTasks")
    for rel in ("4.1", "4.3"):
        assert field_names(rel, "StreamsGroupHeartbeatResponse", 0) == (
            *head, "acceptableRecoveryLag", "taskOffsetIntervalMs", *tasks, *tail)
    assert field_names("trunk", "StreamsGroupHeartbeatResponse", 0) == (
        *head, "acceptableRecoveryLagLegacy", "taskOffsetIntervalMs", *tasks, *tail)
    assert field_names("trunk", "StreamsGroupHeartbeatResponse", 1) == (
        *head, "taskOffsetIntervalMs", "acceptableRecoveryLag", *tasks,
        "topologyDescriptionRequired", *tail)
    assert find_field("trunk", "StreamsGroupHeartbeatResponse", "acceptableRecoveryLag").type == (
        "int64")
    assert field_names("trunk", "StreamsGroupDescribeRequest", 1) == (
        "groupIds", "includeAuthorizedOperations", "includeTopologyDescription")
    group_v0 = ("errorCode", "errorMessage", "groupId", "groupState", "groupEpoch",
                "assignmentEpoch", "topology", "members", "authorizedOperations")
    for rel in RELEASES:
        assert field_names(rel, "StreamsGroupDescribeResponse", 0, "groups") == group_v0
    assert field_names("trunk", "StreamsGroupDescribeResponse", 1, "groups") == (
        *group_v0, "topologyDescription", "topologyDescriptionStatus", "assignorName")
    node = ("name", "nodeType", "sourceTopics", "sinkTopic", "stores", "successors")
    for path in ("groups.topologyDescription.subtopologies.nodes",
                 "groups.topologyDescription.globalStores.source",
                 "groups.topologyDescription.globalStores.processor"):
        assert field_names("trunk", "StreamsGroupDescribeResponse", 1, path) == node


def test_validate_message() -> None:
    error_response = {
        "throttleTimeMs": 0, "errorCode": 69, "errorMessage": "Group g not found.",
        "memberId": None, "memberEpoch": 0, "heartbeatIntervalMs": 0, "assignment": None,
    }
    assert validate_message(error_response, "4.3", "ConsumerGroupHeartbeatResponse", 1) == []
    bad = {**error_response, "memberEpoch": None, "extra": 1}
    assert validate_message(bad, "4.3", "ConsumerGroupHeartbeatResponse", 1) == [
        "ConsumerGroupHeartbeatResponse v1: field `extra`: unknown field",
        "ConsumerGroupHeartbeatResponse v1: field `memberEpoch` is null but not nullable in "
        "version 1",
    ]
    req_v0 = {"groupId": "g", "memberId": "", "memberEpoch": 0, "instanceId": None,
              "rackId": None, "rebalanceTimeoutMs": 1, "subscribedTopicNames": ["a"],
              "subscribedTopicRegex": None, "serverAssignor": None, "topicPartitions": []}
    assert validate_message(req_v0, "4.1", "ConsumerGroupHeartbeatRequest", 0) == [
        "ConsumerGroupHeartbeatRequest v0: field `subscribedTopicRegex`: not in version 0"
    ]
    assert validate_message({}, "4.1", "ConsumerGroupHeartbeatRequest", 2) == [
        "ConsumerGroupHeartbeatRequest: version 2 is not valid (valid: 0-1)"
    ]


def test_key_string_fields_name_every_key_string_but_the_group_id() -> None:
    from kgspec.model.record_schemas import key_string_fields

    assert {t: key_string_fields(t) for t in (2, 3, 5, 7, 8, 16, 17, 19, 21, 22, 99)} == {
        2: (), 3: (), 5: ("memberId",), 7: ("memberId",), 8: ("memberId",), 16: ("regularExpression",), 17: (),
        19: ("memberId",), 21: ("memberId",), 22: ("memberId",), 99: ()}
