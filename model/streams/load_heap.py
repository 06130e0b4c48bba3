"""The sticky task assignor's process queue (``PriorityQueue<ProcessState>`` by load), fast.

Kafka polls the least-loaded process, gives it one task and offers it back. Equal loads are
broken by heap positions (``java.util.PriorityQueue`` is not stable), so the queue has to be
sifted exactly as Java does (``javaorder.pq_poll``/``pq_offer``), and a sift costs a Python step
per level: log2(1000) = 10 levels for each of 15 000 tasks at Kafka's large JMH point.

Rounds make most of those sifts unnecessary. When all processes have the same member count and
the same load (the queue is *level*), the next n clean steps (poll, add one task, offer the same
process back; n = number of processes) take each process exactly once: the old load stays the
minimum until nobody has it, and every raised process has the same new load. Inside such a round
every comparison is old/old, new/new (ties) or old/new, so which *position* is polled at each
step, and where everything sits at the end, depends on n alone, not on which process sits where.
The first clean round is sifted and recorded as two permutations of positions (kept across
calls, by n); each later round is replayed from them, a list lookup per step. A step that is not clean (Kafka pops processes
that already hold a standby task, then offers them back) rebuilds the real queue from the
replayed positions and sifts until the queue is level again.
"""

from __future__ import annotations

from array import array
from collections.abc import Container, Sequence
from dataclasses import dataclass

from kgspec.model.javaorder import pq_offer, pq_poll

SNAPSHOTS = 32  # copies of the queue kept per recorded round: leaving a replay sifts < n / 32 steps


def _snapshot_every(n: int) -> int:
    return max(1, n // SNAPSHOTS)


@dataclass(frozen=True, slots=True)
class Round:
    """One clean round of n steps, as positions in the queue's array when the round began."""

    order: list[int]  # the position polled at each step
    final: list[int]  # for each slot at the end, the position its process started in
    at: list[int]  # the recorded round: process -> start position
    snapshots: list[Sequence[int]]  # the recorded queue (processes) after every _snapshot_every(n) steps


# Rounds by process count, kept across calls (a coordinator assigns the same group size again and
# again); a few sizes at most: a round holds 3 lists of n ints and 32 arrays of n 4-byte ints.
ROUNDS: dict[int, Round] = {}
ROUNDS_MAX = 8


class LoadHeap:
    """``PriorityQueue<ProcessState>`` over process numbers by load = tasks / capacity, filled
    (``addAll``) in process-number order. It keeps its own task counts: the caller adds exactly
    one task to each process ``take``/``take_one`` return."""

    def __init__(self, task_count: list[int], capacity: list[int], rounds: dict[int, Round] | None = None) -> None:
        self.tasks = list(task_count)
        self.capacity = capacity
        self.load = [t / c for t, c in zip(task_count, capacity, strict=True)]
        self.n = len(capacity)
        self.uniform = len(set(capacity)) == 1  # raised loads are equal only then
        self.rounds = ROUNDS if rounds is None else rounds  # a round depends on n only
        self.every = _snapshot_every(self.n)
        self.heap: list[int] = []  # stale while replaying
        for p in range(self.n):
            pq_offer(self.heap, self.load, p)
        self.top = max(self.load, default=0.0)  # loads only grow: the queue is level when its min is this
        self.replaying = False
        self.start: list[int] = []  # the arrangement when the current round began
        self.base = 0  # every process's task count when the current round began
        self.step = 0  # clean steps done in the current round
        self.recording: list[int] | None = None  # processes polled in a clean round being sifted
        self.snapshots: list[Sequence[int]] = []  # of the round being recorded
        self._level()

    def __len__(self) -> int:
        return self.n if self.replaying else len(self.heap)

    def take(self, k: int) -> list[int]:
        """The processes ``k`` of Kafka's steps (poll, add a task, offer back) give tasks to."""
        out: list[int] = []
        while k > 0:
            if self.replaying:
                m = min(k, self.n - self.step)
                start = self.start
                out += [start[i] for i in self.rounds[self.n].order[self.step:self.step + m]]
                k -= m
                self.step += m
                if self.step == self.n:
                    self._next_round()
                continue
            p = pq_poll(self.heap, self.load)
            self._raise(p)
            pq_offer(self.heap, self.load, p)
            self._sifted(p)
            out.append(p)
            k -= 1
        return out

    def take_one(self, holders: Container[int]) -> int:
        """``assignStandbyToMemberWithLeastLoad``: poll until a process not in ``holders``, give it
        the task, offer everything polled back (innermost first, as Kafka's recursion unwinds);
        -1 when every process holds it."""
        if self.replaying:
            p = self.start[self.rounds[self.n].order[self.step]]
            if p not in holders:
                self.step += 1
                if self.step == self.n:
                    self._next_round()
                return p
            self._rebuild()
        popped: list[int] = []
        found = -1
        while self.heap:
            p = pq_poll(self.heap, self.load)
            popped.append(p)
            if p not in holders:
                found = p
                self._raise(p)
                break
        for p in reversed(popped):
            pq_offer(self.heap, self.load, p)
        if len(popped) == 1 and found >= 0:
            self._sifted(found)
        else:
            self.recording = None
            self._level()
        return found

    def take_each(self, holder: list[int]) -> list[int]:
        """``take_one`` for a run of tasks each held by at most one process (``holder[i]``, -1: none)."""
        out: list[int] = []
        for h in holder:
            if self.replaying:
                p = self.start[self.rounds[self.n].order[self.step]]
                if p != h:
                    out.append(p)
                    self.step += 1
                    if self.step == self.n:
                        self._next_round()
                    continue
            out.append(self.take_one((h,)))
        return out

    def _raise(self, p: int) -> None:
        self.tasks[p] += 1
        load = self.load[p] = self.tasks[p] / self.capacity[p]
        if load > self.top:
            self.top = load

    def _sifted(self, p: int) -> None:
        """A clean step was sifted: record it; a recorded round becomes replayable."""
        if self.recording is None:
            self._level()
            return
        self.recording.append(p)
        if len(self.recording) < self.n:
            if len(self.recording) % self.every == 0:
                self.snapshots.append(list(self.heap))
            return
        at = [0] * self.n
        for i, q in enumerate(self.start):
            at[q] = i
        if len(self.rounds) >= ROUNDS_MAX:
            self.rounds.clear()
        self.rounds[self.n] = Round([at[q] for q in self.recording], [at[q] for q in self.heap], at,
                                    [array("i", snap) for snap in self.snapshots])
        self.recording = None
        self._level()

    def _next_round(self) -> None:
        """A replayed round ended: every process was raised by one task."""
        self.start = [self.start[i] for i in self.rounds[self.n].final]
        self.base += 1
        self.step = 0

    def _level(self) -> None:
        """Between steps of the real queue: when it is level, begin a round (replayed if known)."""
        if not self.uniform or not self.heap or len(self.heap) < self.n or self.load[self.heap[0]] != self.top:
            return
        self.start, self.base, self.step = list(self.heap), self.tasks[self.heap[0]], 0
        self.replaying = self.n in self.rounds
        self.recording = None if self.replaying else []
        self.snapshots = [] if self.replaying else [self.start]

    def _rebuild(self) -> None:
        """Leave a replayed round: from the recorded round's last snapshot before this step, sift
        the steps on positions (old load 0, raised 1); map positions back to processes and their
        task counts."""
        known = self.rounds[self.n]
        done = self.step // self.every * self.every
        heap = [known.at[q] for q in known.snapshots[done // self.every]]
        keys = [0] * self.n
        for i in known.order[:done]:
            keys[i] = 1
        for _ in range(self.step - done):
            i = pq_poll(heap, keys)
            keys[i] = 1
            pq_offer(heap, keys, i)
        self.heap = [self.start[i] for i in heap]
        for i, raised in enumerate(keys):
            p = self.start[i]
            self.tasks[p] = self.base + raised
            self.load[p] = self.tasks[p] / self.capacity[p]
        self.top = max(self.load)
        self.replaying = False
