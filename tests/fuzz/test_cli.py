"""``kgspec fuzz`` and ``kgspec simulate``: exit codes and written traces."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from kgspec.model.mutants import CATALOGUE

from kgspec.cli import main


def test_fuzz_unmutated_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "f.jsonl"
    assert main(["fuzz", "--seed", "3", "--no-progress", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("no invariant broke: 1 batch(es) in ")
    assert not out.exists()


def test_fuzz_mutant_exits_1_and_writes_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "f.jsonl"
    status = main(["fuzz", "--mutant", "assignor-double-assign", "--no-shrink", "--no-progress",
                   "--out", str(out)])
    assert status == 1
    printed = capsys.readouterr().out
    assert "[target-validity]" in printed
    assert f"trace: {out}" in printed
    first = json.loads(out.read_text().splitlines()[0])
    assert first["header"]["format"] == "kgspec-trace/1"


@pytest.mark.parametrize(("argv", "message"), [
    (["fuzz", "--mutant", "bogus"], "unknown mutant(s) bogus; known: "),
    # a streams mutant on the consumer protocol
    (["fuzz", "--mutant", "standby-on-active-process"],
     "mutant(s) standby-on-active-process do not apply to consumer groups (use --protocol streams)"),
    (["fuzz", "--protocol", "streams", "--mutant", "no-withholding"],
     "mutant(s) no-withholding do not apply to streams groups (use --protocol consumer)"),
    (["fuzz", "--profile", "kafka-9.9"],
     "unknown profile 'kafka-9.9'; known: kafka-4.1, kafka-4.2, kafka-4.3, kafka-trunk, kip"),
    (["simulate", "--mutant", "bogus", "-o", "x.jsonl"], "unknown mutant(s) bogus; known: "),
    (["simulate", "--groups", "0", "-o", "x.jsonl"],
     "--groups and --members must be at least 1, --duration-ms not negative"),
    (["simulate", "--loss", "1.5", "-o", "x.jsonl"], "--loss must be in [0, 1) and --duplicate in [0, 1]"),
    (["simulate", "--mutant", "standby-on-active-process", "-o", "x.jsonl"],
     "mutant(s) standby-on-active-process do not apply to consumer groups (use --protocol streams)"),
    (["simulate", "--protocol", "streams", "--standby-replicas", "-1", "-o", "x.jsonl"],
     "--standby-replicas must not be negative"),
])
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    head = f"kgspec {argv[0]}: error: {message}"
    if message.endswith("known: "):  # the catalogue, in full
        assert err == head + ", ".join(sorted(CATALOGUE)) + "\n"
    else:
        assert err == head + "\n"


def test_fuzz_streams_mutant_exits_1_with_the_streams_invariant(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.jsonl"
    status = main(["fuzz", "--protocol", "streams", "--mutant", "standby-on-active-process", "--no-shrink",
                   "--no-progress", "--out", str(out)])
    assert status == 1
    assert "[target-validity] group g: target: process" in capsys.readouterr().out
    calls = [json.loads(line) for line in out.read_text().splitlines() if "requestHeader" in line]
    assert [c["requestHeader"]["requestApiKey"] for c in calls][-1] == 89  # the closing describe
    assert {c["requestHeader"]["requestApiKey"] for c in calls} == {88, 89}


def test_simulate_streams_writes_streams_heartbeats_and_created_topics(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    argv = ["simulate", "--protocol", "streams", "--groups", "2", "--members", "4", "--duration-ms", "60000",
            "--standby-replicas", "1", "--check", "-o", str(out)]
    assert main(argv) == 0
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert events[0]["header"]["configs"] == {"group.streams.num.standby.replicas": 1}
    assert {e["requestHeader"]["requestApiKey"] for e in events if "requestHeader" in e} == {88}
    topics = {e["topic"]["name"] for e in events if "topic" in e}
    assert topics == {"group-0-s0", "group-0-s1", "group-1-s0", "group-1-s1",
                      "group-0-store-changelog", "group-1-store-changelog"}


def test_simulate_writes_a_gzip_trace(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl.gz"
    argv = ["simulate", "--groups", "2", "--members", "3", "--duration-ms", "60000", "--seed", "4",
            "--loss", "0.05", "--failover-every", "20000", "--check", "-o", str(out)]
    assert main(argv) == 0
    with gzip.open(out, "rt") as fh:
        events = [json.loads(line) for line in fh]
    groups = {e["request"]["groupId"] for e in events if "requestHeader" in e}
    assert groups == {"group-0", "group-1"}
    assert sum(1 for e in events if e.get("tick", {}).get("coordinatorFailover")) == 3  # at 20, 40 and 60 s
    assert events[-1] == {"tsMs": 60000, "tick": {}}


def test_simulate_with_a_mutant_and_check_exits_1(tmp_path: Path) -> None:
    argv = ["simulate", "--members", "3", "--duration-ms", "60000", "--mutant", "no-withholding",
            "--check", "-o", str(tmp_path / "m.jsonl")]
    assert main(argv) == 1


def test_fuzz_writes_the_observable_run_after_an_internal_only_kill(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lpe.jsonl"
    status = main(["fuzz", "--mutant", "lost-partition-epoch", "--seed", "16", "--budget", "30", "--no-shrink",
                   "--no-progress", "--out", str(out)])
    assert status == 1
    printed = capsys.readouterr().out
    assert "[partition-epoch-index]" in printed
    assert "only internal-only invariants broke; searching without them, an observable one broke" in printed
    assert "[no-double-ownership]" in printed
    assert main(["check", str(out)]) == 1
    assert "response-mismatch (assignment)" in capsys.readouterr().out


def test_fuzz_observable_skips_the_internal_only_invariants(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lpe.jsonl"
    status = main(["fuzz", "--mutant", "lost-partition-epoch", "--observable", "--seed", "16", "--budget", "30",
                   "--no-shrink", "--no-progress", "--out", str(out)])
    assert status == 1
    printed = capsys.readouterr().out
    assert "[partition-epoch-index]" not in printed
    assert "[no-double-ownership]" in printed
