"""Reading back what a served session wrote: its trace events and ``kgspec check``'s report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers.native import read_native


def check(path: Path, clients: bool = True) -> Report:
    """What ``kgspec check [--clients] PATH`` reports."""
    report = Report()
    with path.open("rb") as stream:
        check_items(str(path), read_native(stream), report, clients=clients)
    return report


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def calls(path: Path, api: int, client_id: str | None = None) -> list[dict[str, Any]]:
    return [e for e in events(path) if "requestHeader" in e and e["requestHeader"]["requestApiKey"] == api
            and (client_id is None or e["requestHeader"]["clientId"] == client_id)]


def findings_text(report: Report) -> str:
    return "\n".join(f"{f.line}: {f.kind} {f.field}: {f.message}" for f in report.findings[:10])
