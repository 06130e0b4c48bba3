"""Helpers shared by the tests that run ``kgspec check`` on JSON Lines traces."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgspec.cli import main

Event = dict[str, Any]


def read_jsonl(path: Path) -> list[Event]:
    """Every line of a JSON Lines trace, parsed."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, events: Iterable[Event]) -> Path:
    """Write ``events`` as JSON Lines to ``path`` and return it."""
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def check(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """``kgspec check -q PATH --json REPORT *extra``: the exit status and the parsed report.

    The report goes to a temporary directory: never beside a golden trace in the source tree."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        status = main(["check", "-q", str(path), "--json", str(report), *extra])
        return status, json.loads(report.read_text(encoding="utf-8"))


def check_events(tmp_path: Path, events: Iterable[Event], *extra: str) -> tuple[int, dict[str, Any]]:
    """:func:`check` on ``events`` written to ``tmp_path / "t.jsonl"``."""
    return check(write_jsonl(tmp_path / "t.jsonl", events), *extra)
