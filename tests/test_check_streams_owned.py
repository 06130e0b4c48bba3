"""A streams heartbeat whose owned tasks Kafka could not read (a subtopology twice in one role).

A leave does not read the owned tasks, so Kafka (and the model) accept it; the checker's own
reading of them for the response invariants must then give up on that one error, not on any
exception (a bug of kgspec's is exit 3, never a silent pass).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgspec.cli import main

GOLDEN = Path(__file__).parent / "golden" / "migration" / "streams_kafka-4.2.jsonl"


def _with_duplicate_owned_tasks(tmp_path: Path) -> Path:
    lines, patched = [], 0
    for text in GOLDEN.read_text(encoding="utf-8").splitlines():
        if text.strip():
            event = json.loads(text)
            if not patched and event.get("requestHeader", {}).get("requestApiKey") == 88 \
                    and event["request"].get("memberEpoch") == -1 and event["response"].get("errorCode") == 0:
                twice = [{"subtopologyId": "0", "partitions": [0]}, {"subtopologyId": "0", "partitions": [1]}]
                event["request"].update(activeTasks=twice, standbyTasks=[], warmupTasks=[])
                patched = len(lines) + 1
            text = json.dumps(event)
        lines.append(text)
    assert patched
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_leave_with_a_subtopology_twice_conforms(tmp_path: Path) -> None:
    path = _with_duplicate_owned_tasks(tmp_path)
    report = tmp_path / "report.json"
    assert main(["check", "--json", str(report), str(path)]) == 0
    assert [g["verdict"] for g in json.loads(report.read_text())["groups"]] == ["conforms"]


def test_an_unexpected_error_reading_owned_tasks_is_a_bug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = _with_duplicate_owned_tasks(tmp_path)

    def broken(request: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr("kgspec.conformance.streams.owned_tasks", broken)
    assert main(["check", str(path)]) == 3
    assert "internal error while checking" in capsys.readouterr().err
