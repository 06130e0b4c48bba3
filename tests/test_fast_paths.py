"""The fast paths of reading and checking give exactly what their general paths give.

Each fast path handles a common shape and leaves everything else to the general code; these
tests run both on the same inputs (ordinary lines, odd lines, random mutations of lines)
and compare the items they produce, types included (``repr``).
"""

from __future__ import annotations

import copy
import heapq
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.consumer import timer_at
from kgspec.conformance.events import Event, Malformed
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import read_request_log
from kgspec.conformance.readers.call_memo import (
    MAX_CALL_BYTES,
    MAX_CALLS,
    MAX_MIDDLE,
    MAX_TAIL,
    MAX_TAILS,
    CallMemo,
)
from kgspec.conformance.readers.jsonfast import has_long_digit_run, loads
from kgspec.conformance.readers.request_log import ArrivalQueue, _LineParser
from kgspec.conformance.writers import write_request_log
from kgspec.model.timers import Timer

from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from tests.readers_compare import item_reprs, mutated

DATA = Path(__file__).parent / "data" / "formats"


def test_long_digit_run_is_the_regex() -> None:
    rng = random.Random(7)
    pattern = re.compile(rb"[0-9]{19}")
    for _ in range(4000):
        parts = []
        for _ in range(rng.randint(0, 6)):
            parts.append(rng.choice([b"x", b'"a":', b",", b"-", b".", b" ", b"\xc3\xa9"]) * rng.randint(0, 3))
            parts.append(bytes(rng.choice(b"0123456789") for _ in range(rng.randint(0, 24))))
        data = b"".join(parts)
        assert has_long_digit_run(data) == (pattern.search(data) is not None), data


@pytest.mark.parametrize("text", [b'{"a":1234567890123456789}', b'{"a":-9223372036854775809}', b'[18446744073709551616]',
                                  b'{"a":"1234567890123456789"}', b'{"a":123456789012345678}', b'[NaN]', b'{"a":1e400}'])
def test_loads_is_the_standard_library(text: bytes) -> None:
    value = loads(text)
    expected = json.loads(text)
    assert repr(value) == repr(expected)


def test_arrival_queue_pops_as_a_heap() -> None:
    rng = random.Random(11)
    for _ in range(200):
        queue, heap, out_q, out_h = ArrivalQueue(), [], [], []  # type: ignore[var-annotated]
        clock = 0.0
        for line in range(rng.randint(1, 300)):
            clock += rng.choice([0, 0, 1, 2.5, 10])
            key = clock - rng.choice([0, 0, 0, 0.5, 3, 40, 500])  # mostly in order, some overtake
            entry = (key, line, 0, b"")
            queue.push(entry)
            heapq.heappush(heap, entry)
            horizon = clock - rng.choice([0, 5, 50])
            while (ready := queue.pop_ready(horizon)) is not None:
                out_q.append(ready)
            while heap and heap[0][0] <= horizon:
                out_h.append(heapq.heappop(heap))
            assert out_q == out_h
        while (ready := queue.pop_ready(float("inf"))) is not None:
            out_q.append(ready)
        assert out_q == out_h + sorted(heap)


def _items(text: bytes, **options: Any) -> list[str]:
    return item_reprs(read_request_log, text, **options)


def _general(monkeypatch: pytest.MonkeyPatch, text: bytes, **options: Any) -> list[str]:
    with monkeypatch.context() as patch:
        patch.setattr(_LineParser, "parse_canonical", lambda self, raw, line_no: None)
        patch.setattr(_LineParser, "_call", _LineParser._checked_call)
        patch.setattr(CallMemo, "find", lambda self, raw, start, at, end: None)
        return _items(text, **options)


def _line(stamp: str, obj: Any, level: str = "DEBUG", suffix: str = " (kafka.request.logger)") -> str:
    body = obj if isinstance(obj, str) else json.dumps(obj, separators=(",", ":"))
    return f"[{stamp}] {level} Completed request:{body}{suffix}\n"


def _hb(correlation: int, total: Any = 1.5, **fields: Any) -> dict[str, Any]:
    call: dict[str, Any] = {
        "isForwarded": False,
        "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "correlationId": correlation,
                          "clientId": "c1", "requestApiKeyName": "CONSUMER_GROUP_HEARTBEAT"},
        "request": {"groupId": "g", "memberId": "m", "memberEpoch": 3, "topicPartitions": None},
        "response": {"errorCode": 0, "memberId": "m", "memberEpoch": 3, "heartbeatIntervalMs": 5000,
                     "assignment": None},
        "connection": "127.0.0.1:9092-127.0.0.1:5000-0", "totalTimeMs": total, "requestQueueTimeMs": 0.1}
    call.update(fields)
    return call


ODD_LINES = [
    _line("2025-06-01 12:00:00,010", _hb(1)),
    _line("2025-06-01 12:00:00,011", _hb(2, 3)),  # an integer totalTimeMs
    _line("2025-06-01 12:00:00,012", _hb(3, 0.1234567)),  # rounded to microseconds
    _line("2025-06-01 12:00:01,000", _hb(4, 1e3)),
    _line("2025-06-01 12:00:01,001", _hb(5, -1)),
    _line("2025-06-01 12:00:01,002", _hb(6, "3")),
    _line("2025-06-01 12:00:01,003", _hb(7, None)),
    _line("2025-06-01 12:00:01,004", json.dumps(_hb(8), separators=(",", ":")).replace('"totalTimeMs":1.5,', "")),
    _line("2025-06-01 12:00:01,005", json.dumps(_hb(9), separators=(",", ":"))[:-1] + ',"totalTimeMs":2}'),
    _line("2025-06-01 12:00:01,006", '{"totalTimeMs":NaN,"requestHeader":{}}'),
    _line("2025-06-01 12:00:01,007", '{"totalTimeMs":Infinity,"requestHeader":{"requestApiKey":68}}'),
    _line("2025-06-01 12:00:01,008", '{"requestHeader":{"requestApiKey":[68]},"totalTimeMs":1}'),
    _line("2025-06-01 12:00:01,009", _hb(10, 1.5, request={"groupId": "g", "memberEpoch": 12345678901234567890})),
    _line("2025-06-01 12:00:01,010", _hb(11)).replace("\n", "\r\n"),
    _line("2025-06-01 12:00:01,011", _hb(12), suffix=""),
    _line("2025-06-01 12:00:01,012", _hb(13), suffix=" (kafka.request.logger) trailing"),
    _line("2025-06-01 12:00:01,013", _hb(14), level="INFO"),
    _line("2025-06-01 12:00:01,014", _hb(15), level="warn"),
    _line("2025-06-01T12:00:01,015", _hb(16)),
    _line("2025-06-01 12:00:01.016", _hb(17)),
    _line("2025-06-01 12:00:01,017+02:00", _hb(18)),
    _line("2025-06-01 12:00:01,18", _hb(19)),
    _line("2025-13-01 12:00:01,019", _hb(20)),
    _line("2025-06-01] 2:00:01,020", _hb(21)),
    _line("2025-06-01 12:00:01,021", '{"requestHeader":{"requestApiKey":68},"request":{},"response":{},"totalTimeMs":1,}'),
    _line("2025-06-01 12:00:01,022", '[1,2,"totalTimeMs":3]'),
    _line("2025-06-01 12:00:01,023", "RequestHeader(apiKey=JOIN_GROUP)"),
    _line("2025-06-01 12:00:01,024", _hb(22, 2.0, connection=5)),
    _line("2025-06-01 12:00:01,025", _hb(23, 2.0, requestHeader={"requestApiKey": 1, "requestApiKeyName": "FETCH"})),
    _line("2025-06-01 12:00:01,026", _hb(24, 2.0, response="")),
    _line("2025-06-01 12:00:01,027", _hb(25, True)),
    "[2025-06-01 12:00:01,028] DEBUG Something else entirely (kafka.request.logger)\n",
    "   \n",
    "[2025-06-01 12:00:01,029]\n",
    "java.lang.IllegalStateException: boom\n",
    _line("2025-06-01 12:00:02,000", _hb(26, 999.5)),
    _line("2025-06-01 12:00:02,001", _hb(27, 0.0)),
    _line("2025-06-01 12:00:02,001", _hb(28, 0.0)) + "no newline at the end",
]


@pytest.mark.parametrize("window", [0, 500, 600_000])
def test_odd_request_log_lines_as_the_general_path(monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    text = "".join(ODD_LINES).encode()
    fast = _items(text, reorder_window_ms=window)
    assert fast == _general(monkeypatch, text, reorder_window_ms=window)
    # One item per non-blank line (events.py), so neither path drops or invents a line.
    assert len(fast) == sum(1 for line in text.splitlines() if line.strip()) == 38


def test_mutated_request_log_lines_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    base = "".join(ODD_LINES[:3]).encode()
    lines = []
    for _ in range(6000):  # flip, drop or insert a byte somewhere, up to three times
        lines.append(mutated(rng, rng.choice(base.splitlines(keepends=True)), rng.randint(0, 3),
                             b'0123456789 ,:]}["-.\n{', b'0123456789 ,:]}["'))
    text = b"".join(lines)
    for window in (0, 1000, 600_000):
        assert _items(text, reorder_window_ms=window) == _general(monkeypatch, text, reorder_window_ms=window)


def _simulated_run() -> list[dict[str, Any]]:
    sim = Simulator(5, SimConfig(record_events=True, check=False, network=NetworkConfig(0.05, 0.0, 1, 20)))
    sim.set_topic("t", 6)
    for _ in range(3):
        sim.add_client("g", ("t",))
    sim.run_for(20000)
    sim.crash(sorted(sim.clients)[0])
    sim.run_for(60000)
    sim.set_topic("t", 8)
    sim.run_for(20000)
    return sim.finish()


@pytest.mark.parametrize("window", [0, 700, 3000, 600_000])
def test_read_order_is_a_heap_of_arrivals(window: int) -> None:
    """The read loop's queue (ArrivalQueue, inline) releases exactly as the heap of (arrival, line) it
    stands for: an entry leaves once its arrival is at most the latest completion minus the window."""
    rng = random.Random(window)
    clock, lines = 0, []
    for i in range(3000):
        clock += rng.choice([0, 0, 1, 7, 250])
        total = rng.choice([0, 0.5, 1, 3, 40, 650, 2500])  # mostly in order, some overtake earlier calls
        stamp = f"2025-06-01 12:{clock // 60_000 % 60:02}:{clock // 1000 % 60:02},{clock % 1000:03}"
        lines.append(_line(stamp, _hb(i, total)))
    events = list(read_request_log(io.BytesIO("".join(lines).encode()), reorder_window_ms=window))
    assert all(isinstance(event, Event) for event in events)
    assert len(events) == 3000
    by_line = sorted(events, key=lambda event: event.line)
    heap: list[tuple[float, int]] = []
    expected, latest = [], float("-inf")
    for event in by_line:  # the reference: a heap, fed in file order
        completion = event.ts_ms + event.total_time_ms  # type: ignore[operator]
        latest = max(latest, completion)
        heapq.heappush(heap, (event.ts_ms, event.line))  # type: ignore[arg-type]
        while heap and heap[0][0] <= latest - window:
            expected.append(heapq.heappop(heap)[1])
    expected += [line for _, line in sorted(heap)]
    assert [event.line for event in events] == expected
    assert (expected != sorted(expected)) == (window > 0)  # calls overtook others unless nothing waits


def test_written_logs_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    events = _simulated_run()
    out = io.StringIO()
    lines = write_request_log(events, out)
    text = out.getvalue().encode()
    fast = _items(text)
    assert fast == _general(monkeypatch, text)
    assert len(fast) == len(lines) > 40  # one item per written line (each admin call is one topic change)
    fixture = (DATA / "request.log").read_bytes()
    assert _items(fixture) == _general(monkeypatch, fixture)


def test_moved_timer_is_the_constructed_one() -> None:
    timer = Timer("session-timeout-g-m", 45_000, "consumer-session", "g", "m", 7)
    moved = timer_at(timer, 50_000)
    assert moved == Timer("session-timeout-g-m", 50_000, "consumer-session", "g", "m", 7)
    assert type(moved) is Timer
    assert hash(moved) == hash(Timer("session-timeout-g-m", 50_000, "consumer-session", "g", "m", 7))
    assert timer.deadline_ms == 45_000


# --- repeated calls (readers/call_memo.py) -----------------------------------------------------

_HEAD_TEXT = '{"isForwarded":false,"requestHeader":{"requestApiKey":68,"requestApiVersion":1,"correlationId":'
_MIDDLE = ('{cid},"clientId":"c1","requestApiKeyName":"CONSUMER_GROUP_HEARTBEAT"}},'
           '"request":{{"groupId":"g","memberId":"m","memberEpoch":3,"topicPartitions":null}},'
           '"response":{{"errorCode":0,"memberId":"m","memberEpoch":3,"heartbeatIntervalMs":5000,"assignment":null}},'
           '"connection":"127.0.0.1:9092-127.0.0.1:5000-0",')
_TAIL = '"totalTimeMs":{total},"requestQueueTimeMs":0.1,"clientInformation":{{"softwareName":"java"}}}}'


def _call_text(cid: Any = 1, total: Any = 1.5, head: str = _HEAD_TEXT, middle: str = _MIDDLE,
               tail: str = _TAIL) -> str:
    return head + middle.format(cid=cid) + tail.format(total=total)


# Each odd text is written after the plain call it departs from, so it meets a known (H, M) or Y.
REPEATS = [
    _call_text(2, 3), _call_text(3, 0.1234567), _call_text(4, "1e3"), _call_text(5, 0), _call_text(6, 2.0),
    _call_text(7, "-1"), _call_text(8, '"3"'), _call_text(9, "null"), _call_text(10, "NaN"), _call_text(11, "true"),
    _call_text(12, "1.5,"), _call_text(13, "1.5}"), _call_text(14, "[1"), _call_text(15, "Infinity"),
    _call_text(16, "1.5") + "x", _call_text(17, "1.5")[:-1], _call_text(18, '1.5,"request":{}'),
    _call_text(19, '1.5,"tsMs":5'), _call_text(20, '1.5,"totalTimeMs":2'), _call_text(21, '1.5,"connection":7'),
    _call_text("01"), _call_text("-1"), _call_text("0"), _call_text("1.5"), _call_text("1e3"), _call_text('"x"'),
    _call_text("null"), _call_text("12345678901"), _call_text("9999999999"), _call_text("1234567890123456789012"),
    _call_text(""), _call_text(" 5"),
    # the header's correlationId again after the one cut out (not canonical: never remembered)
    _call_text(22, middle=_MIDDLE.replace('"clientId":"c1",', '"clientId":"c1","correlationId":7,')),
    _call_text(23, middle=_MIDDLE.replace('"clientId":"c1",', '"clientId":"c1","correlationId":7,')),
    _call_text(24, middle=_MIDDLE.replace('"clientId":"c1",', '"clientId":"c1","correlationId":24,')),
    _call_text(25, middle=_MIDDLE.replace('"clientId":"c1",', '"clientId":"c1","correlationId":24,')),
    # the first "correlationId": is not the header's (H is not Kafka's header start)
    _call_text(5, head=_HEAD_TEXT.replace('"requestHeader"', '"a":{"correlationId":5,"b":1},"requestHeader"')),
    _call_text(5, head=_HEAD_TEXT.replace('"requestHeader"', '"a":{"correlationId":6,"b":1},"requestHeader"')),
    # another spelling of the same JSON, a name hidden behind an escaped quote, odd types
    _call_text(26, head=_HEAD_TEXT.replace('"isForwarded":false', '"isForwarded": false')),
    _call_text(27, middle=_MIDDLE.replace('"groupId":"g"', '"x\\"correlationId":1,"groupId":"g"')),
    _call_text(28, middle=_MIDDLE.replace('"groupId":"g"', '"groupId":"g\\",\\"totalTimeMs\\":9,"')),
    _call_text(29, middle=_MIDDLE.replace('"clientId":"c1"', '"clientId":"\\u00e9t\\u00e9"')),
    _call_text(30, middle=_MIDDLE.replace('"clientId":"c1"', '"clientId":"été"')),
    _call_text(31, middle=_MIDDLE.replace('"clientId":"c1"', '"clientId":5')),
    _call_text(32, middle=_MIDDLE.replace('"connection":"127.0.0.1:9092-127.0.0.1:5000-0"', '"connection":null')),
    _call_text(33, middle=_MIDDLE.replace('"connection":"127.0.0.1:9092-127.0.0.1:5000-0",', '')),
    _call_text(34, middle=_MIDDLE.replace('"memberEpoch":3,"top', '"memberEpoch":12345678901234567890,"top')),
    _call_text(35, middle=_MIDDLE.replace('"response":{{', '"response":{{"errorCode":1,')),
    _call_text(36, head=_HEAD_TEXT.replace('"requestApiKey":68', '"requestApiKey":1')),
    _call_text(37, head=_HEAD_TEXT.replace('"requestApiKey":68', '"requestApiKey":3')),
    _call_text(38, head=_HEAD_TEXT.replace('"requestApiKey":68', '"requestApiKey":11')),
    _call_text(39, head=_HEAD_TEXT.replace('"requestApiVersion":1', '"requestApiVersion":0')),
    _call_text(40, tail=_TAIL.replace('"clientInformation"', '"request"')),
    _call_text(42, tail='"totalTimeMs":{total}}}'),  # no comma after the number: parse() reads it
    # headers other than Kafka's five names (the event's header is then a copy of the known one)
    _call_text(44, middle=_MIDDLE.replace(',"requestApiKeyName":"CONSUMER_GROUP_HEARTBEAT"', '')),
    _call_text(45, middle=_MIDDLE.replace('"clientId":"c1",', '"clientId":"c1","x":1,')),
    _call_text(46, middle=_MIDDLE.replace('"clientId":"c1",', '')),
    # a forwarded call; P's names in another order or with another member (the body is then not shared)
    _call_text(47, head=_HEAD_TEXT.replace('"isForwarded":false', '"isForwarded":true')),
    _call_text(48, middle=_MIDDLE.replace('"connection":"127.0.0.1:9092-127.0.0.1:5000-0",',
                                          '"connection":"127.0.0.1:9092-127.0.0.1:5000-0","x":[1],')),
    _call_text(49, middle=_MIDDLE.replace('"request":{{"groupId":"g","memberId":"m","memberEpoch":3,"topicPartitions":null}},', '')
               .replace('"connection"', '"request":{{"groupId":"g","memberId":"m","memberEpoch":3,"topicPartitions":null}},'
                                        '"connection"')),
    _call_text(43, tail='"totalTimeMs":{total}}}'),
    _call_text(41, tail=_TAIL.replace('"requestQueueTimeMs"', '"isForwarded"')),
]


def _repeated_log(texts: list[str]) -> bytes:
    lines = []
    for i, text in enumerate(texts):
        for plain in (_call_text(1000 + i), _call_text(2000 + i, 2.5)):  # known (H, M), and known again
            lines.append(_line(f"2025-06-01 12:00:{i % 60:02},{i % 1000:03}", plain))
        lines.append(_line(f"2025-06-01 12:00:{i % 60:02},{i % 1000:03}", text))
        lines.append(_line(f"2025-06-01 12:00:{i % 60:02},{i % 1000:03}", text, level="INFO"))  # through parse()
        lines.append(_line(f"2025-06-01 12:00:{i % 60:02},{i % 1000:03}", text))  # the odd text, known now
    return "".join(lines).encode()


@pytest.mark.parametrize("window", [0, 600_000])
def test_repeated_calls_as_the_general_path(monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    text = _repeated_log(REPEATS)
    memos: list[CallMemo] = []
    with monkeypatch.context() as patch:
        init = CallMemo.__init__
        patch.setattr(CallMemo, "__init__", lambda self, keys: (memos.append(self), init(self, keys))[1])
        fast = list(read_request_log(io.BytesIO(text), reorder_window_ms=window))
    assert [repr(item) for item in fast] == _general(monkeypatch, text, reorder_window_ms=window)
    assert len(memos) == 1
    assert memos[0]._held == {}  # every repeat queued was released (or let go)
    # The memo did answer: repeats share their request objects (the general path never does).
    calls = [item for item in fast if isinstance(item, Event)]
    assert len({id(call.request) for call in calls}) < len(calls) // 2
    assert any(isinstance(item, Malformed) for item in fast)


def test_repeated_calls_with_random_changes_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Single-byte changes anywhere in a known call, each written after the call it changes."""
    rng = random.Random(5)
    base = _call_text(7).encode()
    texts = []
    for _ in range(3000):
        changed = mutated(rng, base, 1, b'0123456789 ,:]}["-.{\\tnul', b'0123456789 ,:]}["')
        texts.append(changed.decode("utf-8", "replace"))
    text = _repeated_log(texts)
    assert _items(text) == _general(monkeypatch, text)


def _find(memo: CallMemo, text: str) -> Any:
    raw = text.encode()
    return memo.find(raw, 0, raw.rfind(b'"totalTimeMs":'), len(raw))


def test_repeated_calls_memory_is_bounded() -> None:
    memo = CallMemo(frozenset({68}))
    for i in range(MAX_CALLS + 10):
        assert _find(memo, _call_text(1, middle=_MIDDLE.replace('"memberEpoch":3,', f'"memberEpoch":{i},', 1)))
        assert _find(memo, _call_text(1, total=i))
    assert 0 < len(memo._calls) <= MAX_CALLS
    assert 0 < len(memo._tails) <= MAX_TAILS
    large = "x" * (MAX_CALL_BYTES // MAX_CALLS * 2)  # calls that fill the byte budget before the count
    for i in range(MAX_CALLS // 2 + 10):
        assert _find(memo, _call_text(1, middle=_MIDDLE.replace('"groupId":"g"', f'"groupId":"{large}{i}"')))
    assert 0 < sum(map(len, memo._calls)) <= MAX_CALL_BYTES + MAX_MIDDLE
    # a call or a tail beyond the size kept is decoded in full every time
    assert _find(memo, _call_text(1, middle=_MIDDLE.replace('"groupId":"g"', f'"groupId":"{"x" * MAX_MIDDLE}"'))) \
        is None
    assert _find(memo, _call_text(1, tail=_TAIL.replace('"java"', f'"{"x" * MAX_TAIL}"'))) is None


def test_checked_repeated_calls_are_left_as_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Repeats share request and response objects: checking must leave every event as read, and the
    report must be the one of a log read without the memo (a steady log with departures planted)."""
    events = _simulated_run()
    out = io.StringIO()
    write_request_log(events, out)
    lines = out.getvalue().splitlines(keepends=True)
    planted = [i for i, line in enumerate(lines) if '"memberEpoch":' in line and "HEARTBEAT" in line][-30::10]
    for i in planted:  # an epoch bump, then the same call repeated: a cached answer must not hide it
        lines[i] = lines[i].replace('"heartbeatIntervalMs":5000', '"heartbeatIntervalMs":4000')
    text = "".join(lines).encode()

    def check(memo: bool) -> tuple[dict[str, Any], list[tuple[Event, Any]]]:
        with monkeypatch.context() as patch:
            if not memo:
                patch.setattr(CallMemo, "find", lambda self, raw, start, at, end: None)
            report = Report()
            checker = TraceChecker("log", report)
            read = []
            for item in read_request_log(io.BytesIO(text)):
                if isinstance(item, Event):
                    read.append((item, copy.deepcopy((item.body, item.request, item.response))))
                checker.feed(item)
            checker.finish()
            return report.to_json(), read

    cached, read = check(True)
    assert cached == check(False)[0]
    assert [event.line for event, (body, request, response) in read
            if (event.body, event.request, event.response) != (body, request, response)] == []
    assert any(f["kind"] == "response-mismatch" for f in cached["findings"])
