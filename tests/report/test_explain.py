"""``kgspec check --explain FILE:LINE``: the event's group before and after, as
kafka-consumer-groups --describe --members --verbose prints members (ConsumerGroupCommand)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from kgspec.conformance.snapshot import GroupSnapshot, assignment_string, task_string
from rich.console import Console

from kgspec.cli import main
from kgspec.commands.explain import _table
from tests.report.test_findings_human import INCIDENT, MEMBER

OTHER = "hai7m1MOYMseNT8psR8N5g"


def test_assignment_string_is_consumer_group_commands() -> None:
    # getAssignmentString: topic:partitions sorted, topics sorted, joined by ';'; '-' when empty
    assert assignment_string({"id-b": [3, 1], "id-a": [0]}, {"id-a": "orders", "id-b": "audit"}) == "audit:1,3;orders:0"
    assert assignment_string({}) == "-"
    assert task_string({"active": {"0": [1, 0]}, "standby": {}, "warmup": {"1": [2]}}) == "active 0_0,0_1; warmup 1_2"


def test_explain_the_incident_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--explain", f"{INCIDENT}:18"]) == 1
    lines = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == (f"{INCIDENT}:18: group payments-app: ConsumerGroupHeartbeat v1 at 2025-06-01T00:00:05.069+00:00 "
                        f"from member {MEMBER}")
    before = lines.index("before: consumer group payments-app (state RECONCILING, groupEpoch 3, assignmentEpoch 3)")
    after = lines.index("after: consumer group payments-app (state RECONCILING, groupEpoch 3, assignmentEpoch 3)")
    assert lines[before + 1].split() == ["CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "STATE", "CURRENT-EPOCH",
                                         "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
    assert lines[before + 2].split() == [MEMBER, "/127.0.0.1", "c4", "8", "STABLE", "2", "payments:0,1,2,3,4,5,6,7",
                                         "3", "payments:0,1,2,3"]
    assert lines[before + 3].split() == [OTHER, "/127.0.0.1", "c3", "0", "UNRELEASED_PARTITIONS", "3", "-", "3",
                                         "payments:4,5,6,7"]
    assert lines[after + 1].split()[7] == "PENDING-REVOCATION"
    assert lines[after + 2].split() == [MEMBER, "/127.0.0.1", "c4", "4", "UNREVOKED_PARTITIONS", "2",
                                        "payments:0,1,2,3", "payments:4,5,6,7", "3", "payments:0,1,2,3"]
    assert f"{INCIDENT}:18: group payments-app: response-mismatch (memberEpoch)" in lines
    assert f"{INCIDENT}:18: group payments-app: invariant (epoch-monotonicity)" in lines


def test_explain_a_conforming_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--explain", f"{INCIDENT}:17"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("no finding on this line: the event conforms")


@pytest.mark.parametrize(("spec", "message"), [
    ("incident.log", "--explain needs FILE:LINE (a line number from 1), got 'incident.log'"),
    (f"{INCIDENT}:0", "--explain needs FILE:LINE"),
    (f"{INCIDENT}:999", "line 999 of"),
    (f"{INCIDENT}:1", "carries no event of a group"),  # line 1 creates a topic
    ("/no/such/file:3", "no such file"),
])
def test_explain_usage_errors(capsys: pytest.CaptureFixture[str], spec: str, message: str) -> None:
    assert main(["check", "--explain", spec]) == 2
    assert message in capsys.readouterr().err


def test_explain_tables_show_markup_and_controls_as_text(tmp_path: Path) -> None:
    snap = GroupSnapshot("g[bold]", "consumer", {"state": "STABLE"})
    snap.members.append({"CONSUMER-ID": "[red]m\x1b", "GROUP-INSTANCE-ID": "-", "HOST": "-", "CLIENT-ID": "-",
                         "#PARTITIONS": "0", "STATE": "STABLE", "CURRENT-EPOCH": "1", "CURRENT-ASSIGNMENT": "-",
                         "PENDING-REVOCATION": "-", "TARGET-EPOCH": "1", "TARGET-ASSIGNMENT": "-"})
    out = io.StringIO()
    Console(file=out, width=200, no_color=True).print(_table("after", snap))
    text = out.getvalue()
    assert "g[bold]" in text
    assert "[red]m\\x1b" in text
    assert "\x1b" not in text
