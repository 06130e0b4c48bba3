"""``kgspec bench``: assignors over Kafka's JMH matrices, timed and judged (docs/assignors.md).

Importable after install: ``from kgspec.bench import grids, run_bench, Timing``.
"""

from kgspec.bench.grid import JAVA_MS, Point, grids, parse_point
from kgspec.bench.runner import Measurement, Timing, measure, run_bench

__all__ = ["JAVA_MS", "Measurement", "Point", "Timing", "grids", "measure", "parse_point", "run_bench"]
