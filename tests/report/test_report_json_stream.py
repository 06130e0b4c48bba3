"""The ``--json`` report written in pieces (``kgspec/commands/report_json.py``) is byte for byte
the report built in memory (``json.dumps(report.to_json(), indent=2)``), whether its findings were
kept or spooled to disk as they were found; and it is written atomically (``output.ReportFile``):
a temporary file beside the destination, renamed at the end, so a run that fails leaves the
previous report whole and no temporary file behind.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.findings import Finding, GroupSummary, InputSummary, Report, jsonable

from kgspec.cli import main
from kgspec.commands import check as check_command
from kgspec.commands.check import check_traces
from kgspec.commands.report_json import FindingSpool, listed_findings, report_chunks

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
GOLDEN_TRACES = sorted(GOLDEN.glob("*/*.jsonl"))
BAD = Path(__file__).resolve().parent.parent / "data" / "formats" / "native_malformed.jsonl"  # findings: exit 1
OPTIONS: dict[str, Any] = {"profile": None, "configs": {}, "clients": False}


def _in_memory(report: Report, extra: dict[str, Any] | None = None) -> str:
    out = report.to_json()
    out.update(extra or {})
    return json.dumps(out, indent=2, default=jsonable) + "\n"


def _spooled(findings: list[Finding], report: Report) -> tuple[str, Report]:
    """``report`` with ``findings`` handed to a spool in the order given: its streamed text."""
    spool = FindingSpool()
    try:
        spooled = Report(report.inputs, report.groups, [], report.inferred, sink=spool)
        for f in findings:
            spooled.add(f)
        return "".join(report_chunks(spooled, spool.texts(spooled), {"allowList": {"entries": 0}})), spooled
    finally:
        spool.close()


@pytest.mark.parametrize("trace", GOLDEN_TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_reports_stream_byte_identical(trace: Path) -> None:
    kept = check_traces([str(trace)], "auto", None, None, OPTIONS)
    assert "".join(report_chunks(kept, listed_findings(kept))) == _in_memory(kept)
    spool = FindingSpool()
    try:
        spooled = check_traces([str(trace)], "auto", None, None, OPTIONS, report=Report(sink=spool))
        assert spooled.findings == []
        assert spooled.count == kept.count
        assert "".join(report_chunks(spooled, spool.texts(spooled))) == _in_memory(kept)
    finally:
        spool.close()


def _awkward() -> tuple[Report, list[Finding]]:
    """Findings in an order the report must change: two inputs, findings of no group, of a group
    named "", of a group the report does not list, lines found out of order and equal lines (kept
    in the order found), text a JSON encoder must escape, sets and floats as values; an empty
    groups list would print ``[]``."""
    groups = [GroupSummary("g2", "consumer", 3, diverged=True), GroupSummary("", "classic", 1),
              GroupSummary("g1", "streams", 2, incomplete=True)]
    inputs = [InputSummary("b.jsonl", 9, 5, 3, 1), InputSummary("a.jsonl", 2, 2, 0, 0)]

    def f(path: str, line: int, gid: str | None, n: int, **kw: Any) -> Finding:
        return Finding(path, line, gid, "response-mismatch", f"finding {n} \u202e\n\"é\"", **kw)
    findings = [
        f("b.jsonl", 7, "g1", 1, field="assignment", expected={("t", 1), ("t", 0)}, observed=1.5),
        f("b.jsonl", 3, None, 2),
        f("b.jsonl", 5, "g2", 3, expected=None, observed=[None, {"a": float("inf")}]),
        f("b.jsonl", 2, "g2", 4),
        f("b.jsonl", 5, "g2", 5),
        f("a.jsonl", 1, "unlisted", 6),
        f("b.jsonl", 1, None, 7, context={"event": {"tsMs": 5, "memberId": "m\x00"}, "topicNames": {"x": "y"}}),
        f("b.jsonl", 4, "", 8),
        f("b.jsonl", 4, None, 9),
        f("a.jsonl", 1, None, 10),
    ]
    return Report(inputs, groups, list(findings), [{"kind": "failover", "groupId": "g1"}]), findings


def test_spooled_findings_come_out_in_the_reports_order() -> None:
    report, findings = _awkward()
    text, spooled = _spooled(findings, report)
    assert text == _in_memory(report, {"allowList": {"entries": 0}})
    assert spooled.count == 10
    assert not spooled.ok
    order = [int(f["message"].split()[1]) for f in json.loads(text)["findings"]]
    # a.jsonl: no group and the unlisted group (both -1) by line, the order found at equal lines;
    # b.jsonl: g2 (group 0), then no group with group "" (``to_json`` ranks a finding of no group
    # as one of the group named "", here listed second), then g1.
    assert order == [6, 10, 4, 3, 5, 7, 2, 8, 9, 1]


def test_empty_reports_stream_as_json_dumps_writes_them() -> None:
    empty = Report()
    assert "".join(report_chunks(empty, listed_findings(empty))) == _in_memory(empty)
    text, _ = _spooled([], Report([InputSummary("x", 0, 0, 0, 0)]))
    assert text == _in_memory(Report([InputSummary("x", 0, 0, 0, 0)]), {"allowList": {"entries": 0}})


def test_the_command_writes_the_spooled_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--json FILE`` and ``--json -`` give the report built in memory, byte for byte."""
    kept = check_traces([str(BAD)], "auto", None, None, OPTIONS)
    assert kept.count > 5
    out = tmp_path / "r.json"
    assert main(["check", "-q", str(BAD), "--json", str(out)]) == 1
    assert out.read_text(encoding="utf-8") == _in_memory(kept)
    capsys.readouterr()
    assert main(["check", str(BAD), "--json", "-"]) == 1
    assert capsys.readouterr().out == _in_memory(kept)


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".kgspec-tmp"))


def test_a_failure_while_writing_leaves_the_previous_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "r.json"
    old.write_text("previous report")
    real = check_command.report_chunks

    def broken(*args: Any, **kwargs: Any) -> Iterator[str]:
        chunks = real(*args, **kwargs)
        yield next(chunks)
        yield "x" * (2 << 20)  # past the first flush: the temporary file has half a report
        raise RuntimeError("a writer bug")
    monkeypatch.setattr(check_command, "report_chunks", broken)
    assert main(["check", "-q", str(BAD), "--json", str(old)]) == 3
    assert "a writer bug" in capsys.readouterr().err
    assert old.read_text() == "previous report"
    assert _leftovers(tmp_path) == []
    fresh = tmp_path / "fresh.json"
    assert main(["check", "-q", str(BAD), "--json", str(fresh)]) == 3
    assert not fresh.exists()
    assert _leftovers(tmp_path) == []


def test_the_report_appears_whole_at_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the report is being written, the destination still holds the previous one: the new
    one is renamed over it once complete."""
    old = tmp_path / "r.json"
    old.write_text("previous report")
    seen: list[tuple[str, list[str]]] = []
    real = check_command.report_chunks

    def watching(*args: Any, **kwargs: Any) -> Iterator[str]:
        for chunk in real(*args, **kwargs):
            seen.append((old.read_text(), _leftovers(tmp_path)))
            yield chunk
    monkeypatch.setattr(check_command, "report_chunks", watching)
    assert main(["check", "-q", str(BAD), "--json", str(old)]) == 1
    assert {text for text, _ in seen} == {"previous report"}
    assert all(len(temps) == 1 and temps[0].startswith(".r.json.") for _, temps in seen)
    assert json.loads(old.read_text())["format"] == "kgspec-report/1"
    assert _leftovers(tmp_path) == []


def test_permissions_and_links_are_kept(tmp_path: Path) -> None:
    """An existing report keeps its mode; a new one gets a new file's (0o666 less the umask); a
    symbolic link keeps pointing at the file it names, which gets the report."""
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.json"
        assert main(["check", "-q", str(BAD), "--json", str(fresh)]) == 1
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        private = tmp_path / "private.json"
        private.write_text("old")
        private.chmod(0o600)
        assert main(["check", "-q", str(BAD), "--json", str(private)]) == 1
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
        (tmp_path / "real").mkdir()
        target = tmp_path / "real" / "r.json"
        target.write_text("old")
        link = tmp_path / "link.json"
        link.symlink_to(target)
        assert main(["check", "-q", str(BAD), "--json", str(link)]) == 1
        assert link.is_symlink()
        assert json.loads(target.read_text())["format"] == "kgspec-report/1"
        assert _leftovers(tmp_path) == []
        assert _leftovers(tmp_path / "real") == []
    finally:
        os.umask(umask)


def test_a_usage_error_found_after_the_report_was_opened_leaves_nothing(tmp_path: Path) -> None:
    """``--json`` is opened (its temporary file created) before ``--html``'s inputs are judged:
    the usage error leaves neither a report nor a temporary file."""
    out = tmp_path / "r.json"
    assert main(["check", "-", "--json", str(out), "--html", str(tmp_path / "p.html")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == []
