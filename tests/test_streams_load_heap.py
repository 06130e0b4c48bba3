"""LoadHeap (model/streams/load_heap.py) against a plain java.util.PriorityQueue simulation.

The reference is ``javaorder.JavaPriorityQueue`` (its sift steps were checked against a JVM) with
Kafka's comparator on the process load, driven step by step as StickyTaskAssignor drives it.
Random sequences of bulk steps and standby steps with random holders exercise the recorded and
replayed rounds and every way of leaving one (a holder at the replayed position, a holder deeper
down, every process holding the task).
"""

from __future__ import annotations

import random

import pytest
from kgspec.model.javaorder import JavaPriorityQueue
from kgspec.model.streams.load_heap import LoadHeap, Round


class Reference:
    def __init__(self, tasks: list[int], capacity: list[int]) -> None:
        self.tasks, self.capacity = list(tasks), capacity
        self.load = [t / c for t, c in zip(tasks, capacity, strict=True)]
        self.queue = JavaPriorityQueue(lambda a, b: (self.load[a] > self.load[b]) - (self.load[a] < self.load[b]),
                                       range(len(tasks)))

    def _raise(self, p: int) -> None:
        self.tasks[p] += 1
        self.load[p] = self.tasks[p] / self.capacity[p]

    def take(self, k: int) -> list[int]:
        out = []
        for _ in range(k):
            p = self.queue.poll()
            assert p is not None
            self._raise(p)
            self.queue.add(p)
            out.append(p)
        return out

    def take_one(self, holders: set[int]) -> int:
        popped, found = [], -1
        while len(self.queue):
            p = self.queue.poll()
            assert p is not None
            popped.append(p)
            if p not in holders:
                found = p
                self._raise(p)
                break
        for p in reversed(popped):
            self.queue.add(p)
        return found


@pytest.mark.parametrize("seed", range(40))
def test_load_heap_polls_as_java_priority_queue(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice((1, 2, 3, 5, 8, 13, 31, 64, 100))
    capacity = [rng.choice((1, 2))] * n if rng.random() < 0.8 else [rng.choice((1, 2, 3)) for _ in range(n)]
    tasks = [0] * n if rng.random() < 0.7 else [rng.randint(0, 3) for _ in range(n)]
    rounds: dict[int, Round] = {}
    for _ in range(2):  # a second queue reuses the rounds the first one recorded
        heap, ref = LoadHeap(tasks, capacity, rounds), Reference(tasks, capacity)
        for _ in range(60):
            if rng.random() < 0.3:
                k = rng.randint(1, 3 * n)
                assert heap.take(k) == ref.take(k)
            elif rng.random() < 0.3:
                holder = [rng.randrange(-1, n) for _ in range(rng.randint(1, 2 * n))]
                assert heap.take_each(holder) == [ref.take_one({h}) for h in holder]
            else:
                roll = rng.random()
                holders = (set(range(n)) if roll < 0.05 else
                           {rng.randrange(n) for _ in range(rng.randint(1, 3))} if roll < 0.3 else set())
                assert heap.take_one(holders) == ref.take_one(holders)
            assert len(heap) == len(ref.queue)
        tasks = ref.tasks


def test_a_level_queue_replays_recorded_rounds() -> None:
    rounds: dict[int, Round] = {}
    heap = LoadHeap([0] * 7, [1] * 7, rounds)
    # Java's order for 7 equal processes: the last one moves to the root after the first poll
    assert heap.take(7) == [0, 6, 1, 3, 4, 2, 5]
    assert (rounds[7].order, rounds[7].final) == ([0, 6, 1, 3, 4, 2, 5], [2, 1, 4, 0, 6, 3, 5])
    assert heap.replaying
    assert heap.take(14) == [2, 5, 1, 0, 6, 4, 3, 4, 3, 1, 2, 5, 6, 0]
    assert heap.take(14) == Reference([0] * 7, [1] * 7).take(35)[21:]
