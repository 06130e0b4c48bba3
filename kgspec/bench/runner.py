"""Run assignors over benchmark points: CPU time per call and the quality of the result.

Each call is timed on its own with ``time.process_time_ns`` (CPU time: the shared machine's other
jobs do not count). Warm-up calls run first and are not counted. The input is built once per
(point, assignor), untimed; INCREMENTAL inputs come from the assignor's own FULL result over M-1
members, as in Kafka's JMH setups.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgspec.model.assignors import PartitionAssignorError
from kgspec.model.streams.assignor import TaskAssignorError

from .grid import JAVA_MS, Point
from .quality import Quality, consumer_quality, streams_quality
from .scenarios import ConsumerInput, StreamsInput, timed_call


@dataclass(frozen=True, slots=True)
class Timing:
    warmup: int = 3
    calls: int = 20
    max_seconds: float = 5.0  # per (point, assignor) for the timed calls; at least `min_calls`
    min_calls: int = 5


@dataclass(slots=True)
class Measurement:
    point: Point
    assignor: str
    times_ms: list[float] = field(default_factory=list)
    quality: Quality | None = None
    error: str | None = None
    baseline_ratio: float | None = None  # median / the first assignor's median at this point

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    def quantile_ms(self, q: float) -> float | None:
        if not self.times_ms:
            return None
        ordered = sorted(self.times_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    @property
    def java_ms(self) -> float | None:
        return JAVA_MS.get((self.point, self.assignor))

    @property
    def ok(self) -> bool:
        return self.error is None and self.quality is not None and self.quality.valid

    def to_json(self) -> dict[str, Any]:
        median = self.median_ms
        java = self.java_ms
        out: dict[str, Any] = {"point": self.point.to_json(), "label": self.point.label, "assignor": self.assignor}
        if self.error is not None:
            out["error"] = self.error
        if self.times_ms:
            out["time"] = {"medianMs": _r(median), "p10Ms": _r(self.quantile_ms(0.1)),
                           "p90Ms": _r(self.quantile_ms(0.9)), "minMs": _r(min(self.times_ms)),
                           "maxMs": _r(max(self.times_ms)), "calls": len(self.times_ms),
                           "perCallMs": [_r(t) for t in self.times_ms]}
        if self.baseline_ratio is not None:
            out["ratioToFirst"] = _r(self.baseline_ratio)
        if java is not None and median is not None:
            out["javaMs"] = java
            out["ratioToJava"] = _r(median / java)
        if self.quality is not None:
            out["quality"] = self.quality.to_json()
        return out


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def applicable(point: Point, assignor: Any) -> bool:
    """Consumer assignors run consumer and target points, task assignors streams points."""
    method = "assign_tasks" if point.kind == "streams" else "assign"
    return callable(getattr(assignor, method, None))


def measure(point: Point, name: str, assignor: Any, timing: Timing) -> Measurement:
    out = Measurement(point, name)
    try:
        call, data = timed_call(point, assignor)
        out.quality = _quality(point, assignor, data)
        for _ in range(timing.warmup):
            call()
        gc.collect()
        spent = 0
        budget = int(timing.max_seconds * 1e9)
        clock = time.process_time_ns
        while len(out.times_ms) < timing.calls and (spent < budget or len(out.times_ms) < timing.min_calls):
            start = clock()
            call()
            took = clock() - start
            spent += took
            out.times_ms.append(took / 1e6)
    except (PartitionAssignorError, TaskAssignorError) as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a user's assignor may fail any way: report it, go on
        out.error = f"{type(exc).__name__}: {exc}"
    return out


def _quality(point: Point, assignor: Any, data: ConsumerInput | StreamsInput) -> Quality:
    if isinstance(data, StreamsInput):
        return streams_quality(data, assignor.assign_tasks(data.spec), point.incremental)
    return consumer_quality(data, assignor.assign(data.spec, data.topics), point.incremental, point.racks)


def run_bench(points: Sequence[Point], assignors: Sequence[tuple[str, Any]], timing: Timing,
              progress: Callable[[Measurement], None] | None = None) -> list[Measurement]:
    """Every applicable (point, assignor), points outermost; ratios to the first assignor run."""
    results: list[Measurement] = []
    for point in points:
        here = [measure(point, name, a, timing) for name, a in assignors if applicable(point, a)]
        base = next((m.median_ms for m in here if m.median_ms), None)
        for m in here:
            if base and m.median_ms is not None:
                m.baseline_ratio = m.median_ms / base
            if progress is not None:
                progress(m)
        results.extend(here)
    return results
