"""With ``--allow``, the per-group cap on listed findings counts only the findings that are listed.

An allowed departure is moved aside (the report's ``allowed``), so it must not use up the group's
``MAX_FINDINGS_PER_GROUP``: a peer with a known departure on every heartbeat would otherwise hide
every real departure after the 200th allowed one, and the group would be reported as conforming.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kgspec.conformance.session import MAX_FINDINGS_PER_GROUP
from kgspec.conformance.steady import write_steady_trace

from kgspec.cli import main

ALLOWED = MAX_FINDINGS_PER_GROUP + 50


def _peer_trace(tmp_path: Path) -> tuple[Path, Path, int]:
    """One group of 10 members heartbeating steadily; the first ``ALLOWED`` steady answers carry a
    heartbeat interval the list allows, a later one an error code nothing allows."""
    steady = tmp_path / "steady.jsonl"
    write_steady_trace(steady, 400, groups=1, members=10)
    lines, seen, bad = [], 0, 0
    for number, text in enumerate(steady.read_text(encoding="utf-8").splitlines(), 1):
        event = json.loads(text)
        if "requestHeader" in event and event["request"]["memberEpoch"] > 0:
            seen += 1
            if seen <= ALLOWED:
                event["response"]["heartbeatIntervalMs"] = 4999
            elif seen == ALLOWED + 20:
                event["response"]["errorCode"] = 22
                bad = number
        lines.append(json.dumps(event))
    assert bad
    trace = tmp_path / "peer.jsonl"
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    allow = tmp_path / "allow.json"
    allow.write_text(json.dumps({"format": "kgspec-allowlist/1", "peer": "a peer", "reference": "kafka-4.3",
                                 "entries": [{"id": "interval", "classification": "mock-simplification",
                                              "description": "its own heartbeat interval", "source": "test",
                                              "match": {"kind": "response-mismatch",
                                                        "fields": ["heartbeatIntervalMs"]}}]}))
    return trace, allow, bad


def test_allowed_findings_do_not_use_up_the_cap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace, allow, bad = _peer_trace(tmp_path)
    report_path = tmp_path / "report.json"
    assert main(["check", "--allow", str(allow), "--json", str(report_path), str(trace)]) == 1
    report = json.loads(report_path.read_text())
    assert [(f["line"], f["kind"], f["field"], f["expected"], f["observed"]) for f in report["findings"]] == \
        [(bad, "response-mismatch", "errorCode", 0, 22)]
    assert [g["verdict"] for g in report["groups"]] == ["diverges"]
    allowed = report["allowList"]["allowed"]
    assert len(allowed) == ALLOWED
    assert {(a["entry"], a["field"], a["expected"], a["observed"]) for a in allowed} == \
        {("interval", "heartbeatIntervalMs", 5000, 4999)}
    assert not any("not listed" in a["message"] for a in allowed)
    # Without the list every departure is a finding, and the cap applies.
    capsys.readouterr()
    assert main(["check", "--json", str(report_path), str(trace)]) == 1
    findings = json.loads(report_path.read_text())["findings"]
    assert len(findings) == MAX_FINDINGS_PER_GROUP
    assert findings[-1]["message"].endswith(f"(further findings for this group are not listed; "
                                            f"limit {MAX_FINDINGS_PER_GROUP})")
