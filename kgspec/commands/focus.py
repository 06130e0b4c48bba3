"""What ``kgspec check`` looks at and reports: ``--group``, ``--since``/``--until``, ``--first``,
``--max-findings``; and the context each finding is given as the checker finds it.

:class:`Watch` stands between the reader and the checker (:meth:`Watch.admit`: an event of a group
out of focus is fed as a skipped line, so every line is still accounted for) and between the
checker and the report (``TraceChecker.listener``: a finding gains its event's context, is
dropped when out of focus, and is streamed to the human report).

The model still replays every event of the groups in focus from the start of the trace: a
group's state at ``--since`` is what its earlier events built, so ``--since`` filters the
findings reported, not the events checked; reading stops after ``--until``.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.context import event_context
from kgspec.conformance.events import Event, ReadItem, Skipped
from kgspec.conformance.findings import Finding
from kgspec.conformance.readers.logtime import resolve_tz
from kgspec.conformance.readers.source import Source
from kgspec.conformance.session import GroupSession

OUT_OF_FOCUS: Final = "not in --group"


@dataclass(frozen=True, slots=True)
class Focus:
    groups: tuple[str, ...] = ()  # glob patterns (fnmatch, case-sensitive); empty: every group
    since: float | None = None  # epoch ms
    until: float | None = None
    first: bool = False
    max_findings: int | None = None
    ids: frozenset[str] = frozenset()  # exact group ids, as well as the patterns (--html's second pass)

    @property
    def filters(self) -> bool:
        """Whether events are looked at one by one before the checker sees them."""
        return bool(self.groups or self.ids) or self.first or self.until is not None or self.max_findings is not None


def parse_time(value: str, tz: str | None, option: str) -> float:
    """A ``--since``/``--until`` value: the trace's milliseconds, or an ISO date-time (in ``tz``
    unless it carries its own offset; a space may stand for the ``T``, as in Kafka's log lines)."""
    try:
        return float(int(value))
    except ValueError:
        pass
    try:
        when = dt.datetime.fromisoformat(value.replace(",", "."))
    except ValueError:
        raise ValueError(f"{option} needs a time (ISO date-time such as 2025-06-01T00:00:30.250, or the "
                         f"trace's milliseconds), got {value!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=resolve_tz(tz))
    return when.timestamp() * 1000


class Watch:
    """One run's focus and finding context (see the module docstring)."""

    def __init__(self, focus: Focus, tz: str | None, on_finding: Callable[[Finding], None] | None = None) -> None:
        self.focus = focus
        self.zone = resolve_tz(tz)
        self.on_finding = on_finding
        self.item: ReadItem | None = None  # the item being fed (its event gives a finding's context)
        self.stopped: str | None = None  # why reading stopped early (--until, --max-findings)
        self.listed = 0
        self.dropped = 0  # findings outside --since/--until, or after a group's first with --first
        self.done: set[str] = set()  # groups --first stopped
        self._wanted: dict[str, bool] = {}
        # The progress bar's: the opened inputs (their bytes read) and what moves the bar.
        self.sources: list[Source] | None = None
        self.tick: Callable[[], None] | None = None

    def wants(self, group_id: str) -> bool:
        wanted = self._wanted.get(group_id)
        if wanted is None:
            focus = self.focus
            wanted = (not focus.groups and not focus.ids) or group_id in focus.ids \
                or any(fnmatch.fnmatchcase(group_id, p) for p in focus.groups)
            if len(self._wanted) < 1 << 16:
                self._wanted[group_id] = wanted
        return wanted

    def admit(self, item: ReadItem) -> ReadItem | None:
        """The item to feed for ``item`` (itself, or a skipped line for a group out of focus), or
        None: nothing to feed (its line is already counted); sets ``stopped`` past ``--until``."""
        if type(item) is not Event:
            return item
        focus = self.focus
        if focus.until is not None and item.ts_ms is not None and item.ts_ms > focus.until:
            self.stopped = "--until"
            return None
        gid = item.group_id
        if gid is not None and (gid in self.done or not self.wants(gid)):
            return None if item.same_line else Skipped(item.line, OUT_OF_FOCUS)
        return item

    def listener(self, checker: TraceChecker) -> Callable[[GroupSession | None, Finding], bool]:
        focus = self.focus

        def listen(g: GroupSession | None, finding: Finding) -> bool:
            if self.stopped is not None:  # found at the end of a cut-short run: not trusted
                return False
            item = self.item
            ts: float | None = None
            if type(item) is Event and item.line == finding.line and checker.path == finding.path:
                finding.context["event"] = event_context(item, self.zone)
                names = topic_names(checker, item, finding)
                if names:
                    finding.context["topicNames"] = names
                ts = item.ts_ms
            gid = finding.group_id
            if gid is not None and not self.wants(gid):
                return False
            if ts is not None and ((focus.since is not None and ts < focus.since)
                                   or (focus.until is not None and ts > focus.until)):
                self.dropped += 1
                return False
            if focus.first and gid is not None:
                if gid in self.done:
                    self.dropped += 1
                    return False
                self.done.add(gid)
            self.listed += 1
            if focus.max_findings is not None and self.listed >= focus.max_findings:
                self.stopped = "--max-findings"
            if self.on_finding is not None:
                self.on_finding(finding)
            return True
        return listen

    def notes(self) -> list[str]:
        out = []
        if self.dropped:
            what = " or ".join(o for o, on in (("outside --since/--until", self.focus.since is not None
                                               or self.focus.until is not None),
                                              ("after a group's first (--first)", self.focus.first)) if on)
            out.append(f"{self.dropped} finding(s) {what} not listed")
        if self.stopped == "--max-findings":
            out.append(f"stopped after {self.listed} finding(s) (--max-findings); later lines were not read")
        elif self.stopped == "--until":
            out.append("stopped at the first event after --until; later lines were not read")
        return out


def topic_names(checker: TraceChecker, event: Event, finding: Finding) -> dict[str, str]:
    """Topic id -> name for the ids the finding's event or member views mention."""
    ids: set[str] = set()
    for found in _topic_ids(event.request), _topic_ids(event.response), _topic_ids(event.body.get("value")):
        ids.update(found)
    for label in ("before", "after"):
        view = finding.context.get(label)
        if isinstance(view, dict):
            for key in ("assigned", "pendingRevocation"):
                if isinstance(view.get(key), dict):
                    ids.update(view[key])
    if not ids:
        return {}
    known = checker.topics.names_by_id()
    return {i: known[i] for i in sorted(ids) if i in known}


def _topic_ids(value: Any, depth: int = 0) -> Iterator[str]:
    """Every ``topicId`` string in a request, response or record value (a few levels deep)."""
    if depth > 5:
        return
    if isinstance(value, dict):
        tid = value.get("topicId")
        if isinstance(tid, str):
            yield tid
        for v in value.values():
            if isinstance(v, (dict, list)):
                yield from _topic_ids(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):
                yield from _topic_ids(v, depth + 1)
