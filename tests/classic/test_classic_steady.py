"""The classic steady fast path (``conformance/classic_steady.py``) changes speed, never reports.

Every trace that carries classic calls is checked with the fast path on and off, and the JSON
reports must be the same bytes: each golden trace under every profile, native and as a request
log; the classic churn workload; and the churn with anomalies planted among cached heartbeats,
which the cached run must still report at their lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.writers import write_request_log
from kgspec.model.classic.steady import steady_heartbeat_timer
from kgspec.model.coordinator import Coordinator
from kgspec.model.profiles import PROFILES

from tests.benchmarks.workloads import as_request_log, classic_churn
from tests.helpers import session_marks

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
CLASSIC_KEYS = ('"requestApiKey":11', '"requestApiKey":12', '"requestApiKey":13', '"requestApiKey":14')
WITH_CLASSIC = sorted(p for p in GOLDEN.rglob("*.jsonl")
                      if any(k in p.read_text().replace(": ", ":") for k in CLASSIC_KEYS))


def _check(path: Path, cache: bool, **options: Any) -> tuple[str, int, dict[str, tuple[Any, ...]]]:
    report = Report()
    checker = TraceChecker(str(path), report, steady_cache=cache, **options)
    checker.feed_all(open_trace(path))
    checker.finish()
    return json.dumps(report.to_json(), indent=2), checker.steady_hits, session_marks(checker)


def _same_bytes(path: Path, **options: Any) -> tuple[dict[str, Any], int]:
    cached, hits, cached_marks = _check(path, True, **options)
    uncached, none, marks = _check(path, False, **options)
    assert none == 0
    assert cached_marks == marks  # each group's last call, clock and event count
    assert cached == uncached
    report: dict[str, Any] = json.loads(cached)
    return report, hits


def _request_log(native: Path, out: Path) -> Path:
    with native.open(encoding="utf-8") as fh, out.open("w", encoding="utf-8") as sink:
        write_request_log((json.loads(line) for line in fh), sink)
    return out


def test_the_goldens_with_classic_calls_are_found() -> None:
    assert [f"{p.parent.name}/{p.name}" for p in WITH_CLASSIC] == [
        "classic/join_sync.jsonl", "classic/kip_choices.jsonl", "classic/kip_join_reason.jsonl", "classic/kip_rolling_upgrade.jsonl",
        "classic/old_versions.jsonl", "classic/static_membership.jsonl", "classic/timeouts.jsonl",
        "migration/connect_kip.jsonl", "migration/downgrade.jsonl", "migration/streams_kafka-4.1.jsonl", "migration/streams_kafka-4.2.jsonl",
        "migration/streams_kafka-4.3.jsonl", "migration/streams_kafka-trunk.jsonl", "migration/streams_kip.jsonl",
        "migration/upgrade.jsonl"]


@pytest.mark.parametrize("fmt", ["native", "request-log"])
@pytest.mark.parametrize("profile", [None, *sorted(PROFILES)])
@pytest.mark.parametrize("path", WITH_CLASSIC, ids=[f"{p.parent.name}/{p.name}" for p in WITH_CLASSIC])
def test_golden_reports_are_the_same_bytes(path: Path, profile: str | None, fmt: str, tmp_path: Path) -> None:
    """``profile`` None: the trace's own; otherwise ``--profile`` overrides it."""
    trace = path if fmt == "native" else _request_log(path, tmp_path / "request.log")
    _same_bytes(trace, profile=profile)


def test_timeouts_golden_heartbeats_are_cached() -> None:
    # The leader's and the follower's heartbeats every 9 s from 18 s to 63 s repeat their first.
    report, hits = _same_bytes(GOLDEN / "classic" / "timeouts.jsonl")
    assert hits == 12
    assert report["findings"] == []


@pytest.fixture(scope="module")
def churn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("classic") / "churn.jsonl"
    classic_churn(path, groups=8, duration_ms=90_000, seed=3)
    return path


@pytest.mark.parametrize("fmt", ["native", "request-log"])
def test_classic_churn_same_report_and_cached(churn: Path, fmt: str, tmp_path: Path) -> None:
    trace = churn if fmt == "native" else as_request_log(churn, tmp_path / "churn.log")
    report, hits = _same_bytes(trace)
    assert report["findings"] == []
    heartbeats = sum('"requestApiKey":12,' in line for line in churn.read_text().splitlines())
    assert heartbeats > 600
    assert hits > heartbeats // 2  # all but the first heartbeat of each member after each rebalance


def _steady_heartbeats(lines: list[str]) -> list[int]:
    """Indexes of heartbeats that repeat the member's previous heartbeat, answered NONE."""
    last: dict[str, str] = {}
    out = []
    for i, line in enumerate(lines):
        event = json.loads(line)
        if event.get("requestHeader", {}).get("requestApiKey") != 12:
            continue
        key = event["request"]["memberId"]
        request = json.dumps(event["request"])
        if last.get(key) == request and event["response"]["errorCode"] == 0:
            out.append(i)
        last[key] = request
    return out


def test_anomalies_among_cached_heartbeats_are_reported(churn: Path, tmp_path: Path) -> None:
    lines = churn.read_text().splitlines()
    steady = _steady_heartbeats(lines)
    error_at, member_at, client_at, back_at = steady[50], steady[150], steady[250], steady[350]
    type_at = next(i for i in steady[20:] if json.loads(lines[i])["request"]["generationId"] == 1)
    planted: list[tuple[int, str, Any]] = [
        (error_at, "response.errorCode", 27),  # REBALANCE_IN_PROGRESS where the group is stable
        (type_at, "request.generationId", True),  # equal to 1 in Python, a boolean to the schema
        (member_at, "request.memberId", "nobody"),  # UNKNOWN_MEMBER_ID
        (client_at, "requestHeader.clientId", "another-client"),  # not in the answer: no finding
    ]
    for at, name, value in planted:
        event = json.loads(lines[at])
        part, key = name.split(".")
        event[part][key] = value
        lines[at] = json.dumps(event, separators=(",", ":"))
    event = json.loads(lines[back_at])
    group = event["request"]["groupId"]
    before = next(json.loads(line) for line in reversed(lines[:back_at]) if f'"groupId":"{group}"' in line)
    event["tsMs"] = before["tsMs"] - 1  # time goes backwards for the group
    lines[back_at] = json.dumps(event, separators=(",", ":"))
    path = tmp_path / "planted.jsonl"
    path.write_text("\n".join(lines) + "\n")
    report, hits = _same_bytes(path)
    assert hits > 400
    assert sorted((f["line"], f["kind"], f.get("field"), f.get("expected"), f.get("observed"))
                  for f in report["findings"]) == sorted([
        (error_at + 1, "response-mismatch", "errorCode", 0, 27),
        (type_at + 1, "malformed", "request.generationId", None, None),
        (member_at + 1, "response-mismatch", "errorCode", 25, 0),
        (back_at + 1, "malformed", "tsMs", None, None),
    ])


def _join(coord: Coordinator, now: int, member_id: str = "") -> Any:
    return coord.handle(11, 9, {"groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000,
                                "memberId": member_id, "groupInstanceId": None, "protocolType": "consumer",
                                "protocols": [{"name": "range", "metadata": "AAE="}], "reason": None}, now=now)


def _heartbeat(coord: Coordinator, now: int, member_id: str, generation: int) -> dict[str, Any]:
    response: dict[str, Any] = coord.handle(12, 4, {"groupId": "g", "generationId": generation, "memberId": member_id,
                                                    "groupInstanceId": None}, now=now).response
    return response


def test_steady_heartbeat_timer_only_after_the_steady_answer() -> None:
    """The model names the steady Heartbeat: NONE in STABLE re-arms ``heartbeat-g-<member>`` at
    now + the session timeout; REBALANCE_IN_PROGRESS (PREPARING_REBALANCE) is not steady."""
    coord = Coordinator("kafka-4.3", {}, member_ids=lambda n: f"m{n}")
    member = _join(coord, 0).response["memberId"]
    assert _join(coord, 10, member).pending is not None  # parked: the initial delay (3 s)
    coord.advance(3010)
    [completion] = coord.take_completed()
    assert (completion.response["errorCode"], completion.response["generationId"]) == (0, 1)
    sync = coord.handle(14, 5, {"groupId": "g", "generationId": 1, "memberId": member, "groupInstanceId": None,
                                "protocolType": "consumer", "protocolName": "range",
                                "assignments": [{"memberId": member, "assignment": "AAEA"}]}, now=3020)
    assert sync.response == {"throttleTimeMs": 0, "errorCode": 0, "protocolType": "consumer",
                             "protocolName": "range", "assignment": "AAEA"}
    assert _heartbeat(coord, 6000, member, 1) == {"throttleTimeMs": 0, "errorCode": 0}
    timer = steady_heartbeat_timer(coord, "g", member, 6000)
    assert timer is not None
    assert (timer.key, timer.deadline_ms, timer.kind) == (f"heartbeat-g-{member}", 16_000, "classic-heartbeat")
    assert steady_heartbeat_timer(coord, "g", member, 6001) is None  # not what a call at 6001 leaves
    assert steady_heartbeat_timer(coord, "g", "nobody", 6000) is None
    first = _join(coord, 7000).response  # a new member: pending, no rebalance yet
    assert first["errorCode"] == 79
    assert _join(coord, 7010, first["memberId"]).pending is not None  # now the group prepares a rebalance
    assert _heartbeat(coord, 8000, member, 1) == {"throttleTimeMs": 0, "errorCode": 27}
    assert steady_heartbeat_timer(coord, "g", member, 8000) is None
