"""Console-consumer formatter JSON (records without newlines between them, optional timestamps)."""

from __future__ import annotations

import io
from pathlib import Path

from kgspec.conformance.events import Event, Malformed, ReadItem
from kgspec.conformance.readers import open_trace, read_console

DATA = Path(__file__).parent / "data" / "formats"


def _read(text: str, **kwargs: int) -> list[ReadItem]:
    return list(read_console(io.BytesIO(text.encode()), **kwargs))


def test_fixture_exactly() -> None:
    path = DATA / "offsets.console.txt"
    items = list(open_trace(path))
    assert [(type(i).__name__, i.line, getattr(i, "same_line", False)) for i in items] == [
        ("Event", 1, False), ("Event", 2, False), ("Event", 2, True), ("Event", 3, False),
        ("Malformed", 4, False), ("Event", 5, False)]
    assert sum(1 for i in items if not getattr(i, "same_line", False)) == len(path.read_text().splitlines())
    events = [i for i in items if isinstance(i, Event)]
    assert [(e.ts_ms, e.body["key"]["type"], e.group_id) for e in events] == [
        (0, 2, "cg"), (0, 1, "cg"), (0, 1, "cg"), (1748779205000, 1, "cg"), (1748779205000, 2, "cg")]
    assert events[0].body["value"]["version"] == 4
    assert events[0].body["value"]["data"]["members"][0]["memberId"] == "k1-5b0c"
    assert events[1].body["key"]["data"]["partition"] == 0
    assert events[2].body["key"]["data"]["partition"] == 1
    assert events[3].body == {"key": {"type": 1, "data": {"group": "cg", "topic": "foo", "partition": 0}}, "value": None}
    assert items[4] == Malformed(4, "`key.type` must be an integer", "key.type")


def test_records_without_any_newline_and_start_time() -> None:
    one = '{"key":{"type":3,"data":{"groupId":"g"}},"value":{"version":0,"data":{"epoch":1}}}'
    items = _read(one * 3, start_ts_ms=42)
    assert [(i.line, i.ts_ms, i.same_line) for i in items if isinstance(i, Event)] == [
        (1, 42, False), (1, 42, True), (1, 42, True)]


def test_records_split_across_read_chunks() -> None:
    one = '{"key":{"type":3,"data":{"groupId":"' + "g" * 300_000 + '"}},"value":null}'
    items = _read(one * 5 + "\n" + one + "\n")
    assert [(i.line, i.same_line) for i in items if isinstance(i, Event)] == [
        (1, False), (1, True), (1, True), (1, True), (1, True), (2, False)]


def test_too_long_record_and_other_shapes() -> None:
    ok = '{"key":{"type":3,"data":{"groupId":"g"}},"value":null}'
    big = '{"key":{"type":3,"data":{"groupId":"' + "x" * 5000 + '"}},"value":null}'
    items = _read(ok + big + ok + "\n" + big + "\n" + '{"key":{"version":2,"data":{"group":"c"}},"value":null}\n'
                  + "[1]\n" + '{"key":{"type":3,"data":{}}}\n' + "NO_TIMESTAMP\t" + ok + "\n"
                  + "CreateTime:abc\t" + ok + "\n", max_record_bytes=1000)
    assert [(type(i).__name__, i.line, i.same_line) for i in items] == [
        ("Event", 1, False), ("Malformed", 1, True), ("Event", 1, True), ("Malformed", 2, False),
        ("Event", 3, False), ("Malformed", 4, False), ("Malformed", 5, False), ("Event", 6, False),
        ("Malformed", 7, False)]
    assert items[1] == Malformed(1, "record is longer than 1000 bytes", same_line=True)
    legacy = items[4]
    assert isinstance(legacy, Event)
    assert legacy.body["key"] == {"type": 2, "data": {"group": "c"}}
    assert items[5] == Malformed(5 - 1, 'console record must be an object {"key": .., "value": ..}')
    assert items[6] == Malformed(5, "missing `value` (null for a tombstone)", "value")
    assert isinstance(items[8], Malformed)
    assert items[8].message.startswith("not valid JSON")
