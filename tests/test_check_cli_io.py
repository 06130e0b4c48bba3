"""`kgspec check` on any input and any output: standard input, pipes, FIFOs and process
substitution; a closed standard output; `--json` destinations that cannot be written; option
validation; internal errors (exit 3); escaped human output; byte-identical reports."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance import checker as checker_module
from kgspec.conformance.readers import native as native_module

from kgspec.cli import main
from tests.helpers import write_jsonl

DATA = Path(__file__).parent / "data" / "formats"
GOLDEN = Path(__file__).parent / "golden"
BAD = DATA / "native_malformed.jsonl"  # findings: exit 1
GOOD = GOLDEN / "consumer" / "join_with_records.jsonl"  # conforms: exit 0


def _kgspec(*args: str, stdin: Any = None, input: bytes | None = None, stdout: Any = subprocess.PIPE,
            env: dict[str, str] | None = None, pass_fds: tuple[int, ...] = ()) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "kgspec", *args], stdin=stdin, input=input, stdout=stdout,
                          stderr=subprocess.PIPE, env=env, pass_fds=pass_fds, timeout=120, check=False)


def _report(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    out = path.parent / f"{path.name}.report.json"
    status = main(["check", "-q", str(path), "--json", str(out), *extra])
    return status, json.loads(out.read_text(encoding="utf-8"))


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copy(GOOD, tmp_path / GOOD.name))


def _without_paths(report: dict[str, Any]) -> dict[str, Any]:
    for entry in (*report["inputs"], *report["findings"]):
        entry.pop("path")
    return report


def _one_error_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert "Traceback" not in text
    lines = text.splitlines()
    assert len(lines) == 1, text
    return lines[0]


# --- inputs: standard input, pipes, FIFOs, process substitution ------------------------------

@pytest.mark.parametrize("compress", [False, True])
def test_standard_input_as_dash_and_dev_stdin(tmp_path: Path, compress: bool) -> None:
    data = BAD.read_bytes()
    expected = _without_paths(_report(BAD)[1])
    assert expected["inputs"][0]["lines"] == 23
    if compress:
        data = gzip.compress(data)
    for name in ("-", "/dev/stdin"):
        done = _kgspec("check", "-q", name, "--json", "-", input=data)  # a pipe
        assert done.returncode == 1, done.stderr
        assert _without_paths(json.loads(done.stdout)) == expected
        assert json.loads(done.stdout)["inputs"][0]["path"] == name
    source = tmp_path / "t"
    source.write_bytes(data)
    with source.open("rb") as fh:  # standard input redirected from a file
        done = _kgspec("check", "-q", "-", "--json", "-", stdin=fh)
    assert _without_paths(json.loads(done.stdout)) == expected


def test_process_substitution_and_fifo(tmp_path: Path) -> None:
    expected = _without_paths(_report(BAD)[1])
    data = gzip.compress(BAD.read_bytes())
    r, w = os.pipe()

    def feed() -> None:
        with os.fdopen(w, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:  # what bash's <(...) gives: a /dev/fd/N path of an inherited pipe
        done = _kgspec("check", "-q", f"/dev/fd/{r}", "--json", "-", pass_fds=(r,))
    finally:
        writer.join(timeout=30)
        os.close(r)
    assert done.returncode == 1, done.stderr
    assert _without_paths(json.loads(done.stdout)) == expected

    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)

    def fill() -> None:
        with fifo.open("wb") as out:
            out.write(BAD.read_bytes())

    writer = threading.Thread(target=fill, daemon=True)
    writer.start()
    done = _kgspec("check", "-q", str(fifo), "--json", "-")
    writer.join(timeout=30)
    assert done.returncode == 1, done.stderr
    assert _without_paths(json.loads(done.stdout)) == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_process_substitution_reads_every_line(tmp_path: Path) -> None:
    script = f'"{sys.executable}" -m kgspec check -q --json - <(cat "{BAD}") <(gzip -c "{BAD}")'
    done = subprocess.run(["bash", "-c", script], capture_output=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [i["lines"] for i in report["inputs"]] == [23, 23]


def test_dash_can_be_named_once() -> None:
    done = _kgspec("check", "-", "-", input=b"")
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == "kgspec check: standard input ('-') can be read only once"


@pytest.mark.parametrize("how", ["truncated", "garbage"])
def test_broken_gzip_is_a_finding_not_a_pass(tmp_path: Path, how: str) -> None:
    data = gzip.compress(GOOD.read_bytes())
    broken = data[: len(data) // 2] if how == "truncated" else data[:10] + b"garbage" * 50
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(broken)
    status, report = _report(path)
    assert status == 1
    last = report["findings"][-1]
    assert last["kind"] == "malformed"
    assert last["message"].startswith(f"{path}: gzip data is broken (")
    assert report["inputs"][0]["lines"] == last["line"]
    done = _kgspec("check", "-", input=broken)  # the same through a pipe
    assert done.returncode == 1
    assert b"-: gzip data is broken" in done.stdout
    assert b"conforms" not in done.stdout


# --- a closed standard output -------------------------------------------------------------------

@pytest.mark.parametrize(("trace", "args", "status"), [
    (BAD, (), 1), (GOOD, (), 0), (BAD, ("--json", "-"), 1), (GOOD, ("--json", "-"), 0),
])
def test_a_closed_stdout_keeps_the_status(trace: Path, args: tuple[str, ...], status: int) -> None:
    r, w = os.pipe()
    os.close(r)  # `| head -0`: the reader is gone before anything is written
    try:
        done = _kgspec("check", str(trace), *args, stdout=w)
    finally:
        os.close(w)
    assert done.returncode == status
    assert done.stderr == b""  # no traceback, no "Exception ignored" at exit


# --- --json destinations ------------------------------------------------------------------------

def test_json_never_overwrites_an_input(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    shutil.copy(BAD, trace)
    before = trace.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(trace)
    hard = tmp_path / "hard.json"
    os.link(trace, hard)
    allow = tmp_path / "allow.json"
    allow.write_text('{"entries": []}')
    for dest, extra in ((trace, ()), (link, ()), (hard, ()), (allow, ("--allow", str(allow)))):
        done = _kgspec("check", str(GOOD), str(trace), "--json", str(dest), *extra)
        assert done.returncode == 2
        line = _one_error_line(done.stderr)
        assert line.startswith(f"kgspec check: --json {dest} would overwrite the input "), line
    assert trace.read_bytes() == before
    assert allow.read_text() == '{"entries": []}'


@pytest.mark.parametrize(("dest", "message"), [
    ("missing/r.json", "--json {tmp}/missing/r.json: no such directory {tmp}/missing"),
    ("", "--json {tmp}: is a directory"),
    ("file/r.json", "--json {tmp}/file/r.json: Not a directory"),
])
def test_json_destination_checked_before_the_work(tmp_path: Path, dest: str, message: str) -> None:
    (tmp_path / "file").write_text("x")
    target = str(tmp_path / dest) if dest else str(tmp_path)
    done = _kgspec("check", str(BAD), "--json", target)
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == "kgspec check: " + message.format(tmp=tmp_path)
    assert done.stdout == b""  # nothing was checked


def test_json_unwritable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        done = _kgspec("check", str(BAD), "--json", str(locked / "r.json"))
        assert done.returncode == 2
        assert "Permission denied" in _one_error_line(done.stderr)
    if Path("/sys/kernel/notes").exists():  # read-only even for root
        done = _kgspec("check", str(BAD), "--json", "/sys/kernel/notes")
        assert done.returncode == 2
        assert _one_error_line(done.stderr).startswith("kgspec check: --json /sys/kernel/notes: cannot write (")
    from kgspec.commands import output

    def refuse(*args: Any, **kwargs: Any) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(output.os, "open", refuse)
    assert main(["check", str(BAD), "--json", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err == f"kgspec check: --json {tmp_path / 'r.json'}: cannot write (Permission denied)\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_reported(tmp_path: Path) -> None:
    done = _kgspec("check", str(BAD), "--json", "/dev/full")
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == "kgspec check: cannot write the report to /dev/full: No space left on device"
    assert b"23 line(s)" in done.stdout  # what was found is still printed
    with open("/dev/full", "wb") as full:
        done = _kgspec("check", str(BAD), stdout=full)
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == "kgspec check: cannot write to standard output: No space left on device"


def test_no_report_is_left_when_the_run_fails(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("just some words\n")
    fresh = tmp_path / "fresh.json"
    assert main(["check", str(notes), "--json", str(fresh)]) == 2
    assert not fresh.exists()
    old = tmp_path / "old.json"
    old.write_text("previous report")
    assert main(["check", str(notes), "--json", str(old)]) == 2
    assert old.read_text() == "previous report"  # opened before the work, never truncated for nothing
    assert main(["check", str(BAD), "--json", str(old)]) == 1
    assert json.loads(old.read_text())["format"] == "kgspec-report/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "old.json"]  # no temporary file left


# --- options ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (("--tz", "+99:00"), "time zone offset '+99:00' is out of range (-23:59 to +23:59)"),
    (("--tz", "Mars/Olympus"), "unknown time zone 'Mars/Olympus'"),
    (("--tz", "America"), "unknown time zone 'America'"),
    (("--config", "group.consumer.sesion.timeout.ms=45000"),
     "--config: unknown config group.consumer.sesion.timeout.ms (did you mean group.consumer.session.timeout.ms?)"),
    (("--config", "x=1"), "--config: unknown config x; known: "),
    (("--config", "nonsense"), "--config needs NAME=VALUE, got 'nonsense'"),
    (("--allow", "no-such-list"), "cannot read allow-list no-such-list: "),
    (("--format", "csv"), "error: argument --format: invalid choice: 'csv'"),
    (("--mutant", "nope"), "error: argument --mutant: invalid choice: 'nope'"),
    (("--profile", "kafka-9"), "error: argument --profile: invalid choice: 'kafka-9'"),
])
def test_options_are_usage_errors(args: tuple[str, ...], message: str) -> None:
    # a native trace too: --tz used to be looked at only when a request log was read
    done = _kgspec("check", str(GOOD), *args)
    assert done.returncode == 2
    assert _one_error_line(done.stderr).startswith(f"kgspec check: {message}")
    assert done.stdout == b""


def test_a_group_level_config_name_is_known(tmp_path: Path) -> None:
    assert main(["check", "-q", str(GOOD), "--config", "consumer.session.timeout.ms=45000"]) == 0


def test_a_seed_only_config_under_a_kafka_profile_is_a_usage_error() -> None:
    done = _kgspec("check", str(GOOD), "--profile", "kafka-4.1", "--config", "group.streams.assignor.name=sticky")
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == ("kgspec check: --config: group.streams.assignor.name only the seeds "
                                            "define (profile kip); kafka-4.1 has no such config")


def test_a_seed_only_config_is_known_under_kip(tmp_path: Path) -> None:
    status, report = _report(_copy(tmp_path), "--profile", "kip", "--config", "group.connect.session.timeout.ms=30000")
    assert (status, report["findings"]) == (0, [])


def test_a_seed_only_config_under_the_headers_kafka_profile_is_unsupported(tmp_path: Path) -> None:
    # no --profile: the trace's header names kafka-4.3, known only once the header is read
    status, report = _report(_copy(tmp_path), "--config", "group.streams.max.warmup.replicas=5")
    assert status == 1
    assert [(f["kind"], f["line"], f["field"], f["message"]) for f in report["findings"]] == [
        ("unsupported", 1, "header.profile",
         "--config not modelled under kafka-4.3: group.streams.max.warmup.replicas")]


# --- internal errors: exit 3 --------------------------------------------------------------------

def test_an_internal_error_names_the_input_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    real = checker_module.TraceChecker.feed

    def feed(self: checker_module.TraceChecker, item: Any) -> None:
        if item.line == 5:
            raise KeyError("boom")
        real(self, item)

    monkeypatch.setattr(checker_module.TraceChecker, "feed", feed)
    out = tmp_path / "r.json"
    assert main(["check", str(GOOD), "--json", str(out)]) == 3
    captured = capsys.readouterr()
    first = captured.err.splitlines()[0]
    assert first == (f"kgspec check: internal error while checking {GOOD} line 5 (a bug in kgspec, "
                     "not a finding): KeyError: 'boom'")
    assert "Traceback" in captured.err
    assert captured.out == ""  # no report, no findings
    assert not out.exists()


def test_an_internal_error_of_a_reader(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = native_module.parse_line

    def parse_line(content: bytes, line_no: int, first: bool) -> Any:
        if line_no == 3:
            raise AttributeError("reader bug")
        return real(content, line_no, first)

    monkeypatch.setattr(native_module, "parse_line", parse_line)
    assert main(["check", str(GOOD)]) == 3
    assert capsys.readouterr().err.splitlines()[0] == (
        f"kgspec check: internal error while reading {GOOD} after line 2 (a bug in kgspec, not a finding): "
        "AttributeError: reader bug")


# --- escaped human output -----------------------------------------------------------------------

HOSTILE = "x\x1b[2J\ngroup y: conforms\r\u202e\u2028\x9b\x7f"


def test_untrusted_strings_are_escaped_in_human_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events: list[dict[str, Any]] = [
        {"tsMs": 0, "topic": {"name": "t\x1b", "topicId": "q81hsiQxUtq5ITI-WXGnvw", "partitions": 3}}]
    events.append({"tsMs": 1, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "clientId": "c\x07"},
                   "request": {"groupId": HOSTILE, "memberId": "m\x1b]0;title\x07", "memberEpoch": 0,
                               "rebalanceTimeoutMs": 1000, "subscribedTopicNames": ["t\x1b"],
                               "topicPartitions": []},
                   "response": {"errorCode": 0, "memberId": "m\x1b]0;title\x07", "memberEpoch": 7,
                                "heartbeatIntervalMs": 5000, "assignment": None}})
    events.append({"tsMs": 2, "tick": {}, "note\n": 1})
    events.append({"tsMs": 3, "tock\x1b[31m": {}})
    path = write_jsonl(tmp_path / "name\nwith\x1bcontrols.jsonl", events)
    report = tmp_path / "r.json"
    assert main(["check", str(path), "--json", str(report)]) == 1
    out = capsys.readouterr().out
    hidden = [c for c in out if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 or c in "\u2028\u2029\u202e")]
    assert hidden == []
    assert "group x\\x1b[2J\\ngroup y: conforms\\r\\u202e\\u2028\\x9b\\x7f: response-mismatch" in out
    assert "name\\nwith\\x1bcontrols.jsonl" in out
    assert not any(line.startswith("group y") for line in out.splitlines())
    # JSON keeps the exact strings
    data = json.loads(report.read_text(encoding="utf-8"))
    assert {g["groupId"] for g in data["groups"]} == {HOSTILE}
    assert data["inputs"][0]["path"] == str(path)


def test_error_messages_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{"header": {"format": "kgspec-trace/9\x1b[2J\nfake"}}])
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert err.count("\n") == 1
    assert "\\x1b[2J\\nfake" in err


# --- determinism --------------------------------------------------------------------------------

def _perturbed(tmp_path: Path) -> list[Path]:
    """Golden traces (classic, consumer, streams) with every third response changed: findings with sets."""
    out = []
    for path in [*sorted((GOLDEN / "classic").glob("*.jsonl")), GOLDEN / "consumer" / "reconciliation.jsonl",
                 GOLDEN / "consumer" / "uniform_recorded.jsonl", GOLDEN / "streams" / "standby_rebalance.jsonl"]:
        events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        calls = 0
        for e in events:
            resp = e.get("response")
            if isinstance(resp, dict):
                calls += 1
                if calls % 3 == 0:
                    for f in ("memberEpoch", "generationId"):
                        if isinstance(resp.get(f), int):
                            resp[f] += 1
                    if isinstance(resp.get("assignment"), dict) and resp["assignment"].get("topicPartitions"):
                        first = resp["assignment"]["topicPartitions"][0]
                        first["partitions"] = first["partitions"][1:]
                    if isinstance(resp.get("members"), list) and resp["members"]:
                        resp["members"] = resp["members"][1:]
        out.append(write_jsonl(tmp_path / f"{path.parent.name}_{path.name}", events))
    return out


def test_reports_are_byte_identical_across_hash_seeds(tmp_path: Path) -> None:
    traces = [str(p) for p in (*_perturbed(tmp_path), *sorted((GOLDEN / "classic").glob("*.jsonl")), BAD)]
    runs = set()
    for seed in ("1", "2", "3"):
        report = tmp_path / f"r{seed}.json"
        done = _kgspec("check", *traces, "--json", str(report), env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 1, done.stderr
        runs.add((done.stdout, report.read_bytes()))
    assert len(runs) == 1
    human, data = runs.pop()
    assert b"response-mismatch" in human
    assert len(json.loads(data)["findings"]) > 50


def test_conform_shares_the_config_and_json_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kgspec.commands.conform import spark_available

    if not spark_available():
        pytest.skip("needs the spark extra")
    assert main(["conform", "--config", "group.consumer.sesion.timeout.ms=1", str(BAD)]) == 2
    assert capsys.readouterr().err.startswith("kgspec conform: --config: unknown config group.consumer.sesion")
    trace = tmp_path / "t.jsonl"
    shutil.copy(BAD, trace)
    assert main(["conform", str(trace), "--json", str(trace)]) == 2
    assert capsys.readouterr().err == f"kgspec conform: --json {trace} would overwrite the input {trace}; " \
                                      "write the report elsewhere\n"
