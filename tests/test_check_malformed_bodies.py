"""A call whose request or response has a field of the wrong type is a ``malformed`` finding at its
line, named as the message schema names it; the checker never crashes on it, and a coordinator
answer the trace mangled does not put the model out of step (the following lines still conform).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import check_events, read_jsonl

GOLDEN = Path(__file__).resolve().parent / "golden"

# name -> (golden, line, path to the mistyped value, value, expected findings (line, field, message))
CASES: dict[str, tuple[str, int, tuple[Any, ...], Any, list[tuple[int, str, str]]]] = {
    "consumer assignment is a list": (
        "consumer/reconciliation.jsonl", 4, ("response", "assignment"), [1, 2],
        [(4, "response.assignment", "response: ConsumerGroupHeartbeatResponse v1: field `assignment` must be an object")]),
    "consumer partition is a string": (
        "consumer/reconciliation.jsonl", 4, ("response", "assignment", "topicPartitions", 0, "partitions", 0), "x",
        [(4, "response.assignment.topicPartitions[0].partitions[0]",
          "response: ConsumerGroupHeartbeatResponse v1: field `assignment.topicPartitions[0].partitions[0]` "
          "must be an integer (int32), got str")]),
    "streams standby partition is a list": (
        "streams/standby_rebalance.jsonl", 12, ("response", "standbyTasks", 0, "partitions", 0), [1, 2],
        [(12, "response.standbyTasks[0].partitions[0]",
          "response: StreamsGroupHeartbeatResponse v0: field `standbyTasks[0].partitions[0]` "
          "must be an integer (int32), got list")]),
    "consumer group id is a list": (
        "consumer/topics_and_regex.jsonl", 3, ("request", "groupId"), ["g"],
        [(3, "request.groupId", "request has no string `groupId`")]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_mistyped_field_is_one_malformed_finding(name: str, tmp_path: Path) -> None:
    golden, line, path, value, expected = CASES[name]
    events = read_jsonl(GOLDEN / golden)
    target = events[line - 1]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (ln, "malformed", fld, msg) for ln, fld, msg in expected]


def test_streams_request_struct_without_a_field_is_refused(tmp_path: Path) -> None:
    """A struct given without one of its fields is malformed (a top-level field left out is not:
    traces omit ``throttleTimeMs``); the model never sees the request, so the member it would have
    updated is behind from then on."""
    events = read_jsonl(GOLDEN / "streams/standby_rebalance.jsonl")
    events[17]["request"]["userEndpoint"] = {"port": 9092}
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"], first["message"]) == (
        18, "malformed", "request.userEndpoint.host",
        "request: StreamsGroupHeartbeatRequest v0: missing required field `userEndpoint.host`")


def test_mistyped_classic_request_never_reaches_the_model(tmp_path: Path) -> None:
    """The classic model keeps a JoinGroup's instance id for later calls; a mistyped one is refused
    at its line (before, a later ConsumerGroupHeartbeat crashed in the range assignor's member order)."""
    events = read_jsonl(GOLDEN / "migration/upgrade.jsonl")
    assert events[2]["requestHeader"]["requestApiKey"] == 11
    events[2]["request"]["groupInstanceId"] = 7
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"], first["message"]) == (
        3, "malformed", "request.groupInstanceId", "request: JoinGroupRequest v9: field `groupInstanceId` must be a string")
    assert report["groups"][0]["verdict"] == "incomplete"


def test_connect_response_fields_are_named_by_the_drafts_schema(tmp_path: Path) -> None:
    """The Connect draft's messages have schemas too (``model/connect/schemas.py``): a list where
    the draft has a string id, or a number where it has a task list, is a malformed finding naming
    the field (before they had none: the first was a TypeError's text, the second a mismatch)."""
    events = read_jsonl(GOLDEN / "connect/worker_bounces.jsonl")
    assert events[19]["requestHeader"]["requestApiKeyName"] == "CONNECT_GROUP_PREPARE_ASSIGNMENT"
    events[19]["response"]["members"][0]["memberId"] = ["W1"]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f.get("field"), f["message"]) for f in report["findings"]] == [
        (20, "malformed", "response.members[0].memberId",
         "response: ConnectGroupPrepareAssignmentResponse v0: field `members[0].memberId` must be a string")]
    events = read_jsonl(GOLDEN / "connect/worker_bounces.jsonl")
    events[19]["response"]["members"][0]["connectorsAndTasks"][0]["tasks"] = 7
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (20, "malformed", "response.members[0].connectorsAndTasks[0].tasks",
         "response: ConnectGroupPrepareAssignmentResponse v0: field `members[0].connectorsAndTasks[0].tasks` "
         "must be an array")]


def _record(ts: int, rtype: int, key: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    return {"tsMs": ts, "record": {"key": {"type": rtype, "data": {"groupId": "g", **key}}, "value": value}}


def test_record_key_member_id_that_is_not_a_string_is_malformed(tmp_path: Path) -> None:
    """A number as a record key's memberId (the schema says string) is one ``malformed`` finding
    at its line, not a crash of the target-assignment invariant, which sorts member ids."""
    target = {"version": 0, "data": {"topicPartitions": [{"topicId": "JUxmFSdeRnSLhXMi3QDX9g", "partitions": [1]}]}}
    events = [_record(0, 7, {"memberId": "a"}, target), _record(1, 7, {"memberId": 5}, target),
              _record(2, 6, {}, {"version": 0, "data": {"assignmentEpoch": 1, "assignorName": "uniform"}})]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["groupId"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (2, "g", "malformed", "record.key.data.memberId", "record key memberId must be a string")]
    assert [(g["groupId"], g["verdict"], g["events"]) for g in report["groups"]] == [("g", "incomplete", 3)]


def test_record_key_regular_expression_that_is_not_a_string_is_malformed(tmp_path: Path) -> None:
    """Every string of a record key's schema is checked, not only memberId: a number as the
    regularExpression of a regex record (type 16) is malformed, where it was taken as is."""
    value = {"version": 0, "data": {"topics": ["t"], "version": 1, "timestamp": 0}}
    events = [_record(0, 16, {"regularExpression": 5}, value), _record(1, 16, {"regularExpression": "a.*"}, value)]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["groupId"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (1, "g", "malformed", "record.key.data.regularExpression", "record key regularExpression must be a string")]
    assert [(g["groupId"], g["verdict"], g["events"]) for g in report["groups"]] == [("g", "incomplete", 2)]
