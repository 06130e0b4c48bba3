"""The human report of ``kgspec check`` and ``kgspec conform``: findings as they are found, then
a summary per group, then one line of totals.

Each group's first finding is printed in full the moment the checker finds it (a user can stop
reading, or ``--first``/``--max-findings`` stop the run, at the first one): where (file and line),
when (the time as the log wrote it), which call (API and version), whose (member, client id and
host, instance id), what differs in Kafka's words (error names with codes, ``orders-3`` partition
lists with topic names) and why (the rule the model applied). Later findings of a group are
counted, not printed, and the closing summary says how many there were.

Every line goes through ``printable``: ids, messages and paths come from the input, and a control
character in them must show as an escape, never act on the terminal or start a line.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Final, TextIO

from kgspec.commands.output import stdout_closed
from kgspec.conformance.context import render_partitions, render_value
from kgspec.conformance.findings import Finding, Report, printable

GroupKey = tuple[str, str | None]  # (path for trace-level findings, else "", group id)
SUMMARY_GROUPS: Final = 50  # groups listed by name in the closing summary; the rest are counted


class HumanReport:
    """Streams findings (:meth:`finding`) and closes with the per-group summary (:meth:`close`)."""

    def __init__(self, out: TextIO | None, quiet: bool = False) -> None:
        self._out = out  # None: standard output as it is at each write (a progress bar may redirect it)
        self.put = self._put
        self.quiet = quiet
        self.firsts: dict[GroupKey, Finding] = {}
        self.counts: Counter[GroupKey] = Counter()
        # Standard output failed while streaming: a reader gone (``| head``) ends the output, not
        # the run; any other error is raised again by ``close``, where ``kgspec check`` reports it.
        self.closed = False
        self.failed: OSError | None = None

    @property
    def out(self) -> TextIO:
        return self._out if self._out is not None else sys.stdout

    def _put(self, line: str) -> None:
        self.out.write(printable(line) + "\n")

    def finding(self, f: Finding) -> None:
        key: GroupKey = ("", f.group_id) if f.group_id is not None else (f.path, None)
        self.counts[key] += 1
        if key in self.firsts:
            return
        self.firsts[key] = f
        if self.quiet or self.closed:
            return
        try:
            for line in finding_lines(f):
                self.put(line)
            self.out.flush()
        except BrokenPipeError:
            self.closed = True
            stdout_closed()
        except OSError as exc:
            self.closed = True
            self.failed = exc

    def close(self, report: Report, notes: Iterable[str] = ()) -> None:
        if self.failed is not None:
            raise self.failed
        if self.closed:
            return
        put = self.put
        if not self.quiet:
            self._group_summary(report)
            if report.inferred:
                moves = [n for n in report.inferred if n["kind"] != "not-coordinator"]
                groups = len({n["groupId"] for n in moves})
                first = moves[0] if moves else report.inferred[0]
                # moves whose load time the answers placed before the new broker's first answer
                adopted = sum(1 for n in moves if "window" in n and n["tsMs"] != n["window"]["toTsMs"])
                put(f"{len(moves)} coordinator move(s) inferred or supplied in {groups} group(s), replayed as "
                    f"failovers{f' ({adopted} at a load time the answers show, inside its window)' if adopted else ''}; "
                    f"{len(report.inferred) - len(moves)} NOT_COORDINATOR answer(s) of other brokers "
                    f"not judged (JSON report: inferred); first: {first['path']}:{first['line']}: {first['message']}")
            for note in notes:
                put(note)
        lines = sum(i.lines for i in report.inputs)
        malformed, skipped = sum(i.malformed for i in report.inputs), sum(i.skipped for i in report.inputs)
        buckets = ", ".join(f"{n} {what}" for n, what in ((malformed, "malformed"), (skipped, "skipped")) if n)
        verdicts = [g.verdict for g in report.groups]
        put(f"{len(report.inputs)} trace(s), {lines} line(s){f' ({buckets})' if buckets else ''}, "
            f"{len(report.groups)} group(s): "
            f"{verdicts.count('conforms')} conform, {verdicts.count('diverges')} diverge, "
            f"{verdicts.count('incomplete')} incomplete; {report.count} finding(s)")

    def _group_summary(self, report: Report) -> None:
        """One line per group with findings (verdict, count, where the first one is); then how many
        findings were counted and not printed, once for the whole run."""
        if not self.firsts:
            return
        types = {g.group_id: (g.type, g.verdict) for g in report.groups}
        put = self.put
        put("")
        put(f"findings by group ({len(self.firsts)}):")
        width = min(40, max(len(key[1] or "(trace)") for key in self.firsts))
        for n, (key, f) in enumerate(self.firsts.items()):
            if n == SUMMARY_GROUPS:
                put(f"  ... and {len(self.firsts) - SUMMARY_GROUPS} more group(s) with findings (JSON report: groups)")
                break
            gtype, verdict = types.get(key[1] or "", ("-", "-")) if key[1] is not None else ("input", "-")
            when = f" ({f.context['event']['time']})" if "time" in f.context.get("event", {}) else ""
            put(f"  {(key[1] if key[1] is not None else '(' + key[0] + ')').ljust(width)}  {gtype:<9} {verdict:<10} "
                f"{self.counts[key]:>4} finding(s), first at {f.path}:{f.line}{when}")
        unshown = sum(self.counts.values()) - len(self.firsts)
        if unshown:
            put(f"{unshown} further finding(s) after each group's first are counted above, not printed "
                "(--json PATH lists every one)")


def finding_lines(f: Finding) -> list[str]:
    """The lines of one finding: where and what, when and whose, why, expected and observed,
    and the member before and after (for the calls whose checks record it)."""
    where = f"group {f.group_id}" if f.group_id else "trace"
    event: dict[str, Any] = f.context.get("event") or {}
    names: dict[str, str] = f.context.get("topicNames") or {}
    lines = [f"{f.path}:{f.line}: {where}: {f.kind}{' (' + f.field + ')' if f.field else ''}"]
    call = _call_line(event)
    if call:
        lines.append(f"  {call}")
    head, reasons = split_reasons(f)
    lines.append(f"  {head}")
    if reasons:
        lines.append(f"  why: {'; '.join(reasons)}")
    if f.kind in ("response-mismatch", "client") or f.expected is not None or f.observed is not None:
        lines.append(f"  expected: {render_value(f.field, f.expected, names)}")
        lines.append(f"  observed: {render_value(f.field, f.observed, names)}")
    for label in ("before", "after"):
        view = f.context.get(label)
        if view:
            lines.append(f"  member {label}: {member_line(view, names)}")
    return lines


def _call_line(event: dict[str, Any]) -> str:
    """``at 2025-06-01T00:00:57.832+00:00: ConsumerGroupHeartbeat v1 from member m1 (client c1, host /10.0.0.7)``."""
    when = f"at {event['time']}" if "time" in event else f"at tsMs {event['tsMs']}" if "tsMs" in event else ""
    if "loggedAt" in event and event["loggedAt"] != event.get("time"):
        when += f" (logged at {event['loggedAt']})"
    what = ""
    if "api" in event:
        what = f"{event['api']}{' v' + str(event['apiVersion']) if 'apiVersion' in event else ''}"
    elif "recordType" in event:
        what = f"record type {event['recordType']}"
    whose = [f"{label} {event[key]}" for key, label in (("clientId", "client"), ("clientHost", "host"),
                                                         ("instanceId", "instance")) if event.get(key)]
    who = f"({', '.join(whose)})" if whose else ""
    if "memberId" in event:
        who = f"{'from ' if what else ''}member {event['memberId']}{' ' + who if who else ''}"
    rest = " ".join(p for p in (what, who) if p)
    return f"{when}: {rest}" if when and rest else when or rest


def split_reasons(f: Finding) -> tuple[str, list[str]]:
    """The finding's message as what differs and why, where the check recorded its reasons
    (``context['why']``, the end of the message); else the message whole."""
    why = [w for w in f.context.get("why") or [] if w]
    joined = "; ".join(why)
    if why and f.message.endswith(": " + joined):
        return f.message[: -len(joined) - 2], why
    return f.message, []


def member_line(view: dict[str, Any], names: dict[str, str]) -> str:
    revoking = view.get("pendingRevocation") or {}
    tail = f", revoking {render_partitions(revoking, names)}" if revoking else ""
    return (f"{view['state']} at epoch {view['memberEpoch']}, assigned "
            f"{render_partitions(view.get('assigned') or {}, names)}{tail} "
            f"(group epoch {view['groupEpoch']}, assignment epoch {view['assignmentEpoch']})")


def print_human(report: Report, out: TextIO, quiet: bool = False) -> None:
    """The whole human report of a finished run (``kgspec conform``): findings in line order."""
    human = HumanReport(out, quiet)
    for f in sorted(report.findings, key=lambda f: (f.path, f.line)):
        human.finding(f)
    human.close(report)


def line_writer(out: TextIO) -> Callable[[str], None]:
    def put(line: str) -> None:
        out.write(printable(line) + "\n")
    return put
