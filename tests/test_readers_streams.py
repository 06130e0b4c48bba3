"""open_trace reads any input once, as a stream: pipes (``/dev/fd/N``), FIFOs, gzip in either,
slow writers; a read that fails part-way ends the items with a ``Malformed`` on its line."""

from __future__ import annotations

import errno
import gzip
import io
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.events import Event, Malformed, ReadItem
from kgspec.conformance.readers import TraceFormatError, open_trace
from kgspec.conformance.readers import source as source_module

DATA = Path(__file__).parent / "data" / "formats"
FIXTURES = ["request.log", "offsets.dump.txt", "offsets.console.txt", "native.jsonl.gz", "native_malformed.jsonl"]


def _ticks(count: int, pad: int = 0) -> bytes:
    filler = f', "pad": "{"x" * pad}"' if pad else ""
    return b"".join(b'{"tsMs": %d, "tick": {}%s}\n' % (i, filler.encode()) for i in range(count))


def _feed(write_end: Any, data: bytes, piece: int | None, pause: float = 0.0) -> None:
    with write_end:
        if piece is None:
            write_end.write(data)
            return
        for start in range(0, len(data), piece):
            write_end.write(data[start:start + piece])
            write_end.flush()
            if pause:
                time.sleep(pause)


def _through_pipe(data: bytes, read: Callable[[str], list[ReadItem]], piece: int | None = None,
                  pause: float = 0.0) -> list[ReadItem]:
    """``read("/dev/fd/N")`` while a thread writes ``data`` into the pipe: process substitution."""
    r, w = os.pipe()
    writer = threading.Thread(target=_feed, args=(os.fdopen(w, "wb", buffering=0), data, piece, pause))
    writer.start()
    try:
        return read(f"/dev/fd/{r}")
    finally:
        writer.join(timeout=30)
        os.close(r)


@pytest.mark.parametrize("name", FIXTURES)
def test_every_format_reads_the_same_through_a_pipe(name: str) -> None:
    data = (DATA / name).read_bytes()
    expected = list(open_trace(DATA / name))
    assert expected
    assert _through_pipe(data, lambda p: list(open_trace(p))) == expected
    # a writer that gives a few bytes at a time: the head is read until 64 KiB or the end,
    # so the format is still told from whole lines
    assert _through_pipe(data, lambda p: list(open_trace(p)), piece=7) == expected


@pytest.mark.parametrize("compress", [False, True])
def test_a_long_input_through_a_pipe_loses_no_line(compress: bool) -> None:
    # well past the 64 KiB head, a pipe's 64 KiB buffer and the 256 KiB read buffer
    data = _ticks(30_000)
    items = _through_pipe(gzip.compress(data) if compress else data, lambda p: list(open_trace(p)), piece=50_000)
    assert [i.line for i in items] == list(range(1, 30_001))
    assert all(isinstance(i, Event) and i.kind == "tick" for i in items)


def test_a_fifo_is_read_once(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    data = gzip.compress(_ticks(5_000))

    def write() -> None:
        with fifo.open("wb") as out:  # blocks until the reader opens: a second open would hang
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    items = list(open_trace(fifo))
    writer.join(timeout=30)
    assert not writer.is_alive()
    assert len(items) == 5_000


@pytest.mark.parametrize("name", ["native_malformed.jsonl", "native.jsonl.gz"])
def test_each_input_is_opened_once(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[object] = []
    real = io.FileIO

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            opened.append(args[0])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(source_module.io, "FileIO", Counting)
    items = list(open_trace(DATA / name))
    assert items
    assert opened == [str(DATA / name)]


def test_long_lines_in_gzip_read_as_in_plain_text(tmp_path: Path) -> None:
    # lines longer than the 256 KiB buffers, whole and too long for max_line_bytes
    data = _ticks(3) + _ticks(2, pad=700_000) + _ticks(3)
    plain = tmp_path / "long.jsonl"
    plain.write_bytes(data)
    packed = tmp_path / "long.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    for limit in (16 * 1024 * 1024, 100_000):
        expected = list(open_trace(plain, max_line_bytes=limit))
        assert len(expected) == 8
        assert list(open_trace(packed, max_line_bytes=limit)) == expected
    assert sum(isinstance(i, Malformed) for i in open_trace(packed, max_line_bytes=100_000)) == 2


def _gzip_cut(tmp_path: Path, data: bytes, cut: Callable[[bytes], bytes], name: str = "t.jsonl.gz") -> Path:
    path = tmp_path / name
    path.write_bytes(cut(gzip.compress(data)))
    return path


def _assert_stops(items: list[ReadItem], line: int, path: str) -> Malformed:
    *read, last = items
    assert isinstance(last, Malformed), last
    assert last.line == line
    assert last.message.startswith(f"{path}: gzip data is broken ("), last.message
    assert not last.same_line
    assert all(isinstance(i, Event) for i in read)
    assert [i.line for i in read] == list(range(1, line))
    return last


def test_truncated_gzip_mid_line_drops_the_incomplete_line(tmp_path: Path) -> None:
    data = _ticks(40_000)
    path = _gzip_cut(tmp_path, data, lambda z: z[: len(z) // 2])
    items = list(open_trace(path))
    # the line reading stopped on is reported once, for the gzip error, not also as broken JSON
    last = _assert_stops(items, len(items), str(path))
    assert "ended before the end-of-stream marker" in last.message
    assert not any(isinstance(i, Malformed) and "JSON" in i.message for i in items)


def test_truncated_gzip_within_the_head(tmp_path: Path) -> None:
    path = _gzip_cut(tmp_path, _ticks(100), lambda z: z[:-30])
    items = list(open_trace(path))
    assert 1 < len(items) < 100
    _assert_stops(items, len(items), str(path))


def test_gzip_with_a_garbage_body(tmp_path: Path) -> None:
    path = _gzip_cut(tmp_path, _ticks(100), lambda z: z[:10] + b"this is no deflate stream" * 20)
    items = list(open_trace(path))
    last = _assert_stops(items, 1, str(path))
    assert "Error -3 while decompressing" in last.message


def test_gzip_with_trailing_garbage_and_a_bad_crc(tmp_path: Path) -> None:
    path = _gzip_cut(tmp_path, _ticks(10), lambda z: z + b"garbage", "tail.gz")
    last = _assert_stops(list(open_trace(path)), 11, str(path))
    assert "(not a gzip member after the end of the last one)" in last.message
    path = _gzip_cut(tmp_path, _ticks(10), lambda z: z[:-8] + bytes(8), "crc.gz")
    last = _assert_stops(list(open_trace(path)), 11, str(path))
    assert "incorrect data check" in last.message  # the CRC
    # members one after another, as `cat a.gz b.gz` makes them
    path = tmp_path / "two.gz"
    path.write_bytes(gzip.compress(_ticks(10)) + bytes(3) + gzip.compress(_ticks(5)))
    assert len(list(open_trace(path))) == 15
    # zero padding after the last member is what gzip itself accepts
    path = _gzip_cut(tmp_path, _ticks(10), lambda z: z + bytes(100), "padded.gz")
    assert len(list(open_trace(path))) == 10


@pytest.mark.parametrize("block", [1, 5, 16])
def test_corrupt_gzip_reads_every_line_before_the_damage(tmp_path: Path, block: int) -> None:
    # Stored (level 0) deflate blocks: a block's LEN and NLEN that disagree fail at once, so what
    # can be read is exactly the blocks before it, which may end in the middle of a line.
    data = _ticks(40_000)
    packed = bytearray(gzip.compress(data, compresslevel=0))
    at, before = 10, 0  # after the gzip header
    for _ in range(block):
        length = int.from_bytes(packed[at + 1:at + 3], "little")
        at, before = at + 5 + length, before + length
    packed[at + 3] ^= 0xFF  # NLEN
    whole_lines = data[:before].count(b"\n")
    assert 0 < whole_lines < 40_000
    path = tmp_path / "damaged.jsonl.gz"
    path.write_bytes(bytes(packed))
    last = _assert_stops(list(open_trace(path)), whole_lines + 1, str(path))
    assert "invalid stored block lengths" in last.message


def test_truncated_gzip_through_a_pipe() -> None:
    data = gzip.compress(_ticks(40_000))
    items = _through_pipe(data[: len(data) // 2], lambda p: list(open_trace(p)), piece=10_000)
    assert isinstance(items[-1], Malformed)
    assert "gzip data is broken" in items[-1].message
    assert items[-1].line == len(items)


def test_a_gzip_header_that_is_no_gzip_is_not_a_trace(tmp_path: Path) -> None:
    path = tmp_path / "fake.gz"
    path.write_bytes(b"\x1f\x8b" + b"not really gzip" * 10)
    with pytest.raises(TraceFormatError, match="not a readable gzip file"):
        open_trace(path)


class _FailingRaw:
    """A real file's bytes up to ``limit``, then an I/O error; ``fileno`` is the real file's."""

    def __init__(self, raw: io.FileIO, limit: int) -> None:
        self._raw = raw
        self._left = limit

    def fileno(self) -> int:
        return self._raw.fileno()

    def readinto(self, buffer: memoryview) -> int | None:
        if not self._left:
            raise OSError(errno.EIO, "Input/output error")
        view = buffer[:min(len(buffer), self._left)]
        n = self._raw.readinto(view)
        assert n is not None
        self._left -= n
        return n


@pytest.mark.parametrize("count", [False, True])  # a regular file recounts on failure; a pipe counts as it goes
@pytest.mark.parametrize("limit", [0, 300_000, 300_017, 1_000_000])
def test_an_io_error_ends_the_input_on_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                count: bool, limit: int) -> None:
    data = _ticks(70_000)
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)  # more than the head, so the rest is read after it
    real = source_module._Plain

    def failing(head: bytes, raw: io.FileIO, *, count: bool) -> source_module._Plain:
        return real(head, _FailingRaw(raw, limit), count=forced)  # type: ignore[arg-type]

    forced = count
    monkeypatch.setattr(source_module, "_Plain", failing)
    items = list(open_trace(path))
    delivered = 64 * 1024 + limit
    read = data[:delivered]
    line = read.count(b"\n") + 1
    started = bool(read[read.rfind(b"\n") + 1:].strip())
    last = items[-1]
    assert isinstance(last, Malformed)
    assert last.message == f"{path}: reading failed at byte {delivered} (Input/output error); reading stopped here"
    assert (last.line, last.same_line) == (line, started)
    # every whole line before it was read (and a started one is an item of its own)
    assert [i.line for i in items[:-1]] == list(range(1, line + started))
