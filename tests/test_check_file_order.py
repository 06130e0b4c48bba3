"""The same inputs give a byte-identical report whatever their order on the command line.

``kgspec check`` takes its inputs in name order, checked one by one or merged by time
(``--merge``, where the inputs' order breaks ties between calls of the same millisecond).
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from kgspec.conformance.writers import write_request_log

from kgspec.cli import main
from tests.helpers import split_by_broker

GOLDEN = Path(__file__).parent / "golden"
INPUTS = ("consumer/join_with_records.jsonl", "classic/join_sync.jsonl", "streams/not_ready.jsonl")
BROKERS = ("10.0.0.1:9092", "10.0.0.2:9092", "10.0.0.3:9092")


def _reports(tmp: Path, paths: list[Path], *options: str) -> list[tuple[str, str]]:
    """(JSON report, human output) of each permutation of ``paths``."""
    out = []
    for n, order in enumerate(itertools.permutations(paths)):
        report = tmp / f"r{n}.json"
        human = tmp / f"h{n}.txt"
        with human.open("w", encoding="utf-8") as stdout, pytest.MonkeyPatch.context() as mp:
            mp.setattr("sys.stdout", stdout)
            main(["check", *options, "--json", str(report), *map(str, order)])
        out.append((report.read_text(encoding="utf-8"), human.read_text(encoding="utf-8")))
    return out


def test_separate_inputs_in_any_order_give_one_report(tmp_path: Path) -> None:
    paths = []
    for name in INPUTS:
        src = GOLDEN / name
        if not src.exists():
            pytest.fail(f"golden trace {name} is gone: pick another")
        paths.append(Path(shutil.copy(src, tmp_path / name.replace("/", "-"))))
    reports = _reports(tmp_path, paths)
    assert len(reports) == 6
    assert all(r == reports[0] for r in reports)
    report = json.loads(reports[0][0])
    assert [i["path"] for i in report["inputs"]] == sorted(map(str, paths))  # name order, whatever was given
    assert [(g["groupId"], g["verdict"]) for g in report["groups"]] == [("g", "conforms")] * 3
    assert reports[0][1].splitlines()[-1].startswith("3 trace(s), ")


def test_merged_broker_logs_in_any_order_give_one_report(tmp_path: Path) -> None:
    native = tmp_path / "run.jsonl"
    assert main(["simulate", "--groups", "12", "--failover-every", "20000", "--seed", "3",
                 "-o", str(native)]) == 0
    events = [json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()]
    multi = tmp_path / "cluster.log"
    with multi.open("w", encoding="utf-8") as out:
        write_request_log(events, out, brokers=BROKERS)
    parts = split_by_broker(multi, BROKERS, tmp_path)
    reports = _reports(tmp_path, parts, "--merge")
    assert all(r == reports[0] for r in reports)
    report = json.loads(reports[0][0])
    assert [i["path"] for i in report["inputs"]] == sorted(map(str, parts))
    assert report["findings"] == []
    assert {g["verdict"] for g in report["groups"]} == {"conforms"}
