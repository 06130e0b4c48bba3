"""The native JSON Lines reader: exact events, strict validation, streaming, huge lines."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from kgspec.conformance.events import Event, Malformed, ReadItem, Skipped
from kgspec.conformance.readers import TraceFormatError, TraceHeader, open_trace, read_native

DATA = Path(__file__).parent / "data" / "formats"
FOO = "JUxmFSdeRnSLhXMi3QDX9g"


def _read(text: str, **kwargs: object) -> list[ReadItem]:
    return list(read_native(io.BytesIO(text.encode()), **kwargs))  # type: ignore[arg-type]


def _non_blank_lines(path: Path) -> int:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return sum(1 for line in raw.split(b"\n") if line.strip())


def test_gzip_trace_events_exactly() -> None:
    items = list(open_trace(DATA / "native.jsonl.gz"))
    assert [type(i) for i in items] == [Event] * 5
    events = [i for i in items if isinstance(i, Event)]
    header, topic, call, record, tick = events
    assert (header.line, header.kind, header.ts_ms) == (1, "header", None)
    assert TraceHeader.parse(header.body) == TraceHeader(
        "kgspec-trace/1", "kafka-4.1", {"group.consumer.session.timeout.ms": 45000})
    assert (topic.line, topic.kind, topic.ts_ms, topic.body) == (
        2, "topic", 0, {"name": "foo", "topicId": FOO, "partitions": 6})
    assert (call.line, call.kind, call.ts_ms, call.api_key, call.api_version, call.client_id) == (
        3, "call", 1000, 68, 1, "c1")
    assert isinstance(call.ts_ms, int)  # numbers stay as written
    assert call.group_id == "g"
    assert call.request["memberEpoch"] == 0
    assert call.response["assignment"] == {"topicPartitions": [{"topicId": FOO, "partitions": [0, 1, 2, 3, 4, 5]}]}
    assert call.total_time_ms is None
    assert call.connection is None
    assert (record.line, record.kind, record.ts_ms, record.group_id) == (4, "record", 1000, "g")
    assert record.body["key"] == {"type": 8, "data": {"groupId": "g", "memberId": "XoMVSOsQTvau-Xv4y2-vZg"}}
    assert (tick.line, tick.kind, tick.ts_ms, tick.body, tick.group_id) == (5, "tick", 47000, {}, None)


EXPECTED_MALFORMED = [
    (3, "not valid JSON: Expecting ',' delimiter at column 23", None),
    (4, "event must be a JSON object, not an array", None),
    (5, "`tsMs` must be a number", "tsMs"),
    (6, "missing `tsMs`", "tsMs"),
    (7, "event has both `topic` and `tick`", "tick"),
    (8, "event has none of `header`, `requestHeader`, `topic`, `record`, `tick`", None),
    (9, "`requestHeader` needs requestApiKey or requestApiKeyName", "requestHeader"),
    (10, "missing `response`", "response"),
    (11, "`requestHeader.requestApiKey` must be an integer", "requestHeader.requestApiKey"),
    (12, "`request` must be an object", "request"),
    (13, "`header` is only allowed as the first event", "header"),
    (14, "missing `topic.partitions`", "topic.partitions"),
    (15, "`topic.topicId` must be a Kafka Uuid (22 characters of url-safe base64)", "topic.topicId"),
    (16, "`record.key.type` must be an integer", "record.key.type"),
    (17, "missing `record.value` (null for a tombstone)", "record.value"),
    (18, "`tick` must be an object", "tick"),
    (19, "`tsMs` must be a number", "tsMs"),
    (21, "line is not valid UTF-8", None),
    (24, "`totalTimeMs` must be a non-negative number", "totalTimeMs"),
]


def test_every_kind_of_malformed_line() -> None:
    path = DATA / "native_malformed.jsonl"
    items = list(open_trace(path))
    malformed = [(i.line, i.message, i.field) for i in items if isinstance(i, Malformed)]
    assert malformed == EXPECTED_MALFORMED
    events = [i for i in items if isinstance(i, Event)]
    assert [(e.line, e.kind) for e in events] == [(1, "header"), (2, "topic"), (20, "call"), (25, "tick")]
    connect = events[2]
    assert (connect.api_key, connect.api_name, connect.total_time_ms, connect.group_id) == (
        None, "CONNECT_GROUP_HEARTBEAT", 1.5, "cx")
    assert len(items) == _non_blank_lines(path) == 23
    assert [i.line for i in items] == sorted(i.line for i in items)


def test_more_than_two_kinds_and_type_names() -> None:
    items = _read('{"tsMs": 1, "tick": {}, "topic": {}, "record": {}}\n"text"\nnull\n7\ntrue\n')
    assert [(i.line, i.message) for i in items if isinstance(i, Malformed)] == [
        (1, "event has more than one kind: `topic`, `record`, `tick`"),
        (2, "event must be a JSON object, not a string"),
        (3, "event must be a JSON object, not null"),
        (4, "event must be a JSON object, not a number"),
        (5, "event must be a JSON object, not a boolean"),
    ]


def test_nan_timestamp_and_fields_of_calls() -> None:
    items = _read(
        '{"tsMs": NaN, "tick": {}}\n'
        '{"tsMs": 1, "requestHeader": {"requestApiKey": 68, "requestApiVersion": "1"}, "request": {}, "response": {}}\n'
        '{"tsMs": 1, "requestHeader": {"requestApiKey": 68, "clientId": 5}, "request": {}, "response": {}}\n'
        '{"tsMs": 1, "requestHeader": 68, "request": {}, "response": {}}\n'
        '{"tsMs": 1, "requestHeader": {"requestApiKey": 68}, "request": {}, "response": {}, "connection": 1}\n'
        '{"tsMs": 1, "requestHeader": {"requestApiKey": 68}, "response": {}}\n'
        '{"tsMs": 1, "requestHeader": {"requestApiKey": 68}, "request": {}, "response": ""}\n'
    )
    assert [(i.message, i.field) for i in items if isinstance(i, Malformed)] == [
        ("`tsMs` must be a number", "tsMs"),
        ("`requestHeader.requestApiVersion` must be an integer", "requestHeader.requestApiVersion"),
        ("`requestHeader.clientId` must be a string", "requestHeader.clientId"),
        ("`requestHeader` must be an object", "requestHeader"),
        ("`connection` must be a string", "connection"),
        ("missing `request`", "request"),
        ("`response` must be an object", "response"),
    ]


def test_records_and_topics() -> None:
    items = _read(
        '{"tsMs": 5, "record": {"key": {"type": 8, "data": {"groupId": "g", "memberId": "m"}}, "value": null}}\n'
        '{"tsMs": 6, "record": {"key": {"type": 3, "data": {"groupId": "g"}}, "value": {"version": "0", "data": {}}}}\n'
        '{"tsMs": 7, "topic": {"name": "foo", "deleted": true}}\n'
        '{"tsMs": 8, "topic": {"name": "", "partitions": 1}}\n'
        '{"tsMs": 9, "topic": {"name": "foo", "partitions": -1}}\n'
        '{"tsMs": 9, "topic": {"name": "foo", "partitions": 1, "deleted": "yes"}}\n'
        '{"tsMs": 9, "record": {"key": {"type": 3, "data": []}, "value": null}}\n'
        '{"tsMs": 9, "record": {"key": {"type": 3, "data": {}}, "value": {"version": 0, "data": null}}}\n'
    )
    tomb = items[0]
    assert isinstance(tomb, Event)
    assert (tomb.kind, tomb.ts_ms, tomb.body["value"], tomb.group_id) == ("record", 5, None, "g")
    deleted = items[2]
    assert isinstance(deleted, Event)
    assert deleted.body == {"name": "foo", "deleted": True}
    assert [(i.line, i.message, i.field) for i in items if isinstance(i, Malformed)] == [
        (2, "`record.value.version` must be an integer", "record.value.version"),
        (4, "`topic.name` must be a non-empty string", "topic.name"),
        (5, "`topic.partitions` must be a non-negative integer", "topic.partitions"),
        (6, "`topic.deleted` must be true or false", "topic.deleted"),
        (7, "`record.key.data` must be an object", "record.key.data"),
        (8, "`record.value.data` must be an object", "record.value.data"),
    ]


def test_header_validation() -> None:
    items = _read('{"header": {"format": "kgspec-trace/1", "configs": {"group.consumer.session.timeout.ms": "45s"}}}\n')
    assert [(i.line, i.message, i.field) for i in items if isinstance(i, Malformed)] == [
        (1, "`header.configs.group.consumer.session.timeout.ms` must be a number",
         "header.configs.group.consumer.session.timeout.ms")]
    items = _read('{"header": {"profile": "kafka-4.1"}}\n{"header": "x"}\n')
    assert [(i.message, i.field) for i in items if isinstance(i, Malformed)] == [
        ("missing `header.format`", "header.format"),
        ("`header` is only allowed as the first event", "header"),
    ]
    header = TraceHeader.parse({"format": "kgspec-trace/1", "configs": {"made.up": [1], "group.max.size": 10}})
    assert header.profile == "kafka-4.3"  # the contract's default
    assert header.configs == {"made.up": [1], "group.max.size": 10}  # unknown names are kept
    with pytest.raises(TraceFormatError, match="kgspec-trace/2"):
        TraceHeader.parse({"format": "kgspec-trace/2"})


def test_unsupported_header_format_raises() -> None:
    with pytest.raises(TraceFormatError, match=r"unsupported header\.format 'kgspec-trace/9'"):
        _read('{"header": {"format": "kgspec-trace/9"}}\n{"tsMs": 1, "tick": {}}\n')


def test_header_tsms_optional_but_numeric() -> None:
    items = _read('{"tsMs": 0, "header": {"format": "kgspec-trace/1"}}\n')
    assert isinstance(items[0], Event)
    assert items[0].ts_ms == 0
    items = _read('{"tsMs": "0", "header": {"format": "kgspec-trace/1"}}\n')
    assert isinstance(items[0], Malformed)
    assert items[0].field == "tsMs"


def test_metadata_calls_become_topics_until_the_trace_has_its_own() -> None:
    meta = {"tsMs": 10, "totalTimeMs": 2, "requestHeader": {"requestApiKey": 3, "requestApiKeyName": "METADATA"},
            "request": {"topics": None},
            "response": {"topics": [{"errorCode": 0, "name": "foo", "topicId": FOO, "partitions": [{}, {}]}]}}
    text = "\n".join([json.dumps(meta), json.dumps({"tsMs": 20, "topic": {"name": "foo", "topicId": FOO, "partitions": 4}}),
                      json.dumps(meta)]) + "\n"
    items = _read(text)
    first = items[0]
    assert isinstance(first, Event)
    assert (first.line, first.kind, first.ts_ms, first.body) == (1, "topic", 12, {"name": "foo", "topicId": FOO, "partitions": 2})
    assert isinstance(items[1], Event)
    assert items[1].kind == "topic"
    assert items[2] == Skipped(3, "METADATA: topics come from the trace's topic events")
    items = _read(json.dumps(meta) + "\n", derive_topics=False)
    assert isinstance(items[0], Event)
    assert items[0].kind == "call"


def test_reads_lazily() -> None:
    stream = io.BytesIO(b"".join(b'{"tsMs": %d, "tick": {}}\n' % i for i in range(10000)))
    items = read_native(stream)
    first = next(items)
    assert isinstance(first, Event)
    assert first.ts_ms == 0
    assert stream.tell() < 100  # one line read, not the file


def test_enormous_line_is_malformed_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    limit = 16 * 1024 * 1024
    with path.open("wb") as handle:
        handle.write(b'{"tsMs": 0, "tick": {}}\n')
        handle.write(b'{"tsMs": 1, "tick": {}, "pad": "' + b"x" * (limit + 10) + b'"}\n')
        handle.write(b'{"tsMs": 2, "tick": {}}\n')
    items = list(open_trace(path))
    assert [type(i) for i in items] == [Event, Malformed, Event]
    assert items[1] == Malformed(2, f"line is longer than {limit} bytes")
    assert items[2].line == 3


def test_line_limit_is_a_parameter() -> None:
    items = _read('{"tsMs": 0, "tick": {}}\n' + "x" * 5000 + "\n" + "y" * 100 + '\n{"tsMs": 3, "tick": {}}',
                  max_line_bytes=1024)
    assert [(type(i).__name__, i.line) for i in items] == [
        ("Event", 1), ("Malformed", 2), ("Malformed", 3), ("Event", 4)]
    assert isinstance(items[1], Malformed)
    assert items[1].message == "line is longer than 1024 bytes"
    assert isinstance(items[2], Malformed)
    assert items[2].message.startswith("not valid JSON")


def test_broker_apis_that_no_coordinator_serves_are_skipped() -> None:
    """Produce, Fetch, ApiVersions, FindCoordinator: counted as skipped, as in a request log, never
    `unsupported`; group APIs (modelled or not) and unknown keys reach the checker."""
    call = '{"tsMs":1,"requestHeader":{"requestApiKey":%d,"requestApiVersion":%d},"request":{%s},"response":{}}'
    items = _read("\n".join([call % (0, 9, ""), call % (1, 12, ""), call % (18, 3, ""), call % (10, 4, ""),
                             call % (76, 1, '"groupId":"s"'), call % (9999, 0, '"groupId":"g"')]))
    assert [(type(i), i.line) for i in items] == [(Skipped, 1), (Skipped, 2), (Skipped, 3), (Skipped, 4),
                                                   (Event, 5), (Event, 6)]
    assert [i.reason for i in items if isinstance(i, Skipped)] == [
        "api key 0: not a group API", "api key 1: not a group API", "api key 18: not a group API",
        "api key 10: not a group API"]
