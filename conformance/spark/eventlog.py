"""Where a ``kgspec conform`` run's seconds went, from Spark's own event log.

``kgspec conform --event-log DIR`` has Spark write its event log (uncompressed) to ``DIR`` and
prints this module's summary after the run: per stage, its tasks, its wall time, the time its
tasks ran (summed over tasks; run / wall = how many task slots it kept busy), the task threads'
JVM CPU time and garbage collection, and the Python workers' start, initialisation and
execution times, as Spark's ``mapInArrow`` metrics count them. A worker's initialisation runs
from its start until it has unpickled the stage's function (imports included), and it waits
for the task's JVM side to send the function first: behind a shuffle and a sort (the cluster
events, the replay) that is the task's shuffle read and sort, JVM work, not Python's. Between stages, the driver works alone (planning a query,
pickling a function, the Python side's own work): the summary's ``driver`` line is the run's wall
time that no stage covered. Any event log works (``spark.eventLog.dir``, the history server's
files), uncompressed, as a file or a rolling ``eventlog_v2_*`` directory.

No pyspark here: the log is JSON lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

# Spark's SQL metrics of a Python UDF stage (PythonSQLMetrics), in ms, per task
_PYTHON_METRICS: Final = {"time to start Python workers": "py_start",
                          "time to initialize Python workers": "py_init",
                          "time to execute Python code": "py_exec"}


@dataclass(slots=True)
class StageTimes:
    stage: int
    name: str = ""
    tasks: int = 0
    submitted_ms: int | None = None
    completed_ms: int | None = None
    run_ms: int = 0  # Executor Run Time, summed over tasks
    cpu_ns: int = 0  # Executor CPU Time (the task threads in the JVM)
    gc_ms: int = 0
    py_start: int = 0  # ms, summed over tasks
    py_init: int = 0
    py_exec: int = 0

    @property
    def wall_s(self) -> float:
        if self.submitted_ms is None or self.completed_ms is None:
            return 0.0
        return (self.completed_ms - self.submitted_ms) / 1000

    @property
    def busy_slots(self) -> float:
        """Task slots kept busy on average: task run time over the stage's wall time."""
        return self.run_ms / 1000 / self.wall_s if self.wall_s else 0.0


@dataclass(slots=True)
class RunTimes:
    app_start_ms: int | None = None
    app_end_ms: int | None = None
    stages: dict[int, StageTimes] = field(default_factory=dict)

    @property
    def wall_s(self) -> float:
        if self.app_start_ms is None or self.app_end_ms is None:
            return 0.0
        return (self.app_end_ms - self.app_start_ms) / 1000

    def stage_cover_s(self) -> float:
        """Seconds during which at least one stage ran (overlapping stages counted once)."""
        spans = sorted((s.submitted_ms, s.completed_ms) for s in self.stages.values()
                       if s.submitted_ms is not None and s.completed_ms is not None)
        covered, end = 0, None
        for start, stop in spans:
            if end is None or start > end:
                covered += stop - start
                end = stop
            elif stop > end:
                covered += stop - end
                end = stop
        return covered / 1000


def _stage(run: RunTimes, stage_id: int) -> StageTimes:
    return run.stages.setdefault(stage_id, StageTimes(stage_id))


def read_events(lines: Iterable[str | bytes]) -> RunTimes:
    """The run's times from the event log's JSON lines (other events are ignored)."""
    run = RunTimes()
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            event: dict[str, Any] = json.loads(text)
        except ValueError as exc:  # bad JSON, or not UTF-8 text at all (a compressed log)
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            raise ValueError(f"event log line {number}: not JSON ({reason}); "
                             "is it compressed? (set spark.eventLog.compress=false)") from None
        kind = event.get("Event")
        if kind == "SparkListenerApplicationStart":
            run.app_start_ms = event.get("Timestamp")
        elif kind == "SparkListenerApplicationEnd":
            run.app_end_ms = event.get("Timestamp")
        elif kind in ("SparkListenerStageSubmitted", "SparkListenerStageCompleted"):
            info = event["Stage Info"]
            stage = _stage(run, info["Stage ID"])
            stage.name = info.get("Stage Name", "")
            stage.tasks = info.get("Number of Tasks", 0)
            stage.submitted_ms = info.get("Submission Time", stage.submitted_ms)
            stage.completed_ms = info.get("Completion Time", stage.completed_ms)
        elif kind == "SparkListenerTaskEnd":
            _add_task(_stage(run, event["Stage ID"]), event)
    return run


def _add_task(stage: StageTimes, event: dict[str, Any]) -> None:
    metrics = event.get("Task Metrics") or {}
    stage.run_ms += metrics.get("Executor Run Time", 0)
    stage.cpu_ns += metrics.get("Executor CPU Time", 0)
    stage.gc_ms += metrics.get("JVM GC Time", 0)
    for acc in (event.get("Task Info") or {}).get("Accumulables", []):
        name = _PYTHON_METRICS.get(acc.get("Name", ""))
        if name is not None:
            setattr(stage, name, getattr(stage, name) + int(acc.get("Update", 0)))


def log_files(path: Path) -> list[Path]:
    """The event log files at ``path``: the file itself; a rolling log's ``eventlog_v2_*``
    directory: its ``events_N_*`` parts by N; a directory of logs: the newest application's."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ValueError(f"{path}: no event log there")
    parts = _parts(path)
    if parts:
        return parts
    apps = sorted((p for p in path.iterdir() if not p.name.startswith(".")), key=lambda p: p.stat().st_mtime)
    if not apps:
        raise ValueError(f"{path}: the directory holds no event log")
    newest = apps[-1]
    return [newest] if newest.is_file() else _parts(newest)


def _parts(folder: Path) -> list[Path]:
    """A rolling event log's parts, in order (``events_2_...`` before ``events_10_...``)."""
    parts = [p for p in folder.iterdir() if p.name.startswith("events_") and p.name.split("_")[1].isdigit()]
    return sorted(parts, key=lambda p: int(p.name.split("_")[1]))


def read_log(path: Path) -> RunTimes:
    def lines() -> Iterator[bytes]:
        for file in log_files(path):
            with open(file, "rb") as fh:
                yield from fh
    return read_events(lines())


def format_times(run: RunTimes) -> str:
    """A table of the run's stages, then where the wall time went."""
    head = (f"{'stage':>5} {'before':>7} {'tasks':>5} {'wall s':>7} {'busy':>5} {'task s':>7} {'jvm cpu':>7} "
            f"{'gc':>5} {'py start':>8} {'py init':>7} {'py exec':>7}  call site")
    out = [head]
    last = run.app_start_ms
    for s in sorted(run.stages.values(), key=lambda s: s.stage):
        # before: the driver's time alone since the last stage ended (or the application started)
        before = (s.submitted_ms - last) / 1000 if s.submitted_ms is not None and last is not None else 0.0
        if s.completed_ms is not None:
            last = s.completed_ms if last is None else max(last, s.completed_ms)
        out.append(f"{s.stage:>5} {max(before, 0.0):>7.2f} {s.tasks:>5} {s.wall_s:>7.2f} {s.busy_slots:>5.2f} "
                   f"{s.run_ms / 1000:>7.2f} {s.cpu_ns / 1e9:>7.2f} {s.gc_ms / 1000:>5.2f} {s.py_start / 1000:>8.2f} "
                   f"{s.py_init / 1000:>7.2f} {s.py_exec / 1000:>7.2f}  {_short(s.name)}")
    if last is not None and run.app_end_ms is not None:
        out.append(f"after the last stage: {(run.app_end_ms - last) / 1000:.2f} s")
    covered = run.stage_cover_s()
    out.append(f"application {run.wall_s:.2f} s: stages {covered:.2f} s, "
               f"driver alone (between and around stages) {max(run.wall_s - covered, 0.0):.2f} s")
    return "\n".join(out)


def _short(name: str) -> str:
    """``collect at /path/to/conformance/spark/pipeline.py:552`` -> ``collect at pipeline.py:552``."""
    action, sep, where = name.partition(" at ")
    return f"{action}{sep}{where.rsplit('/', 1)[-1]}" if sep else name
