"""A deterministic timer wheel: Kafka's ``CoordinatorTimer`` without threads.

Timers are keyed like Kafka's (``session-timeout-{group}-{member}``, ...); scheduling
a key that exists replaces it. Due timers fire in deadline order, ties in the order
they were scheduled. Time moves only through :meth:`Timers.pop_due`.

Every heartbeat pushes its member's session deadline later, so rescheduling must be
cheap: moving a deadline later only updates the key's entry; the heap entry is
re-pushed lazily when its old deadline comes up.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kgspec.model.records import Record


@dataclass(frozen=True, slots=True)
class Timer:
    key: str
    deadline_ms: int
    kind: str  # what to do when it fires, e.g. "consumer-session"
    group_id: str
    member_id: str | None = None
    epoch: int | None = None  # captured at scheduling (the rebalance timeout checks it)


class Timers:
    __slots__ = ("_heap", "_heap_deadline", "_live", "_seq", "watch")

    def __init__(self, watch: Callable[[int], None] | None = None) -> None:
        # Told each deadline that becomes the earliest entry (an owner of many wheels, the checker,
        # wakes only the wheels with something due).
        self.watch = watch
        self._live: dict[str, tuple[int, Timer]] = {}
        # earliest deadline for which the key has an entry in the heap
        self._heap_deadline: dict[str, int] = {}
        self._heap: list[tuple[int, int, str]] = []
        self._seq = 0

    def schedule(self, timer: Timer) -> None:
        self._seq += 1
        key = timer.key
        self._live[key] = (self._seq, timer)
        queued = self._heap_deadline.get(key)
        if queued is None or timer.deadline_ms < queued:
            self._heap_deadline[key] = timer.deadline_ms
            heap = self._heap
            heapq.heappush(heap, (timer.deadline_ms, self._seq, key))
            if self.watch is not None and heap[0][1] == self._seq:
                self.watch(timer.deadline_ms)

    def schedule_if_absent(self, timer: Timer) -> None:
        if timer.key not in self._live:
            self.schedule(timer)

    def cancel(self, key: str) -> None:
        self._live.pop(key, None)

    def get(self, key: str) -> Timer | None:
        entry = self._live.get(key)
        return entry[1] if entry else None

    def __contains__(self, key: str) -> bool:
        return key in self._live

    def __len__(self) -> int:
        return len(self._live)

    def next_deadline(self) -> int | None:
        return min((t.deadline_ms for _, t in self._live.values()), default=None)

    def earliest(self) -> int | None:
        """A lower bound of the next deadline (the earliest heap entry, maybe stale), or None."""
        return self._heap[0][0] if self._heap else None

    def maybe_due(self, now_ms: int) -> bool:
        """False only if no timer is due by ``now_ms`` (a cheap peek; True may be a stale entry)."""
        return bool(self._heap) and self._heap[0][0] <= now_ms

    def pop_due(self, now_ms: int) -> Iterator[Timer]:
        """Yield and remove every live timer with ``deadline <= now``, earliest first.

        Timers scheduled while iterating are seen too, if already due.
        """
        heap = self._heap
        while heap and heap[0][0] <= now_ms:
            deadline, _, key = heapq.heappop(heap)
            if self._heap_deadline.get(key) == deadline:
                del self._heap_deadline[key]
            live = self._live.get(key)
            if live is None:
                continue  # cancelled
            seq, timer = live
            if timer.deadline_ms > deadline:
                # Rescheduled later since this entry was queued: queue the new deadline.
                queued = self._heap_deadline.get(key)
                if queued is None or timer.deadline_ms < queued:
                    self._heap_deadline[key] = timer.deadline_ms
                    heapq.heappush(heap, (timer.deadline_ms, seq, key))
                continue
            del self._live[key]
            yield timer

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Live timers by key, for state comparison (replay equivalence) and describe output."""
        return {
            key: {"deadlineMs": t.deadline_ms, "kind": t.kind, "epoch": t.epoch}
            for key, (_, t) in sorted(self._live.items())
        }


class DeferredTimers(Timers):
    """Timer changes of a step that may not be committed (``Coordinator.decide``).

    Reads see the real timers overlaid with this step's own changes; the changes are kept
    in :attr:`ops` and applied to the real timers only by :meth:`commit_to`, together with
    the step's records, so a dry run leaves no timer behind.
    """

    __slots__ = ("_overlay", "_real", "ops")

    def __init__(self, real: Timers) -> None:
        # No Timers.__init__: an overlay keeps no heap of its own (one is made per decision), so
        # it neither fires nor counts timers (see the methods below).
        self._real = real
        self._overlay: dict[str, Timer | None] = {}  # None: cancelled in this step
        self.ops: list[tuple[str, Timer | str]] = []

    def schedule(self, timer: Timer) -> None:
        self._overlay[timer.key] = timer
        self.ops.append(("schedule", timer))

    def schedule_if_absent(self, timer: Timer) -> None:
        if timer.key not in self:
            self.schedule(timer)

    def cancel(self, key: str) -> None:
        self._overlay[key] = None
        self.ops.append(("cancel", key))

    def get(self, key: str) -> Timer | None:
        if key in self._overlay:
            return self._overlay[key]
        return self._real.get(key)

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def maybe_due(self, now_ms: int) -> bool:
        raise TypeError("a step's timer overlay does not fire timers; the coordinator's timers do")

    def pop_due(self, now_ms: int) -> Iterator[Timer]:
        raise TypeError("a step's timer overlay does not fire timers; the coordinator's timers do")

    def next_deadline(self) -> int | None:
        raise TypeError("a step's timer overlay does not list timers")

    def earliest(self) -> int | None:
        raise TypeError("a step's timer overlay does not list timers")

    def __len__(self) -> int:
        raise TypeError("a step's timer overlay does not count timers")

    def snapshot(self) -> dict[str, dict[str, Any]]:
        raise TypeError("a step's timer overlay does not list timers")

    @staticmethod
    def commit_to(timers: Timers, ops: list[tuple[str, Timer | str]]) -> None:
        for op, arg in ops:
            if op == "schedule":
                assert isinstance(arg, Timer)
                timers.schedule(arg)
            else:
                assert isinstance(arg, str)
                timers.cancel(arg)


# --- a consumer or streams group member's timers ------------------------------------------------
#
# Keyed as Kafka's (the protocol is not in the key: a group id names one group); the kind says
# which protocol's handler fires it: ``{protocol}-session``, ``{protocol}-rebalance`` and, for a
# classic-protocol member of a mixed group, ``{protocol}-classic-join`` / ``-classic-sync``.


def session_key(group_id: str, member_id: str) -> str:
    return f"session-timeout-{group_id}-{member_id}"


def rebalance_key(group_id: str, member_id: str) -> str:
    return f"rebalance-timeout-{group_id}-{member_id}"


def classic_key(what: str, group_id: str, member_id: str) -> str:
    """A classic-protocol member's ``join-{g}-{m}`` / ``sync-{g}-{m}`` timeout."""
    return f"{what}-{group_id}-{member_id}"


def schedule_session(timers: Timers, protocol: str, group_id: str, member_id: str, deadline: int) -> None:
    timers.schedule(Timer(session_key(group_id, member_id), deadline, f"{protocol}-session", group_id, member_id))


def schedule_rebalance(timers: Timers, protocol: str, group_id: str, member_id: str, epoch: int,
                       deadline: int) -> None:
    timers.schedule(Timer(rebalance_key(group_id, member_id), deadline, f"{protocol}-rebalance",
                          group_id, member_id, epoch))


def schedule_classic(timers: Timers, protocol: str, what: str, group_id: str, member_id: str, deadline: int,
                     if_absent: bool = False) -> None:
    timer = Timer(classic_key(what, group_id, member_id), deadline, f"{protocol}-classic-{what}", group_id, member_id)
    if if_absent:
        timers.schedule_if_absent(timer)
    else:
        timers.schedule(timer)


def cancel_member_timers(timers: Timers, group_id: str, member_id: str) -> None:
    timers.cancel(session_key(group_id, member_id))
    timers.cancel(rebalance_key(group_id, member_id))
    timers.cancel(classic_key("join", group_id, member_id))
    timers.cancel(classic_key("sync", group_id, member_id))


class _Configured(Protocol):
    @property
    def timers(self) -> Timers: ...

    @property
    def config(self) -> Any: ...

    def group_config_int(self, group_id: str, name: str) -> int: ...


class _Member(Protocol):
    @property
    def member_id(self) -> str: ...

    @property
    def member_epoch(self) -> int: ...

    @property
    def rebalance_timeout_ms(self) -> int: ...


class MemberTimers:
    """One protocol's member timers on a coordinator's wheel: the functions above with the
    protocol's name (the kinds' prefix) and its session-timeout config bound. ``timeout`` of a
    session: a classic-protocol member's own (a mixed group's, or kip's online migration)."""

    __slots__ = ("protocol", "session_config")

    def __init__(self, protocol: str, session_config: str) -> None:
        self.protocol = protocol
        self.session_config = session_config

    def schedule_session(self, coord: _Configured, group_id: str, member_id: str, now: int,
                         timeout: int | None = None) -> None:
        if timeout is None:
            timeout = coord.group_config_int(group_id, self.session_config)
        schedule_session(coord.timers, self.protocol, group_id, member_id, now + timeout)

    def schedule_rebalance(self, coord: _Configured, group_id: str, member: _Member, now: int) -> None:
        schedule_rebalance(coord.timers, self.protocol, group_id, member.member_id, member.member_epoch,
                           now + member.rebalance_timeout_ms)

    def cancel_rebalance(self, coord: _Configured, group_id: str, member_id: str) -> None:
        coord.timers.cancel(rebalance_key(group_id, member_id))

    def cancel_all(self, coord: _Configured, group_id: str, member_id: str) -> None:
        """Its session and rebalance timeouts, and a classic-protocol member's join / sync ones."""
        cancel_member_timers(coord.timers, group_id, member_id)

    def schedule_classic(self, coord: _Configured, group_id: str, member_id: str, what: str, deadline: int,
                         if_absent: bool = False) -> None:
        """A classic-protocol member's ``join-{g}-{m}`` / ``sync-{g}-{m}`` timeout (it fences)."""
        schedule_classic(coord.timers, self.protocol, what, group_id, member_id, deadline, if_absent)


def fire_member_timer(timer: Timer, member_id: str, member_epoch: int, no_session_fencing: bool,
                      fence: Callable[[], list[Record]]) -> tuple[list[Record], str]:
    """A member timer fired (the member exists): ``fence()`` it, or say why not.

    A rebalance timeout fences only a member still at the epoch it was armed for;
    ``no_session_fencing`` is the mutant that lets an expired session pass.
    """
    what = timer.kind.split("-", 1)[1]
    if what == "session":
        if no_session_fencing:
            return [], f"member {member_id}'s session expired (mutant: not fenced)"
        return fence(), f"member {member_id} fenced: its session expired"
    if what == "rebalance":
        if member_epoch != timer.epoch:
            return [], f"member {member_id} left epoch {timer.epoch} in time"
        return fence(), f"member {member_id} fenced: it did not revoke within its rebalance timeout"
    if what in ("classic-join", "classic-sync"):
        return fence(), f"classic member {member_id} fenced: it did not {what[8:]} within its rebalance timeout"
    raise ValueError(f"unknown timer kind {timer.kind}")
