"""`kgspec check` on traces written by `kgspec simulate`: failovers conform, mutants are caught."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgspec.cli import main
from tests.helpers import check


def _simulate(tmp_path: Path, *extra: str, status: int = 0) -> Path:
    out = tmp_path / "sim.jsonl"
    assert main(["simulate", "--groups", "2", "--members", "3", "--duration-ms", "120000", "--seed", "3",
                 "--loss", "0.05", "-o", str(out), *extra]) == status
    return out


def _report(path: Path, status: int) -> dict[str, Any]:
    got, report = check(path)
    assert got == status
    return report


def test_failover_traces_conform(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _simulate(tmp_path, "--failover-every", "30000")
    assert '"coordinatorFailover":true' in trace.read_text().replace(" ", "")
    report = _report(trace, 0)
    assert report["findings"] == []


def test_mutant_simulation_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # simulate exits 1: the mutant broke an invariant during the run (the trace is still written)
    trace = _simulate(tmp_path, "--mutant", "no-withholding", status=1)
    report = _report(trace, 1)
    findings = report["findings"]
    assert isinstance(findings, list)
    assert findings
    assert findings[0]["kind"] == "response-mismatch"
    assert findings[0]["field"] == "assignment"
    # the mutant's grant shows at one response: the assignment, and the double ownership it makes
    assert [(f["line"], f["groupId"], f["kind"], f["field"]) for f in findings] == [
        (56, "group-0", "response-mismatch", "assignment"), (56, "group-0", "invariant", "no-double-ownership"),
        (56, "group-0", "invariant", "no-double-ownership")]
