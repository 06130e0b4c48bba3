"""No input crashes ``kgspec check`` (contract §2: trace content never causes status 3).

The golden traces, in every format the checker reads (native, Kafka's request log,
``kafka-dump-log`` output, console-formatter JSON: ``conformance/writers`` converts them), are
mutated by Hypothesis: bytes flipped, lines truncated, swapped, repeated and dropped, fields
deleted, values of another type, huge values (64-bit limits, ``1e400``, ``Infinity``, ``NaN``,
long strings and lists) and deep nesting. For each input:

- no exception escapes: exit status 0 or 1 (a content problem is a finding), never 2 or 3;
- every line is in exactly one bucket: ``lines = events + malformed + skipped`` (contract §2);
- the JSON report is deterministic: the same input twice gives byte-identical reports.

The default run is short (a few seconds); ``-m slow`` runs the long one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kgspec.conformance.writers.console import write_console
from kgspec.conformance.writers.dump_log import write_dump_log
from kgspec.conformance.writers.request_log import write_request_log

from kgspec.cli import main

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
GOLDEN_TRACES = sorted(GOLDEN.glob("*/*.jsonl"))
WRITERS: dict[str, Callable[..., Any]] = {"request-log": write_request_log, "dump-log": write_dump_log,
                                          "console": write_console}
# An input may take this long before it counts as a hang (the limits keep every line bounded).
TIME_LIMIT_S = 60


@cache
def corpus() -> tuple[tuple[str, str, str], ...]:
    """(golden name, format, text) for every golden trace in every format that shows something of it."""
    out: list[tuple[str, str, str]] = []
    for path in GOLDEN_TRACES:
        text = path.read_text()
        name = f"{path.parent.name}/{path.name}"
        out.append((name, "native", text))
        events = [json.loads(line) for line in text.splitlines() if line.strip()]
        for fmt, write in WRITERS.items():
            buf = io.StringIO()
            try:
                write(events, buf)
            except KeyError:  # the Connect draft's calls have no API key: no request-log form
                continue
            if buf.getvalue().strip():
                out.append((name, fmt, buf.getvalue()))
    return tuple(out)


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def expired(signum: int, frame: Any) -> None:
        raise _Hang(f"no answer within {seconds} s")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@cache
def _workdir() -> str:
    """One directory for the whole run: the same input is always the same path (reports name it)."""
    return tempfile.mkdtemp(prefix="kgspec-input-fuzz-")


def check_bytes(data: bytes) -> tuple[int, bytes, str]:
    """``kgspec check --json`` on ``data``: (exit status, report bytes, standard error)."""
    trace, report = os.path.join(_workdir(), "t.trace"), os.path.join(_workdir(), "r.json")
    with open(trace, "wb") as fh:
        fh.write(data)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(report)
    out, err = io.StringIO(), io.StringIO()
    with _time_limit(TIME_LIMIT_S), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["check", "--quiet", "--json", report, trace])
    text = b""
    if os.path.exists(report):
        with open(report, "rb") as fh:
            text = fh.read()
    return status, text, err.getvalue()


def assert_accounted(data: bytes, report: dict[str, Any]) -> None:
    """lines = events + malformed + skipped, and lines = the input's non-blank lines."""
    (entry,) = report["inputs"]
    assert entry["lines"] == entry["events"] + entry["malformed"] + entry["skipped"], entry
    assert entry["lines"] == sum(1 for line in data.split(b"\n") if line.strip()), entry
    malformed_lines = {f["line"] for f in report["findings"] if f["kind"] == "malformed"}
    assert len(malformed_lines) <= entry["malformed"] or len(report["findings"]) >= 200, entry


def assert_no_crash(data: bytes) -> None:
    """Status 0 or 1 with an accounted-for report; or 2 when the input as a whole is no trace (a
    byte no text has, no format recognisable: contract §2), said in one line. Never 3."""
    status, text, err = check_bytes(data)
    if status == 2:
        assert err.count("\n") == 1, err
        assert err.startswith("kgspec check: "), err
        assert "Traceback" not in err
        assert not text
    else:
        assert status in (0, 1), f"exit status {status}: {err[-3000:]}"
        assert_accounted(data, json.loads(text))
    again = check_bytes(data)
    assert again[:2] == (status, text), "the same input gave another report"


# --- the inputs as they are ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "fmt"), [(n, f) for n, f, _ in corpus()])
def test_every_golden_trace_in_every_format_is_accounted_for(name: str, fmt: str) -> None:
    text = next(t for n, f, t in corpus() if (n, f) == (name, fmt))
    data = text.encode()
    status, report_text, err = check_bytes(data)
    assert status in (0, 1), err
    report = json.loads(report_text)
    assert_accounted(data, report)
    entry = report["inputs"][0]
    if fmt == "native":  # every line of a golden trace is an event
        assert (entry["malformed"], entry["skipped"]) == (0, 0)


# --- mutations ------------------------------------------------------------------------------------

WEIRD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, -0.0, 2**15, 2**31, -(2**31) - 1, 2**63 - 1, 2**63, -(2**63) - 1, 2**64,
    10**30, float("inf"), float("-inf"), float("nan"), 1e300, "", "x", "AAAAAAAAAAAAAAAAAAAAAA", "é\u202e\x00",
    [], {}, [None], [1, 1], {"a": 1}, "a" * 100_000, list(range(5_000)),
]


def _json_span(line: str) -> tuple[int, int] | None:
    start, end = line.find("{"), line.rfind("}")
    return (start, end + 1) if 0 <= start < end else None


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:50]):
            yield from _paths(v, (*prefix, i))


def _mutate_json(data: st.DataObject, obj: Any) -> Any:
    paths = [p for p in _paths(obj) if p]
    if not paths:
        return obj
    path = data.draw(st.sampled_from(paths), label="path")
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    op = data.draw(st.sampled_from(["delete", "replace", "deep", "wrap", "repeat"]), label="json op")
    if op == "delete":
        del parent[last]
    elif op == "replace":
        parent[last] = data.draw(st.sampled_from(WEIRD_VALUES), label="value")
    elif op == "deep":
        depth = data.draw(st.sampled_from([50, 990, 1_000, 1_023, 1_025, 5_000]), label="depth")
        value: Any = parent[last]
        for _ in range(depth):
            value = [value]
        parent[last] = value
    elif op == "wrap":
        parent[last] = {"x": parent[last]} if data.draw(st.booleans()) else [parent[last]]
    elif isinstance(parent, list):
        parent.append(parent[last])
    else:
        parent[last] = [parent[last], parent[last]]
    return obj


def mutate(data: st.DataObject, text: str) -> bytes:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        i = data.draw(st.integers(0, len(lines) - 1), label="line")
        op = data.draw(st.sampled_from(["flip", "truncate", "swap", "repeat", "drop", "json", "json", "json"]),
                       label="op")
        raw = lines[i].encode("utf-8", "surrogateescape")
        if op == "flip" and raw:
            j = data.draw(st.integers(0, len(raw) - 1), label="byte")
            raw = raw[:j] + bytes([data.draw(st.integers(0, 255), label="to")]) + raw[j + 1:]
            lines[i] = raw.decode("utf-8", "surrogateescape")
        elif op == "truncate":
            lines[i] = lines[i][:data.draw(st.integers(0, len(lines[i])), label="at")]
        elif op == "swap":
            j = data.draw(st.integers(0, len(lines) - 1), label="with")
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "repeat":
            lines.insert(data.draw(st.integers(0, len(lines)), label="at"), lines[i])
        elif op == "drop" and len(lines) > 1:
            del lines[i]
        elif op == "json":
            span = _json_span(lines[i])
            if span is not None:
                try:
                    obj = json.loads(lines[i][span[0]:span[1]])
                except ValueError:
                    continue
                obj = _mutate_json(data, obj)
                try:
                    body = json.dumps(obj, separators=(",", ":"))
                except (ValueError, RecursionError):  # nested deeper than json.dumps writes
                    body = "[" * 5_000 + "]" * 5_000
                lines[i] = lines[i][:span[0]] + body + lines[i][span[1]:]
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def _fuzz(data: st.DataObject) -> None:
    _, _, text = data.draw(st.sampled_from(corpus()), label="input")
    assert_no_crash(mutate(data, text))


_SHORT = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_LONG = settings(max_examples=5_000, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SHORT
@given(st.data())
def test_mutated_inputs_never_crash(data: st.DataObject) -> None:
    _fuzz(data)


@pytest.mark.slow
@_LONG
@given(st.data())
def test_mutated_inputs_never_crash_long(data: st.DataObject) -> None:
    _fuzz(data)


# --- single lines the checker once crashed or hung on (issue #16) -----------------------------------

_CALL = ('{"tsMs":%s,"requestHeader":{"requestApiKey":68,"requestApiVersion":1},"request":{"groupId":"g",'
         '"memberId":"m","memberEpoch":0,"rebalanceTimeoutMs":%s,"subscribedTopicNames":["foo"]},'
         '"response":{"errorCode":0,"memberId":"m","memberEpoch":1,"heartbeatIntervalMs":5000,"assignment":null}}')
_JOIN = ('{"tsMs":%d,"requestHeader":{"requestApiKey":11,"requestApiVersion":0,"clientId":"c"},'
         '"request":{"groupId":"k","sessionTimeoutMs":10000,"memberId":"","protocolType":"consumer",'
         '"protocols":[{"name":"range","metadata":"AAE="}]},"response":{"errorCode":0,"generationId":1,'
         '"protocolName":"range","leader":"c-1","memberId":"c-1","members":[]},"totalTimeMs":3000}')
REGRESSIONS: dict[str, str] = {
    "deep nesting": '{"tsMs":1,"tick":{"a":' + "[" * 1_100 + "]" * 1_100 + "}}",
    "deep nesting with a long number": '{"tsMs":1,"tick":{"a":' + "[" * 1_100 + "1234567890123456789012"
                                       + "]" * 1_100 + "}}",
    "Infinity in a request int": _CALL % (1, "Infinity"),
    "1e400 in a request int": _CALL % (1, "1e400"),
    "a float in a request int": _CALL % (1, "1.5"),
    "a negative first tsMs": _CALL % (-5000, "30000"),
    "a tsMs beyond int64": _CALL % ("1e30", "30000"),
    "a topic without topicId": '{"tsMs":0,"topic":{"name":"foo","partitions":3}}',
    "a topic with a null topicId": '{"tsMs":0,"topic":{"name":"foo","topicId":null,"partitions":3}}',
    "a topic of 2**31 partitions": '{"tsMs":0,"topic":{"name":"foo","topicId":"JUxmFSdeRnSLhXMi3QDX9g",'
                                   '"partitions":2147483647}}',
    "a record epoch of Infinity": '{"tsMs":1,"record":{"key":{"type":3,"data":{"groupId":"g"}},'
                                  '"value":{"version":0,"data":{"epoch":Infinity,"metadataHash":0}}}}',
    "a record epoch of 1e400": '{"tsMs":1,"record":{"key":{"type":3,"data":{"groupId":"g"}},'
                               '"value":{"version":0,"data":{"epoch":1e400,"metadataHash":0}}}}',
    "a Connect record without tasks": '{"tsMs":1,"record":{"key":{"type":1001,"data":{"groupId":"c"}},'
                                      '"value":{"version":0,"data":{"connectors":[{"name":"A"}]}}}}',
    "a Connect record with tasks not a list": '{"tsMs":1,"record":{"key":{"type":1001,"data":{"groupId":"c"}},'
                                              '"value":{"version":0,"data":{"connectors":[{"name":"A","tasks":3}]}}}}',
    "the same classic JoinGroup twice, then a LeaveGroup": "\n".join([
        _JOIN % 1000, _JOIN % 1000,
        '{"tsMs":5000,"requestHeader":{"requestApiKey":13,"requestApiVersion":0},"request":{"groupId":"k",'
        '"memberId":"c-1"},"response":{"errorCode":0}}']),
    "a JoinGroup naming a protocol twice": _JOIN.replace('[{"name":"range","metadata":"AAE="}]',
                                                         '[{"name":"range","metadata":"AAE="},'
                                                         '{"name":"range","metadata":"AAE="}]') % 1000,
    "a negative rebalance timeout": _JOIN.replace('"requestApiVersion":0', '"requestApiVersion":1').replace(
        '"sessionTimeoutMs":10000', '"sessionTimeoutMs":10000,"rebalanceTimeoutMs":-1') % 1000
        + '\n{"tsMs":90000,"tick":{}}',
    "a JoinGroup without sessionTimeoutMs": _JOIN.replace('"sessionTimeoutMs":10000,', '') % 1000,
    "a Heartbeat without generationId": '{"tsMs":1,"requestHeader":{"requestApiKey":12,"requestApiVersion":0},'
                                        '"request":{"groupId":"k","memberId":"c-1"},"response":{"errorCode":0}}',
    "a Connect record with an empty connector name": (
        '{"tsMs":1,"record":{"key":{"type":1000,"data":{"groupId":"c"}},"value":{"version":0,"data":{"epoch":1}}}}\n'
        '{"tsMs":1,"record":{"key":{"type":1003,"data":{"groupId":"c"}},"value":{"version":0,"data":{'
        '"assignmentEpoch":1,"members":[{"memberId":"w","connectorsAndTasks":[{"connectors":[""]}]}]}}}}'),
    "a regex with a huge repetition": _CALL.replace('"subscribedTopicNames":["foo"]',
                                                    '"subscribedTopicRegex":"(a{1000}){1000}"') % (1, "30000"),
    # The one above is refused for its missing topicPartitions before its regex is read; these reach it.
    "a regex with a huge repetition, read": _CALL.replace(
        '"subscribedTopicNames":["foo"]', '"subscribedTopicRegex":"(a{1000}){1000}","topicPartitions":[]') % (1, "30000"),
    "a regex with a repetition beyond RE2J's": _CALL.replace(
        '"subscribedTopicNames":["foo"]', '"subscribedTopicRegex":"a{1001}","topicPartitions":[]') % (1, "30000"),
}
# What each of them is: status 1 and these (line, kind, field) findings, never a crash or a pass.
REGRESSION_FINDINGS: dict[str, list[tuple[int, str, str | None]]] = {
    "1e400 in a request int": [(1, "malformed", "request.rebalanceTimeoutMs")],
    "Infinity in a request int": [(1, "malformed", "request.rebalanceTimeoutMs")],
    "a Connect record with an empty connector name": [(2, "invariant", "replay")],
    "a Connect record with tasks not a list": [(1, "malformed", "record.value.data.connectors[0].tasks")],
    "a Connect record without tasks": [(1, "malformed", "record.value.data.connectors[0].tasks")],
    "a Heartbeat without generationId": [(1, "malformed", "request.generationId")],
    "a JoinGroup naming a protocol twice": [(1, "unsupported", "request.protocols")],
    "a JoinGroup without sessionTimeoutMs": [(1, "malformed", "request.sessionTimeoutMs")],
    "a float in a request int": [(1, "malformed", "request.rebalanceTimeoutMs")],
    "a negative first tsMs": [(1, "response-mismatch", "errorCode")],
    "a negative rebalance timeout": [(1, "response-mismatch", "members")],
    "a record epoch of 1e400": [(1, "malformed", "record.value.data.epoch")],
    "a record epoch of Infinity": [(1, "malformed", "record.value.data.epoch")],
    "a regex with a huge repetition": [(1, "response-mismatch", "errorCode")],
    "a regex with a huge repetition, read": [(1, "response-mismatch", "assignment")],
    "a regex with a repetition beyond RE2J's": [(1, "response-mismatch", "errorCode")],
    "a topic of 2**31 partitions": [(1, "unsupported", "topic.partitions")],
    "a topic with a null topicId": [(1, "malformed", "topic.topicId")],
    "a topic without topicId": [(1, "malformed", "topic.topicId")],
    "a tsMs beyond int64": [(1, "malformed", "tsMs")],
    "deep nesting": [(1, "malformed", None)],
    "deep nesting with a long number": [(1, "malformed", None)],
    "the same classic JoinGroup twice, then a LeaveGroup": [(1, "response-mismatch", "errorCode"),
                                                            (2, "response-mismatch", "errorCode")],
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_lines_that_once_crashed_are_findings(name: str) -> None:
    data = (REGRESSIONS[name] + "\n").encode()
    assert_no_crash(data)
    status, text, err = check_bytes(data)
    assert status == 1, err
    findings = json.loads(text)["findings"]
    assert [(f["line"], f["kind"], f.get("field")) for f in findings] == REGRESSION_FINDINGS[name]
    if name == "a regex with a repetition beyond RE2J's":  # refused as RE2J refuses it
        assert (findings[0]["expected"], findings[0]["observed"]) == (128, 0)  # INVALID_REGULAR_EXPRESSION
        assert "invalid repeat count" in findings[0]["message"]


# --- the Connect draft's calls (profile kip): every mistyped field is named -----------------------

CONNECT_TRACES = sorted((GOLDEN / "connect").glob("*.jsonl"))


def _mutate_connect_call(data: st.DataObject, text: str) -> tuple[bytes, int]:
    """One Connect call of ``text`` with one field of its request or response replaced by a weird
    value or left out: (the trace, the mutated line)."""
    lines = text.split("\n")
    calls = [i for i, line in enumerate(lines) if '"requestApiKeyName"' in line]
    i = data.draw(st.sampled_from(calls), label="call")
    event = json.loads(lines[i])
    side = data.draw(st.sampled_from(["request", "response"]), label="side")
    paths = [p for p in _paths(event[side]) if p]
    path = data.draw(st.sampled_from(paths), label="path")
    parent = event[side]
    for key in path[:-1]:
        parent = parent[key]
    if data.draw(st.booleans(), label="delete") and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(st.sampled_from(WEIRD_VALUES), label="value")
    lines[i] = json.dumps(event, separators=(",", ":"), allow_nan=True)
    return "\n".join(lines).encode(), i + 1


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_connect_calls_are_named_by_field(data: st.DataObject) -> None:
    """A Connect call with a mistyped field: never a crash, every line accounted for, and a
    ``malformed`` finding at that line names the field (``request.…`` or ``response.…``), as the
    draft's message schemas (``model/connect/schemas.py``) have it; never the checker's fallback."""
    path = data.draw(st.sampled_from(CONNECT_TRACES), label="trace")
    trace, line = _mutate_connect_call(data, path.read_text())
    assert_no_crash(trace)
    status, text, _ = check_bytes(trace)
    assert status in (0, 1)
    for finding in json.loads(text)["findings"]:
        if finding["kind"] == "malformed" and finding["line"] == line:
            assert str(finding.get("field")).startswith(("request.", "response.")), finding
            assert "value of the wrong type" not in finding["message"], finding
