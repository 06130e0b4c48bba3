"""Deterministic sampling of whole groups for ``kgspec conform``.

A group is kept when ``pmod(xxhash64(seed, groupId), 1_000_000) < fraction * 1_000_000``,
where ``xxhash64`` is Spark's (seed as a 32-bit int column, then the group id as a UTF-8
string, chained from Spark's default seed 42). The decision depends on the seed and the
group id only: the same seed keeps the same groups whatever the partitioning, the file
layout or the number of executors, and a group is kept or dropped whole (every file,
every event). :func:`group_hash` computes the same value in Python (checked by the tests).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Final

import xxhash

BUCKETS: Final = 1_000_000
SPARK_HASH_SEED: Final = 42


def group_hash(seed: int, group_id: str) -> int:
    """Spark's ``xxhash64(lit(seed), group_id)`` (a signed 64-bit value)."""
    h = xxhash.xxh64_intdigest(struct.pack("<i", seed), seed=SPARK_HASH_SEED)
    h = xxhash.xxh64_intdigest(group_id.encode("utf-8"), seed=h)
    return h - (1 << 64) if h >= 1 << 63 else h


def threshold(fraction: float) -> int:
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"a fraction must be between 0 and 1, not {fraction}")
    return round(fraction * BUCKETS)


def keep(seed: int, group_id: str, fraction: float) -> bool:
    return group_hash(seed, group_id) % BUCKETS < threshold(fraction)


def validate_seed(seed: int) -> int:
    if not 0 <= seed < 1 << 31:
        raise ValueError(f"--seed must be between 0 and {(1 << 31) - 1}, not {seed}")
    return seed


def spark_keep(group_col: Any, type_col: Any, seed: int, fraction: float,
               fractions: Mapping[str, float]) -> Any:
    """The Spark column expression of :func:`keep` with per-type fractions (lazy pyspark import)."""
    from pyspark.sql import functions as F

    bucket = F.pmod(F.xxhash64(F.lit(seed).cast("int"), group_col), F.lit(BUCKETS))
    limit = F.lit(threshold(fraction))
    for gtype, frac in sorted(fractions.items()):
        limit = F.when(type_col == gtype, F.lit(threshold(frac))).otherwise(limit)
    return bucket < limit
