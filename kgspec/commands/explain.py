"""``kgspec check --explain FILE:LINE``: the group of one event, before and after it.

The trace is checked from its start up to ``LINE``; the group the line's event belongs to is
shown as the model holds it just before the event and just after it, as tables in the style of
``kafka-consumer-groups --describe --members --verbose`` (``conformance/snapshot.py``), with the
event itself and the findings on that line. Exit status: 1 when the line has findings, 0 when
it has none, 2 for a usage error (no such file or line, a line with no group's event).
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kgspec.commands.focus import topic_names
from kgspec.commands.human import finding_lines, line_writer
from kgspec.commands.output import UsageError
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.context import event_context
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding, Report, printable
from kgspec.conformance.readers import open_trace
from kgspec.conformance.readers.logtime import resolve_tz
from kgspec.conformance.snapshot import MEMBER_COLUMNS, GroupSnapshot, snapshot


def parse_target(spec: str) -> tuple[str, int]:
    """``FILE:LINE`` -> (path, line); UsageError for anything else."""
    path, sep, line = spec.rpartition(":")
    if not sep or not path or not line.isdigit() or int(line) < 1:
        raise UsageError(f"--explain needs FILE:LINE (a line number from 1), got {spec!r}")
    return path, int(line)


def explain(spec: str, fmt: str, tz: str | None, options: dict[str, Any], out: TextIO) -> int:
    path, line = parse_target(spec)
    report = Report()
    checker = TraceChecker(path, report, **options)
    found: list[Finding] = []
    zone = resolve_tz(tz)
    event: Event | None = None
    group_id: str | None = None
    before: GroupSnapshot | None = None

    def listen(_g: object, finding: Finding) -> bool:
        if finding.line == line and event is not None:
            finding.context["event"] = event_context(event, zone)
            names = topic_names(checker, event, finding)
            if names:
                finding.context["topicNames"] = names
            found.append(finding)
        return True
    checker.listener = listen
    for item in open_trace(path, fmt, tz=tz):
        if item.line > line:
            break
        if item.line == line and type(item) is Event and item.group_id is not None and event is None:
            event, group_id = item, item.group_id
            before = snapshot(checker.groups[group_id].coord, group_id, checker.topics.names_by_id()) \
                if group_id in checker.groups else GroupSnapshot(group_id, "absent")
        checker.feed(item)
    # A move's load time being adopted holds the group's findings (conformance/load_time.py):
    # decided now, from the lines read so far.
    checker.moves.load.end_all()
    if event is None or group_id is None or before is None:
        raise UsageError(f"--explain {spec}: line {line} of {path} carries no event of a group "
                         f"({checker.input.lines} line(s) read)")
    session = checker.groups.get(group_id)
    after = snapshot(session.coord, group_id, checker.topics.names_by_id()) if session is not None \
        else GroupSnapshot(group_id, "absent")
    console = Console(file=out, no_color=bool(os.environ.get("NO_COLOR")) or None, width=_width(out),
                      highlight=False, soft_wrap=False)
    facts = event_context(event, zone)
    console.print(printable(f"{path}:{line}: group {group_id}: "
                            f"{facts.get('api', 'record type ' + str(facts.get('recordType')))}"
                            f"{' v' + str(facts['apiVersion']) if 'apiVersion' in facts else ''}"
                            f"{' at ' + facts['time'] if 'time' in facts else ''}"
                            f"{' from member ' + facts['memberId'] if 'memberId' in facts else ''}"), markup=False)
    console.print()
    console.print(_table("before", before))
    console.print()
    console.print(_table("after", after))
    console.print()
    put = line_writer(out)
    for finding in found:
        for text in finding_lines(finding):
            put(text)
    if not found:
        put("no finding on this line: the event conforms")
    return 1 if found else 0


def _width(out: TextIO) -> int:
    """The terminal's width, else wide enough that a table never wraps in a file or a pipe."""
    if out is sys.stdout and out.isatty():
        return os.get_terminal_size().columns
    return 250


def _table(label: str, snap: GroupSnapshot) -> Table:
    facts = ", ".join(f"{k} {v}" for k, v in snap.facts.items())
    title = f"{label}: {snap.type} group {snap.group_id}" + (f" ({facts})" if facts else "")
    table = Table(title=Text(printable(title)), title_justify="left", box=None, pad_edge=False, header_style="bold")
    columns = [c for c in MEMBER_COLUMNS if any(row[c] != "-" for row in snap.members)] or ["CONSUMER-ID"]
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in snap.members:
        table.add_row(*(Text(printable(row[c])) for c in columns))
    if not snap.members:
        table.add_row("(no members)", *([""] * (len(columns) - 1)))
    return table
