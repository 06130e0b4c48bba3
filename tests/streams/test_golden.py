"""Golden streams traces: `kgspec check` accepts them, and rejects copies recorded with a seeded
bug (or edited by hand) at the first line where they depart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import check, check_events, read_jsonl, write_jsonl
from tests.streams.goldens import (
    GOLDEN,
    RECORDED,
    SCENARIOS,
    kip_warmup,
    not_ready,
    not_ready_kept_target,
    standby_rebalance,
    trunk_static,
)

Event = dict[str, Any]


def write(tmp_path: Path, lines: list[str], name: str = "t.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(x + "\n" for x in lines))
    return path


@pytest.mark.parametrize("name", sorted([*SCENARIOS, *RECORDED]))
def test_goldens_are_current_and_conform(name: str) -> None:
    make = SCENARIOS.get(name)
    expected = make().lines() if make is not None else RECORDED[name](records=True).lines()
    assert (GOLDEN / name).read_text().splitlines() == expected
    status, report = check(GOLDEN / name)
    assert report["findings"] == []
    assert status == 0
    assert [(g["groupId"], g["type"], g["verdict"]) for g in report["groups"]] == [("g", "streams", "conforms")]


def test_golden_values() -> None:
    events = read_jsonl(GOLDEN / "standby_rebalance.jsonl")
    calls = [(e["tsMs"], e["request"]["memberId"], e["response"]["memberEpoch"],
              [s["statusCode"] for s in e["response"]["status"] or []])
             for e in events if e.get("requestHeader", {}).get("requestApiKey") == 88]
    assert calls[:4] == [(1000, "m-a", 1, [5]), (1500, "m-b", 1, [5]), (3100, "m-a", 3, []), (3200, "m-b", 3, [])]
    assert (6100, "m-a", 3, []) in calls   # revoking: the epoch stays
    assert (7500, "m-a", 4, []) in calls   # UNREVOKED exit: memberEpoch + 1


MISMATCH, INVARIANT = "response-mismatch", "invariant"
# mutant, scenario, first departing line, a field flagged there, every (kind, field) flagged there
MUTANTS = [
    ("standby-on-active-process", standby_rebalance, 8, "standbyTasks", {(MISMATCH, "standbyTasks")}),
    ("grant-before-ack", standby_rebalance, 15, "streams-single-active-owner",
     {(INVARIANT, "streams-single-active-owner"), (MISMATCH, "activeTasks"), (MISMATCH, "standbyTasks"),
      (MISMATCH, "warmupTasks")}),
    ("bump-while-revoking", standby_rebalance, 13, "streams-epoch-while-revoking",
     {(INVARIANT, "streams-epoch-while-revoking"), (MISMATCH, "memberEpoch")}),
    ("bump-while-revoking", trunk_static, 7, "streams-epoch-while-revoking",
     {(INVARIANT, "streams-epoch-while-revoking"), (MISMATCH, "memberEpoch")}),
    ("grant-before-ack", kip_warmup, 8, "streams-single-active-owner",
     {(INVARIANT, "streams-single-active-owner"), (MISMATCH, "activeTasks"), (MISMATCH, "standbyTasks"),
      (MISMATCH, "warmupTasks")}),
]


@pytest.mark.parametrize(("mutant", "make", "line", "field", "at_line"), MUTANTS,
                         ids=[f"{m[0]}-{m[1].__name__}" for m in MUTANTS])
def test_mutant_traces_rejected_at_the_first_departure(mutant: str, make: Any, line: int, field: str,
                                                       at_line: set[tuple[str, str]], tmp_path: Path) -> None:
    golden = make().lines()
    mutated = make(frozenset({mutant})).lines()
    first = next(i + 1 for i, (a, b) in enumerate(zip(golden, mutated, strict=False)) if a != b)
    assert first == line
    status, report = check(write(tmp_path, mutated))
    assert status == 1
    findings = report["findings"]
    assert findings[0]["line"] == line
    assert field in {f["field"] for f in findings if f["line"] == line}
    assert {(f["kind"], f["field"]) for f in findings if f["line"] == line} == at_line


def test_tasks_while_not_ready_rejected(tmp_path: Path) -> None:
    lines = not_ready().lines()
    events = [json.loads(x) for x in lines]
    index = next(i for i, e in enumerate(events) if e.get("tsMs") == 2000 and "requestHeader" in e)
    assert [s["statusCode"] for s in events[index]["response"]["status"]] == [1]
    events[index]["response"]["activeTasks"] = [{"subtopologyId": "0", "partitions": [0]}]
    events[index]["response"]["standbyTasks"] = []
    events[index]["response"]["warmupTasks"] = []
    status, report = check_events(tmp_path, events)
    assert status == 1
    at = {(f["kind"], f["field"]) for f in report["findings"] if f["line"] == index + 1}
    assert ("invariant", "streams-no-tasks-while-not-ready") in at
    assert ("response-mismatch", "activeTasks") in at
    # all three task lists were edited (not ready: the coordinator sends none of them)
    assert at == {("invariant", "streams-no-tasks-while-not-ready"), ("response-mismatch", "activeTasks"),
                  ("response-mismatch", "standbyTasks"), ("response-mismatch", "warmupTasks")}
    assert min(f["line"] for f in report["findings"]) == index + 1


KEPT = "not_ready_kept_target.jsonl"


def test_not_ready_grants_the_target_the_assignment_interval_kept() -> None:
    """The 1,000-group streams churn's finding (seed 1, group-847 at line 10940): no model bug.
    Kafka 4.3's streamsGroupHeartbeat bumps the group epoch with the topology not validated
    (NotReady) and, inside streams.assignment.interval.ms, reconciles the member toward the last
    target, computed while ready (fromLastTargetAssignment): line 9 grants m-b active task 0_1."""
    events = read_jsonl(GOLDEN / KEPT)
    calls = [(i + 1, e["tsMs"], e["request"]["memberId"], e["response"]["memberEpoch"],
              [s["statusCode"] for s in e["response"]["status"] or []], e["response"]["activeTasks"])
             for i, e in enumerate(events) if "response" in e]
    assert calls == [
        (4, 1000, "m-a", 2, [], [{"subtopologyId": "0", "partitions": [0, 1]}]),
        (5, 2500, "m-b", 3, [], []),
        (6, 2600, "m-a", 2, [], [{"subtopologyId": "0", "partitions": [0]}]),
        (7, 2700, "m-a", 3, [], None),
        (9, 3100, "m-b", 3, [5, 2], [{"subtopologyId": "0", "partitions": [1]}]),  # NotReady, kept target
        (10, 3600, "m-a", 3, [2], []),   # target epoch 4, computed NotReady: empty
        (11, 3700, "m-b", 3, [2], []),
    ]
    assert events[8]["response"]["status"] == [
        {"statusCode": 5, "statusDetail": "Assignment delayed due to the configured assignment interval."},
        {"statusCode": 2, "statusDetail": "Existing topic app-0-changelog has different number of partitions: "
                                          "expected 3, found 2"}]
    group = not_ready_kept_target().coord.streams_groups["g"]
    assert (group.state, group.group_epoch, group.assignment_epoch) == ("NOT_READY", 4, 4)
    status, report = check(GOLDEN / KEPT)
    assert report["findings"] == []
    assert status == 0


@pytest.mark.parametrize(("line", "active", "member"), [
    (9, [1, 2], "m-b"),    # the kept target gives m-b 0_1, not 0_2
    (10, [0, 2], "m-a"),   # the target is current (epoch 4, computed NotReady: empty)
])
def test_not_ready_grant_outside_the_kept_target_rejected(tmp_path: Path, line: int, active: list[int],
                                                          member: str) -> None:
    events = read_jsonl(GOLDEN / KEPT)
    events[line - 1]["response"]["activeTasks"] = [{"subtopologyId": "0", "partitions": active}]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert min(f["line"] for f in report["findings"]) == line
    at = [(f["kind"], f["field"], f["message"]) for f in report["findings"] if f["line"] == line]
    assert (INVARIANT, "streams-no-tasks-while-not-ready",
            f"group g is NotReady (topology not validated) but member {member} is given active task 0_2") in at
    assert {(kind, field) for kind, field, _ in at} == {(INVARIANT, "streams-no-tasks-while-not-ready"),
                                                        (MISMATCH, "activeTasks")}


@pytest.mark.parametrize(("line", "epoch", "message"), [
    (11, 9, "member m-b was accepted with epoch 9, ahead of its epoch 3"),
    (14, 2, "member m-b was accepted with stale epoch 2 (current 3, previous 1)"),
])
def test_accepted_heartbeat_the_coordinator_fences_names_epoch_fencing(tmp_path: Path, line: int, epoch: int,
                                                                        message: str) -> None:
    """A heartbeat the trace shows accepted at an epoch Kafka fences (neither the member's
    epoch nor, with its owned tasks, the previous one) is a response mismatch and names the
    ``epoch-fencing`` invariant, as a consumer heartbeat does."""
    events = read_jsonl(GOLDEN / "standby_rebalance.jsonl")
    call = events[line - 1]
    assert (call["request"]["memberId"], call["request"]["memberEpoch"], call["response"]["errorCode"]) == ("m-b", 3, 0)
    call["request"]["memberEpoch"] = epoch
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert min(f["line"] for f in report["findings"]) == line
    at = [(f["kind"], f["field"], f.get("expected"), f.get("observed"), f["message"].split(":")[0])
          for f in report["findings"] if f["line"] == line]
    assert at == [("response-mismatch", "errorCode", 110, 0, "errorCode must be 110, not 0"),
                  ("invariant", "epoch-fencing", None, None, message)]


def test_status_detail_text_does_not_count(tmp_path: Path) -> None:
    events = [json.loads(x) for x in not_ready().lines()]
    for e in events:
        for s in (e.get("response") or {}).get("status") or []:
            s["statusDetail"] = "anything"
    status, report = check_events(tmp_path, events)
    assert (status, report["findings"]) == (0, [])


def test_null_and_empty_tasks_differ(tmp_path: Path) -> None:
    events = [json.loads(x) for x in not_ready().lines()]
    index = next(i for i, e in enumerate(events) if e.get("tsMs") == 4000 and "requestHeader" in e)
    assert events[index]["response"]["activeTasks"] is None
    events[index]["response"]["activeTasks"] = []
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["field"], f["expected"], f["observed"]) for f in report["findings"]] == [
        (index + 1, "activeTasks", None, {})]


def test_records_only_trace_replays_and_catches_process_sharing(tmp_path: Path) -> None:
    lines = RECORDED["standby_rebalance_records.jsonl"](records=True).lines()
    kept = [x for x in lines if '"requestHeader"' not in x]
    status, report = check(write(tmp_path, kept, "records.jsonl"))
    assert (status, report["findings"]) == (0, [])
    events = [json.loads(x) for x in kept]
    # m-b (process p1) gets a standby for a task m-a (also p1) holds as active.
    index = max(i for i, e in enumerate(events) if "record" in e and e["record"]["key"]["type"] == 22
                and e["record"]["key"]["data"]["memberId"] == "m-b" and e["record"]["value"] is not None
                and e["tsMs"] < 5000)
    events[index]["record"]["value"]["data"]["standbyTasks"] = [{"subtopologyId": "0", "partitions": [0]}]
    status, report = check(write_jsonl(tmp_path / "records2.jsonl", events))
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"]) == (index + 1, "invariant", "streams-process-exclusivity")


def _calls(name: str) -> list[tuple[int, str, int, int, int]]:
    events = read_jsonl(GOLDEN / name)
    return [(i + 1, e["request"]["memberId"], e["request"]["memberEpoch"], e["response"]["errorCode"],
             e["response"]["memberEpoch"]) for i, e in enumerate(events)
            if e.get("requestHeader", {}).get("requestApiKey") == 88]


def test_trunk_golden_values() -> None:
    """-2 keeps the group epoch, the replacement inherits epoch 3, -1 bumps, the promotion is in place."""
    calls = _calls("trunk_static.jsonl")
    assert (14, "m-a", -2, 0, -2) in calls
    assert (15, "m-a2", 0, 0, 3) in calls
    assert (19, "m-b", 3, 0, 4) in calls
    event = json.loads((GOLDEN / "trunk_static.jsonl").read_text().splitlines()[18])
    assert (event["response"]["activeTasks"], event["response"]["standbyTasks"]) == (
        [{"subtopologyId": "0", "partitions": [0, 1]}, {"subtopologyId": "1", "partitions": [0, 1]}], [])


def test_kip_golden_values() -> None:
    calls = _calls("kip_warmup.jsonl")
    assert (13, "m-b", 3, 0, 3) in calls   # the caught-up warm-up: a refinement step; m-b revokes it first
    assert (16, "m-b", 3, 0, 4) in calls   # then the active task (seed: no in-place promotion)
    assert (18, "m-c", 0, 132, 0) in calls  # STREAMS_TOPOLOGY_FENCED
    event = json.loads((GOLDEN / "kip_warmup.jsonl").read_text().splitlines()[5])
    assert event["response"]["warmupTasks"] == [{"subtopologyId": "0", "partitions": [2]}]


@pytest.mark.parametrize(("name", "profile", "line", "field"), [
    ("trunk_static.jsonl", "kafka-4.3", 5, "errorCode"),       # 4.3 rejects instanceId
    # kip answers v0 with the configured acceptableRecoveryLag (seed 002); trunk's v0 leaves it
    # null. (Later, kip computes the target on m-b's join, epoch 3 with a warm-up, where trunk
    # batches it: epoch 2, ASSIGNMENT_DELAYED, and no warm-ups.)
    ("kip_warmup.jsonl", "kafka-trunk", 5, "acceptableRecoveryLag"),
    # 4.3's assignor sees m-b's target {0_2, 0_3} and keeps 0_2 with it; trunk's sees what m-b holds
    # (nothing). (4.3 departs first on line 3: its v0 response has no acceptableRecoveryLagLegacy.)
    ("trunk_current_tasks.jsonl", "kafka-4.3", 10, "activeTasks"),
])
def test_goldens_rejected_under_another_profile(name: str, profile: str, line: int, field: str,
                                                tmp_path: Path) -> None:
    status, report = check(GOLDEN / name, "--profile", profile)
    findings = report["findings"]
    assert status == 1
    # The first departure in ``field`` is on ``line`` (an earlier one may be in a field the two
    # releases answer differently from the start, as acceptableRecoveryLagLegacy's null in 4.3).
    first = next(f for f in findings if f["field"] == field)
    assert first["line"] == line
    assert findings[0]["line"] <= line


@pytest.mark.parametrize(("name", "line", "edit", "field"), [
    # 4.3-style promotion: the standbys kept, no actives yet
    ("trunk_static.jsonl", 19, {"activeTasks": [], "standbyTasks": [{"subtopologyId": "0", "partitions": [0, 1]}]},
     "activeTasks"),
    ("trunk_static.jsonl", 14, {"memberEpoch": -1}, "memberEpoch"),   # -2 answered as a full leave
    # the warm-up kept while promoted (trunk's in-place change), not revoked as the seed says
    ("kip_warmup.jsonl", 13, {"warmupTasks": [{"subtopologyId": "0", "partitions": [2]}]}, "warmupTasks"),
    ("kip_warmup.jsonl", 18, {"errorCode": 0}, "errorCode"),          # stale topology epoch accepted
    # docs/upstream.md finding 1, the fixed behaviour: the full-state retry gets the tasks again
    ("lost_assignment.jsonl", 6, {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}],
                                  "standbyTasks": [], "warmupTasks": []}, "activeTasks"),
    # docs/upstream.md finding 3, the fixed behaviour: m-a joins like m-b (MISSING_SOURCE_TOPICS)
    ("trunk_endpoint_missing_topic.jsonl", 3, {"errorCode": 0}, "errorCode"),
    ("trunk_endpoint_missing_topic.jsonl", 12, {"errorCode": 0}, "errorCode"),
    ("endpoint_missing_topic.jsonl", 3, {"errorCode": 0}, "errorCode"),
])
def test_edited_trunk_and_kip_goldens_rejected(name: str, line: int, edit: dict[str, Any], field: str,
                                               tmp_path: Path) -> None:
    events = read_jsonl(GOLDEN / name)
    events[line - 1]["response"].update(edit)
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (line, field)


def test_a_sticky_target_kept_through_an_epoch_bump_is_adopted(tmp_path: Path) -> None:
    # Issue #21 A.3: line 11 (m-b computes the target) answers epoch 4 with activeTasks null: m-b
    # keeps 0_2 and 0_3. The model's own target (m-b gives up 0_3) is one legal choice; the checker
    # adopts one in which m-b keeps them and m-a serves m-c (its highest task, 0_1).
    events = read_jsonl(GOLDEN / "sticky_unchanged.jsonl")
    assert (events[10]["request"]["memberId"], events[10]["response"]["memberEpoch"],
            events[10]["response"]["activeTasks"]) == ("m-b", 4, None)
    status, report = check(GOLDEN / "sticky_unchanged.jsonl")
    assert (status, report["findings"]) == (0, [])
    # m-a keeping 0_0 and 0_1 too leaves m-c nothing: the adopted target says m-a revokes 0_1.
    events[11]["response"].update(memberEpoch=4, activeTasks=None, standbyTasks=None, warmupTasks=None)
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["field"], f["expected"], f["observed"]) for f in report["findings"][:2]] == [
        (12, "memberEpoch", 3, 4), (12, "activeTasks", {"0": [0]}, None)]


def test_streams_describe_versions(tmp_path: Path) -> None:
    """trunk_static's describe checked at v1 (trunk's top version) still conforms; at v2 it is a
    version the model does not cover."""
    events = read_jsonl(GOLDEN / "trunk_static.jsonl")
    line = next(i for i, e in enumerate(events, 1) if e.get("requestHeader", {}).get("requestApiKey") == 89)
    for version, expected in ((1, []), (2, [(line, "unsupported", "requestHeader.requestApiVersion")])):
        events[line - 1]["requestHeader"]["requestApiVersion"] = version
        _, report = check_events(tmp_path, events)
        assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == expected
