"""Java orderings of topic ids that Kafka's assignors depend on.

Kafka compares ``Uuid`` objects as two signed 64-bit longs, and the homogeneous
uniform builder walks topics in the iteration order of a ``java.util.HashSet<Uuid>``.
Reproducing both lets the model hit Kafka's own golden assignments exactly.

Topic ids are printed Kafka UUIDs (22 URL-safe base64 characters). Other strings
(handy in hand-written tests) fall back to Java's ``String.hashCode`` and sort
after no UUID in particular: they get the UUID bits ``(0, 0)`` and tie-break on text.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from functools import lru_cache

from kgspec.model.hashing import to_signed64
from kgspec.model.javaorder import (
    bucket_index,
    hashset_copy_capacity,
    java_string_hash,
    to_signed32,
)

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


@lru_cache(maxsize=1 << 16)
def uuid_bits(topic_id: str) -> tuple[int, int] | None:
    """(mostSignificantBits, leastSignificantBits) as signed longs, or None if not a UUID."""
    if len(topic_id) != 22:
        return None
    try:
        raw = base64.urlsafe_b64decode(topic_id + "==")
    except (binascii.Error, ValueError):
        return None
    if len(raw) != 16:
        return None
    return (to_signed64(int.from_bytes(raw[:8], "big")), to_signed64(int.from_bytes(raw[8:], "big")))


@lru_cache(maxsize=1 << 16)
def uuid_compare_key(topic_id: str) -> tuple[int, int, str]:
    """Sort key equal to Kafka's ``Uuid.compareTo`` for UUID strings."""
    bits = uuid_bits(topic_id)
    msb, lsb = bits if bits is not None else (0, 0)
    return (msb, lsb, topic_id)


@lru_cache(maxsize=1 << 16)
def java_hash(topic_id: str) -> int:
    """``Uuid.hashCode`` (or ``String.hashCode`` for non-UUID ids) as a signed int."""
    bits = uuid_bits(topic_id)
    if bits is not None:
        xor = (bits[0] ^ bits[1]) & _MASK64
        return to_signed32((xor >> 32) ^ xor)
    return to_signed32(java_string_hash(topic_id))


def java_hash_set_order(topic_ids: Iterable[str]) -> list[str]:
    """Topic ids in the iteration order of ``new HashSet<>(topicIds)`` in Java.

    Exact whenever no two ids share a bucket; within a shared bucket Java keeps
    insertion order (unknowable here), so the model breaks the tie by Uuid order.
    """
    ids = list(dict.fromkeys(topic_ids))
    capacity = hashset_copy_capacity(len(ids))

    def bucket_then_uuid(topic_id: str) -> tuple[int, int, int, str]:
        return (bucket_index(java_hash(topic_id) & _MASK32, capacity), *uuid_compare_key(topic_id))

    return sorted(ids, key=bucket_then_uuid)
