"""Helpers shared by the tests that run ``kgspec check`` on JSON Lines traces or regenerate goldens."""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from kgspec.conformance.writers.request_log import broker_of

from kgspec.cli import main

Event = dict[str, Any]
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


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


def line_of(events: list[Event], ts: int, api: int) -> int:
    """The 1-based line of the API ``api`` call at ``tsMs == ts`` in ``events``."""
    for i, e in enumerate(events, 1):
        if e.get("tsMs") == ts and e.get("requestHeader", {}).get("requestApiKey") == api:
            return i
    raise AssertionError(f"no API {api} call at {ts}")


def findings(report: dict[str, Any]) -> list[tuple[int, str, str | None]]:
    """``(line, kind, field)`` of every finding in a ``kgspec check`` report."""
    return [(f["line"], f["kind"], f.get("field")) for f in report["findings"]]


def assert_golden_conforms(path: Path) -> None:
    """``kgspec check`` on the golden ``path`` finds nothing, exits 0, and every group conforms."""
    status, report = check(path)
    assert report["findings"] == []
    assert status == 0
    assert {g["verdict"] for g in report["groups"]} == {"conforms"}


def assert_golden_current(make: ModuleType, name: str, golden: Path, tmp_path: Path) -> None:
    """Scenario ``name`` of the golden writer ``make``, written afresh, is the golden ``golden / <name>.jsonl``."""
    written = make.SCENARIOS[name]().write(tmp_path / f"{name}.jsonl")
    script = Path(make.__file__ or "").name
    assert written.read_text() == (golden / f"{name}.jsonl").read_text(), f"run scripts/{script}"


def split_by_broker(log: Path, brokers: Sequence[str], out_dir: Path) -> list[Path]:
    """Split the multi-broker request log ``log`` into ``out_dir / broker-<host_port>.log``, one per
    broker of ``brokers`` in their order; a line naming no broker goes to the first one's."""
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    parts = []
    for broker in brokers:
        part = out_dir / f"broker-{broker.replace(':', '_')}.log"
        part.write_text("".join(line for line in lines if (broker_of(line) or brokers[0]) == broker),
                        encoding="utf-8")
        parts.append(part)
    return parts


def golden_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` (a golden writer), imported once."""
    module = sys.modules.get(f"_scripts_{name}")
    if module is None:
        spec = importlib.util.spec_from_file_location(f"_scripts_{name}", SCRIPTS / f"{name}.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def session_marks(checker: Any) -> dict[str, tuple[Any, ...]]:
    """What a steady cache's answer must leave in each group's session as the full path does: its
    last call (a move's window starts there), its clock, its event count."""
    return {gid: (g.last_call, g.last_ts, g.summary.events, g.saw_calls) for gid, g in checker.groups.items()}
