"""Record and message schema tables (transcribed from Kafka 4.1 / 4.3 / trunk JSON schemas)."""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.message_schemas import (
    field_added_in,
    field_names,
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
    assert "classicMemberMetadata" not in strip_default_tagged(data, s5.value, 0)


def test_normalize_release() -> None:
    assert normalize_release("4.3.0") == "4.3"
    assert normalize_release("HEAD") == "trunk"
    with pytest.raises(ValueError, match="unknown Kafka release"):
        normalize_release("3.9")


# ---- message schemas -------------------------------------------------------------------------


def test_cghb_fields_and_nullability() -> None:
    for rel in RELEASES:
        assert message_schema(rel, "ConsumerGroupHeartbeatRequest").valid_versions == "0-1"
        assert "subscribedTopicRegex" not in field_names(rel, "ConsumerGroupHeartbeatRequest", 0)
        assert "subscribedTopicRegex" in field_names(rel, "ConsumerGroupHeartbeatRequest", 1)
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
        assert "memberType" not in field_names(rel, "ConsumerGroupDescribeResponse", 0,
                                               "groups.members")


def test_streams_versions() -> None:
    assert message_schema("4.1", "StreamsGroupHeartbeatRequest").valid_versions == "0"
    assert message_schema("4.3", "StreamsGroupDescribeResponse").valid_versions == "0"
    assert message_schema("trunk", "StreamsGroupHeartbeatResponse").valid_versions == "0-1"


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
