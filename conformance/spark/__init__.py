"""``kgspec conform``: conformance checking at scale on Spark.

:mod:`.parse`, :mod:`.replay` and :mod:`.sampling` are plain Python (the per-line
parsing, the per-group replay and the sampling decision); :mod:`.pipeline` wires them
into Spark and imports pyspark lazily, so importing this package needs no JVM.
"""

from __future__ import annotations

from .pipeline import ConformOptions, ConformResult, run_conform
from .sampling import group_hash, keep

__all__ = ["ConformOptions", "ConformResult", "group_hash", "keep", "run_conform"]
