"""Progress bars (issue #18): on standard error, only on a terminal (KGSPEC_PROGRESS=1 stands in
for one here), honouring NO_COLOR; and ``fuzz --budget`` keeping its budget."""

from __future__ import annotations

import io
import re
import types
from pathlib import Path
from typing import Any

import hypothesis
import pytest

from kgspec.cli import main
from kgspec.commands import check as check_command
from kgspec.sim import machine
from tests.report.test_findings_human import INCIDENT

_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _frames(err: str) -> list[str]:
    """The bar's successive renderings, escapes removed."""
    return [f for f in (_ESCAPES.sub("", part).strip() for part in re.split(r"[\r\n]", err)) if f]


def test_check_shows_bytes_rate_and_eta_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KGSPEC_PROGRESS", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(check_command, "PROGRESS_BYTES", 0)  # the example is small: draw it anyway
    assert main(["check", "-q", str(INCIDENT)]) == 1
    captured = capsys.readouterr()
    frames = _frames(captured.err)
    assert frames[0].startswith("checking")
    assert "0.0/118.1 kB" in frames[0]
    assert any("118.1/118.1 kB" in f for f in frames)  # every byte read, then cleared (transient)
    assert not re.search(r"\x1b\[[0-9;]*3\dm", captured.err)  # NO_COLOR: no colour, only cursor moves
    assert captured.out == "1 trace(s), 116 line(s), 3 group(s): 2 conform, 1 diverge, 0 incomplete; 2 finding(s)\n"


def test_no_bar_when_standard_error_is_no_terminal(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("KGSPEC_PROGRESS", raising=False)
    monkeypatch.setattr(check_command, "PROGRESS_BYTES", 0)
    assert main(["check", "-q", str(INCIDENT)]) == 1
    assert capsys.readouterr().err == ""


def test_simulate_shows_simulated_time(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    monkeypatch.setenv("KGSPEC_PROGRESS", "1")
    assert main(["simulate", "--groups", "2", "--duration-ms", "20000", "-o", str(tmp_path / "s.jsonl")]) == 0
    frames = _frames(capsys.readouterr().err)
    assert any(f.startswith("simulating") and "20000/20000" in f and "simulated ms/s" in f for f in frames)


def test_fuzz_budget_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Examples that take 0.1 s each (a fake clock) and a 5 s budget on the nightly profile: a
    batch of 30 (3 s), then one cut to the 20 that fit (2 s): 5 s, not a 2000-example batch after it."""
    clock = [0.0]
    batches: list[int] = []

    def fake_test(machine_class: Any, settings: hypothesis.settings) -> Any:
        def run() -> None:
            batches.append(settings.max_examples)
            clock[0] += 0.1 * settings.max_examples
        return run

    monkeypatch.setattr(machine, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    monkeypatch.setattr(machine, "get_state_machine_test", fake_test)
    moved: list[tuple[float, int]] = []
    result = machine.run_fuzz(seed=0, budget_s=5.0, hypothesis_profile="nightly",
                              progress=lambda elapsed, n: moved.append((round(elapsed, 6), n)))
    assert batches == [30, 20]
    assert round(result.elapsed_s, 6) == 5.0
    assert moved == [(3.0, 1), (5.0, 2)]  # the bar moves at every batch


def test_conform_bar_follows_sparks_running_stages() -> None:
    from rich.console import Console

    from kgspec.commands.progress import SparkStages, bar

    class Info(types.SimpleNamespace):
        pass

    class Tracker:
        def __init__(self) -> None:
            self.stages = {3: Info(numTasks=8, numCompletedTasks=5), 4: Info(numTasks=2, numCompletedTasks=0)}

        def getActiveStageIds(self) -> list[int]:
            return list(self.stages)

        def getStageInfo(self, stage: int) -> Info | None:
            return self.stages.get(stage)

    out = io.StringIO()
    with bar("conform", None, "tasks", console=Console(file=out, force_terminal=True, width=100), show=True,
             extra="") as meter:
        SparkStages(Tracker(), meter).poll()
        assert meter.progress is not None
        task = meter.progress.tasks[0]
        assert (task.completed, task.total, task.fields["extra"]) == (5, 10, "stage 3, 4")
