"""Java collection orders that leak into Kafka's observable behaviour.

Kafka collects members, topics and subtopology ids in ``HashMap``/``HashSet`` and breaks ties
in ``java.util.PriorityQueue`` by heap position. Where that order reaches a record, a response,
a status text or an assignment (the uniform assignor's member walk, target-assignment records,
streams topology configuration and task assignment), the model reproduces it with these helpers
instead of Python's insertion order, so outputs match Kafka's exactly instead of merely "validly".

A ``HashMap`` iterates bucket by bucket; a key's bucket is ``spread(hashCode) & (capacity-1)``
with ``spread(h) = h ^ (h >>> 16)``; the capacity starts at 16 (or ``tableSizeFor`` of the
constructor's initial capacity) and doubles whenever the size exceeds 0.75 × capacity. Within a
bucket, keys keep insertion order (a resize splits buckets preserving relative order). Buckets of
8+ colliding keys turn into trees in Java (tables >= 64); with UUID-like member ids that
practically never happens, and this module does not model it. The streams helpers were checked
against a JVM (300 random HashMap cases, 300 PriorityQueue op sequences).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")

_MASK32 = 0xFFFFFFFF


# Memo of java_string_hash: the same member ids are ordered at every target computation
# (issue #19). A plain str -> int dict (the garbage collector does not walk it, unlike an
# lru_cache's nodes), emptied when full.
_HASHES: dict[str, int] = {}
_HASHES_MAX = 1 << 17


def java_string_hash(s: str) -> int:
    """``String.hashCode()`` over UTF-16 code units, as an unsigned 32-bit value."""
    h = _HASHES.get(s)
    if h is not None:
        return h
    h = _string_hash(s)
    if len(_HASHES) >= _HASHES_MAX:
        _HASHES.clear()
    _HASHES[s] = h
    return h


def _string_hash(s: str) -> int:
    h = 0
    if s.isascii():
        for ch in s:
            h = (31 * h + ord(ch)) & _MASK32
        return h
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK32
    return h


def to_signed32(h: int) -> int:
    """The low 32 bits of ``h`` as a Java ``int``."""
    h &= _MASK32
    return h - (1 << 32) if h >> 31 else h


def java_str_key(s: str) -> str:
    """A key whose Python ordering equals ``String.compareTo`` (UTF-16 code-unit order)."""
    if s.isascii() or max(s) < "\ud800":
        return s
    data = s.encode("utf-16-be", "surrogatepass")
    return "".join(chr((data[i] << 8) | data[i + 1]) for i in range(0, len(data), 2))


def bucket_index(h: int, capacity: int) -> int:
    """The bucket of a key whose ``hashCode`` is ``h`` (unsigned 32-bit) in a table of ``capacity``."""
    return (h ^ (h >> 16)) & (capacity - 1)


def hashmap_capacity(size: int, initial_capacity: int | None = None) -> int:
    """Table size of a ``HashMap`` holding ``size`` keys (``initial_capacity``: the constructor's
    argument, rounded up to a power of two as ``tableSizeFor``; None = the default 16)."""
    capacity = 16
    if initial_capacity is not None:
        capacity = 1
        while capacity < initial_capacity:
            capacity <<= 1
    while size > capacity * 3 // 4:
        capacity <<= 1
    return capacity


def hashset_copy_capacity(size: int) -> int:
    """Table size of ``new HashSet<>(collection)`` of ``size`` elements: sized for
    ``max(size / .75f + 1, 16)``, so adding them never resizes it."""
    return hashmap_capacity(size, max(int(size / 0.75) + 1, 16))


def java_hashmap_order(keys: Iterable[str], initial_capacity: int | None = None) -> list[str]:
    """Iteration order of a fresh ``HashMap<String, ?>`` (or ``HashSet``) after inserting ``keys``.

    ``initial_capacity`` is the constructor argument (``None`` = default table of 16).
    Duplicates keep their first position. Removals after insertion do not change the
    order of the survivors, so callers filter the result.
    """
    unique = list(dict.fromkeys(keys))
    capacity = hashmap_capacity(len(unique), initial_capacity)
    # sorted() is stable: keys in one bucket stay in insertion order, as in Java's bins.
    return sorted(unique, key=lambda k: bucket_index(java_string_hash(k), capacity))


def java_compute_if_absent_order(calls: Iterable[str], initial_capacity: int | None = None) -> list[str]:
    """Iteration order of a fresh ``HashMap<String, ?>`` filled by ``computeIfAbsent(key, ...)`` calls.

    Unlike ``put``, ``HashMap.computeIfAbsent`` resizes *before* looking the key up, and only when
    ``size > threshold`` (so the table can end one entry over its threshold, or grow on a call for
    a key already present), and links a new key at the *head* of its bin. ``calls`` lists every
    call, repeats included: a repeat can still trigger the pending resize.
    """
    table: list[list[str]] | None = None
    threshold = hashmap_capacity(0, initial_capacity) if initial_capacity is not None else 0
    size = 0
    for key in calls:
        if table is None or size > threshold:
            table, threshold = _resize(table, threshold)
        h = java_string_hash(key)
        bucket = table[bucket_index(h, len(table))]
        if key not in bucket:
            bucket.insert(0, key)
            size += 1
    return [k for bucket in table or [] for k in bucket]


def _resize(table: list[list[str]] | None, threshold: int) -> tuple[list[list[str]], int]:
    """``HashMap.resize``: the first table takes the constructor's size (or 16), then doubles;
    a split keeps each bin's relative order."""
    if table is None:
        capacity = threshold if threshold > 0 else 16
    else:
        capacity = len(table) * 2
    new: list[list[str]] = [[] for _ in range(capacity)]
    for bucket in table or []:
        for key in bucket:
            new[bucket_index(java_string_hash(key), capacity)].append(key)
    return new, int(capacity * 0.75)


_MASK64 = (1 << 64) - 1
_FIBONACCI = -7046029254386353131 & _MASK64


def timeline_capacity(peak_size: int) -> int:
    """Slots of a ``TimelineHashMap`` created with expected size 0 (``BaseHashTable``: 2, doubled
    whenever ``(size + 1) * 0.75 > capacity``) after holding ``peak_size`` keys; it never shrinks."""
    capacity = 2
    for n in range(1, peak_size + 1):
        if n * 0.75 > capacity:
            capacity *= 2
    return capacity


def timeline_order(keys: Iterable[str], peak_size: int | None = None) -> list[str]:
    """Iteration order of a ``TimelineHashMap<String, _>`` (``SnapshottableHashTable.CurrentIterator``).

    ``keys`` in insertion order; ``peak_size`` the largest ``size + 1`` any ``put`` saw (Kafka's
    ``baseAddOrReplace`` grows the table before looking the key up, so replacing a key grows it as
    adding one would; it never shrinks).
    A key's slot is the top bits of ``hashCode * -7046029254386353131`` (Fibonacci hashing); a slot's
    colliding keys sit in insertion order (a rehash keeps it) and the iterator takes them from the
    *end*, so they come out last-inserted first.
    """
    unique = list(dict.fromkeys(keys))
    capacity = timeline_capacity(max(peak_size or 0, len(unique)))
    shift = 65 - capacity.bit_length()

    def slot(key: str) -> int:
        return ((to_signed32(java_string_hash(key)) * _FIBONACCI) & _MASK64) >> shift

    return [k for _, k in sorted(((slot(k), -i), k) for i, k in enumerate(unique))]


_UUID_HASHES: dict[str, int | None] = {}  # memo of _uuid_hash: records order the same topics again and again


def _uuid_hash(topic_id: str) -> int | None:
    """``Uuid.hashCode`` of a Kafka base64 topic id; None when the id is not one."""
    if topic_id in _UUID_HASHES:
        return _UUID_HASHES[topic_id]
    h = _decoded_uuid_hash(topic_id)
    if len(_UUID_HASHES) >= _HASHES_MAX:
        _UUID_HASHES.clear()
    _UUID_HASHES[topic_id] = h
    return h


def _decoded_uuid_hash(topic_id: str) -> int | None:
    try:
        raw = base64.urlsafe_b64decode(topic_id + "=" * (-len(topic_id) % 4))
    except (binascii.Error, ValueError):
        return None
    if len(raw) != 16:
        return None
    msb, lsb = int.from_bytes(raw[:8], "big"), int.from_bytes(raw[8:], "big")
    xor = msb ^ lsb
    return ((xor >> 32) ^ xor) & 0xFFFFFFFF


def uuid_hashmap_order(topic_ids: Iterable[str]) -> list[str]:
    """``HashMap<Uuid, _>`` order; ids that are not Kafka Uuids go last, sorted (a model choice)."""
    ids = list(dict.fromkeys(topic_ids))
    capacity = hashmap_capacity(len(ids))
    known: list[tuple[str, int]] = []
    unknown: list[str] = []
    for t in ids:
        h = _uuid_hash(t)
        if h is None:
            unknown.append(t)
        else:
            known.append((t, h))
    known.sort(key=lambda th: bucket_index(th[1], capacity))
    return [t for t, _ in known] + sorted(unknown)


def int_hashset_order(values: Iterable[int]) -> list[int]:
    """``new HashSet<>(collection)`` of partition numbers: by bucket, then value."""
    vals = sorted(set(values))
    capacity = hashset_copy_capacity(len(vals))
    return sorted(vals, key=lambda v: bucket_index(v, capacity))


def topic_order(topic_ids: Iterable[str]) -> list[str]:
    """The order Kafka lists a ``HashMap<Uuid, Set<Integer>>`` assignment's topics in (records 7
    and 8, heartbeat responses). Ties within a bucket follow insertion order in Java, which the
    model does not track: sorting first makes them deterministic whatever Python's hash seed."""
    ids = sorted(topic_ids)
    if len(ids) < 2:  # most assignments hold one topic: no order to compute
        return ids
    return uuid_hashmap_order(ids)


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


# ``java.util.PriorityQueue`` over small ints (member or process numbers) compared by
# ``key[x]``: the same sift steps as JavaPriorityQueue (so the same winner among equal keys),
# without a Python comparison call per step. The caller changes ``key[x]`` only while ``x`` is
# out of the queue (between a poll and the next offer), as Kafka's assignors do.

def pq_offer(heap: list[int], key: list[float] | list[int], x: int) -> None:
    """``offer(x)``: append, then ``siftUpUsingComparator``."""
    heap.append(x)
    k = len(heap) - 1
    kx = key[x]
    while k > 0:
        parent = (k - 1) >> 1
        e = heap[parent]
        if kx >= key[e]:
            break
        heap[k] = e
        k = parent
    heap[k] = x


def pq_poll(heap: list[int], key: list[float] | list[int]) -> int:
    """``poll()`` of a non-empty queue: the last element moves to the root and sifts down,
    taking the right child only when it is strictly smaller than the left one."""
    result = heap[0]
    last = heap.pop()
    n = len(heap)
    if n:
        kx = key[last]
        k = 0
        half = n >> 1
        while k < half:
            c = 2 * k + 1
            e = heap[c]
            ke = key[e]
            if c + 1 < n:
                f = heap[c + 1]
                kf = key[f]
                if ke > kf:
                    c, e, ke = c + 1, f, kf
            if kx <= ke:
                break
            heap[k] = e
            k = c
        heap[k] = last
    return result
