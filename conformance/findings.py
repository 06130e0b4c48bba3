"""Findings and the report of ``kgspec check`` (contract section 2)."""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

KINDS = ("response-mismatch", "invariant", "malformed", "unsupported", "client")
# Keys a finding gains from the event it is about (conformance/context.py), after the contract's own:
# additions to the report (contract §2 allows adding keys), present when the event has them.
EVENT_KEYS: Final = ("time", "loggedAt", "tsMs", "api", "apiVersion", "memberId", "clientId", "clientHost", "instanceId",
                     "recordType")


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
        where = self.context.get("event")
        if where:
            out.update((k, where[k]) for k in EVENT_KEYS if k in where)
        names = self.context.get("topicNames")
        if names:
            out["topicNames"] = names
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


# The one bucket each input line is counted in (contract §2: lines = events + malformed + skipped);
# when several items share a line, the highest wins: a line with a malformed part is malformed.
SKIPPED: Final = 0
EVENTS: Final = 1
MALFORMED: Final = 2


@dataclass(slots=True)
class InputSummary:
    path: str
    lines: int = 0  # non-blank lines read
    events: int = 0  # lines that are events (one or more) and not malformed
    malformed: int = 0  # lines that are the subject of a malformed finding (the reader's or the checker's)
    skipped: int = 0  # lines the format carries that are no coordinator events
    line: int = 0  # the line being counted, and its bucket
    bucket: int = SKIPPED

    def open(self, line: int, bucket: int) -> None:
        """A new input line, in ``bucket``."""
        self.lines += 1
        self.line = line
        self.bucket = bucket
        if bucket == EVENTS:
            self.events += 1
        elif bucket == MALFORMED:
            self.malformed += 1
        else:
            self.skipped += 1

    def join(self, bucket: int) -> None:
        """Another item (or a malformed finding) of the current line: it moves up to ``bucket``."""
        current = self.bucket
        if bucket <= current or self.lines == 0:
            return
        if current == EVENTS:
            self.events -= 1
        else:
            self.skipped -= 1
        if bucket == EVENTS:
            self.events += 1
        else:
            self.malformed += 1
        self.bucket = bucket

    def skip_current(self) -> None:
        """The current line, counted as an event, turns out to carry none for the coordinator (a
        DescribeConfigs of topics in a request log): it moves to ``skipped``."""
        if self.bucket == EVENTS and self.lines:
            self.events -= 1
            self.skipped += 1
            self.bucket = SKIPPED

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "lines": self.lines, "events": self.events, "malformed": self.malformed,
                "skipped": self.skipped}


@dataclass(slots=True)
class Report:
    inputs: list[InputSummary] = dataclasses.field(default_factory=list)
    groups: list[GroupSummary] = dataclasses.field(default_factory=list)
    findings: list[Finding] = dataclasses.field(default_factory=list)
    # What the checker inferred rather than read (coordinator moves in broker logs,
    # conformance/moves.py): informational, never a finding; the JSON's "inferred" when any.
    inferred: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # Where listed findings go instead of ``findings`` when set (``kgspec check --json`` spools
    # them to disk as they are found, so a run's memory does not grow with its findings).
    sink: Callable[[Finding], None] | None = None
    sunk: int = 0

    def add(self, finding: Finding) -> None:
        """List a finding: in ``findings``, or handed to the ``sink``."""
        if self.sink is None:
            self.findings.append(finding)
        else:
            self.sink(finding)
            self.sunk += 1

    @property
    def count(self) -> int:
        """Findings listed, kept or handed on."""
        return len(self.findings) + self.sunk

    @property
    def ok(self) -> bool:
        return not self.findings and not self.sunk

    def finding_order(self) -> Callable[[Finding], tuple[str, int, int]]:
        """The JSON report's order of findings: by input, then group (in the order of ``groups``;
        findings of no group first), then line; a stable sort keeps the order found among equals."""
        order = {g.group_id: i for i, g in enumerate(self.groups)}
        return lambda f: (f.path, order.get(f.group_id or "", -1), f.line)

    def to_json(self) -> dict[str, Any]:
        # Findings grouped by input and group, each group's in line order (contract §2).
        findings = sorted(self.findings, key=self.finding_order())
        out = {
            "format": "kgspec-report/1",
            "inputs": [i.to_json() for i in self.inputs],
            "groups": [g.to_json() for g in self.groups],
            "findings": [f.to_json() for f in findings],
        }
        if self.inferred:  # an extension of the report (contract §2: coordinator moves)
            out["inferred"] = self.inferred
        return out


# Characters a terminal would act on or hide rather than show: C0 and C1 controls and DEL (Cc),
# format characters such as the bidi overrides and zero-width joiners (Cf), line and paragraph
# separators (Zl, Zp), and lone surrogates (Cs), which a JSON trace can carry and UTF-8 cannot.
_HIDDEN_CATEGORIES: Final = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
_SHORT_ESCAPES: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on or hide shown as an escape.

    For human output of anything a trace or a file name carries (group, member and client ids,
    messages quoting trace content, paths): ``\\n``, ``\\r``, ``\\t``, else ``\\xNN``, ``\\uNNNN`` or
    ``\\UNNNNNNNN``, so a trace cannot print a line of its own, move the cursor or reorder text.
    JSON output needs none of this: ``json.dumps`` escapes what JSON must.
    """
    if text.isprintable():  # the common case: nothing to escape
        return text
    return "".join(_escape(c) if unicodedata.category(c) in _HIDDEN_CATEGORIES else c for c in text)


def _escape(char: str) -> str:
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def jsonable(obj: object) -> object:
    """``json.dumps`` fallback for report values: sets as sorted lists, anything else as text."""
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return str(obj)
