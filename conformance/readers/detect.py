"""Open any supported trace: gzip by magic bytes, format by the first lines, one stream read once."""

from __future__ import annotations

import datetime as dt
import gzip
import os
import re
import zlib
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import BinaryIO, Final, cast

from ..events import Malformed, ReadItem
from .console import read_console
from .dump_log import read_dump_log
from .errors import TraceFormatError
from .lines import DEFAULT_MAX_LINE_BYTES
from .logtime import resolve_tz
from .native import read_native
from .request_log import DEFAULT_REORDER_WINDOW_MS, GROUP_API_KEYS, read_request_log
from .source import READ_BUFFER, SAMPLE_BYTES, Source

FORMATS: Final = ("native", "request-log", "dump-log", "console")
_SAMPLE_LINES: Final = 50
_LOG_LINE: Final = re.compile(rb"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^\]]*\] [A-Z]+ ")
_DUMP_PREFIXES: Final = (b"Dumping ", b"Log starting offset:", b"baseOffset:", b"| offset:", b"| key:")
_CONSOLE_PREFIXES: Final = (b'{"key":', b"CreateTime:", b"LogAppendTime:", b"NO_TIMESTAMP")


def open_trace(path: str | os.PathLike[str], format: str = "auto", *,
               tz: str | dt.tzinfo | None = None,
               reorder_window_ms: float = DEFAULT_REORDER_WINDOW_MS,
               api_keys: Collection[int] | None = GROUP_API_KEYS,
               start_ts_ms: float = 0,
               max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
               sources: list[Source] | None = None) -> Iterator[ReadItem]:
    """Items of one trace, read lazily; the input closes when the iterator is exhausted.

    ``path`` is a file, or ``-`` for standard input; pipes, FIFOs, ``/dev/stdin`` and
    ``/dev/fd/N`` work as files do: the input is opened once and read once, start to end
    (``source.Source``), and gzip and the format are told from its first 64 KiB.
    ``format`` is ``auto`` (detect) or one of ``FORMATS``. ``tz``, ``reorder_window_ms`` and
    ``api_keys`` apply to request logs, ``start_ts_ms`` to dump-log and console output.
    ``sources``: the opened input is appended to it (its ``consumed()`` bytes drive progress bars).
    Raises ``TraceFormatError`` at once for a missing file, a directory, binary data, a file
    with gzip's magic bytes and no gzip header, an unknown ``format`` or ``tz``, or a format
    that cannot be detected; an unsupported ``header.format`` raises it during iteration. A
    read that fails part-way (a truncated or corrupt gzip body, an I/O error) ends the items
    with a ``Malformed`` on the line where reading stopped, naming the file and the problem.
    """
    if format != "auto" and format not in FORMATS:
        raise TraceFormatError(f"unknown trace format {format!r} (use auto, {', '.join(FORMATS)})")
    zone = resolve_tz(tz)  # an unknown zone is an error before anything is read
    source = Source(path)
    if sources is not None:
        sources.append(source)
    try:
        if _looks_binary(source.sample):
            raise TraceFormatError(f"{source.name}: not a text file")
        chosen = format if format != "auto" else detect_format(source.sample)
        if chosen is None:
            raise TraceFormatError(f"{source.name}: cannot tell the trace format from the first lines; "
                                   f"pass one of {', '.join(FORMATS)}")
    except BaseException:
        source.close()
        raise
    readers: dict[str, Callable[[BinaryIO], Iterator[ReadItem]]] = {
        "native": lambda s: read_native(s, max_line_bytes=max_line_bytes),
        "request-log": lambda s: read_request_log(s, tz=zone, reorder_window_ms=reorder_window_ms,
                                                  api_keys=api_keys, max_line_bytes=max_line_bytes),
        "dump-log": lambda s: read_dump_log(s, max_line_bytes=max_line_bytes, start_ts_ms=start_ts_ms),
        "console": lambda s: read_console(s, max_record_bytes=max_line_bytes, start_ts_ms=start_ts_ms),
    }
    return _read(source, readers[chosen])


def detect_format(sample: bytes) -> str | None:
    """The format the first non-blank lines show, or None if none of them is recognisable."""
    seen = 0
    for raw in sample.split(b"\n"):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(_CONSOLE_PREFIXES) and b'{"key":' in line:
            return "console"
        if line.startswith(b"{"):
            return "native"
        if _LOG_LINE.match(line):
            return "request-log"
        if line.startswith(_DUMP_PREFIXES):
            return "dump-log"
        seen += 1
        if seen >= _SAMPLE_LINES:
            break
    if seen == 0:
        return "native"  # an empty trace: nothing to read either way
    return None


def _open(file: Path, compressed: bool) -> BinaryIO:
    if compressed:
        return cast(BinaryIO, gzip.open(file, "rb"))
    return file.open("rb", buffering=READ_BUFFER)


def read_sample(file: Path, compressed: bool) -> bytes:
    """The first 64 KiB of ``file`` (decompressed), from which the format is detected.

    For callers that look at a file before handing it to something else (``kgspec conform``'s
    driver); ``open_trace`` reads its sample from the one stream it opens (``Source.sample``).
    """
    try:
        with _open(file, compressed) as stream:
            return stream.read(SAMPLE_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceFormatError(f"{file}: not a readable {'gzip ' if compressed else ''}file ({exc})") from exc


def _looks_binary(sample: bytes) -> bool:
    """NUL bytes, many control characters, or mostly invalid UTF-8."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = sum(sample.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13, 27))
    if controls * 100 > len(sample):
        return True
    text = sample.decode("utf-8", "replace")
    return text.count("\ufffd") * 10 > len(text)


def _read(source: Source, reader: Callable[[BinaryIO], Iterator[ReadItem]]) -> Iterator[ReadItem]:
    try:
        yield from reader(source.stream)
        problem = source.error
        if problem is not None:  # the stream ended early: the line it stopped on says why
            line, started = source.error_line
            yield Malformed(line, problem, same_line=started)
    finally:
        source.close()
