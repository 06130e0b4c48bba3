"""Shared pieces of the tests that run a reader's fast path and its general path on the same input."""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO


def item_reprs(reader: Callable[..., Iterable[Any]], text: bytes, **options: Any) -> list[str]:
    """The items ``reader`` reads from ``text``, compared by ``repr`` (types included)."""
    stream: BinaryIO = io.BytesIO(text)
    return [repr(item) for item in reader(stream, **options)]


def mutated(rng: random.Random, line: bytes, edits: int, flips: bytes, inserts: bytes) -> bytes:
    """``line`` with ``edits`` random edits: a byte replaced by one of ``flips``, dropped, or one of
    ``inserts`` inserted, each at a random place."""
    changed = bytearray(line)
    for _ in range(edits):
        at = rng.randrange(len(changed))
        op = rng.randrange(3)
        if op == 0:
            changed[at] = rng.choice(flips)
        elif op == 1:
            del changed[at]
        else:
            changed.insert(at, rng.choice(inserts))
    return bytes(changed)
