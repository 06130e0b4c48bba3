"""One input, opened once and read once as a stream: a file, ``-`` (standard input), a pipe,
``/dev/stdin``, ``/dev/fd/N`` (process substitution) or a FIFO, gzip-compressed or not.

The first 64 KiB (decompressed) are read ahead, for gzip and format detection; the readers then
get a buffered stream that serves that head first and the rest of the input after it, so nothing
is opened twice and nothing needs to seek. A read that fails part-way (a truncated or corrupt
gzip body, an I/O error) ends the stream there: :attr:`Source.error` says what failed, and
:attr:`Source.error_line` on which line, for the caller to report.
"""

from __future__ import annotations

import errno
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
_GZIP_WBITS: Final = 16 + zlib.MAX_WBITS  # zlib reads the gzip header and checks the CRC and length
_RECOUNT_CHUNK: Final = 1024 * 1024


class GzipDataError(Exception):
    """Something after a gzip member that is neither zero padding nor another member."""


# What a failing read raises: I/O errors, a truncated gzip member (EOFError), a corrupt one
# (zlib.error: a bad deflate stream, CRC or length), garbage after the last member.
READ_ERRORS: Final = (OSError, EOFError, zlib.error, GzipDataError)


class _Gunzip:
    """``gunzip(size)``: the next at most ``size`` decompressed bytes (b"" at the end).

    Members follow one another as ``gzip -d`` reads them: zero bytes after a member are padding,
    anything else must start another member. Decompression is bounded by ``size``, so a small
    input cannot expand without limit in memory. ``read_input()`` gives the compressed bytes
    (b"" at their end); its errors propagate, as do the decompressor's.
    """

    def __init__(self, read_input: Callable[[], bytes]) -> None:
        self._read_input = read_input
        self._d = zlib.decompressobj(_GZIP_WBITS)
        self._ended = False  # the input has ended
        self._failed: zlib.error | None = None  # raised on the next call, after what came before it
        self._careful = b""  # input that made zlib fail, given again a byte at a time from `_at`
        self._at = 0

    def _more(self) -> bytes:
        if self._ended:
            return b""
        data = self._read_input()
        if not data:
            self._ended = True
        return data

    def _next(self, size: int) -> bytes:
        while True:
            d = self._d
            if d.eof:  # a member has ended: padding, another member, or the end
                rest = d.unused_data.lstrip(b"\0")
                while len(rest) < 2:
                    more = self._more()
                    if not more:
                        if rest:
                            raise GzipDataError("not a gzip member after the end of the last one")
                        return b""
                    rest = (rest + more).lstrip(b"\0")
                if not rest.startswith(GZIP_MAGIC):
                    raise GzipDataError("not a gzip member after the end of the last one")
                self._d = d = zlib.decompressobj(_GZIP_WBITS)
                data = rest
            else:
                data = d.unconsumed_tail or self._more()
                if not data:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            before = d.copy()  # a few KiB, once per call of up to `size` bytes out
            try:
                out = d.decompress(data, size)
            except zlib.error:
                # zlib gives nothing from a call that fails: give the same input again, a byte at
                # a time, so that what comes before the failure (all of it, for a bad CRC) is read
                self._d, self._careful, self._at = before, data, 0
                return self._carefully(size)
            if out:
                return out

    def _carefully(self, size: int) -> bytes:
        d, data = self._d, self._careful
        out: list[bytes] = []
        got = 0
        while self._at < len(data) and got < size:
            try:
                piece = d.decompress(data[self._at:self._at + 1])
            except zlib.error as exc:
                self._careful = b""
                if not got:
                    raise
                self._failed = exc
                break
            self._at += 1
            out.append(piece)
            got += len(piece)
        if self._at >= len(data):
            self._careful = b""
        return b"".join(out) if got else self._next(size)

    def __call__(self, size: int) -> bytes:
        if self._failed is not None:
            raise self._failed
        if self._careful:
            return self._carefully(size)
        return self._next(size)


class _Plain(io.RawIOBase):
    """A raw stream: ``head``, then the rest of ``raw`` read straight into the caller's buffer.

    A failing read ends the stream and is kept in ``error``. To name the line reading stopped
    on, a pipe's newlines are counted per chunk (the buffered reader above asks for 256 KiB at a
    time, so this costs nothing per line); a regular file's are counted only if a read fails,
    from the bytes delivered until then (``recount``), so reading a file costs nothing extra.
    """

    def __init__(self, head: bytes, raw: io.FileIO, *, count: bool) -> None:
        super().__init__()
        self._head = head
        self._raw: io.FileIO | None = raw
        self._fd = raw.fileno()
        self._count = count
        self.error: BaseException | None = None
        self.delivered = 0  # bytes delivered so far
        self.newlines = 0  # newlines delivered so far (when counting)
        self.mid_line = False  # a part of the line after them has been delivered (when counting)

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
                    select.select([self._fd], [], [])
                    got = self._raw.readinto(buffer)
            except READ_ERRORS as exc:
                self.error, self._raw = exc, None
                if not self._count:
                    self.recount()
                return 0
            n = got
            if not n:
                self._raw = None
                return 0
            if self._count:
                chunk = bytes(buffer[:n])
        self.delivered += n
        if self._count:
            self._tally(chunk)
        return n

    def _tally(self, chunk: bytes) -> None:
        last = chunk.rfind(b"\n") + 1
        if last:
            self.newlines += chunk.count(b"\n")
            self.mid_line = bool(chunk[last:].strip())
        elif not self.mid_line:
            self.mid_line = bool(chunk.strip())

    def recount(self) -> None:
        """Count the newlines of what was delivered by reading it again (a regular file's first
        ``delivered`` bytes read once already); if that fails too, the count stays 0."""
        self.newlines, self.mid_line = 0, False
        offset = 0
        try:
            while offset < self.delivered:
                chunk = os.pread(self._fd, min(_RECOUNT_CHUNK, self.delivered - offset), offset)
                if not chunk:
                    break
                self._tally(chunk)
                offset += len(chunk)
        except OSError:
            self.newlines, self.mid_line = 0, False


class _WholeLines(io.RawIOBase):
    """A raw stream of whole lines: what ``rest(size)`` gives, until it gives nothing.

    A failing ``rest`` ends the stream and is kept in ``error``; the incomplete line read before
    it is dropped, so the line reading stopped on is reported once, for what stopped it
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
                pending = pending + more if pending else more
            else:
                self._rest = None
        buffer[:cut] = memoryview(pending)[:cut]
        self._pending = pending[cut:]
        return cut


class Source:
    """One opened input: ``sample`` (its first 64 KiB, decompressed) and ``stream`` (all of it).

    Raises ``TraceFormatError`` for what cannot be read at all: a missing file, a directory,
    no permission, a file with gzip's magic bytes and no gzip header.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.name = os.fspath(path)
        raw, regular = _open_raw(self.name)
        try:
            head = _read_head(raw, self.name)
            self.compressed = head[:2] == GZIP_MAGIC
            if self.compressed:
                gunzip = _Gunzip(_inputs(head, _reader(raw)))
                self.sample, error = _read_gzip_head(gunzip, self.name)
                # A failure while reading the head comes back after what was read before it.
                self._last: _Plain | _WholeLines = _WholeLines(
                    self.sample, gunzip if error is None else _failing(error))
            else:
                self.sample = head
                self._last = _Plain(head, raw, count=not regular)
        except BaseException:
            raw.close()
            raise
        self._raw = raw
        self._read_at_close: int | None = None
        self.stream: BinaryIO = cast(BinaryIO, io.BufferedReader(self._last, READ_BUFFER))

    @property
    def error(self) -> str | None:
        """What ended the stream early, if anything (once the stream has been read to its end)."""
        exc = self._last.error
        if exc is None:
            return None
        if isinstance(exc, OSError):
            at = "" if isinstance(self._last, _WholeLines) else f" at byte {self._last.delivered}"
            return f"{self.name}: reading failed{at} ({_describe(exc)}); reading stopped here"
        return f"{self.name}: gzip data is broken ({_describe(exc)}); reading stopped here"

    @property
    def error_line(self) -> tuple[int, bool]:
        """The line reading stopped on, and whether part of it was delivered (and so is an item already)."""
        return self._last.newlines + 1, self._last.mid_line

    def consumed(self) -> int | None:
        """Bytes read from the input so far (compressed bytes for gzip), for progress bars; None
        when the input cannot say (a pipe)."""
        if self._raw.closed:
            return self._read_at_close
        try:
            return self._raw.tell()
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        if not self._raw.closed:
            self._read_at_close = self.consumed()
        self._raw.close()


def _inputs(head: bytes, read: Callable[[int], bytes]) -> Callable[[], bytes]:
    """``head``, then chunks of ``read``."""
    first = [head] if head else []

    def next_input() -> bytes:
        if first:
            return first.pop()
        return read(READ_BUFFER)

    return next_input


def _failing(error: BaseException) -> Callable[[int], bytes]:
    def fail(size: int) -> bytes:
        raise error
    return fail


def _open_raw(name: str) -> tuple[io.FileIO, bool]:
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
    return raw, stat.S_ISREG(mode)


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


def _read_gzip_head(gunzip: _Gunzip, name: str) -> tuple[bytes, BaseException | None]:
    """Up to 64 KiB of decompressed data, and the error that stopped it early, if any.

    A file whose gzip header is wrong is not gzip at all: ``TraceFormatError``. A failure after
    the header (a truncated or corrupt body) is kept for the reader to report on its line.
    """
    parts: list[bytes] = []
    size = 0
    while size < SAMPLE_BYTES:
        try:
            part = gunzip(SAMPLE_BYTES - size)
        except READ_ERRORS as exc:
            if not parts and isinstance(exc, zlib.error) and _bad_header(exc):
                raise TraceFormatError(f"{name}: not a readable gzip file ({_describe(exc)})") from exc
            return b"".join(parts), exc
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts), None


def _bad_header(exc: zlib.error) -> bool:
    text = str(exc)
    return "header" in text or "unknown compression method" in text


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc)
    if isinstance(exc, EOFError):
        return text or "the file ends inside the compressed data"
    return text or type(exc).__name__
