"""Findings and the report of ``kgspec check`` (contract section 2)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

KINDS = ("response-mismatch", "invariant", "malformed", "unsupported", "client")


@dataclass(slots=True)
class Finding:
    path: str
    line: int
    group_id: str | None
    kind: str
    message: str
    field: str | None = None
    expected: Any = None
    observed: Any = None
    # Human-output context: the member before and after, what the model expected and why.
    context: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "line": self.line, "groupId": self.group_id,
                               "kind": self.kind}
        if self.field is not None:
            out["field"] = self.field
        if self.kind in ("response-mismatch", "client") or self.expected is not None or self.observed is not None:
            out["expected"] = self.expected
            out["observed"] = self.observed
        out["message"] = self.message
        return out


@dataclass(slots=True)
class GroupSummary:
    group_id: str
    type: str
    events: int = 0
    diverged: bool = False
    incomplete: bool = False

    @property
    def verdict(self) -> str:
        if self.incomplete:
            return "incomplete"
        return "diverges" if self.diverged else "conforms"

    def to_json(self) -> dict[str, Any]:
        return {"groupId": self.group_id, "type": self.type, "events": self.events, "verdict": self.verdict}


@dataclass(slots=True)
class InputSummary:
    path: str
    lines: int = 0
    events: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "lines": self.lines, "events": self.events}


@dataclass(slots=True)
class Report:
    inputs: list[InputSummary] = dataclasses.field(default_factory=list)
    groups: list[GroupSummary] = dataclasses.field(default_factory=list)
    findings: list[Finding] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        # Findings grouped by input and group, each group's in line order (contract §2).
        order = {g.group_id: i for i, g in enumerate(self.groups)}
        findings = sorted(
            self.findings,
            key=lambda f: (f.path, order.get(f.group_id or "", -1), f.line),
        )
        return {
            "format": "kgspec-report/1",
            "inputs": [i.to_json() for i in self.inputs],
            "groups": [g.to_json() for g in self.groups],
            "findings": [f.to_json() for f in findings],
        }


def jsonable(obj: object) -> object:
    """``json.dumps`` fallback for report values: sets as sorted lists, anything else as text."""
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return str(obj)


def write_json(obj: object, dest: str) -> None:
    """Write a report to ``dest`` (a path, or ``-`` for standard output)."""
    text = json.dumps(obj, indent=2, default=jsonable)
    if dest == "-":
        print(text)
    else:
        with open(dest, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
