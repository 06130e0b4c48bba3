"""`kgspec check` on the classic goldens (conform), mutated copies (rejected at the right line)
and records-only traces (classic invariants)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from kgspec.conformance.writers import write_request_log

from tests.helpers import Event, check, check_events, golden_script, read_jsonl

GOLDEN = Path(__file__).parent.parent / "golden" / "classic"


def load(name: str) -> list[Event]:
    return read_jsonl(GOLDEN / name)


def line_of(events: list[Event], api: int, ts: int) -> int:
    for i, e in enumerate(events, 1):
        if e.get("tsMs") == ts and e.get("requestHeader", {}).get("requestApiKey") == api:
            return i
    raise AssertionError(f"no call {api} at {ts}")


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.jsonl")))
def test_golden_classic_traces_conform(name: str, tmp_path: Path) -> None:
    events = load(name)
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0
    assert report["inputs"][0]["lines"] == len(events)
    assert report["groups"] == [{"groupId": "g", "type": "classic", "events": len(events) - sum(
        1 for e in events if "tick" in e or "header" in e), "verdict": "conforms"}]


MAKE_GOLDEN = golden_script("make_golden_classic")


@pytest.mark.parametrize("name", sorted(MAKE_GOLDEN.SCENARIOS))
def test_goldens_are_current(name: str, tmp_path: Path) -> None:
    MAKE_GOLDEN.SCENARIOS[name]().write(tmp_path / f"{name}.jsonl")
    assert (tmp_path / f"{name}.jsonl").read_text() == (GOLDEN / f"{name}.jsonl").read_text(), \
        "run scripts/make_golden_classic.py"


def test_golden_join_sync_holds_kafkas_values() -> None:
    """The initial delay (3000, extended once), generation 1, leader = first member, range."""
    events = load("join_sync.jsonl")
    first = events[line_of(events, 11, 0) - 1]
    assert first["response"]["errorCode"] == 79
    joined = events[line_of(events, 11, 200) - 1]
    assert joined["totalTimeMs"] == 6000  # completed at 6200: 200 + 3000 + 3000
    assert joined["response"]["generationId"] == 1
    assert joined["response"]["leader"] == joined["response"]["memberId"]
    assert joined["response"]["protocolName"] == "range"
    assert len(joined["response"]["members"]) == 2
    synced = events[line_of(events, 14, 6300) - 1]
    assert synced["totalTimeMs"] == 100
    assert synced["response"]["assignment"] == "AAAC"
    types = [e["record"]["value"]["data"]["generation"] for e in events if "record" in e]
    assert types == [0, 1, 2, 3]


def test_wrong_generation_in_a_parked_join_response_is_found_at_its_line(tmp_path: Path) -> None:
    events = load("join_sync.jsonl")
    bad = copy.deepcopy(events)
    line = line_of(bad, 11, 300)
    bad[line - 1]["response"]["generationId"] = 2
    status, report = check_events(tmp_path, bad)
    assert status == 1
    [finding] = report["findings"]
    assert (finding["line"], finding["kind"], finding["field"], finding["expected"], finding["observed"]) == \
        (line, "response-mismatch", "generationId", 1, 2)


def test_a_response_sent_before_the_group_was_ready_is_found(tmp_path: Path) -> None:
    """The trace claims the JoinGroup was answered 1000 ms after arrival; Kafka waits 6000."""
    events = load("join_sync.jsonl")
    bad = copy.deepcopy(events)
    line = line_of(bad, 11, 200)
    bad[line - 1]["totalTimeMs"] = 1000
    status, report = check_events(tmp_path, bad)
    assert status == 1
    [finding] = report["findings"]
    assert (finding["line"], finding["kind"], finding["field"]) == (line, "response-mismatch", "errorCode")
    assert "still waiting" in finding["message"]


def test_wrong_leader_sync_assignment_and_leave_answers_are_found(tmp_path: Path) -> None:
    events = load("join_sync.jsonl")
    bad = copy.deepcopy(events)
    join_line, sync_line, leave_line = line_of(bad, 11, 200), line_of(bad, 14, 6300), line_of(bad, 13, 12_000)
    bad[join_line - 1]["response"]["leader"] = "someone-else"
    bad[sync_line - 1]["response"]["assignment"] = "AAAB"
    bad[leave_line - 1]["response"]["members"][0]["errorCode"] = 25
    status, report = check_events(tmp_path, bad)
    assert status == 1
    assert [(f["line"], f["field"]) for f in report["findings"]] == [
        (join_line, "leader"), (sync_line, "assignment"), (leave_line, "members")]


def test_a_wrong_group_metadata_record_is_found(tmp_path: Path) -> None:
    events = load("join_sync.jsonl")
    bad = copy.deepcopy(events)
    line = next(i for i, e in enumerate(bad, 1) if "record" in e and e["record"]["value"]["data"]["generation"] == 1)
    bad[line - 1]["record"]["value"]["data"]["members"][0]["assignment"] = "AAAA"
    status, report = check_events(tmp_path, bad)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [(line, "response-mismatch", "record")]


def test_heartbeat_error_mismatch_in_old_versions(tmp_path: Path) -> None:
    events = load("old_versions.jsonl")
    bad = copy.deepcopy(events)
    line = line_of(bad, 12, 4000)
    bad[line - 1]["response"]["errorCode"] = 27
    status, report = check_events(tmp_path, bad)
    assert status == 1
    assert [(f["line"], f["field"], f["expected"], f["observed"]) for f in report["findings"]] == [
        (line, "errorCode", 0, 27)]


def test_records_only_trace_checks_classic_invariants(tmp_path: Path) -> None:
    """Replay of GroupMetadata records alone: generation going back, a leader that is no member."""
    records = [e for e in load("join_sync.jsonl") if "record" in e]
    status, report = check_events(tmp_path, records)
    assert status == 0
    assert report["findings"] == []
    bad = copy.deepcopy(records)
    bad[2]["record"]["value"]["data"]["generation"] = 0  # after generation 1
    bad[1]["record"]["value"]["data"]["leader"] = "ghost"
    status, report = check_events(tmp_path, bad)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [
        (2, "invariant", "classic-one-leader"), (3, "invariant", "classic-generation-monotonic")]


def test_one_protocol_per_generation_in_observed_responses(tmp_path: Path) -> None:
    events = load("join_sync.jsonl")
    bad = copy.deepcopy(events)
    line = line_of(bad, 11, 300)
    bad[line - 1]["response"]["protocolName"] = "roundrobin"
    status, report = check_events(tmp_path, bad)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [
        (line, "invariant", "classic-one-protocol"), (line, "response-mismatch", "protocolName")]


# A broker's request log is Kafka's: it has no profile and no seed-only field (kip goldens excluded).
@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.jsonl") if not p.name.startswith("kip_")))
def test_golden_classic_traces_conform_as_request_logs(name: str, tmp_path: Path) -> None:
    """Written as a broker request log (parked calls keep their own totalTimeMs, so the log's
    completion order is Kafka's), each classic golden still conforms."""
    events = load(name)
    log = tmp_path / "kafka-request.log"
    with log.open("w", encoding="utf-8") as fh:
        written = write_request_log(events, fh)
    assert sum(1 for i in written if i is not None) == sum(1 for e in events if "requestHeader" in e)
    status, report = check(log)
    assert (status, report["findings"]) == (0, [])
