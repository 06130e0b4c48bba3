"""The findings an SRE reads (issue #18): time, call, member, client, topic names, why; streamed,
then a per-group summary. The incident is the guide's example (scripts/make_incident.py): three
groups in a broker request log, one heartbeat answer of payments-app changed at line 18."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import pytest
from kgspec.conformance.context import (
    iso_time,
    render_error,
    render_partitions,
    render_tasks,
    render_value,
)
from kgspec.conformance.findings import Finding

from kgspec.cli import main
from kgspec.commands.check import check_traces
from kgspec.commands.focus import Focus, Watch
from kgspec.commands.human import HumanReport, finding_lines

ROOT = Path(__file__).resolve().parents[2]
INCIDENT = ROOT / "docs" / "guide" / "examples" / "incident.log"
MEMBER = "LKEG7cmEP6rDL5UlrMEKbA"


def test_render_partitions_as_kafka_tools_print_them() -> None:
    names = {"ZdyfUD9jr4O9BWHmIRxwzw": "orders"}
    assert render_partitions({"ZdyfUD9jr4O9BWHmIRxwzw": [14, 3, 17]}, names) == "orders-3, orders-14, orders-17"
    assert render_partitions({"unknownIdAAAAAAAAAAAAAA": [0]}, names) == "unknownIdAAAAAAAAAAAAAA-0"
    assert render_partitions({}, names) == "none"
    assert render_partitions(None) == "null"
    assert render_tasks({"1": [0], "0": [3, 1]}) == "0_1, 0_3, 1_0"


def test_error_codes_print_as_kafka_names_with_numbers() -> None:
    assert render_error(25) == "UNKNOWN_MEMBER_ID (25)"
    assert render_error(0) == "NONE (0)"
    assert render_value("errorCode", 110) == "FENCED_MEMBER_EPOCH (110)"
    assert render_value("members[0].errorCode", 16) == "NOT_COORDINATOR (16)"
    assert render_value("activeTasks", {"0": [2]}) == "0_2"
    assert render_value("memberEpoch", 3) == "3"


def test_iso_time_keeps_the_millisecond_and_the_zone() -> None:
    assert iso_time(1748736057832) == "2025-06-01T00:00:57.832+00:00"
    assert iso_time(1748736057832, dt.timezone(dt.timedelta(hours=2))) == "2025-06-01T02:00:57.832+02:00"


def test_incident_first_departure_reads_as_an_sre_needs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(INCIDENT)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:7] == [
        f"{INCIDENT}:18: group payments-app: response-mismatch (memberEpoch)",
        "  at 2025-06-01T00:00:05.069+00:00 (logged at 2025-06-01T00:00:05.070+00:00): ConsumerGroupHeartbeat v1 "
        f"from member {MEMBER} (client c4, host /127.0.0.1)",
        "  memberEpoch must be 2, not 3",
        f"  why: member {MEMBER} is still revoking payments-4, payments-5, payments-6, payments-7, "
        "so its epoch must stay 2",
        "  expected: 2",
        "  observed: 3",
        "  member before: STABLE at epoch 2, assigned payments-0, payments-1, payments-2, payments-3, payments-4, "
        "payments-5, payments-6, payments-7 (group epoch 3, assignment epoch 3)",
    ]
    assert out[7] == ("  member after: UNREVOKED_PARTITIONS at epoch 2, assigned payments-0, payments-1, payments-2, "
                      "payments-3, revoking payments-4, payments-5, payments-6, payments-7 "
                      "(group epoch 3, assignment epoch 3)")
    # the epoch-monotonicity finding of the same line is counted once, in the closing summary
    assert out[8:] == [
        "",
        "findings by group (1):",
        f"  payments-app  consumer  diverges      2 finding(s), first at {INCIDENT}:18 (2025-06-01T00:00:05.069+00:00)",
        "1 further finding(s) after each group's first are counted above, not printed (--json PATH lists every one)",
        "1 trace(s), 116 line(s), 3 group(s): 2 conform, 1 diverge, 0 incomplete; 2 finding(s)",
    ]
    assert not any("{'" in line for line in out)  # no Python reprs


def test_incident_json_findings_carry_the_event_context(tmp_path: Path) -> None:
    report_path = tmp_path / "r.json"
    assert main(["check", "-q", "--json", str(report_path), str(INCIDENT)]) == 1
    first = json.loads(report_path.read_text())["findings"][0]
    assert first == {
        "path": str(INCIDENT), "line": 18, "groupId": "payments-app", "kind": "response-mismatch",
        "field": "memberEpoch", "expected": 2, "observed": 3,
        "message": f"memberEpoch must be 2, not 3: member {MEMBER} is still revoking payments-4, payments-5, "
                   "payments-6, payments-7, so its epoch must stay 2",
        "time": "2025-06-01T00:00:05.069+00:00", "loggedAt": "2025-06-01T00:00:05.070+00:00",
        "tsMs": 1748736005069, "api": "ConsumerGroupHeartbeat", "apiVersion": 1, "memberId": MEMBER,
        "clientId": "c4", "clientHost": "/127.0.0.1", "topicNames": {"87CPaTKsK2I9T6CEVaW0ZQ": "payments"},
    }


def test_findings_are_streamed_while_the_trace_is_read() -> None:
    seen: list[tuple[int, int]] = []
    watch = Watch(Focus(), None)
    watch.on_finding = lambda f: seen.append((f.line, watch.item.line if watch.item is not None else -1))
    report = check_traces([str(INCIDENT)], "auto", None, None, {}, watch=watch)
    assert seen == [(18, 18), (18, 18)]  # told at line 18, not at the end of the 116 lines
    assert report.inputs[0].lines == 116


def test_untrusted_strings_stay_escaped() -> None:
    f = Finding("t.jsonl", 3, "g\x1b[2J", "response-mismatch", "memberEpoch must be 1, not 2", "memberEpoch", 1, 2,
                {"event": {"time": "2025-06-01T00:00:00.000+00:00", "api": "ConsumerGroupHeartbeat", "apiVersion": 0,
                           "memberId": "m\nfake line", "clientId": "c\u202e1"}})
    out = io.StringIO()
    HumanReport(out).finding(f)
    text = out.getvalue()
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "group g\\x1b[2J" in text
    assert "member m\\nfake line (client c\\u202e1)" in text
    assert finding_lines(f)[1] == ("  at 2025-06-01T00:00:00.000+00:00: ConsumerGroupHeartbeat v0 from member "
                                   "m\nfake line (client c\u202e1)")


@pytest.mark.parametrize(("args", "status", "groups", "findings"), [
    (["--group", "orders-*", "--group", "audit-app"], 0, {"orders-app", "audit-app"}, []),
    (["--group", "pay*"], 1, {"payments-app"}, [18, 18]),
    (["--first"], 1, {"payments-app", "orders-app", "audit-app"}, [18]),
    (["--max-findings", "1"], 1, {"payments-app", "orders-app", "audit-app"}, [18]),
    (["--since", "2025-06-01T00:00:05.070"], 0, {"payments-app", "orders-app", "audit-app"}, []),
    (["--since", "2025-06-01 00:00:05,069"], 1, {"payments-app", "orders-app", "audit-app"}, [18, 18]),
    (["--until", "1748736005068"], 0, {"payments-app", "orders-app", "audit-app"}, []),
])
def test_focus_options(tmp_path: Path, args: list[str], status: int, groups: set[str], findings: list[int]) -> None:
    report_path = tmp_path / "r.json"
    assert main(["check", "-q", "--json", str(report_path), *args, str(INCIDENT)]) == status
    report = json.loads(report_path.read_text())
    assert {g["groupId"] for g in report["groups"]} == groups
    assert [f["line"] for f in report["findings"]] == findings
    counts = report["inputs"][0]
    assert counts["lines"] == counts["events"] + counts["malformed"] + counts["skipped"]


def test_focus_notes_and_skipped_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["check", "--max-findings", "1", str(INCIDENT)]) == 1
    out = capsys.readouterr().out
    assert "stopped after 1 finding(s) (--max-findings); later lines were not read" in out
    report_path = tmp_path / "r.json"
    assert main(["check", "-q", "--group", "pay*", "--json", str(report_path), str(INCIDENT)]) == 1
    counts = json.loads(report_path.read_text())["inputs"][0]
    assert counts == {"path": str(INCIDENT), "lines": 116, "events": 41, "malformed": 0, "skipped": 75}


@pytest.mark.parametrize(("args", "message"), [
    (["--since", "yesterday"], "--since needs a time"),
    (["--max-findings", "0"], "--max-findings needs a positive number, got 0"),
    (["--since", "2000", "--until", "1000"], "--until 1000 is before --since 2000"),
])
def test_focus_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["check", *args, str(INCIDENT)]) == 2
    assert message in capsys.readouterr().err
