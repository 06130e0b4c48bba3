"""The load time of an inferred coordinator move: a legal freedom the checker adopts from the answers.

A broker's request log shows *that* a group's coordinator moved (``moves.py``), not *when* the
new coordinator loaded it. It loaded somewhere in a window: at or after ``lo``, the group's last
event before the move (the last call the old broker answered) or a later COORDINATOR_LOAD_IN_PROGRESS
answer (the broker giving it is still loading), and at or before ``hi``, the first call the new
broker answered. A NOT_COORDINATOR answer does not narrow it: the old broker gives it once it has
resigned, which may be after the new one loaded (a wider window only adds candidates). The load time only matters to the timers: the
old coordinator's timers due before it fire, and the new one re-arms its timers from it
(sessions, rebalance timeouts, assignment intervals, the offsets' cleanup). So a timer due
between the real load and ``hi`` can show at another call than a failover replayed at ``hi``
expects: without this module, a false divergence.

The load time is an input of the failover (``Coordinator.failover(now)``), and any instant of
the window is legal. The checker picks one consistent with the answers, as it adopts a legal
``uniform`` target (``retarget.py``):

- at the move it keeps a copy of the group's state (``Trial.saved``), replays the failover at
  ``hi`` (as before) and records the group's events from then on (``Trial.buffer``), holding the
  group's findings;
- at the first finding it searches the window's *candidate instants*, those where the outcome can
  change: ``lo``, ``hi``, each old timer's deadline in the window, and for each re-armed timer's
  delay ``d`` and each recorded call's time ``c``, ``c - d`` and ``c - d + 1`` (the timer fires
  before or after the call). Between two candidates every load time gives the same answers. The
  search tries them latest first: the group's state is restored from the copy, failed over at
  the candidate and the recorded events replayed; the first candidate under which they give no
  finding is adopted and checking goes on from its state. A candidate refuted once stays refuted
  (the recorded events only grow). If none explains the answers, the departure is real: the
  candidate whose first finding comes latest (the current one on a tie) is kept and its
  findings are reported, at their lines;
- ticks and topic changes meanwhile are recorded too and replayed as the router takes them for
  the group (its clock; a topic it follows), on a topic image of the replay's own, rebuilt as the
  shared one was at the move: the shared image is never changed by a replay;
- the trial ends (its findings, if any, reported; the adopted time written in the report) when
  the group's clock passes every timer the load re-armed (``until``), when the group moves
  again or answers NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS, before a native failover tick,
  before a call that names the group among others (a describe, a listing: not replayed), at a
  malformed or unsupported finding of the group, and at the end.

Deterministic: candidates in a fixed order, replays of the same events. Bounded: at most
``MAX_CANDIDATES`` candidates (the latest) per search, ``MAX_SEARCHES`` searches and
``MAX_BUFFERED`` recorded events per trial (beyond either, the trial ends with the time adopted
so far); a refuted candidate is never replayed again. So a move costs at most
``MAX_SEARCHES * MAX_CANDIDATES`` replays of at most ``MAX_BUFFERED`` events, only a move
followed by a finding within the horizon searches at all, and one whose answers all agree costs
a copy of the group's state and the recording.
"""

from __future__ import annotations

import dataclasses
import io
import math
import pickle
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from kgspec.conformance.classic import CLASSIC_API_NAMES
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.session import GroupSession, num
from kgspec.model.apis import API_KEYS_BY_NAME, CONSUMER_GROUP_HEARTBEAT
from kgspec.model.topics import MAX_PARTITIONS, TopicsImage

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker

MAX_CANDIDATES: Final = 64
MAX_BUFFERED: Final = 4096
MAX_SEARCHES: Final = 16
# A coordinator's attributes shared with the checker or immutable: a copy of the group keeps them.
_SHARED: Final = ("profile", "config", "mutants", "assignors", "task_assignors", "migration", "topics",
                  "_versions", "_member_ids", "_timer_watch")
# Findings that end a trial rather than wait for a search: no load time changes them.
_FINAL_KINDS: Final = frozenset({"malformed", "unsupported"})
# A session's fields a restore puts back (the router's own bookkeeping stays: order, wake-up, clock).
_SESSION_FIELDS: Final = tuple(f.name for f in dataclasses.fields(GroupSession)
                               if f.name not in ("coord", "order", "wake", "clock_seq"))

Recorded = tuple[Event, str]  # an event of the group (or of the cluster) and its input's path


@dataclass(frozen=True, slots=True)
class LoadWindow:
    """When the new coordinator may have loaded the group: at an instant in ``[lo, hi]``."""

    lo: float
    hi: float

    def candidates(self, old_deadlines: tuple[int, ...], delays: tuple[int, ...],
                   calls: list[float]) -> list[float]:
        """The instants where the answers can change (module doc), latest first, ``hi`` first."""
        lo, hi = self.lo, self.hi
        points: set[float] = {hi, float(math.ceil(lo))}
        points.update(float(e) for e in old_deadlines)  # due at e: fired before a load at e or later
        for c in calls:
            for d in delays:
                points.update((math.floor(c) - d, math.floor(c) - d + 1.0))
        inside = sorted((p for p in points if lo <= p <= hi), reverse=True)
        return inside[:MAX_CANDIDATES]

    def to_json(self) -> dict[str, Any]:
        return {"fromTsMs": num(self.lo), "toTsMs": num(self.hi)}


@dataclass(slots=True)
class _Saved:
    """The group's state just before the move (``LoadTimes._save``; each restore unpickles it again)."""

    state: bytes  # the session's fields, the model's attributes, the classic and move entries
    records: tuple[Any, ...]  # the records the session expects
    inferred: int  # how many report.inferred notes there were
    topics: tuple[tuple[str, str, int], ...]  # the shared topic image: (name, topic id, partitions)


@dataclass(slots=True)
class Trial:
    """One inferred move whose load time is being adopted (module doc)."""

    gid: str
    window: LoadWindow
    note: dict[str, Any]  # the move's report.inferred entry: its tsMs becomes the adopted time
    message: str  # the note's message, without the time
    line: int  # the line the failover is replayed before
    path: str
    trigger: tuple[Event, int | None, str] | None  # the group's call that showed the move, its API, its path
    saved: _Saved
    old_deadlines: tuple[int, ...]
    delays: tuple[int, ...]
    until: float = 0.0
    adopted: float = 0.0
    buffer: list[Recorded] = field(default_factory=list)
    held: list[tuple[GroupSession | None, Finding]] = field(default_factory=list)
    first_held: int = -1  # the buffer index of the first held finding's event
    refuted: set[float] = field(default_factory=set)
    searches: int = 0
    untimely: set[int] = field(default_factory=set)  # recorded cluster events whose time the router ignored
    pending: bool = False  # a finding waits for a search
    ending: bool = False  # a malformed or unsupported finding: end before the next event
    scratch: list[int] | None = None  # while replaying: the buffer index of each finding
    index: int = -1  # the recorded event being replayed (-1: the trigger)


class LoadTimes:
    """The open trials of one checker, by group id."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker
        self.enabled = True  # False: a move is replayed at its first call on the new broker, as before
        self.trials: dict[str, Trial] = {}
        self.waiting: list[str] = []  # groups whose trials wait for a search or their end
        self.searches = 0  # how many searches ran (a test and the benchmark read them)
        self.replays = 0  # how many candidate replays they made
        self._replaying = ""  # the group whose trial is being replayed
        self._topics: tuple[int, tuple[tuple[str, str, int], ...]] = (-1, ())  # _topics_now's copy

    # --- opening ----------------------------------------------------------------------------

    def failover(self, g: GroupSession, since: float | None, event: Event, note: dict[str, Any], message: str,
                 trigger: tuple[Event, int | None, str] | None) -> bool:
        """Fail the group over for a move seen at ``event`` (its time ``hi``), the load time free
        from the group's last event (or ``since``, a later COORDINATOR_LOAD_IN_PROGRESS answer)
        to ``hi``: replayed at ``hi``, then adopted from the answers. False: the failover was
        not replayed (time went backwards: the finding is made)."""
        checker = self.checker
        gid = g.summary.group_id
        hi = event.ts_ms or 0
        self.end(gid)  # the move tracker ends a trial before a move changes anything; this is a guard
        if g.clock_seq != checker.clock_seq:
            checker.catch_up(g)
        lo = max(g.last_ts if g.last_ts is not None else hi, since if since is not None else float("-inf"))
        note["window"] = LoadWindow(min(lo, hi), hi).to_json()
        saved = None
        if self.enabled and not g.retired and lo < hi:
            try:
                saved = self._save(g)
            except (pickle.PicklingError, TypeError, AttributeError):  # a plugin's object, say: no trial
                saved = None
        if saved is None:
            note["message"] = message + f": replayed as a failover at tsMs {num(hi)}"
            return self._failover(g, hi, event.line)
        old = tuple(sorted({t["deadlineMs"] for t in g.coord.timers.snapshot().values() if lo < t["deadlineMs"] <= hi}))
        if not self._failover(g, hi, event.line):
            note["message"] = message + f": replayed as a failover at tsMs {num(hi)}"
            return False
        deadlines = [t["deadlineMs"] for t in g.coord.timers.snapshot().values()]
        delays = tuple(sorted({int(d - hi) for d in deadlines if d >= hi}))
        trial = Trial(gid, LoadWindow(lo, hi), note, message, event.line, checker.path, trigger, saved, old, delays,
                      until=max(deadlines, default=hi), adopted=hi)
        self.trials[gid] = trial
        self._describe(trial)
        return True

    def _failover(self, g: GroupSession, ts: float, line: int) -> bool:
        if not self.checker.advance(g, ts, line):
            return False
        g.generation += 1
        g.coord.failover(int(ts))
        return True

    # --- while a trial is open --------------------------------------------------------------

    def before(self, item: object) -> None:
        """Before the checker takes ``item``: run waiting searches, record the group's events,
        end the trials the item ends (module doc)."""
        trials = self.trials
        while self.waiting:  # in the order their findings came
            waiting = trials.get(self.waiting.pop(0))
            if waiting is not None and waiting.ending:
                self.end(waiting.gid)
            elif waiting is not None and waiting.pending:
                self._search(waiting)
        if type(item) is not Event or not trials:
            return
        kind = item.kind
        if kind == "tick" or kind == "topic":
            self._cluster_event(item)
            return
        if kind != "call" and kind != "record":
            return
        gid = item.group_id
        if gid is None:
            named = _groups_named(item)
            for other in (list(trials) if named is None else [n for n in named if n in trials]):
                self.end(other)
            return
        trial = trials.get(gid)
        if trial is None:
            return
        if (item.ts_ms or 0) > trial.until or len(trial.buffer) >= MAX_BUFFERED \
                or (kind == "call" and self.checker.moves.may_move(item, gid)):
            self.end(gid)
            return
        trial.buffer.append((item, self.checker.path))

    def _cluster_event(self, item: Event) -> None:
        """A tick or a topic change: recorded, to be replayed as the router takes it for the
        group (its clock, and the topic if the group follows it); a failover tick ends every trial."""
        if item.kind == "tick" and item.body.get("coordinatorFailover"):
            self.end_all()
            return
        checker = self.checker
        ts = item.ts_ms if item.ts_ms is not None else 0.0
        timely = checker.high is None or ts >= checker.high  # else the router ignores its time, not the topic
        for trial in list(self.trials.values()):
            if ts > trial.until or len(trial.buffer) >= MAX_BUFFERED:
                self.end(trial.gid)
                continue
            if not timely:
                trial.untimely.add(len(trial.buffer))
            trial.buffer.append((item, checker.path))

    def hold(self, g: GroupSession, finding: Finding) -> bool:
        """A finding of a group on trial: held until a search decides (True), or replayed away."""
        trial = self.trials.get(g.summary.group_id)
        if trial is None:
            return False
        if trial.scratch is not None:
            trial.scratch.append(trial.index)
            return True
        if not (trial.pending or trial.ending):
            self.waiting.append(trial.gid)
        if finding.kind in _FINAL_KINDS:
            trial.ending = True
            return False
        if not trial.held:
            trial.first_held = len(trial.buffer) - 1
        trial.held.append((g, finding))
        trial.pending = True
        return True

    # --- ending -----------------------------------------------------------------------------

    def end(self, gid: str) -> None:
        """End the group's trial: a waiting search runs first; its findings are reported."""
        trial = self.trials.get(gid)
        if trial is None:
            return
        if trial.pending and not trial.ending:
            self._search(trial)
        del self.trials[gid]
        for g, finding in trial.held:
            self.checker.finding(g, finding)

    def end_all(self) -> None:
        for gid in list(self.trials):
            self.end(gid)

    # --- the search -------------------------------------------------------------------------

    def _search(self, trial: Trial) -> None:
        """Adopt the latest candidate under which the recorded events give no finding (module doc)."""
        self.searches += 1
        trial.searches += 1
        trial.pending = False
        trial.refuted.add(trial.adopted)
        g = self.checker.groups[trial.gid]
        calls = [e.ts_ms for e, _ in trial.buffer if e.kind == "call" and e.ts_ms is not None]
        if trial.trigger is not None and trial.trigger[0].ts_ms is not None:
            calls.append(trial.trigger[0].ts_ms)
        best: tuple[int, float] = (trial.first_held, trial.adopted)
        tried = False
        candidates = trial.window.candidates(trial.old_deadlines, trial.delays, calls) \
            if trial.searches <= MAX_SEARCHES else []
        for t in candidates:
            if t in trial.refuted:
                continue
            tried = True
            found = self._replay(trial, g, t)
            if not found:
                trial.adopted, trial.held, trial.first_held = t, [], -1
                self._describe(trial)
                return
            trial.refuted.add(t)
            if found[0] > best[0]:
                best = (found[0], t)
        # Nothing explains the answers: keep the candidate that departs latest (the current one
        # on a tie), and report its findings.
        first, t = best
        if tried:  # the state is the last candidate's: back to the kept one, its findings held again
            trial.adopted = t
            self._replay(trial, g, t, keep=True)
            trial.pending = False
        trial.first_held = first
        trial.ending = True
        self.waiting.append(trial.gid)
        self._describe(trial)

    def _replay(self, trial: Trial, g: GroupSession, t: float, keep: bool = False) -> list[int]:
        """Restore the group, fail it over at ``t`` and replay its recorded events; the buffer
        index of each finding (``keep``: the findings are held, to be reported)."""
        self.replays += 1
        checker = self.checker
        self._restore(g, trial.saved)
        g.clock_seq = checker.clock_seq  # the cluster events since are recorded: replayed, not caught up with
        self._replaying = trial.gid
        shared = g.coord.topics
        g.coord.topics = self._image(trial.saved.topics)  # the image as it was, changed by the replayed events
        path = checker.path
        found: list[int] = []
        trial.scratch = None if keep else found
        trial.held = []
        try:
            checker.path = trial.path
            trial.index = -1
            if self._failover(g, t, trial.line) and trial.trigger is not None:
                event, api, checker.path = trial.trigger
                self._feed(event, api)
            for index, (event, source) in enumerate(trial.buffer):
                trial.index, checker.path = index, source
                self._feed(event, None if event.kind != "call" else _api_of(event))
        finally:
            checker.path = path
            trial.scratch = None
            trial.index = -1
            g.coord.topics = shared
            shared.touched(g.coord.follow_topics())
        checker._rewake(g)
        return found

    def _feed(self, event: Event, api: int | None) -> None:
        """One recorded event again, as ``TraceChecker.feed`` takes it (without counting its line)."""
        checker = self.checker
        if event.kind == "record":
            checker.records.record(event)
            return
        if event.kind != "call":
            trial = self.trials[self._replaying]
            self._cluster_replay(event, trial.index not in trial.untimely)
            return
        g = checker.groups.get(event.group_id or "")
        if api == CONSUMER_GROUP_HEARTBEAT and g is not None and g.steady and checker.steady_cache \
                and checker._steady_hit(g, event):
            return
        checker._call(event, api)

    def _cluster_replay(self, event: Event, timely: bool) -> None:
        """A recorded tick or topic change, for the group being replayed only, as the router
        takes it (``TraceChecker._cluster_time``, ``_topic``), on the replay's own topic image."""
        checker = self.checker
        g = checker.groups[self._replaying]
        if timely:
            checker.advance(g, event.ts_ms or 0, event.line)
        body = event.body
        if event.kind != "topic":
            return
        coord = g.coord
        name = body["name"]
        image = coord.topics
        if body.get("deleted"):
            if image.delete(name) is None:
                return
            new_topic = False
        else:
            partitions = int(body["partitions"])
            if partitions > MAX_PARTITIONS:
                return
            previous = image.upsert(name, body["topicId"], partitions)
            if previous is not None and previous.partitions == partitions and previous.topic_id == body["topicId"]:
                return
            new_topic = previous is None
        names, regex = coord.followed_topics()
        if name in names or (new_topic and regex):
            g.generation += 1
            coord.topics_changed({name}, new_topic)

    def _image(self, topics: tuple[tuple[str, str, int], ...]) -> TopicsImage:
        """A topic image of the replay's own, as the shared one was at the move."""
        image = TopicsImage()
        for name, topic_id, partitions in topics:
            image.upsert(name, topic_id, partitions)
        return image

    def _topics_now(self) -> tuple[tuple[str, str, int], ...]:
        """The shared image's topics (one copy per version of it, shared by the moves it saw)."""
        image = self.checker.topics
        if self._topics[0] != image.version:
            infos = (image.by_name(n) for n in image.names())
            self._topics = (image.version, tuple((i.name, i.topic_id, i.partitions) for i in infos if i is not None))
        return self._topics[1]

    def _describe(self, trial: Trial) -> None:
        note, window = trial.note, trial.window
        note["tsMs"] = num(trial.adopted)
        exact = "" if trial.adopted == window.hi else \
            f" (the load time the answers show, in the window tsMs {num(window.lo)}-{num(window.hi)})"
        note["message"] = trial.message + f": replayed as a failover at tsMs {num(trial.adopted)}{exact}"

    # --- the group's state ------------------------------------------------------------------

    def _save(self, g: GroupSession) -> _Saved:
        """The group's state: its session's fields, its model's attributes, the classic checks' and
        the move tracker's entries of it, pickled (several times faster than a deep copy); what the
        model shares with the checker (the topic image, configs, plugins, the timer watch) stays
        shared, by name. The records it expects are kept as they are (never changed; in a request
        log, which has none, they are all the records the model wrote), its steady answers not
        at all (stale after the failover: its generation moves on)."""
        checker = self.checker
        gid = g.summary.group_id
        moves = checker.moves
        fields = {name: getattr(g, name) for name in _SESSION_FIELDS if name not in ("steady", "expected_records")}
        payload = (fields, vars(g.coord), checker.classic.groups.get(gid),
                   (moves.brokers.get(gid), moves.since.get(gid), moves.held.get(gid), moves.assumed.get(gid)))
        state = vars(g.coord)
        shared = {id(state[name]): name for name in _SHARED if state.get(name) is not None}
        out = io.BytesIO()
        _Pickler(out, shared).dump(payload)
        return _Saved(out.getvalue(), tuple(g.expected_records), len(checker.report.inferred), self._topics_now())

    def _restore(self, g: GroupSession, saved: _Saved) -> None:
        """Put the saved state back into the group's own objects (the topic image and the timer
        watch keep pointing at them)."""
        checker = self.checker
        gid = g.summary.group_id
        coord = g.coord
        fields, state, classic, entries = _Unpickler(io.BytesIO(saved.state), vars(coord)).load()
        for name, value in fields.items():
            setattr(g, name, value)
        g.steady = {}
        g.expected_records = deque(saved.records)
        vars(coord).clear()
        vars(coord).update(state)
        g.wake = None  # its heap entries are stale; the replay queues it again
        key = coord.follow_topics()
        coord.topics.touched(key)  # its subscriptions may differ from the replayed-away ones
        if classic is None:
            checker.classic.groups.pop(gid, None)
        else:
            checker.classic.groups[gid] = classic
        moves = checker.moves
        tables: tuple[dict[str, Any], ...] = (moves.brokers, moves.since, moves.held, moves.assumed)
        for table, value in zip(tables, entries, strict=True):
            if value is None:
                table.pop(gid, None)
            else:
                table[gid] = value
        inferred = checker.report.inferred
        inferred[saved.inferred:] = [n for n in inferred[saved.inferred:] if n.get("groupId") != gid]


class _Pickler(pickle.Pickler):
    """Pickles a group's state, the objects its model shares with the checker by name."""

    def __init__(self, out: io.BytesIO, shared: dict[int, str]) -> None:
        super().__init__(out, pickle.HIGHEST_PROTOCOL)
        self.shared = shared

    def persistent_id(self, obj: Any) -> str | None:
        return self.shared.get(id(obj))


class _Unpickler(pickle.Unpickler):
    """Unpickles a group's state, the shared objects taken from the model being restored."""

    def __init__(self, data: io.BytesIO, shared: dict[str, Any]) -> None:
        super().__init__(data)
        self.shared = shared

    def persistent_load(self, pid: Any) -> Any:
        return self.shared[pid]


def _api_of(call: Event) -> int | None:
    """A call's API key, as the router reads it (``checker.api_of``, which imports this module)."""
    if call.api_key is not None:
        return call.api_key
    name = call.api_name or ""
    return CLASSIC_API_NAMES.get(name, API_KEYS_BY_NAME.get(name))


def _groups_named(event: Event) -> list[str] | None:
    """The groups a call of no single group names (a describe's, a batch OffsetFetch's); None:
    it may read any group (a listing, an API not known here)."""
    request = event.request
    for key in ("groupIds", "groups", "groupsNames"):
        value = request.get(key)
        if isinstance(value, list):
            out = []
            for item in value:
                gid = item.get("groupId") if isinstance(item, dict) else item
                if not isinstance(gid, str):
                    return None
                out.append(gid)
            return out
    return None
