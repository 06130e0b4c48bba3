"""JSON of Kafka's console-consumer formatters for ``__consumer_offsets``.

``org.apache.kafka.tools.consumer.GroupMetadataMessageFormatter`` (record type 2),
``OffsetsMessageFormatter`` (0, 1) and ``ShareGroupMessageFormatter`` (share types),
all ``CoordinatorRecordMessageFormatter`` in 4.1+ (``ApiMessageFormatter`` in 4.0), print::

    {"key":{"type":2,"data":{"group":"g"}},"value":{"version":4,"data":{...}}}

with numeric ``type``/``version`` and ``"value":null`` for a tombstone. They write no
newline between records, so records may follow each other on one line
(``...}}{"key":...``): such a line yields one item per record, all but the first with
``same_line``. Records are split where ``}{"key":`` occurs, so a string containing that
text would break its record (reported ``Malformed``). A legacy key ``{"version":N}``
(3.8) is read as ``{"type":N}``.

Time: these formatters print no timestamp (``print.timestamp`` belongs to
``DefaultMessageFormatter``). A record may be prefixed the way that formatter prints one,
``CreateTime:1727354207209`` or ``LogAppendTime:...`` followed by a tab or space (as a
post-processing script may add); then ``tsMs`` is that time. Otherwise a record keeps
the previous record's ``tsMs``, starting from ``start_ts_ms`` (0): without timestamps
all records are simultaneous, in file order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import BinaryIO, Final

from ..events import Event, Malformed, ReadItem
from .jsonfast import loads
from .lines import DEFAULT_MAX_LINE_BYTES
from .validate import is_int, record_problem

_BOUNDARY: Final = b'}{"key":'
_CHUNK: Final = 1024 * 1024
_TS_PREFIXES: Final = (b"CreateTime:", b"LogAppendTime:")
_NO_TS: Final = b"NO_TIMESTAMP"


def read_console(stream: BinaryIO, *, max_record_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 start_ts_ms: float = 0) -> Iterator[ReadItem]:
    """Read console-formatter output, one item per record (see the module doc)."""
    ts_ms = start_ts_ms
    for line_no, fragment, first in _fragments(stream, max_record_bytes):
        same = not first
        if fragment is None:
            yield Malformed(line_no, f"record is longer than {max_record_bytes} bytes", same_line=same)
            continue
        fragment, prefix_ts = _strip_timestamp(fragment)
        if prefix_ts is not None:
            ts_ms = prefix_ts
        yield _record(fragment, line_no, ts_ms, same)


def _record(fragment: bytes, line_no: int, ts_ms: float, same: bool) -> Event | Malformed:
    try:
        obj = loads(fragment)
    except UnicodeDecodeError:
        return Malformed(line_no, "line is not valid UTF-8", same_line=same)
    except ValueError as exc:
        reason = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        return Malformed(line_no, f"not valid JSON: {reason}", same_line=same)
    if not isinstance(obj, dict) or "key" not in obj:
        return Malformed(line_no, 'console record must be an object {"key": .., "value": ..}', same_line=same)
    key = obj["key"]
    if isinstance(key, dict) and "type" not in key and is_int(key.get("version")):
        key["type"] = key.pop("version")  # 3.8 ApiMessageFormatter
    record = {"key": key, "value": obj.get("value")}
    if "value" not in obj:
        record.pop("value")
    problem = record_problem(record, prefix="")
    if problem is not None:
        return Malformed(line_no, problem[0], problem[1], same_line=same)
    return Event(line_no, "record", ts_ms, record, same_line=same)


def _strip_timestamp(fragment: bytes) -> tuple[bytes, int | None]:
    if fragment.startswith(b"{"):
        return fragment, None
    if fragment.startswith(_NO_TS):
        return fragment[len(_NO_TS):].lstrip(), None
    for prefix in _TS_PREFIXES:
        if fragment.startswith(prefix):
            head, _, rest = fragment[len(prefix):].partition(b"{")
            try:
                return b"{" + rest, int(head)
            except ValueError:
                return fragment, None  # leave it to the JSON error
    return fragment, None


def _fragments(stream: BinaryIO, max_bytes: int) -> Iterator[tuple[int, bytes | None, bool]]:
    """``(line, record bytes or None if too long, first on its line)`` for each record."""
    line_no = 0
    buf = b""
    first = True
    at_line_start = True
    skipping = False  # inside a record that was too long: drop bytes up to the next boundary
    keep = len(_BOUNDARY) - 1
    while True:
        chunk = stream.readline(_CHUNK)
        if not chunk:
            if buf.strip() and not skipping:
                yield line_no, _bounded(buf.strip(), max_bytes), first
            return
        if at_line_start:
            line_no, first, at_line_start = line_no + 1, True, False
        buf += chunk
        cut = buf.find(_BOUNDARY)
        while cut >= 0:
            if skipping:
                skipping = False
            else:
                yield line_no, _bounded(buf[:cut + 1].strip(), max_bytes), first
                first = False
            buf = buf[cut + 1:]
            cut = buf.find(_BOUNDARY)
        if chunk.endswith(b"\n"):
            if buf.strip() and not skipping:
                yield line_no, _bounded(buf.strip(), max_bytes), first
            buf, skipping, at_line_start = b"", False, True
        elif skipping:
            buf = buf[-keep:]
        elif len(buf) > max_bytes:
            yield line_no, None, first
            first, skipping, buf = False, True, buf[-keep:]


def _bounded(fragment: bytes, max_bytes: int) -> bytes | None:
    return fragment if len(fragment) <= max_bytes else None
