"""What ``kgspec check --html`` draws: each diverging group's calls, member by member, over time.

The timeline is recorded in a second pass over the inputs, restricted to the groups that have
findings (``kgspec check`` knows them after the first pass), so a run of many groups costs
memory only for the few drawn in full. :class:`TimelineChecker` is a :class:`TraceChecker` that
also notes, after each call of a drawn group, the call's outcome and the member as the model
then holds it (state, epoch, assigned and revoking partitions by topic name), the timers that
fired when the group's clock moved, and coordinator failovers. Reading only: it changes nothing
the checker decides.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, field
from typing import Any

from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.context import api_label, iso_time, render_error
from kgspec.conformance.events import Event, ReadItem
from kgspec.conformance.findings import Report
from kgspec.conformance.session import GroupSession
from kgspec.conformance.snapshot import snapshot

MAX_MARKS = 5000  # per group: a longer history is cut, keeping the marks around the first departure


@dataclass(slots=True)
class Mark:
    ts: float
    line: int
    path: str
    lane: str  # a member id, or "" for the group's own lane (timers of no member, coordinator moves)
    kind: str  # call, timer, move
    label: str  # the API, the timer's kind, "coordinator moved"
    outcome: str = "ok"  # ok, error, finding, first (the group's first finding)
    error: str | None = None
    epoch: str | None = None
    state: str | None = None
    assigned: str | None = None
    revoking: str | None = None
    time: str | None = None  # ISO-8601 of ts

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(slots=True)
class GroupTimeline:
    group_id: str
    marks: list[Mark] = field(default_factory=list)
    cut: int = 0  # marks left out of a history longer than MAX_MARKS

    def lanes(self) -> list[str]:
        """Members in the order they first appear; the group's own lane first when used."""
        seen: dict[str, None] = {}
        for mark in self.marks:
            seen.setdefault(mark.lane, None)
        return sorted(seen, key=lambda lane: (lane != "", list(seen).index(lane)))


class TimelineChecker(TraceChecker):
    """A checker that records the timelines of ``drawn`` groups (see the module docstring)."""

    def __init__(self, path: str, report: Report, *, drawn: frozenset[str], zone: Any = None,
                 **options: Any) -> None:
        super().__init__(path, report, **options)
        self.drawn = drawn
        self.zone = zone
        self.timelines: dict[str, GroupTimeline] = {gid: GroupTimeline(gid) for gid in sorted(drawn)}

    def _mark(self, gid: str, mark: Mark) -> None:
        if mark.time is None:
            with contextlib.suppress(OverflowError, ValueError):
                mark.time = iso_time(mark.ts, self.zone)
        self.timelines[gid].marks.append(mark)

    def feed(self, item: ReadItem) -> None:
        super().feed(item)
        if type(item) is not Event:
            return
        if item.kind == "tick" and item.body.get("coordinatorFailover"):
            for drawn in self.drawn:
                if drawn in self.groups:
                    self._mark(drawn, Mark(float(item.ts_ms or 0), item.line, self.path, "", "move",
                                         "coordinator failover"))
            return
        gid = item.group_id
        if item.kind != "call" or gid is None or gid not in self.drawn:
            return
        request, response = item.request, item.response
        member = request.get("memberId") or (response.get("memberId") if isinstance(response, dict) else None)
        lane = member if isinstance(member, str) and member else "(no member id)"
        code = response.get("errorCode", 0) if isinstance(response, dict) else None
        mark = Mark(float(item.ts_ms or 0), item.line, self.path, lane, "call", api_label(item) or "call",
                    "error" if code else "ok", render_error(code) if code else None)
        session = self.groups.get(gid)
        if session is not None:
            row = next((r for r in snapshot(session.coord, gid, self.topics.names_by_id()).members
                        if r["CONSUMER-ID"] == lane), None)
            if row is not None:
                mark.epoch, mark.state = row["CURRENT-EPOCH"], row["STATE"]
                mark.assigned, mark.revoking = row["CURRENT-ASSIGNMENT"], row["PENDING-REVOCATION"]
            elif isinstance(response, dict) and isinstance(response.get("memberEpoch"), int):
                mark.epoch = str(response["memberEpoch"])
        self._mark(gid, mark)

    def advance(self, g: GroupSession, ts: float, line: int) -> bool:
        gid = g.summary.group_id
        if gid not in self.drawn:
            return super().advance(g, ts, line)
        before = g.coord.timers.snapshot()
        moved = super().advance(g, ts, line)
        after = g.coord.timers.snapshot()
        lanes: set[str] | None = None
        for key, timer in before.items():
            if key not in after and timer["deadlineMs"] <= ts:  # gone, and due: it fired
                if lanes is None:
                    lanes = {m.lane for m in self.timelines[gid].marks if m.kind == "call"}
                # a member's timer key ends with its id (model/timers.py: session-timeout-{g}-{m}, ...)
                lane = next((m for m in lanes if key.endswith("-" + m)), "")
                self._mark(gid, Mark(float(timer["deadlineMs"]), line, self.path, lane, "timer",
                                     f"{timer['kind']} timer fired"))
        return moved


def highlight(timeline: GroupTimeline, finding_lines: set[tuple[str, int]], first: tuple[str, int] | None,
              moves: list[dict[str, Any]]) -> None:
    """Colour the marks on lines with findings, the first one apart; add the coordinator moves the
    checker inferred (by line: at the time of the first mark from that line on); cut a history
    longer than ``MAX_MARKS`` around the first departure."""
    marks = timeline.marks
    for note in moves:
        at = next((m for m in marks if (m.path, m.line) >= (note["path"], note["line"])), None)
        if at is not None:
            marks.insert(marks.index(at), Mark(at.ts, note["line"], note["path"], "", "move",
                                               "coordinator moved", time=at.time))
    for mark in marks:
        if mark.kind == "call" and (mark.path, mark.line) in finding_lines:
            mark.outcome = "first" if (mark.path, mark.line) == first else "finding"
    if len(marks) > MAX_MARKS:
        centre = next((i for i, m in enumerate(marks) if m.outcome == "first"), 0)
        start = max(0, min(centre - MAX_MARKS // 2, len(marks) - MAX_MARKS))
        timeline.cut = len(marks) - MAX_MARKS
        timeline.marks = marks[start:start + MAX_MARKS]
