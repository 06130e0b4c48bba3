"""Coordinator moves in broker request logs: inferred, replayed as failovers, reported.

A group's coordinator is the leader of its ``__consumer_offsets`` partition, and leadership
moves (a broker stops, a preferred-leader election). A native trace says so with a ``tick``
carrying ``coordinatorFailover``; a broker's request log does not, but shows it:

- **the broker changes**: each call's ``connection`` field starts with the address of the
  broker that answered it (``<broker host:port>-<client host:port>[-<n>]``). When a group's
  calls, answered by one broker until then, are answered by another, the coordinator moved
  and the new one loaded the group from its records: the checker replays a failover for that
  group (``Coordinator.failover``, what the native tick does) before the call, at a load time
  adopted from the answers within the window the log leaves (``load_time.py``).
- **the broker leaves**: a broker stops leading its partitions together (a restart, a crash),
  so the first group seen to leave a broker takes the broker's other groups with it: each is
  failed over at that call (``_broker_left``), and its later calls on another broker are that move.
- **COORDINATOR_LOAD_IN_PROGRESS** (14): the answering broker is loading the group, so it is
  the group's new coordinator: the next call it answers normally follows a failover, even
  without broker addresses.
- **NOT_COORDINATOR** (16): the answering broker does not coordinate the group. Such an answer
  (and a 14) is not the model's to give: it is *held* until the group's next event decides.
  A move (another broker, a load, a failover tick) explains it and it is not judged; from a
  broker other than the group's known one it is explained at once; otherwise (the same broker
  then answers normally, or nothing says where the answer came from) it is judged as any call,
  in its place, exactly as without this module. So a log without broker addresses needs the
  user to say where a group moved (``kgspec check --failover GROUP@TS``, or a native
  ``tick`` with ``coordinatorFailover``), see ``docs/checking.md``.

Every inferred move is listed in the report (``Report.inferred``, the JSON report's
``inferred``: path, line, group, kind, time, from and to, and the lines of the answers it
explains; for a ``coordinator-move``, the ``window`` the load happened in and, as its time, the
one adopted) and never counts as a finding. Kinds: ``coordinator-move``, ``failover-option``
(``--failover``), ``not-coordinator`` (another broker's answer, not judged), ``failover-explains``
(held answers a move explained).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from kgspec.conformance.connection import broker_of
from kgspec.conformance.events import Event
from kgspec.conformance.load_time import LoadTimes
from kgspec.conformance.session import num

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker

Held = tuple[Event, "int | None", str]  # a held call, its API and its input's path
COORDINATOR_LOAD_IN_PROGRESS: Final = 14
NOT_COORDINATOR: Final = 16
MOVE_ERRORS: Final = frozenset({COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR})


class CoordinatorMoves:
    """Per group, the broker that answers its calls; holds NOT_COORDINATOR answers (module doc)."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker
        self.hold_errors = True  # False: NOT_COORDINATOR answers are judged at once, as any call
        self.brokers: dict[str, str] = {}  # group id -> the broker that answered its last call
        self.held: dict[str, list[Held]] = {}  # group id -> answers held, with their input
        self.assumed: dict[str, str] = {}  # group id -> the broker it left with that broker's other groups
        self.since: dict[str, float] = {}  # group id -> when its current broker first answered it
        self._releasing: Event | None = None
        self.load = LoadTimes(checker)  # each inferred move's load time, adopted from the answers (load_time.py)

    def may_move(self, event: Event, gid: str) -> bool:
        """Whether the group's call may show a move (another broker, a coordinator error): the
        group's load-time trial ends before it (``LoadTimes.before``)."""
        response = event.response
        if type(response) is dict and response.get("errorCode") in MOVE_ERRORS:
            return True
        broker = broker_of(event.connection)
        known = self.brokers.get(gid)
        return broker is not None and known is not None and broker != known

    def call(self, event: Event, api: int | None, gid: str) -> bool:
        """Before a group's call: True when the call is held (not for the model now)."""
        if event is self._releasing:
            return False
        response = event.response
        error = response.get("errorCode") if type(response) is dict else None
        broker = broker_of(event.connection)
        known = self.brokers.get(gid)
        if error in MOVE_ERRORS and self.hold_errors:
            if broker is not None and known is not None and broker != known and error == NOT_COORDINATOR:
                self._note(event, gid, "not-coordinator", known, broker,
                           f"NOT_COORDINATOR from {broker}, which does not coordinate group {gid} "
                           f"(its calls are answered by {known}): not the coordinator's answer, not judged")
                return True
            self.held.setdefault(gid, []).append((event, api, self.checker.path))
            g = self.checker.groups.get(gid)
            if g is not None:
                g.generation += 1  # the next call must come through here, not the steady cache
            return True
        held = self.held.pop(gid, None)
        assumed = self.assumed.pop(gid, None)
        if assumed is not None:  # failed over already: with its broker's other groups, or --failover
            if broker is not None:
                self.brokers[gid] = broker
                self.since[gid] = event.ts_ms or 0
            if held is not None:  # answers while the group moved: explained by the move
                self._note(held[0][0], gid, "failover-explains", assumed or None, broker,
                           f"the move of group {gid}'s coordinator explains its coordinator-error answers",
                           held[0][2])["explains"] = [h.line for h, _, _ in held]
                held = None
            known = broker
        loaded = held is not None and any(
            h.response.get("errorCode") == COORDINATOR_LOAD_IN_PROGRESS and broker_of(h.connection) == broker
            for h, _, _ in held)
        moved = broker is not None and known is not None and broker != known
        if broker is not None and broker != self.brokers.get(gid):
            self.brokers[gid] = broker
            self.since[gid] = event.ts_ms or 0
        if moved or loaded:
            g = self.checker.groups.get(gid)
            # its last call the old broker answered (not its clock: a topic change moves that)
            left = (g.last_call if g.last_call is not None else g.last_ts if g.last_ts is not None
                    else float("-inf")) if g is not None else float("-inf")
            why = f"answered by {broker} after {known}" if moved else \
                f"{broker or 'the broker'} answered COORDINATOR_LOAD_IN_PROGRESS at line {held[0][0].line}" \
                if held else ""
            # A broker answering 14 was still loading: the load came after its last such answer.
            loading = [h.ts_ms for h, _, _ in held or () if h.ts_ms is not None
                       and h.response.get("errorCode") == COORDINATOR_LOAD_IN_PROGRESS]
            self.failover(gid, event, "coordinator-move", known, broker,
                          f"group {gid}'s coordinator moved ({why})", held,
                          trigger=(event, api, self.checker.path), since=max(loading, default=None))
            if moved and known is not None:
                self._broker_left(known, gid, event, left)
        elif held is not None:
            judged = []
            for answer in held:
                other = broker_of(answer[0].connection)
                if broker is not None and other is not None and other != broker \
                        and answer[0].response.get("errorCode") == NOT_COORDINATOR:
                    self._note(answer[0], gid, "not-coordinator", broker, other,
                               f"NOT_COORDINATOR from {other}, which does not coordinate group {gid} "
                               f"({broker} answers its calls): not the coordinator's answer, not judged",
                               answer[2])
                else:
                    judged.append(answer)
            self._release(judged)
        g = self.checker.groups.get(gid)
        if g is not None and event.ts_ms is not None:
            g.last_call = event.ts_ms
        return False

    def failover(self, gid: str, event: Event, kind: str, before: str | None, after: str | None,
                 message: str, held: list[Held] | None = None, ts: float | None = None,
                 trigger: tuple[Event, int | None, str] | None = None, since: float | None = None) -> None:
        """Replay a failover for one group, as the native tick does for every group: an inferred
        move's (``coordinator-move``) at a load time adopted from the answers (``load_time.py``;
        ``trigger``: the group's call that showed it, ``since``: a lower bound of the load),
        any other at ``ts`` (default: the event's time)."""
        checker = self.checker
        if ts is None:
            ts = event.ts_ms or 0
        note = self._note(event, gid, kind, before, after, message)
        note["tsMs"] = ts
        if held:
            note["explains"] = [h.line for h, _, _ in held]
        g = checker.groups.get(gid)
        if g is None:
            return
        if kind == "coordinator-move":
            self.load.failover(g, since, event, note, message, trigger)
        elif checker.advance(g, ts, event.line):
            g.generation += 1
            g.coord.failover(int(ts))

    def _broker_left(self, old: str, gid: str, event: Event, left: float) -> None:
        """The first group seen to leave broker ``old`` takes the broker's other groups with it: a
        broker stops leading its ``__consumer_offsets`` partitions together (a restart, a crash, a
        controlled shutdown), so each of its groups fails over now, not at its own next call,
        which may come after topic changes and timers the new coordinator saw after loading.
        The broker's groups are those it answered before ``left`` (the leaving group's last call
        there), not those that came to it after (in a move of other brokers' groups to it)."""
        checker = self.checker
        ts = event.ts_ms or 0
        for other, broker in list(self.brokers.items()):
            g = checker.groups.get(other)
            if broker != old or other == gid or g is None or (g.last_ts is not None and g.last_ts > ts) \
                    or self.since.get(other, ts) > left:
                continue
            self.load.end(other)  # its earlier move's trial, before this one changes its entries
            del self.brokers[other]
            self.assumed[other] = old
            self.failover(other, event, "coordinator-move", old, None,
                          f"group {other}'s coordinator moved with broker {old}'s groups (group {gid}'s calls "
                          f"left it here)")

    def settle(self) -> None:
        """Before a tick, a topic event or the end: held answers nothing explained are judged,
        in their place (a native failover tick does not explain them: the model answers parked
        classic calls NOT_COORDINATOR at a failover itself). The load-time trials end first."""
        self.load.end_all()
        held, self.held = self.held, {}
        for answers in held.values():
            self._release(answers)

    def failover_option(self, gid: str, ts: float, event: Event) -> None:
        """A failover the user supplied (``--failover GROUP@TS``), noted on ``event``, the first
        event at or after ``ts``: it explains the group's held answers."""
        self.load.end(gid)
        held = self.held.pop(gid, None)
        before = self.brokers.pop(gid, None)
        self.assumed[gid] = before or ""  # its next call on another broker is this move, not a new one
        self.failover(gid, event, "failover-option", before, None,
                      f"group {gid}'s coordinator failover at tsMs {num(ts)} (--failover)", held, ts)

    def _release(self, held: list[Held]) -> None:
        """Judge held answers as any call, in their place (nothing explained them)."""
        checker = self.checker
        path = checker.path
        for event, api, source in held:
            self._releasing, checker.path = event, source
            try:
                checker._call(event, api)
            finally:
                self._releasing, checker.path = None, path

    def _note(self, event: Event, gid: str, kind: str, before: str | None, after: str | None,
              message: str, path: str | None = None) -> dict[str, Any]:
        note: dict[str, Any] = {"path": path or self.checker.path, "line": event.line, "groupId": gid, "kind": kind,
                                "tsMs": event.ts_ms, "from": before, "to": after, "message": message}
        self.checker.report.inferred.append(note)
        return note

