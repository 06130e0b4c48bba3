"""open_trace: format detection, gzip by magic bytes, overrides, and inputs that are no trace."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from kgspec.conformance.events import Event, Malformed, Skipped
from kgspec.conformance.readers import FORMATS, TraceFormatError, detect_format, open_trace

DATA = Path(__file__).parent / "data" / "formats"


@pytest.mark.parametrize(("name", "fmt"), [
    ("request.log", "request-log"), ("offsets.dump.txt", "dump-log"), ("offsets.console.txt", "console"),
    ("native.jsonl.gz", "native"), ("native_malformed.jsonl", "native"),
])
def test_fixture_formats_are_detected(name: str, fmt: str) -> None:
    raw = (DATA / name).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    assert detect_format(raw) == fmt


@pytest.mark.parametrize(("sample", "fmt"), [
    (b"\n\n", "native"),
    (b"garbage\n{\"tsMs\": 1, \"tick\": {}}\n", "native"),
    (b"[2025-06-01 12:00:00,123] WARN something (kafka.network.RequestChannel$)\n", "request-log"),
    (b"java.lang.Error: x\n\tat a.b(C.java:1)\n[2025-06-01T12:00:00.123Z] DEBUG Completed request:{}\n", "request-log"),
    (b"| offset: 3 CreateTime: 1 key: {} payload: <DELETE>\n", "dump-log"),
    (b"baseOffset: 0 lastOffset: 1\n", "dump-log"),
    (b"CreateTime:17\t{\"key\":{\"type\":3,\"data\":{}},\"value\":null}", "console"),
    (b"just some words\nand more\n", None),
])
def test_detection_samples(sample: bytes, fmt: str | None) -> None:
    assert detect_format(sample) == fmt


def test_gzip_found_by_magic_bytes_not_suffix(tmp_path: Path) -> None:
    disguised = tmp_path / "trace.jsonl"
    shutil.copy(DATA / "native.jsonl.gz", disguised)
    assert [i.kind for i in open_trace(disguised) if isinstance(i, Event)] == [
        "header", "topic", "call", "record", "tick"]
    plain = tmp_path / "plain.gz"
    plain.write_text('{"tsMs": 1, "tick": {}}\n')
    assert len(list(open_trace(plain))) == 1


def test_gzip_of_a_request_log(tmp_path: Path) -> None:
    path = tmp_path / "kafka-request.log.2025-06-01-12.gz"
    path.write_bytes(gzip.compress((DATA / "request.log").read_bytes()))
    items = list(open_trace(path))
    assert len(items) == 14
    assert isinstance(items[3], Event)
    assert items[3].api_key == 11


def test_format_override(tmp_path: Path) -> None:
    # Every non-blank line is one item (an empty list would pass `all`): 5 and 13 lines.
    items = list(open_trace(DATA / "offsets.console.txt", format="native"))
    assert len(items) == 5
    assert all(isinstance(i, Malformed) for i in items)
    items = list(open_trace(DATA / "request.log", format="dump-log"))
    assert len(items) == 13
    assert all(isinstance(i, Skipped) for i in items)
    assert FORMATS == ("native", "request-log", "dump-log", "console")
    with pytest.raises(TraceFormatError, match="unknown trace format 'csv'"):
        open_trace(DATA / "request.log", format="csv")


def test_request_log_options_pass_through() -> None:
    items = list(open_trace(DATA / "request.log", tz="+01:00", api_keys=None))
    fetch = [i for i in items if isinstance(i, Event) and i.api_key == 1]
    assert len(fetch) == 1
    assert fetch[0].ts_ms == 1748779200250 - 3600_000 - 0.9


def test_not_a_trace(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="no such file"):
        open_trace(tmp_path / "missing.jsonl")
    with pytest.raises(TraceFormatError, match="is a directory"):
        open_trace(tmp_path)
    binary = tmp_path / "garbage.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(TraceFormatError, match="not a text file"):
        open_trace(binary)
    words = tmp_path / "notes.txt"
    words.write_text("just some words\nand more\n")
    with pytest.raises(TraceFormatError, match="cannot tell the trace format"):
        open_trace(words)
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b" + b"not really gzip" * 10)
    with pytest.raises(TraceFormatError, match="not a readable gzip file"):
        open_trace(broken)


def test_truncated_gzip_ends_with_a_malformed_line(tmp_path: Path) -> None:
    # Reading stops where the gzip data ends: the items read so far, then one `Malformed` on the
    # line that could not be read, naming the file and the problem (the CLI exits 1, not 0).
    data = gzip.compress(b"".join(b'{"tsMs": %d, "tick": {}}\n' % i for i in range(40_000)))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    items = list(open_trace(path))
    *events, last = items
    assert all(isinstance(i, Event) for i in events)
    assert [i.line for i in events] == list(range(1, len(events) + 1))
    assert isinstance(last, Malformed)
    assert last.line == len(events) + 1
    assert not last.same_line
    assert last.message.startswith(f"{path}: gzip data is broken (")


def test_empty_file_has_no_items(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n  \n")
    assert list(open_trace(empty)) == []
