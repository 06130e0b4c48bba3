"""The classic steady fast path: a repeated Heartbeat answered from a cache, not the model.

Most of a classic group's calls are its members' heartbeats, each the same request as the
member's last one while the group is stable. The full path (``classic.py``) caches the answer
when the model says the call was the steady one (``model/classic/steady.py``: NONE, no record,
only the member's session timer re-armed); a later call is a hit only when the full path
would do and report exactly the same:

- the request is the cached one, value for value *and type for type* (``1`` and ``True`` are
  equal in Python, not to the schema check the full path runs), with flat values only;
- the observed error code is NONE (the only response field the full path compares);
- same API version, client id and connection (the connection names the broker ``moves.py``
  follows);
- the group is the one the answer was cached in: ``GroupSession.generation`` unchanged (every
  record, timer firing, classic call but a steady heartbeat, failover, topic or config change
  bumps it), not retired, its clock not going backwards.

A hit does what the full path does: it moves the group's clock (through ``advance`` when a
timer or a parked call is due, then re-checks the generation), re-arms the session timer at
the same delay, and counts the event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgspec.conformance.consumer import timer_at
from kgspec.model.classic.steady import steady_heartbeat_timer

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker
    from kgspec.conformance.events import Event
    from kgspec.conformance.session import GroupSession
    from kgspec.model.timers import Timer

_FLAT = (str, int, type(None))


@dataclass(slots=True)
class ClassicSteadyAnswer:
    """A member's steady Heartbeat: the request, what it was sent with, and the timer it re-arms."""

    request: dict[str, Any]
    int_fields: tuple[str, ...]  # where an equal value may be of another type (``True``, ``1.0``)
    version: int | None
    client_id: str | None
    connection: str | None
    generation: int
    session_timer: Timer
    delay: int


def steady_answer(g: GroupSession, event: Event, ts: int) -> ClassicSteadyAnswer | None:
    """The cache entry for a Heartbeat the full path just answered with no difference; None when
    the model's answer was not the steady one or the request has a nested value."""
    req = event.request
    member_id = req.get("memberId")
    if type(member_id) is not str or not member_id or any(type(v) not in _FLAT for v in req.values()):
        return None
    timer = steady_heartbeat_timer(g.coord, g.summary.group_id, member_id, ts)
    if timer is None:
        return None
    ints = tuple(k for k, v in req.items() if type(v) is int)
    return ClassicSteadyAnswer(req, ints, event.api_version, event.client_id, event.connection, g.generation,
                               timer, timer.deadline_ms - ts)


def same_request(entry: ClassicSteadyAnswer, req: dict[str, Any]) -> bool:
    """Equal keys and values of the same types. The cached values are flat strings, ints and
    nulls, so an equal value of another type can only stand where an int does."""
    cached = entry.request
    if req is cached:  # a request log's repeated line shares its request object (CallMemo)
        return True
    if req != cached:
        return False
    return all(type(req[key]) is int for key in entry.int_fields)


def steady_hit(checker: TraceChecker, g: GroupSession, event: Event,
               cache: dict[str, ClassicSteadyAnswer], parked: list[Any]) -> bool:
    """Answer a repeated steady Heartbeat of ``g`` from ``cache``; False: take the full path.
    ``parked``: the group's parked calls, a heap by answer time."""
    req = event.request
    member_id = req.get("memberId")
    entry = cache.get(member_id) if type(member_id) is str else None
    if entry is None or entry.generation != g.generation or g.retired \
            or event.api_version != entry.version or event.client_id != entry.client_id \
            or event.connection != entry.connection or event.response.get("errorCode", 0) != 0 \
            or not same_request(entry, req):
        return False
    ts = int(event.ts_ms or 0)  # as ClassicChecks.handle reads it
    if g.clock_seq != checker.clock_seq:
        checker.catch_up(g)
    last = g.last_ts
    if last is not None and ts < last:
        return False  # the full path reports it
    coord = g.coord
    timers = coord.timers
    if timers.maybe_due(ts) or (parked and parked[0].deadline < ts):
        checker.advance(g, ts, event.line)
        if entry.generation != g.generation:
            return False  # timers fired; the full path runs at the same time (advancing again is a no-op)
    else:
        checker.clock_to(g, ts)
    timers.schedule(timer_at(entry.session_timer, ts + entry.delay))
    checker.answered_from_cache(g, ts if event.ts_ms is None else event.ts_ms)  # as moves.py records it
    return True
