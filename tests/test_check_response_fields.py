"""Every response field the contract counts is compared (issue #15 item 6).

For each golden trace and each counted field of a successful response it carries (heartbeats,
describes, classic calls), a copy with that field changed on its first such line must be flagged
on that very line, naming the field; the unchanged goldens conform (``test_check_golden.py`` and
below). Which fields are counted and which are legally free is listed in ``docs/checking.md``
("Responses: what is compared")."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from kgspec.model.coordinator import Coordinator

from tests.helpers import check, check_events, read_jsonl
from tests.streams.helpers import BAR, FOO, request

GOLDEN = Path(__file__).parent / "golden"
SKIP: Final = object()
BOGUS_TOPIC: Final = "ZZZZZZZZZZZZZZZZZZZZZQ"


def _changed_int(v: Any) -> Any:
    return v + 1 if isinstance(v, int) and not isinstance(v, bool) else SKIP


def _changed_str_or_null(v: Any) -> Any:
    return "changed" if v is None else (v + "-changed" if isinstance(v, str) else SKIP)


def _changed_bool(v: Any) -> Any:
    return (not v) if isinstance(v, bool) else SKIP


def _changed_tasks(v: Any) -> Any:
    """A task list with a task of a subtopology that does not exist (no legal alternative has it);
    null becomes [] (null is "unchanged", [] "none")."""
    return [] if v is None else [*v, {"subtopologyId": "no-such-subtopology", "partitions": [0]}]


def _changed_consumer_assignment(v: Any) -> Any:
    extra = {"topicId": BOGUS_TOPIC, "partitions": [0]}
    if v is None:
        return {"topicPartitions": [extra]}
    return {**v, "topicPartitions": [*v.get("topicPartitions", []), extra]}


def _changed_endpoints(v: Any) -> Any:
    """null ("unchanged") against [] ("no endpoints"), else one endpoint's port moved."""
    if v is None:
        return []
    if not v:
        return None
    first = copy.deepcopy(v[0])
    first["userEndpoint"]["port"] += 1
    return [first, *v[1:]]


def _changed_status(v: Any) -> Any:
    return [*(v or []), {"statusCode": 2, "statusDetail": "changed"}]  # INCOMPLETE_SOURCE_TOPIC_METADATA


def _changed_endpoint(v: Any) -> Any:
    return {"host": "changed", "port": 1} if v is None else {**v, "port": v["port"] + 1}


def _changed_entries(entry: dict[str, Any]) -> Callable[[Any], Any]:
    return lambda v: [*(v or []), entry]


def _changed_described_tasks(v: Any) -> Any:
    if not isinstance(v, dict):
        return SKIP
    return {**v, "activeTasks": _changed_tasks(v.get("activeTasks") or [])}


def _changed_topology(v: Any) -> Any:
    return {**v, "epoch": v["epoch"] + 1} if isinstance(v, dict) else SKIP


def _changed_join_members(v: Any) -> Any:
    return [*(v or []), {"memberId": "someone-else", "groupInstanceId": None, "metadata": ""}]


# (API key, where: "" the response, "group" each described group, "member" each described member)
# -> field -> how to change it.
MUTATIONS: Final[dict[tuple[int, str], dict[str, Callable[[Any], Any]]]] = {
    (68, ""): {"memberEpoch": _changed_int, "heartbeatIntervalMs": _changed_int,
               "assignment": _changed_consumer_assignment},
    (88, ""): {"memberEpoch": _changed_int, "heartbeatIntervalMs": _changed_int,
               "acceptableRecoveryLag": _changed_int, "acceptableRecoveryLagLegacy": _changed_int,
               "taskOffsetIntervalMs": _changed_int, "topologyDescriptionRequired": _changed_bool,
               "status": _changed_status, "activeTasks": _changed_tasks, "standbyTasks": _changed_tasks,
               "warmupTasks": _changed_tasks, "endpointInformationEpoch": _changed_int,
               "partitionsByUserEndpoint": _changed_endpoints},
    (69, "group"): {"groupState": _changed_str_or_null, "groupEpoch": _changed_int,
                    "assignmentEpoch": _changed_int, "assignorName": _changed_str_or_null,
                    "authorizedOperations": _changed_int},
    (69, "member"): {"memberEpoch": _changed_int, "instanceId": _changed_str_or_null,
                     "rackId": _changed_str_or_null, "clientId": _changed_str_or_null,
                     "clientHost": _changed_str_or_null, "subscribedTopicNames": _changed_entries("changed"),
                     "subscribedTopicRegex": _changed_str_or_null, "assignment": _changed_consumer_assignment,
                     "targetAssignment": _changed_consumer_assignment, "memberType": _changed_int},
    (89, "group"): {"groupState": _changed_str_or_null, "groupEpoch": _changed_int,
                    "assignmentEpoch": _changed_int, "topology": _changed_topology,
                    "authorizedOperations": _changed_int, "assignorName": _changed_str_or_null,
                    "topologyDescriptionStatus": _changed_int},
    (89, "member"): {"memberEpoch": _changed_int, "instanceId": _changed_str_or_null,
                     "rackId": _changed_str_or_null, "clientId": _changed_str_or_null,
                     "clientHost": _changed_str_or_null, "topologyEpoch": _changed_int,
                     "processId": _changed_str_or_null, "userEndpoint": _changed_endpoint,
                     "clientTags": _changed_entries({"key": "changed", "value": "changed"}),
                     "taskOffsets": _changed_entries({"subtopologyId": "0", "partition": 0, "offset": 7}),
                     "taskEndOffsets": _changed_entries({"subtopologyId": "0", "partition": 0, "offset": 7}),
                     "assignment": _changed_described_tasks, "targetAssignment": _changed_described_tasks,
                     "isClassic": _changed_bool},
    (11, ""): {"generationId": _changed_int, "leader": _changed_str_or_null, "protocolName": _changed_str_or_null,
               "protocolType": _changed_str_or_null, "skipAssignment": _changed_bool,
               "members": _changed_join_members},
    (14, ""): {"protocolType": _changed_str_or_null, "protocolName": _changed_str_or_null},
}


def _targets(event: dict[str, Any], api: int) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, field, the object holding it) for every counted field of a successful answer."""
    response = event.get("response") or {}
    if response.get("errorCode", 0) != 0:
        return
    for field in MUTATIONS.get((api, ""), {}):
        if field in response:
            yield "", field, response
    for group in response.get("groups") or [] if api in (69, 89) else []:
        if group.get("errorCode", 0) != 0:
            continue
        for field in MUTATIONS[(api, "group")]:
            if field in group:
                yield "group", field, group
        for member in group.get("members") or []:
            for field in MUTATIONS[(api, "member")]:
                if field in member:
                    yield "member", field, member


def _cases() -> list[tuple[str, int, str, str]]:
    """(golden, API, where, field): the first line of each golden with each field."""
    seen: dict[tuple[str, int, str, str], None] = {}
    for path in sorted(GOLDEN.rglob("*.jsonl")):
        name = str(path.relative_to(GOLDEN))
        for event in read_jsonl(path):
            api = (event.get("requestHeader") or {}).get("requestApiKey")
            if isinstance(api, int):
                for where, field, _ in _targets(event, api):
                    seen.setdefault((name, api, where, field), None)
    return list(seen)


CASES: Final = _cases()


@pytest.mark.parametrize(("golden", "api", "where", "field"), CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_changed_response_field_is_flagged_on_its_line(golden: str, api: int, where: str, field: str,
                                                      tmp_path: Path) -> None:
    events = read_jsonl(GOLDEN / golden)
    for line, event in enumerate(events, 1):
        if (event.get("requestHeader") or {}).get("requestApiKey") != api:
            continue
        for w, f, holder in _targets(event, api):
            if (w, f) != (where, field):
                continue
            changed = MUTATIONS[(api, where)][field](holder[field])
            if changed is SKIP:
                continue
            holder[field] = changed
            status, report = check_events(tmp_path, events)
            assert status == 1
            at_line = [x for x in report["findings"] if x["line"] == line]
            assert any(x["kind"] == "response-mismatch" and (x["field"] == field or field in x["message"])
                       for x in at_line), (line, field, at_line)
            return
    pytest.skip(f"{field} has no value that can be changed in {golden}")


def test_every_counted_field_is_exercised_by_a_golden() -> None:
    """The goldens carry every field of the table above but those no golden's release or call
    shows (DescribeGroups and ListGroups have no golden: tests/classic/test_describe_groups.py)."""
    covered = {(api, where, field) for _, api, where, field in CASES}
    wanted = {(api, where, field) for (api, where), fields in MUTATIONS.items() for field in fields}
    # no golden has trunk's v1 streams calls: test_trunk_v1_streams_fields_are_compared
    assert wanted - covered == {(89, "group", "assignorName"), (89, "group", "topologyDescriptionStatus"),
                                (88, "", "topologyDescriptionRequired")}


@pytest.mark.parametrize("golden", sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*.jsonl")))
def test_unchanged_goldens_conform(golden: str) -> None:
    status, report = check(GOLDEN / golden)
    assert (status, report["findings"]) == (0, [])


def _trunk_v1_trace() -> list[dict[str, Any]]:
    """A kafka-trunk trace of v1 streams calls, answered by the model: a join, then a describe."""
    c = Coordinator("kafka-trunk", {"group.streams.initial.rebalance.delay.ms": 0})
    events: list[dict[str, Any]] = [{"header": {"format": "kgspec-trace/1", "profile": "kafka-trunk",
                                                "configs": {"group.streams.initial.rebalance.delay.ms": 0}}}]
    for name, topic_id, n in (("foo", FOO, 6), ("bar", BAR, 3)):
        c.update_topic(name, topic_id, n)
        events.append({"tsMs": 0, "topic": {"name": name, "topicId": topic_id, "partitions": n}})
    join = request("m1", 0, rebalanceTimeoutMs=30000, processId="p1", activeTasks=[], standbyTasks=[],
                   warmupTasks=[], topology={"epoch": 0, "subtopologies": [
                       {"subtopologyId": "sub1", "sourceTopics": ["foo"], "sourceTopicRegex": [],
                        "stateChangelogTopics": [], "repartitionSinkTopics": [], "repartitionSourceTopics": [],
                        "copartitionGroups": []}]})
    describe = {"groupIds": ["g"], "includeAuthorizedOperations": False, "includeTopologyDescription": True}
    for ts, (api, req) in enumerate(((88, join), (89, describe))):
        response = c.handle(api, 1, req, now=ts, client_id="m1").response
        events.append({"tsMs": ts, "requestHeader": {"requestApiKey": api, "requestApiVersion": 1, "clientId": "m1",
                                                     "correlationId": ts}, "request": req, "response": response})
    return events


@pytest.mark.parametrize(("line", "path", "value"), [
    (4, ("topologyDescriptionRequired",), True),
    (4, ("acceptableRecoveryLag",), 1),
    (5, ("groups", 0, "assignorName"), "range"),
    (5, ("groups", 0, "topologyDescriptionStatus"), 0),
])
def test_trunk_v1_streams_fields_are_compared(line: int, path: tuple[Any, ...], value: Any, tmp_path: Path) -> None:
    """Trunk's v1 fields: the heartbeat's topologyDescriptionRequired (false: no description plugin)
    and acceptableRecoveryLag (the group's config), the describe's assignorName ("sticky") and
    topologyDescriptionStatus (NOT_STORED, 1, when asked for and no plugin stores one)."""
    events = _trunk_v1_trace()
    assert check_events(tmp_path, events)[1]["findings"] == []
    holder: Any = events[line - 1]["response"]
    for key in path[:-1]:
        holder = holder[key]
    assert holder[path[-1]] != value
    holder[path[-1]] = value
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [(line, "response-mismatch", path[-1])]


def test_a_described_group_left_out_is_flagged(tmp_path: Path) -> None:
    """Kafka answers for every group a describe names."""
    events = read_jsonl(GOLDEN / "consumer/reconciliation.jsonl")
    line = next(i for i, e in enumerate(events, 1) if (e.get("requestHeader") or {}).get("requestApiKey") == 69)
    events[line - 1]["response"]["groups"] = []
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["expected"], f["observed"]) for f in report["findings"]] == [
        (line, "response-mismatch", "present", None)]
