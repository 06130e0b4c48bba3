"""Progress bars for long work (``check``/``conform`` on large inputs, ``fuzz``, ``simulate``, ``prove``).

A bar is drawn with rich on standard error, only when standard error is a terminal, and cleared
when the work ends: output that goes to a file or a pipe never carries one. Colours follow
``NO_COLOR`` (rich honours it). ``KGSPEC_PROGRESS=0`` switches bars off, ``=1`` on even without a
terminal (for tests and for logs of CI runs that want them). Each bar shows what is done (bytes
or steps) of the total when known, the rate and the time left.

When standard output is the same terminal, what the command prints while the bar is up goes
through rich's console (``redirect_stdout``), above the bar, so lines and bar do not overwrite
each other; when it is a file or a pipe, it is left alone.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, TextIO

from kgspec.conformance.readers.source import Source

if TYPE_CHECKING:  # rich is imported only when a bar is drawn: every `kgspec check` imports this module
    from rich.console import Console
    from rich.progress import Progress, ProgressColumn, Task, TaskID
    from rich.text import Text

BYTES: Final = "bytes"
STEPS: Final = "steps"
SECONDS: Final = "seconds"


def wanted(stream: TextIO | None = None) -> bool:
    """Whether to draw bars on ``stream`` (standard error by default)."""
    forced = os.environ.get("KGSPEC_PROGRESS")
    if forced == "0":
        return False
    if forced == "1":
        return True
    target = stream if stream is not None else sys.stderr
    try:
        return target.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def _step_rate(unit: str) -> ProgressColumn:
    """``1,234 steps/s`` (rich's own speed column speaks in bytes)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class StepRate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} {unit}/s" if speed is not None else f"? {unit}/s")

    return StepRate()


class Bar:
    """One task's bar; ``update``/``advance`` are cheap no-ops when no bar is drawn."""

    def __init__(self, progress: Progress | None, task: TaskID | None) -> None:
        self.progress = progress
        self.task = task

    @property
    def shown(self) -> bool:
        return self.progress is not None

    def update(self, completed: float, total: float | None = None, **fields: object) -> None:
        if self.progress is not None and self.task is not None:
            if total is not None:
                fields["total"] = total
            self.progress.update(self.task, completed=completed, **fields)  # type: ignore[arg-type]

    def advance(self, amount: float = 1) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task, amount)


@contextmanager
def bar(description: str, total: float | None, unit: str = STEPS, *, console: Console | None = None,
        show: bool | None = None, extra: str | None = None) -> Iterator[Bar]:
    """A progress bar for the ``with`` block: ``unit`` is ``bytes``, ``seconds`` or a step name.

    ``console``: where to draw (tests pass their own); ``show``: override :func:`wanted`;
    ``extra``: a task field shown after the bar (``{task.fields[extra]}``), such as a batch count.
    """
    if not (show if show is not None else wanted()):
        yield Bar(None, None)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    forced = os.environ.get("KGSPEC_PROGRESS") == "1"
    out = console or Console(stderr=True, force_terminal=True if forced else None)
    columns: list[ProgressColumn | str] = [TextColumn("{task.description}"), BarColumn()]
    if unit == BYTES:
        columns += [DownloadColumn(), TransferSpeedColumn()]
    elif unit == SECONDS:
        columns += [TextColumn("{task.completed:.0f}/{task.total:.0f} s")]
    else:
        columns += [MofNCompleteColumn(), _step_rate(unit)]
    if extra is not None:
        columns.append(TextColumn("{task.fields[extra]}"))
    columns.append(TimeRemainingColumn())
    same_terminal = _same_terminal(out)
    progress = Progress(*columns, console=out, transient=True, redirect_stdout=same_terminal,
                        redirect_stderr=False)
    with progress:
        task = progress.add_task(description, total=total, extra=extra or "")
        yield Bar(progress, task)


def _same_terminal(console: Console) -> bool:
    """Whether standard output is a terminal too (then printed lines must go above the bar)."""
    try:
        return console.is_terminal and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


class ByteMeter:
    """Moves a bytes bar to what the opened inputs have read (``Source.consumed``); an input
    already closed keeps the count it last had."""

    def __init__(self, bar: Bar, sources: list[Source]) -> None:
        self.bar = bar
        self.sources = sources
        self.last: list[int] = []

    def tick(self) -> None:
        last = self.last
        for i, source in enumerate(self.sources):
            done = source.consumed()
            if i == len(last):
                last.append(0)
            if done is not None:
                last[i] = done
        self.bar.update(sum(last))


class SparkStages:
    """Moves a bar with Spark's tasks (``kgspec conform``): a daemon thread polls the driver's
    status tracker (``getActiveStageIds``, ``getStageInfo``) and shows the completed tasks of the
    stages running now out of theirs, stage by stage. Used as a context manager."""

    def __init__(self, tracker: Any, bar: Bar, interval_s: float = 0.5) -> None:
        self.tracker = tracker
        self.bar = bar
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kgspec-spark-progress", daemon=True)

    def poll(self) -> None:
        ids = sorted(self.tracker.getActiveStageIds())
        infos = [info for info in (self.tracker.getStageInfo(i) for i in ids) if info is not None]
        if not infos:
            return
        done = sum(info.numCompletedTasks for info in infos)
        total = sum(info.numTasks for info in infos)
        self.bar.update(done, total=total, extra=f"stage {', '.join(str(i) for i in ids)}")

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.poll()
            except Exception:  # the driver is stopping or gone: the bar just stops moving
                return

    def __enter__(self) -> SparkStages:
        if self.bar.shown:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
