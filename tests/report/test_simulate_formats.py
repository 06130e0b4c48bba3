"""``kgspec simulate --format``: one simulated run written in each format kgspec check reads; each
checks clean, with the same groups, and the counts of lines each format carries."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kgspec.cli import main

RUN = ["simulate", "--groups", "3", "--duration-ms", "30000"]


@pytest.mark.parametrize(("fmt", "name", "lines", "skipped"), [
    ("native", "run.jsonl", 63, 0),
    ("request-log", "kafka-request.log", 61, 0),
    ("dump-log", "offsets.txt.gz", 84, 25),  # file and batch headers: lines of the format, no events
    ("console", "offsets.json", 59, 0),
])
def test_simulate_writes_each_format(tmp_path: Path, fmt: str, name: str, lines: int, skipped: int) -> None:
    out = tmp_path / name
    assert main([*RUN, "--format", fmt, "-o", str(out)]) == 0
    if name.endswith(".gz"):
        with gzip.open(out, "rt") as text:  # gzip when the name says so
            assert text.readline().startswith("Dumping ")
    report_path = tmp_path / "r.json"
    assert main(["check", "-q", "--json", str(report_path), str(out)]) == 0
    report = json.loads(report_path.read_text())
    assert sorted(g["groupId"] for g in report["groups"]) == ["group-0", "group-1", "group-2"]
    assert {g["verdict"] for g in report["groups"]} == {"conforms"}
    assert (report["inputs"][0]["lines"], report["inputs"][0]["skipped"]) == (lines, skipped)


def test_simulate_rejects_an_unknown_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*RUN, "--format", "parquet", "-o", str(tmp_path / "x")])
    assert exit_info.value.code == 2
    assert "invalid choice: 'parquet'" in capsys.readouterr().err
