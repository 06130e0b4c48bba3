"""The Connect draft's calls are checked against its message schemas (``model/connect/schemas.py``),
as Kafka's calls are against theirs: a field of the wrong type, null where the draft does not allow
it, an integer beyond its type, a struct's field left out or a list element of the wrong kind is one
``malformed`` finding at its line naming the field; the request never reaches the model and the
rest of the trace is checked on (here: it conforms).

Each case inserts a mutated copy of one of the golden trace's calls right after it (same ``tsMs``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.shapes import call_shape_problem
from kgspec.model.connect.ops import CONNECT_GROUP_HEARTBEAT
from kgspec.model.connect.schemas import CONNECT_MESSAGE_SCHEMAS

from tests.helpers import check_events, read_jsonl

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "connect"
# worker_bounces.jsonl, 0-based: 27 a heartbeat with clientAssignors, 22 one owning connector A and
# task A-1, 32 a Prepare, 33 an Install.
HEARTBEAT, HEARTBEAT_OWNING, PREPARE, INSTALL = 27, 22, 32, 33
HB, PA, IA = ("request: ConnectGroupHeartbeatRequest v0: ", "request: ConnectGroupPrepareAssignmentRequest v0: ",
              "request: ConnectGroupInstallAssignmentRequest v0: ")

# name -> (event to copy, path to the value, new value (DELETE: remove the key), field, message)
DELETE: Any = object()
CASES: dict[str, tuple[int, tuple[Any, ...], Any, str, str]] = {
    # a value of the wrong type
    "heartbeat epoch is a float": (
        HEARTBEAT, ("memberEpoch",), 36.5,
        "request.memberEpoch", HB + "field `memberEpoch` must be an integer (int32), got float"),
    "prepare epoch is a string": (
        PREPARE, ("memberEpoch",), "36",
        "request.memberEpoch", PA + "field `memberEpoch` must be an integer (int32), got str"),
    "install group epoch is a boolean": (
        INSTALL, ("groupEpoch",), True,
        "request.groupEpoch", IA + "field `groupEpoch` must be an integer (int32), got bool"),
    "heartbeat instance id is a number": (
        HEARTBEAT, ("instanceId",), 7,
        "request.instanceId", HB + "field `instanceId` must be a string"),
    "heartbeat assignors is an object": (
        HEARTBEAT, ("clientAssignors",), {"name": "incremental"},
        "request.clientAssignors", HB + "field `clientAssignors` must be an array"),
    "assignor metadata is a number": (
        HEARTBEAT, ("clientAssignors", 0, "metadata"), 5,
        "request.clientAssignors[0].metadata", HB + "field `clientAssignors[0].metadata` must be a base64 string"),
    # null where the draft does not allow it
    "heartbeat member id is null": (
        HEARTBEAT, ("memberId",), None,
        "request.memberId", HB + "field `memberId` is null but not nullable in version 0"),
    "install members is null": (
        INSTALL, ("members",), None,
        "request.members", IA + "field `members` is null but not nullable in version 0"),
    "owned connectors is null": (
        HEARTBEAT_OWNING, ("connectorsAndTasks", 0, "connectors"), None,
        "request.connectorsAndTasks[0].connectors",
        HB + "field `connectorsAndTasks[0].connectors` is null but not nullable in version 0"),
    # an integer beyond its type
    "assignor maximum version beyond int16": (
        HEARTBEAT, ("clientAssignors", 0, "maximumVersion"), 32768,
        "request.clientAssignors[0].maximumVersion",
        HB + "field `clientAssignors[0].maximumVersion` = 32768 is out of range for int16"),
    "assignor reason beyond int8": (
        HEARTBEAT, ("clientAssignors", 0, "reason"), -129,
        "request.clientAssignors[0].reason", HB + "field `clientAssignors[0].reason` = -129 is out of range for int8"),
    "install error beyond int8": (
        INSTALL, ("error",), 128, "request.error", IA + "field `error` = 128 is out of range for int8"),
    "rebalance timeout beyond int32": (
        HEARTBEAT, ("rebalanceTimeoutMs",), 2**31,
        "request.rebalanceTimeoutMs", HB + "field `rebalanceTimeoutMs` = 2147483648 is out of range for int32"),
    "task number beyond int32": (
        HEARTBEAT_OWNING, ("connectorsAndTasks", 0, "tasks", 0, "task"), -(2**31) - 1,
        "request.connectorsAndTasks[0].tasks[0].task",
        HB + "field `connectorsAndTasks[0].tasks[0].task` = -2147483649 is out of range for int32"),
    # a struct's required field left out
    "assignor without a name": (
        HEARTBEAT, ("clientAssignors", 0, "name"), DELETE,
        "request.clientAssignors[0].name", HB + "missing required field `clientAssignors[0].name`"),
    "owned entry without tasks": (
        HEARTBEAT_OWNING, ("connectorsAndTasks", 0, "tasks"), DELETE,
        "request.connectorsAndTasks[0].tasks", HB + "missing required field `connectorsAndTasks[0].tasks`"),
    "installed member without an id": (
        INSTALL, ("members", 0, "memberId"), DELETE,
        "request.members[0].memberId", IA + "missing required field `members[0].memberId`"),
    "task without its connector": (
        HEARTBEAT_OWNING, ("connectorsAndTasks", 0, "tasks", 0, "connector"), DELETE,
        "request.connectorsAndTasks[0].tasks[0].connector",
        HB + "missing required field `connectorsAndTasks[0].tasks[0].connector`"),
    # a list element of the wrong kind
    "connector name is a number": (
        HEARTBEAT_OWNING, ("connectorsAndTasks", 0, "connectors", 0), 5,
        "request.connectorsAndTasks[0].connectors[0]",
        HB + "field `connectorsAndTasks[0].connectors[0]` must be a string"),
    "task is a string": (
        HEARTBEAT_OWNING, ("connectorsAndTasks", 0, "tasks", 0), "A-1",
        "request.connectorsAndTasks[0].tasks[0]", HB + "field `connectorsAndTasks[0].tasks[0]` must be an object"),
    "installed member is null": (
        INSTALL, ("members", 0), None,
        "request.members[0]", IA + "field `members[0]` is null (array elements are never null)"),
}


def _mutated(index: int, path: tuple[Any, ...], value: Any) -> list[dict[str, Any]]:
    """worker_bounces.jsonl with a mutated copy of event ``index`` inserted after it."""
    events = read_jsonl(GOLDEN / "worker_bounces.jsonl")
    bad = copy.deepcopy(events[index])
    target = bad["request"]
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    events.insert(index + 1, bad)
    return events


@pytest.mark.parametrize("name", sorted(CASES))
def test_mistyped_connect_request_is_one_malformed_finding(name: str, tmp_path: Path) -> None:
    index, path, value, field, message = CASES[name]
    events = _mutated(index, path, value)
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["groupId"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (index + 2, "g", "malformed", field, message)]
    (entry,) = report["inputs"]
    assert (entry["lines"], entry["events"], entry["malformed"], entry["skipped"]) == (len(events), len(events) - 1,
                                                                                      1, 0)


def test_every_request_field_of_the_draft_is_in_a_schema() -> None:
    """The fields the golden traces' requests and responses carry are those of the schemas, so none
    goes unchecked (an unknown field is not a finding: the schemas must name them all)."""
    seen: dict[str, set[str]] = {}
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for event in read_jsonl(path):
            name = event.get("requestHeader", {}).get("requestApiKeyName")
            if name is None:
                continue
            label = "".join(w.capitalize() for w in name.lower().split("_"))
            seen.setdefault(f"{label}Request", set()).update(event["request"])
            seen.setdefault(f"{label}Response", set()).update(event["response"])
    assert sorted(seen) == sorted(CONNECT_MESSAGE_SCHEMAS)
    for message, fields in seen.items():
        assert fields <= {f.name for f in CONNECT_MESSAGE_SCHEMAS[message].fields}, message


def test_schema_is_read_only_under_the_profile_that_models_the_draft() -> None:
    """Every Kafka release answers a Connect call as a broker that does not know the API, without
    reading its body (docs/connect.md, 'Profiles')."""
    request = {"groupId": "g", "memberId": None, "memberEpoch": 0}
    assert call_shape_problem("kip", CONNECT_GROUP_HEARTBEAT, 0, request, None) == (
        "request.memberId", HB + "field `memberId` is null but not nullable in version 0")
    for profile in ("kafka-4.1", "kafka-4.2", "kafka-4.3", "kafka-trunk"):
        assert call_shape_problem(profile, CONNECT_GROUP_HEARTBEAT, 0, request, None) is None
    assert call_shape_problem("kip", CONNECT_GROUP_HEARTBEAT, 1, request, None) is None  # UNSUPPORTED_VERSION


def test_mistyped_connect_response_is_malformed_and_the_model_keeps_in_step(tmp_path: Path) -> None:
    """The trace's copy of an answer with a field beyond its type: the coordinator did answer, so the
    model applies the call and the rest of the trace conforms."""
    events = read_jsonl(GOLDEN / "worker_bounces.jsonl")
    events[HEARTBEAT]["response"]["assignment"]["error"] = 300
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (HEARTBEAT + 1, "malformed", "response.assignment.error",
         "response: ConnectGroupHeartbeatResponse v0: field `assignment.error` = 300 is out of range for int8")]
