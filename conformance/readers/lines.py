"""Bounded line reading shared by every reader.

Lines are read in binary with a size limit, so one enormous line costs at most
``max_line_bytes`` of memory: the rest of it is read in chunks and thrown away.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO, Final

DEFAULT_MAX_LINE_BYTES: Final = 16 * 1024 * 1024
_SKIP_CHUNK: Final = 1024 * 1024


def iter_lines(stream: BinaryIO, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """Yield ``(line_number, stripped_bytes)`` for each non-blank line, 1-based.

    A line longer than ``max_line_bytes`` (without its ``\\n``) yields ``None`` in
    place of its content; it is never held in memory whole.
    """
    readline = stream.readline
    line_no = 0
    while True:
        raw = readline(max_line_bytes + 1)
        if not raw:
            return
        line_no += 1
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            skip_rest_of_line(stream)
            yield line_no, None
            continue
        stripped = raw.strip()
        if stripped:
            yield line_no, stripped


def skip_rest_of_line(stream: BinaryIO) -> None:
    while True:
        chunk = stream.readline(_SKIP_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def too_long_message(max_line_bytes: int) -> str:
    return f"line is longer than {max_line_bytes} bytes"
