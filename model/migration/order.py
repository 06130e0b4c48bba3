"""Iteration orders of the Java collections the migration paths walk.

- ``ConsumerGroup.members()`` is a ``TimelineHashMap`` (``timeline/BaseHashTable``): slot =
  Fibonacci hash of ``String.hashCode`` (top bits), capacity 2 doubling when
  ``(size + 1) * 0.75 > capacity``; colliding keys keep insertion order. The conversion records
  and the classic group built on a downgrade (its leader is the first member) follow it. The
  model orders the current members as a freshly built table would (capacity never shrinks in
  Java, so a table that once held more members may differ; records are compared within a run).
- assignments serialized by the coordinator walk a ``HashMap<Uuid, Set<Integer>>``: topics by
  ``Uuid.hashCode``, partitions in ``HashSet<Integer>`` order (``model/javaorder.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from kgspec.model.javaorder import java_string_hash, to_signed32

_MASK64 = (1 << 64) - 1
_FIBONACCI = -7046029254386353131 & _MASK64


def timeline_capacity(size: int) -> int:
    capacity = 2
    for n in range(1, size + 1):
        if n * 0.75 > capacity:
            capacity *= 2
    return capacity


def timeline_order(keys: Iterable[str]) -> list[str]:
    """The order a ``TimelineHashMap<String, _>`` filled with ``keys`` iterates them."""
    unique = list(dict.fromkeys(keys))
    capacity = timeline_capacity(len(unique))
    shift = 65 - capacity.bit_length()  # 65 - log2size, log2size = 32 - numberOfLeadingZeros(capacity)

    def slot(key: str) -> int:
        return ((to_signed32(java_string_hash(key)) * _FIBONACCI) & _MASK64) >> shift

    return sorted(unique, key=slot)
