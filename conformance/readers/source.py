"""One input, opened once and read once as a stream: a file, ``-`` (standard input), a pipe,
``/dev/stdin``, ``/dev/fd/N`` (process substitution) or a FIFO, gzip-compressed or not.

The first 64 KiB (decompressed) are read ahead, for gzip and format detection; the readers then
get a buffered stream that serves that head first and the rest of the input after it, so nothing
is opened twice and nothing needs to seek. A read that fails part-way (a truncated or corrupt
gzip body, an I/O error) ends the stream there: :attr:`Source.error` says what failed, and
:attr:`Source.error_line` on which line, for the caller to report.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import select
import stat
import zlib
from collections.abc import Callable
from typing import BinaryIO, Final, cast

from .errors import TraceFormatError

STDIN: Final = "-"
GZIP_MAGIC: Final = b"\x1f\x8b"
SAMPLE_BYTES: Final = 64 * 1024
READ_BUFFER: Final = 256 * 1024  # the default 8 KiB costs a system call every few request-log lines
# What a failing read raises: I/O errors (gzip.BadGzipFile is one), a truncated gzip (EOFError),
# a corrupt deflate stream (zlib.error).
READ_ERRORS: Final = (OSError, EOFError, zlib.error)


class _HeadFirst(io.RawIOBase):
    """A raw stream: ``head``, then what ``rest(size)`` gives (the compressed bytes of a gzip input)."""

    def __init__(self, head: bytes, rest: Callable[[int], bytes]) -> None:
        super().__init__()
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            chunk, self._head = self._head[:len(buffer)], self._head[len(buffer):]
        else:
            chunk = self._rest(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


class _Counted(io.RawIOBase):
    """A raw stream: ``head``, then the rest of ``raw`` read straight into the caller's buffer.

    A failing read ends the stream and is kept in ``error``. Newlines are counted per chunk (the
    buffered reader above asks for 256 KiB at a time, so this costs nothing per line), to name
    the line reading stopped on.
    """

    def __init__(self, head: bytes, raw: io.FileIO) -> None:
        super().__init__()
        self._head = head
        self._raw: io.FileIO | None = raw
        self.error: BaseException | None = None
        self.newlines = 0  # newlines delivered so far
        self.mid_line = False  # a part of the line after them has been delivered

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            chunk, self._head = self._head[:len(buffer)], self._head[len(buffer):]
            n = len(chunk)
            buffer[:n] = chunk
        elif self._raw is None:
            return 0
        else:
            try:
                got = self._raw.readinto(buffer)
                while got is None:  # a non-blocking descriptor (a parent's pipe can be): wait
                    select.select([self._raw.fileno()], [], [])
                    got = self._raw.readinto(buffer)
            except READ_ERRORS as exc:
                self.error, self._raw = exc, None
                return 0
            n = got
            if not n:
                self._raw = None
                return 0
            chunk = bytes(buffer[:n])
        last = chunk.rfind(b"\n") + 1
        if last:
            self.newlines += chunk.count(b"\n")
            self.mid_line = bool(chunk[last:].strip())
        elif not self.mid_line:
            self.mid_line = bool(chunk.strip())
        return n


class _WholeLines(io.RawIOBase):
    """A raw stream of whole lines: ``head``, then what ``rest(size)`` gives until it gives nothing.

    A failing read of ``rest`` ends the stream and is kept in ``error``; the incomplete line read
    before it is dropped, so the line reading stopped on is reported once, for what stopped it
    (``Source.error_line``), and not also as a line of broken JSON. To know which line that is,
    lines are only delivered whole (but for one longer than the caller's buffer, and the end of
    the input) and newlines are counted per chunk: the buffered reader above asks for 256 KiB at
    a time, so this costs nothing per line.
    """

    def __init__(self, head: bytes, rest: Callable[[int], bytes] | None) -> None:
        super().__init__()
        self._pending = head  # read, not delivered yet
        self._rest = rest
        self.error: BaseException | None = None
        self.newlines = 0  # newlines delivered so far
        self.mid_line = False  # a part of the line after them has been delivered

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        size = len(buffer)
        pending = self._pending
        while True:
            cut = pending.rfind(b"\n", 0, size) + 1
            if cut:  # whole lines, as many as fit
                self.newlines += pending.count(b"\n", 0, cut)
                self.mid_line = False
                break
            if len(pending) >= size or (self._rest is None and pending):  # a long line, or the last
                cut = min(size, len(pending))
                self.mid_line = True
                break
            if self._rest is None:
                return 0
            try:
                more = self._rest(size)
            except READ_ERRORS as exc:
                self.error, self._rest, self._pending = exc, None, b""
                return 0
            if more:
                pending += more
            else:
                self._rest = None
        buffer[:cut] = pending[:cut]
        self._pending = pending[cut:]
        return cut


class Source:
    """One opened input: ``sample`` (its first 64 KiB, decompressed) and ``stream`` (all of it).

    Raises ``TraceFormatError`` for what cannot be read at all: a missing file, a directory,
    no permission, a file with gzip's magic bytes that is no gzip file.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.name = os.fspath(path)
        raw = _open_raw(self.name)
        try:
            head = _read_head(raw, self.name)
            self.compressed = head[:2] == GZIP_MAGIC
            if self.compressed:
                compressed = io.BufferedReader(_HeadFirst(head, _reader(raw)), READ_BUFFER)
                unzipped = gzip.GzipFile(fileobj=compressed, mode="rb")
                self.sample, error = _read_gzip_head(unzipped, self.name)
                # A failure while reading the head comes back after what was read before it.
                self._last: _Counted | _WholeLines = _WholeLines(
                    self.sample, unzipped.read1 if error is None else _failing(error))
                self._closers: tuple[io.IOBase, ...] = (unzipped, compressed, raw)
            else:
                self.sample = head
                self._last = _Counted(head, raw)
                self._closers = (raw,)
        except BaseException:
            raw.close()
            raise
        self.stream: BinaryIO = cast(BinaryIO, io.BufferedReader(self._last, READ_BUFFER))

    @property
    def error(self) -> str | None:
        """What ended the stream early, if anything (once the stream has been read to its end)."""
        exc = self._last.error
        if exc is None:
            return None
        if self.compressed:
            return f"{self.name}: gzip data is broken ({_describe(exc)}); reading stopped here"
        return f"{self.name}: reading failed ({_describe(exc)}); reading stopped here"

    @property
    def error_line(self) -> tuple[int, bool]:
        """The line reading stopped on, and whether part of it was delivered (and so is an item already)."""
        return self._last.newlines + 1, self._last.mid_line

    def close(self) -> None:
        for closer in self._closers:
            with contextlib.suppress(*READ_ERRORS):  # what failed was reported where it failed
                closer.close()


def _failing(error: BaseException) -> Callable[[int], bytes]:
    def fail(size: int) -> bytes:
        raise error
    return fail


def _open_raw(name: str) -> io.FileIO:
    try:
        if name == STDIN:
            raw = io.FileIO(0, "rb", closefd=False)
        else:
            raw = io.FileIO(name, "rb")
    except FileNotFoundError as exc:
        raise TraceFormatError(f"{name}: no such file") from exc
    except IsADirectoryError as exc:
        raise TraceFormatError(f"{name}: is a directory, not a trace file") from exc
    except OSError as exc:
        raise TraceFormatError(f"{name}: cannot be read ({_describe(exc)})") from exc
    try:
        mode = os.fstat(raw.fileno()).st_mode
    except OSError as exc:  # standard input closed (`<&-`)
        raw.close()
        raise TraceFormatError(f"{name}: cannot be read ({_describe(exc)})") from exc
    if stat.S_ISDIR(mode):
        raw.close()
        raise TraceFormatError(f"{name}: is a directory, not a trace file")
    return raw


def _reader(raw: io.FileIO) -> Callable[[int], bytes]:
    """``raw.read``, waiting for data where the descriptor is non-blocking (a parent's pipe can be)."""
    read, fd = raw.read, raw.fileno()

    def read_blocking(size: int) -> bytes:
        while True:
            data = read(size)
            if data is not None:
                return data
            select.select([fd], [], [])

    return read_blocking


def _read_head(raw: io.FileIO, name: str) -> bytes:
    """Up to 64 KiB from the start: a pipe gives what its writer has written, so read until full."""
    read = _reader(raw)
    parts: list[bytes] = []
    size = 0
    while size < SAMPLE_BYTES:
        try:
            part = read(SAMPLE_BYTES - size)
        except OSError as exc:
            if exc.errno == errno.EISDIR:
                raise TraceFormatError(f"{name}: is a directory, not a trace file") from exc
            raise TraceFormatError(f"{name}: cannot be read ({_describe(exc)})") from exc
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def _read_gzip_head(unzipped: gzip.GzipFile, name: str) -> tuple[bytes, BaseException | None]:
    """Up to 64 KiB of decompressed data, and the error that stopped it early, if any.

    A file whose gzip header is wrong is not gzip at all: ``TraceFormatError``. A failure after
    the header (a truncated or corrupt body) is kept for the reader to report on its line.
    """
    parts: list[bytes] = []
    size = 0
    while size < SAMPLE_BYTES:
        try:
            part = unzipped.read1(SAMPLE_BYTES - size)
        except READ_ERRORS as exc:
            if not parts and isinstance(exc, gzip.BadGzipFile) and _bad_header(exc):
                raise TraceFormatError(f"{name}: not a readable gzip file ({_describe(exc)})") from exc
            return b"".join(parts), exc
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts), None


def _bad_header(exc: gzip.BadGzipFile) -> bool:
    text = str(exc)
    return text.startswith(("Not a gzipped file", "Unknown compression method"))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc)
    if isinstance(exc, EOFError):
        return text or "the file ends inside the compressed data"
    return text or type(exc).__name__
