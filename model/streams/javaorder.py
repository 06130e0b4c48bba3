"""Java collection orders that leak into Kafka's observable streams behaviour.

Kafka iterates ``HashMap``/``HashSet`` of topic names and subtopology ids, and breaks
ties in ``java.util.PriorityQueue`` by heap position. Where that order reaches a status
text, a derived partition count or an assignment, the model reproduces it with these
helpers instead of Python's insertion order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")

_INT_MASK = 0xFFFFFFFF


def java_string_hash(s: str) -> int:
    """``String.hashCode()`` over UTF-16 code units, as an unsigned 32-bit value."""
    h = 0
    if s.isascii():
        for ch in s:
            h = (31 * h + ord(ch)) & _INT_MASK
        return h
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & _INT_MASK
    return h


def java_str_key(s: str) -> str:
    """A key whose Python ordering equals ``String.compareTo`` (UTF-16 code-unit order)."""
    if s.isascii() or max(s) < "\ud800":
        return s
    data = s.encode("utf-16-be", "surrogatepass")
    return "".join(chr((data[i] << 8) | data[i + 1]) for i in range(0, len(data), 2))


def _table_size_for(cap: int) -> int:
    n = 1
    while n < cap:
        n <<= 1
    return n


def java_hashmap_order(keys: Iterable[str], initial_capacity: int | None = None) -> list[str]:
    """Iteration order of a ``HashMap<String, ?>`` (or ``HashSet``) after inserting ``keys``.

    ``initial_capacity`` is the constructor argument (``None`` = default table of 16).
    Duplicates keep their first position. Removals after insertion do not change the
    order of the survivors, so callers filter the result. Bins with 8+ colliding keys
    (treeified bins, tables >= 64) are not modelled: their order would differ.
    """
    seen: dict[str, None] = dict.fromkeys(keys)
    cap = 16 if initial_capacity is None else _table_size_for(initial_capacity)
    while len(seen) > int(cap * 0.75):
        cap <<= 1
    mask = cap - 1

    def bucket(k: str) -> int:
        h = java_string_hash(k)
        return (h ^ (h >> 16)) & mask

    # sorted() is stable: keys in one bucket stay in insertion order, as in Java's bins.
    return sorted(seen, key=bucket)


class JavaPriorityQueue(Generic[T]):
    """``java.util.PriorityQueue`` with a comparator: same sift steps, hence the same ties."""

    __slots__ = ("_cmp", "_queue")

    def __init__(self, cmp: Callable[[T, T], int], items: Iterable[T] = ()) -> None:
        self._cmp = cmp
        self._queue: list[T] = []
        for item in items:  # AbstractQueue.addAll: one offer per element
            self.add(item)

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, item: T) -> None:
        q = self._queue
        q.append(item)
        k = len(q) - 1
        cmp = self._cmp
        while k > 0:
            parent = (k - 1) >> 1
            e = q[parent]
            if cmp(item, e) >= 0:
                break
            q[k] = e
            k = parent
        q[k] = item

    def poll(self) -> T | None:
        q = self._queue
        if not q:
            return None
        result = q[0]
        last = q.pop()
        n = len(q)
        if n > 0:
            cmp = self._cmp
            k = 0
            half = n >> 1
            while k < half:
                child = 2 * k + 1
                c = q[child]
                right = child + 1
                if right < n and cmp(c, q[right]) > 0:
                    child = right
                    c = q[child]
                if cmp(last, c) <= 0:
                    break
                q[k] = c
                k = child
            q[k] = last
        return result
