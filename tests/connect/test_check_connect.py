"""``kgspec check`` on Connect traces: the case-study goldens conform under kip; mutated copies are
rejected at the line that departs; the computing worker is a choice adopted from the trace."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kgspec.model.connect import ops

from tests.connect.harness import Cluster, ct
from tests.connect.scenarios import SCENARIOS, epoch_35
from tests.helpers import check, check_events, read_jsonl, write_jsonl

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "connect"


def lines_of(name: str) -> list[dict[str, Any]]:
    return read_jsonl(GOLDEN / f"{name}.jsonl")


def first(report: dict[str, Any]) -> tuple[int, str, str]:
    f = report["findings"][0]
    return f["line"], f["kind"], f["field"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_goldens_are_current_and_conform(name: str, tmp_path: Path) -> None:
    cluster, _ = SCENARIOS[name]()
    header = {"header": {"format": "kgspec-trace/1", "profile": "kip", "configs": {}}}
    expected = "".join(json.dumps(e, sort_keys=True) + "\n" for e in [header, *cluster.events])
    assert (GOLDEN / f"{name}.jsonl").read_text() == expected, "run scripts/make_golden_connect.py"
    status, report = check_events(tmp_path, lines_of(name))
    assert status == 0
    assert report["findings"] == []
    group_events = [e for e in cluster.events if "tick" not in e]  # a tick belongs to no group
    assert report["groups"] == [{"groupId": "g", "type": "connect", "events": len(group_events),
                                 "verdict": "conforms"}]


def test_kafka_43_rejects_connect_calls_at_the_first_call(tmp_path: Path) -> None:
    status, report = check_events(tmp_path, lines_of("worker_leaving"), "--profile", "kafka-4.3")
    assert status == 1
    f = report["findings"][0]
    assert (f["line"], f["kind"], f["field"], f["expected"], f["observed"]) == \
        (12, "response-mismatch", "errorCode", 35, 0)


def _mutate(line: int, edit: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    events = lines_of("empty_group_and_two_workers")
    edit(events[line - 1])
    return events


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(event: dict[str, Any]) -> None:
        target = event
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


@pytest.mark.parametrize(("line", "edit", "field", "expected", "observed"), [
    (21, _set(("response", "memberEpoch"), 3), "memberEpoch", 2, 3),  # W1's acknowledgement
    (19, _set(("response", "memberEpoch"), 2), "memberEpoch", 1, 2),  # bumped while revoking
    (23, _set(("response", "assignment", "connectorsAndTasks"), ct("BC0", "BT1", "AT2")), "assignment",
     ["BC0", "BT1"], ["AT2", "BC0", "BT1"]),  # given a task W1 still owns
    (17, _set(("request", "members", 1, "connectorsAndTasks"), ct("BC0", "BT1", "AT1")), "errorCode", 1001, 0),
    (16, lambda e: e["response"].update(groupEpoch=3), "groupEpoch", 2, 3),
    (8, _set(("record", "value", "data", "assignmentEpoch"), 2), "record", None, None),
], ids=["ack-epoch", "bump-while-revoking", "double-grant", "install-accepted-twice", "prepare-epoch",
        "target-record"])
def test_mutated_copies_are_rejected_at_the_right_line(tmp_path: Path, line: int, edit: Any, field: str,
                                                       expected: Any, observed: Any) -> None:
    status, report = check_events(tmp_path, _mutate(line, edit))
    assert status == 1
    f = report["findings"][0]
    assert (f["line"], f["kind"], f["field"]) == (line, "response-mismatch", field)
    if field != "record":
        assert (f["expected"], f["observed"]) == (expected, observed)


def test_a_worker_not_asked_cannot_prepare(tmp_path: Path) -> None:
    # The trace's coordinator did not ask W1 (line 15): the checker adopts that choice, so W1's
    # Prepare at line 16 must be UNKNOWN_MEMBER_ID (25).
    events = _mutate(15, lambda e: e["response"].update(errorCode=0, errorMessage=None))
    status, report = check_events(tmp_path, events)
    assert status == 1
    f = report["findings"][0]
    assert (f["line"], f["field"], f["expected"], f["observed"]) == (16, "errorCode", 25, 0)


def test_another_eligible_computing_worker_is_adopted(tmp_path: Path) -> None:
    c = Cluster()
    c.load(epoch_35(), 0)
    c.at(30000)
    c.hb("W1", 35, ct("AC0", "AT1"))
    c.hb("W3", 35, ct("AT2"))
    c.at(46000)
    ops.adopt_selection(c.coord, "g", "W3", chosen=False)  # this coordinator picks W1, not W3
    assert c.hb("W3", 35, ct("AT2"))["errorCode"] == 0
    assert c.hb("W1", 35, ct("AC0", "AT1"))["errorCode"] == 1000
    c.prepare("W1", 35)
    assert c.install("W1", 35, 36, {"W1": ["AC0", "AT1"], "W3": ["AT2"]})["errorCode"] == 0
    header = {"header": {"format": "kgspec-trace/1", "profile": "kip"}}
    status, report = check_events(tmp_path, [header, *c.events])
    assert (status, report["findings"]) == (0, [])


def test_records_alone_are_replayed_and_double_ownership_is_caught(tmp_path: Path) -> None:
    records = [e for e in lines_of("empty_group_and_two_workers") if "record" in e]
    bad = json.loads(json.dumps(records[-1]))  # W2's assignment: BC0, BT1
    bad["record"]["value"]["data"]["connectorsAndTasks"] = ct("AC0", "BC0", "BT1")  # AC0 is W1's
    status, report = check_events(tmp_path, [*records[:-1], bad])
    assert status == 1
    assert first(report) == (len(records), "invariant", "connect-no-double-ownership")
    assert report["findings"][0]["message"] == "AC0 is owned by workers ['W1', 'W2'] at once"
    assert check_events(tmp_path, records)[0] == 0


def _w2_heartbeats_while_w1_revokes() -> tuple[list[dict[str, Any]], int]:
    c = Cluster()
    c.configure({"A": [1, 2], "B": [1]})
    c.hb("W1", 0)
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": ["AC0", "AT1", "AT2", "BC0", "BT1"]})
    c.hb("W1", 0, ct())
    c.hb("W2", 0)
    c.hb("W1", 1, ct("AC0", "AT1", "AT2", "BC0", "BT1"))
    c.prepare("W1", 1)
    c.install("W1", 1, 2, {"W1": ["AT1"], "W2": ["AC0", "AT2", "BC0", "BT1"]})
    c.hb("W1", 1, ct("AC0", "AT1", "AT2", "BC0", "BT1"))  # W1 revokes four
    c.hb("W2", 1, ct())  # W2 must get nothing yet
    header = {"header": {"format": "kgspec-trace/1", "profile": "kip"}}
    events = [header, *c.events]
    line = max(i for i, e in enumerate(events, start=1) if e.get("request", {}).get("memberId") == "W2")
    return events, line


@pytest.mark.parametrize(("mutant", "field"), [("grant-before-ack", "assignment"),
                                               ("bump-while-revoking", "memberEpoch")])
def test_seeded_bugs_are_caught_on_connect_traces(tmp_path: Path, mutant: str, field: str) -> None:
    events, w2_line = _w2_heartbeats_while_w1_revokes()
    path = write_jsonl(tmp_path / "t.jsonl", events)
    assert check(path)[0] == 0
    status, report = check(path, "--mutant", mutant)
    assert status == 1
    f = report["findings"][0]
    expected_line = w2_line if mutant == "grant-before-ack" else w2_line - 2  # W1's revoking heartbeat
    assert (f["line"], f["kind"], f["field"]) == (expected_line, "response-mismatch", field)
