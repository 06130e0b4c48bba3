"""Java ``HashMap`` iteration order for string keys.

Kafka's target-assignment builder collects members in a fresh ``HashMap<String, ...>``;
the uniform assignor walks members in that map's order and the target-assignment
records are written in it. Reproducing the order makes the model's records and
uniform assignments match Kafka's exactly instead of merely "validly".

A ``HashMap`` iterates bucket by bucket; a key's bucket is ``spread(hashCode) & (capacity-1)``
with ``spread(h) = h ^ (h >>> 16)``; the capacity starts at 16 and doubles whenever the
size exceeds 0.75 × capacity. Within a bucket, keys keep insertion order (a resize
splits buckets preserving relative order). Buckets of 8+ colliding keys turn into
trees in Java; with UUID-like member ids that practically never happens, and this
module does not model it.
"""

from __future__ import annotations

from collections.abc import Iterable

_MASK32 = 0xFFFFFFFF


def java_string_hash(s: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit value (UTF-16 code units)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK32
    return h


def _spread(h: int) -> int:
    return (h ^ (h >> 16)) & _MASK32


def hashmap_capacity(size: int) -> int:
    capacity = 16
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def java_hashmap_order(keys: Iterable[str]) -> list[str]:
    """The order a ``new HashMap<>()`` filled with ``keys`` (in this order) iterates them."""
    unique = list(dict.fromkeys(keys))
    mask = hashmap_capacity(len(unique)) - 1
    # sorted() is stable, so keys sharing a bucket keep insertion order.
    return sorted(unique, key=lambda k: _spread(java_string_hash(k)) & mask)
