"""The served trace: the contract's native events, in order, written and checked as they settle.

Every coordinator call, record, topic and failover the server serves becomes one event. A
classic JoinGroup or SyncGroup that parks keeps its place (the line of its arrival, as the
contract orders calls) until the model answers it; lines after it wait, so the file and the
live check always see events in arrival order. Each settled line goes to the file (``--trace-out``)
and to a :class:`~kgspec.conformance.checker.TraceChecker` fed as ``kgspec check`` would be: its
findings are the server's live findings.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import IO, Any

from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.findings import Finding, Report
from kgspec.conformance.readers.native import event_from_object

FindingSink = Callable[[Finding, dict[str, Any]], None]


class _Slot:
    __slots__ = ("event", "ready")

    def __init__(self, event: dict[str, Any], ready: bool) -> None:
        self.event = event
        self.ready = ready


class ServedTrace:
    """Events in arrival order; a parked call's slot settles when its answer comes."""

    def __init__(self, header: dict[str, Any], out: IO[str] | None, *, profile: str, configs: dict[str, Any],
                 clients: bool, on_finding: FindingSink, name: str = "served") -> None:
        self.out = out
        self.report = Report()
        self.checker = TraceChecker(name, self.report, profile=profile, configs=configs, clients=clients)
        self.on_finding = on_finding
        self._pending: deque[_Slot] = deque()
        self._parked: dict[int, _Slot] = {}
        self._line = 0
        self._seen = 0  # findings already handed to on_finding
        self.broken: str | None = None  # why the live check stopped, if it did
        self._write(header)

    def add(self, event: dict[str, Any]) -> None:
        self._pending.append(_Slot(event, True))
        self._settle()

    def park(self, call_id: int, event: dict[str, Any]) -> None:
        """A call answered later: its line is held until :meth:`answer`."""
        slot = _Slot(event, False)
        self._parked[call_id] = slot
        self._pending.append(slot)

    def answer(self, call_id: int, response: dict[str, Any], completed_ms: int) -> None:
        slot = self._parked.pop(call_id)
        slot.event["response"] = response
        slot.event["totalTimeMs"] = completed_ms - slot.event["tsMs"]
        slot.ready = True
        self._settle()

    def abandon(self, call_id: int) -> None:
        """A parked call that will never be answered by the model (a failover, the end): its
        line is left out, as Kafka's request log has no line for a request it never answered."""
        slot = self._parked.pop(call_id, None)
        if slot is not None:
            self._pending.remove(slot)
            self._settle()

    def parked(self) -> list[int]:
        return list(self._parked)

    def finish(self) -> list[Finding]:
        """End of serving: what is still parked is left out; the check's end findings."""
        for call_id in list(self._parked):
            self.abandon(call_id)
        if self.broken is None:
            try:
                self.checker.finish()
            except Exception as exc:
                self.broken = f"the live check failed at the end of the trace ({type(exc).__name__}: {exc})"
            self._news()
        if self.out is not None:
            self.out.flush()
        return self.report.findings

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings

    # --- internals -----------------------------------------------------------------------

    def _settle(self) -> None:
        pending = self._pending
        while pending and pending[0].ready:
            self._write(pending.popleft().event)
        if self.out is not None:
            self.out.flush()

    def _write(self, event: dict[str, Any]) -> None:
        self._line += 1
        if self.out is not None:
            self.out.write(json.dumps(event, separators=(",", ":")) + "\n")
        if self.broken is not None:
            return
        item = event_from_object(event, self._line, self._line == 1)
        try:
            self.checker.feed(item)
        except Exception as exc:  # a bug in the checker must not stop the serving: say so, check no more
            self.broken = f"the live check failed at trace line {self._line} ({type(exc).__name__}: {exc}); " \
                          "it checks nothing further (run `kgspec check` on the trace)"
            return
        self._news(event)

    def _news(self, event: dict[str, Any] | None = None) -> None:
        findings = self.report.findings
        while self._seen < len(findings):
            self.on_finding(findings[self._seen], event or {})
            self._seen += 1
