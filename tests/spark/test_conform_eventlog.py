"""``kgspec conform --event-log``: the per-stage accounting read from Spark's event log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.spark.eventlog import format_times, log_files, read_events, read_log

from kgspec.commands.conform import event_log_confs
from tests.spark.data import FORMATS_DIR


def _stage(kind: str, stage: int, tasks: int, submitted: int, completed: int | None = None) -> dict[str, Any]:
    info: dict[str, Any] = {"Stage ID": stage, "Stage Name": f"collect at /x/conformance/spark/pipeline.py:{stage}",
                            "Number of Tasks": tasks, "Submission Time": submitted}
    if completed is not None:
        info["Completion Time"] = completed
    return {"Event": kind, "Stage Info": info}


def _task(stage: int, run_ms: int, cpu_ns: int, gc_ms: int, py: tuple[int, int, int] | None = None) -> dict[str, Any]:
    acc = [] if py is None else [
        {"ID": 1, "Name": "time to start Python workers", "Update": str(py[0])},
        {"ID": 2, "Name": "time to initialize Python workers", "Update": str(py[1])},
        {"ID": 3, "Name": "time to execute Python code", "Update": str(py[2])},
        {"ID": 4, "Name": "number of output rows", "Update": "99"}]
    return {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Task Info": {"Accumulables": acc},
            "Task Metrics": {"Executor Run Time": run_ms, "Executor CPU Time": cpu_ns, "JVM GC Time": gc_ms}}


EVENTS = [
    {"Event": "SparkListenerApplicationStart", "Timestamp": 1_000},
    _stage("SparkListenerStageSubmitted", 0, 2, 3_000),
    _task(0, 4_000, 1_500_000_000, 200, (300, 700, 2_500)),
    _task(0, 2_000, 500_000_000, 100, (0, 5, 1_500)),
    _stage("SparkListenerStageCompleted", 0, 2, 3_000, 6_000),
    # overlaps stage 2: covered once
    _stage("SparkListenerStageCompleted", 1, 1, 7_000, 8_000),
    _task(1, 500, 100_000_000, 0),
    _stage("SparkListenerStageCompleted", 2, 1, 7_500, 9_000),
    {"Event": "SparkListenerApplicationEnd", "Timestamp": 11_000},
]


def test_event_log_stage_times() -> None:
    run = read_events(json.dumps(e) for e in EVENTS)
    assert run.wall_s == 10.0
    parse = run.stages[0]
    assert (parse.tasks, parse.wall_s, parse.run_ms, parse.cpu_ns, parse.gc_ms) == (2, 3.0, 6_000, 2_000_000_000, 300)
    assert (parse.py_start, parse.py_init, parse.py_exec) == (300, 705, 4_000)
    assert parse.busy_slots == 2.0
    assert run.stages[1].busy_slots == 0.5
    assert run.stage_cover_s() == 5.0  # 3-6 s, then 7-9 s
    text = format_times(run).splitlines()
    assert text[1].split() == ["0", "2.00", "2", "3.00", "2.00", "6.00", "2.00", "0.30", "0.30", "0.70", "4.00",
                               "collect", "at", "pipeline.py:0"]
    assert [line.split()[1] for line in text[2:4]] == ["1.00", "0.00"]  # stage 2 began while 1 ran
    assert text[-2] == "after the last stage: 2.00 s"
    assert text[-1] == "application 10.00 s: stages 5.00 s, driver alone (between and around stages) 5.00 s"


def test_event_log_rolling_directory_and_errors(tmp_path: Path) -> None:
    app = tmp_path / "eventlog_v2_local-1"
    app.mkdir()
    lines = [json.dumps(e) + "\n" for e in EVENTS]
    (app / "appstatus_local-1").write_text("")
    (app / "events_10_local-1").write_text("".join(lines[5:]))
    (app / "events_2_local-1").write_text("".join(lines[:5]))
    assert [p.name for p in log_files(tmp_path)] == ["events_2_local-1", "events_10_local-1"]
    # the application's own directory (what the CLI reads) gives its parts, not its status file
    assert [p.name for p in log_files(app)] == ["events_2_local-1", "events_10_local-1"]
    assert read_log(tmp_path).stage_cover_s() == 5.0
    assert read_log(app / "events_2_local-1").stages[0].run_ms == 6_000
    (app / "events_2_local-1").write_bytes(b"(\xb5/\xfd garbage")
    with pytest.raises(ValueError, match=r"event log line 1: not JSON .*spark.eventLog.compress=false"):
        read_log(tmp_path)
    with pytest.raises(ValueError, match="no event log there"):
        log_files(tmp_path / "missing")


def test_event_log_confs(tmp_path: Path) -> None:
    confs = event_log_confs(str(tmp_path / "logs"))
    assert confs == {"spark.eventLog.enabled": "true", "spark.eventLog.dir": (tmp_path / "logs").as_uri(),
                     "spark.eventLog.compress": "false"}
    assert (tmp_path / "logs").is_dir()


def test_event_log_is_refused_with_spark_connect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspark")
    from kgspec.cli import main

    trace = FORMATS_DIR / "native_malformed.jsonl"
    assert main(["conform", str(trace), "--remote", "sc://localhost:1", "--event-log", str(tmp_path)]) == 2
    assert "--event-log needs a local driver" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.slow
def test_cli_event_log_prints_the_stages(tmp_path: Path) -> None:
    """A fresh ``kgspec conform`` process (the tests' shared session cannot take new event-log
    settings) writes its event log and prints each stage: the parse stage ran Python code."""
    logs = tmp_path / "logs"
    done = subprocess.run([sys.executable, "-c", "import sys; from kgspec.cli import main; sys.exit(main())", "conform", "-q", "--master", "local[1]",
                           "--event-log", str(logs), str(FORMATS_DIR / "native_malformed.jsonl")],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert done.returncode in (0, 1), done.stderr[-2000:]
    table = done.stderr[done.stderr.index("Spark stages of "):].splitlines()
    assert table[1].split()[:4] == ["stage", "before", "tasks", "wall"]
    assert table[2].split()[0] == "0"  # the first stage's line: the table is read from the log
    assert table[-1].startswith("application ")
    run = read_log(logs)
    parse = min(run.stages.values(), key=lambda s: s.stage)
    assert "pipeline.py" in parse.name
    assert parse.py_exec > 0
    assert parse.run_ms > 0
