"""Deterministic member ids: the coordinator's stand-in for Kafka's random UUIDs.

Kafka draws a random UUID for every member it names (``Uuid.randomUuid()`` for consumer and
streams members, ``UUID.randomUUID()`` after the client or instance id for classic ones). Any id
is legal, so the model draws from a seeded source instead: the n-th draw of a coordinator is a
pure function of (seed, n), and the draw count is soft state that only ``commit`` advances. A
trace's own ids are adopted through ``Choices.member_id``.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable

# n (0-based draw index) -> member id
MemberIdSource = Callable[[int], str]

DEFAULT_SEED = "kgspec"


def seeded(seed: str = DEFAULT_SEED) -> MemberIdSource:
    """UUID-4-shaped ids (``8-4-4-4-12`` hex, as ``UUID.toString``) from SHA-256 of (seed, n)."""
    prefix = seed.encode()

    def draw(n: int) -> str:
        digest = hashlib.sha256(prefix + b":" + str(n).encode()).digest()
        return str(uuid.UUID(bytes=digest[:16], version=4))

    return draw
