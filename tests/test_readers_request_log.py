"""Kafka's broker request log: arrival times, re-ordering, topics, skips and errors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from kgspec.conformance.events import Event, Malformed, ReadItem, Skipped
from kgspec.conformance.readers import open_trace, read_request_log

DATA = Path(__file__).parent / "data" / "formats"
B = 1748779200000  # 2025-06-01 12:00:00 UTC in epoch ms
FOO, BAR, BAZ = "JUxmFSdeRnSLhXMi3QDX9g", "tbW5n_bzQ8OXsN2lLXkbPg", "Uj5wn_FqTXirEASvVZRY1w"


def _line(ts: str, obj: dict[str, Any], level: str = "DEBUG") -> str:
    return f"[2025-06-01 {ts}] {level} Completed request:{json.dumps(obj)} (kafka.request.logger)\n"


def _hb(total: float, group: str = "g", key: int = 68) -> dict[str, Any]:
    return {"isForwarded": False,
            "requestHeader": {"requestApiKey": key, "requestApiVersion": 1, "correlationId": 1, "clientId": "c",
                              "requestApiKeyName": "CONSUMER_GROUP_HEARTBEAT"},
            "request": {"groupId": group, "memberEpoch": 0}, "response": {"errorCode": 0},
            "connection": "127.0.0.1:9092-127.0.0.1:5000-0", "totalTimeMs": total}


def _read(text: str, **kwargs: Any) -> list[ReadItem]:
    return list(read_request_log(io.BytesIO(text.encode()), **kwargs))


def test_fixture_exactly() -> None:
    path = DATA / "request.log"
    items = list(open_trace(path))
    summary = [(type(i).__name__, i.line, getattr(i, "kind", None), getattr(i, "ts_ms", None)) for i in items]
    assert summary == [
        ("Event", 1, "topic", B + 20),
        ("Event", 1, "topic", B + 20),
        ("Skipped", 3, None, None),
        ("Event", 6, "call", B + 100),  # JoinGroup: arrived first, completed 3 s later
        ("Event", 4, "call", B + 199.8),  # ConsumerGroupHeartbeat: 12:00:00,203 - 3.2 ms
        ("Skipped", 5, None, None),
        ("Skipped", 7, None, None),
        ("Skipped", 8, None, None),
        ("Malformed", 9, None, None),
        ("Event", 10, "call", B + 3299.5),
        ("Event", 11, "topic", B + 4000),
        ("Event", 12, "topic", B + 5000),
        ("Skipped", 13, None, None),
        ("Event", 14, "topic", B + 6000),
    ]
    # every non-blank line accounted for exactly once
    lines = [line for line in path.read_text().split("\n") if line.strip()]
    assert sum(1 for i in items if not getattr(i, "same_line", False)) == len(lines) == 13
    assert sorted({i.line for i in items}) == [n + 1 for n, raw in enumerate(path.read_text().split("\n")) if raw.strip()]

    by_line = {(i.line, getattr(i, "same_line", False)): i for i in items}
    foo, bar = by_line[(1, False)], by_line[(1, True)]
    assert isinstance(foo, Event)
    assert isinstance(bar, Event)
    assert foo.body == {"name": "foo", "topicId": FOO, "partitions": 6}
    assert bar.body == {"name": "bar", "topicId": BAR, "partitions": 3}
    assert by_line[(3, False)] == Skipped(3, "log line without a request (WARN)")
    assert by_line[(5, False)] == Skipped(5, "FETCH: not a group API")
    assert by_line[(7, False)] == Skipped(7, "not a request-log line")
    assert by_line[(9, False)] == Malformed(
        9, "request-log JSON is broken: Expecting property name enclosed in double quotes at column 58")
    assert by_line[(13, False)] == Skipped(13, "METADATA: no topic change")

    join = by_line[(6, False)]
    assert isinstance(join, Event)
    assert (join.api_key, join.api_name, join.api_version, join.client_id, join.group_id) == (
        11, "JOIN_GROUP", 9, "k1", "cg")
    assert (join.total_time_ms, join.connection) == (3000.0, "127.0.0.1:9092-127.0.0.1:55450-2")
    assert join.ts_ms == B + 100
    assert isinstance(join.ts_ms, int)
    assert join.request["protocols"] == [{"name": "range", "metadata": "AAMAAAABAANmb28AAAAA"}]
    assert join.response["members"][0]["memberId"] == "k1-5b0c"
    assert join.body["tsMs"] == B + 100
    assert join.body["requestHeader"]["requestApiKeyName"] == "JOIN_GROUP"

    hb = by_line[(4, False)]
    assert isinstance(hb, Event)
    assert (hb.api_key, hb.group_id, hb.total_time_ms, hb.response["memberEpoch"]) == (68, "g", 3.2, 1)
    deprecated = by_line[(10, False)]
    assert isinstance(deprecated, Event)
    assert (deprecated.api_key, deprecated.api_version, deprecated.group_id) == (12, 0, "cg")  # INFO level line

    baz, bar_gone, foo8 = by_line[(11, False)], by_line[(12, False)], by_line[(14, False)]
    assert isinstance(baz, Event)
    assert baz.body == {"name": "baz", "topicId": BAZ, "partitions": 2}
    assert isinstance(bar_gone, Event)
    assert bar_gone.body == {"name": "bar", "topicId": BAR, "deleted": True}
    assert isinstance(foo8, Event)
    assert foo8.body == {"name": "foo", "topicId": FOO, "partitions": 8}


def test_reorder_by_arrival_within_window() -> None:
    text = (_line("12:00:00,010", _hb(2, "a")) + _line("12:00:02,000", _hb(0, "x"))
            + _line("12:00:05,000", _hb(4995, "b")) + _line("12:00:05,001", _hb(1, "c")))
    ordered = [(i.group_id, i.ts_ms, i.line) for i in _read(text) if isinstance(i, Event)]
    assert ordered == [("b", B + 5, 3), ("a", B + 8, 1), ("x", B + 2000, 2), ("c", B + 5000, 4)]
    # a window shorter than b's 4995 ms: a was released before b was read
    late = [i.group_id for i in _read(text, reorder_window_ms=1000) if isinstance(i, Event)]
    assert late == ["a", "b", "x", "c"]


def test_items_leave_once_the_log_passes_the_window() -> None:
    text = _line("12:00:00,000", _hb(0, "a")) + _line("12:00:02,000", _hb(0, "b")) + "".join(
        _line(f"12:00:0{s},000", _hb(0, f"x{s}")) for s in range(3, 10))
    stream = io.BytesIO(text.encode())
    items = read_request_log(stream, reorder_window_ms=1500)
    first = next(items)
    assert isinstance(first, Event)
    assert first.group_id == "a"
    assert stream.tell() < len(text)  # released before the end of the file


def test_time_zone_parameter() -> None:
    text = _line("14:00:00,000", _hb(0))
    assert [i.ts_ms for i in _read(text, tz="+02:00") if isinstance(i, Event)] == [B]
    assert [i.ts_ms for i in _read(text, tz="Europe/Paris") if isinstance(i, Event)] == [B]
    assert [i.ts_ms for i in _read(text) if isinstance(i, Event)] == [B + 2 * 3600 * 1000]


def test_api_filter_and_topic_derivation_switches() -> None:
    fetch = _hb(1)
    fetch["requestHeader"].update(requestApiKey=1, requestApiKeyName="FETCH")
    meta = _hb(1)
    meta["requestHeader"].update(requestApiKey=3, requestApiKeyName="METADATA")
    meta["response"] = {"topics": [{"errorCode": 0, "name": "foo", "topicId": FOO, "partitions": [{}]}]}
    text = _line("12:00:00,001", fetch) + _line("12:00:00,002", meta)
    kept = _read(text, api_keys=None, derive_topics=False)
    assert [(i.kind, i.api_key) for i in kept if isinstance(i, Event)] == [("call", 1), ("call", 3)]
    skipped = _read(text, derive_topics=False)
    assert skipped == [Skipped(1, "FETCH: not a group API"), Skipped(2, "METADATA: not a group API")]


def test_odd_request_log_lines() -> None:
    no_response = _hb(1)
    no_response["response"] = ""
    negative = _hb(-1)
    no_header = {"request": {}}
    text = (
        "[2025-06-01 12:00:00,001] DEBUG Completed request:RequestHeader(apiKey=JOIN_GROUP) (kafka.request.logger)\n"
        + _line("12:00:00,002", no_response)
        + _line("12:00:00,003", negative)
        + _line("12:00:00,004", no_header)
        + "[not a time] DEBUG Completed request:{}\n"
        + "[2025-06-01 12:00:00,005] DEBUG Completed request:[1] (kafka.request.logger)\n"
        + '[2025-06-01 12:00:00,006] DEBUG Completed request:{"requestHeader":{}} (kafka.request.logger)\n'
    )
    assert _read(text) == [
        Malformed(1, "request-log line without JSON (logs before Kafka 2.8 are not supported)"),
        Skipped(2, "CONSUMER_GROUP_HEARTBEAT: no request or response in the log"),
        Malformed(3, "`totalTimeMs` must be a non-negative number", "totalTimeMs"),
        Malformed(4, "missing `requestHeader`", "requestHeader"),
        Skipped(5, "not a request-log line"),
        Malformed(6, "request-log line without JSON (logs before Kafka 2.8 are not supported)"),
        Malformed(7, "`requestHeader` needs requestApiKey or requestApiKeyName", "requestHeader"),
    ]


def test_iso_timestamps_and_custom_logger_suffix() -> None:
    text = ('[2025-06-01T12:00:01.250Z] DEBUG Completed request:' + json.dumps(_hb(0.25)) + "\n")
    (event,) = _read(text)
    assert isinstance(event, Event)
    assert event.ts_ms == B + 1249.75


def test_too_long_lines_keep_their_place() -> None:
    """A line beyond ``max_line_bytes`` is Malformed at the log's clock; a line of exactly that many
    bytes before its newline is read as any other; blank lines count but give nothing."""
    text = (_line("12:00:00,100", _hb(50, "a")) + "x" * 5000 + "\n" + "   \n"
            + _line("12:00:00,200", _hb(150, "b")) + "y" * 1000 + "\n")
    long_line = Malformed(2, "line is longer than 1000 bytes")
    skipped = Skipped(5, "not a request-log line")
    for window, order in ((600_000, ["a", "b", long_line, skipped]), (0, ["a", long_line, "b", skipped])):
        items = _read(text, max_line_bytes=1000, reorder_window_ms=window)
        assert [item.group_id if isinstance(item, Event) else item for item in items] == order
        assert [(item.line, item.ts_ms) for item in items if isinstance(item, Event)] == [(1, B + 50), (4, B + 50)]
