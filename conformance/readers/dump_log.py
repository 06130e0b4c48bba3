"""``kafka-dump-log.sh --offsets-decoder --files __consumer_offsets-N/...log`` output.

Shapes from ``core/src/main/scala/kafka/tools/DumpLogSegments.scala`` (identical in 4.1
and trunk apart from help text)::

    Dumping /var/kafka/__consumer_offsets-7/00000000000000000000.log
    Log starting offset: 0
    baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 0 ... isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1727354207209 size: 380 magic: 2 compresscodec: none crc: 1573155385 isvalid: true
    | offset: 0 CreateTime: 1727354207209 keySize: 50 valueSize: 42 sequence: 0 headerKeys: [] key: {"type":"5","data":{...}} payload: {"version":"0","data":{...}}
    | offset: 1 CreateTime: 1727354207209 keySize: 50 valueSize: -1 sequence: 1 headerKeys: [] key: {"type":"8","data":{...}} payload: <DELETE>
    | offset: 2 CreateTime: 1727354207210 keySize: 4 valueSize: 10 sequence: 2 headerKeys: [] key: Unknown record type 99 at offset 2, skipping.

Record lines become ``record`` events in file (log) order with ``tsMs`` = the record's
timestamp (``CreateTime``/``LogAppendTime``) and the key ``type`` and value ``version``
as integers (Kafka prints them as strings); ``payload: <DELETE>`` is a tombstone
(``"value": null``). Without a timestamp (``--skip-record-metadata``, ``NoTimestampType``)
a record keeps the previous record's ``tsMs`` (0 at the start). Batch headers, file
headers, control records and records of unknown type are ``Skipped``; a record the
tool could not decode (``Error at offset N, skipping. ...``) or a record line that
cannot be parsed is ``Malformed``. Records of transactional batches are yielded as
they appear, aborted ones included.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

from ..events import Event, Malformed, ReadItem, Skipped
from .jsonfast import has_long_digit_run, loads, loads_long_run, plain_loads
from .lines import DEFAULT_MAX_LINE_BYTES, skip_rest_of_line, too_long_message
from .validate import record_problem

_KEY: Final = b" key: "
_PAYLOAD: Final = b" payload: "
_DELETE: Final = b"<DELETE>"
_TIMESTAMP_TYPES: Final = (b"CreateTime: ", b"LogAppendTime: ", b"NoTimestampType: ")
_PREAMBLES: Final = (  # no prefix starts another: the order only puts the common one first
    (b"baseOffset: ", "dump-log batch header"),
    (b"Dumping ", "dump-log file header"),
    (b"Log starting offset: ", "dump-log file header"),
    (b"Snapshot end offset: ", "dump-log snapshot header"),
    (b"KRaft bootstrap snapshot", "dump-log snapshot header"),
    (b"offset: ", "dump-log batch header"),  # magic v0/v1 batches
    (b"Found ", "dump-log trailer"),
)
_CONTROL_MARKS: Final = (b" endTxnMarker: ", b" LeaderChange: ", b" controlType: ", b" SnapshotHeader ",
                         b" SnapshotFooter ", b" KRaftVersion ", b" KRaftVoters ")
_DECODER: Final = json.JSONDecoder()
_CREATE_TIME: Final = _TIMESTAMP_TYPES[0]
# "0".."1023" -> 0..1023: a key type or value version as Kafka prints it, and its int
_NUMERALS: Final = {str(n): n for n in range(1024)}
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_MAX_KEYS: Final = 4096


def read_dump_log(stream: BinaryIO, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                  start_ts_ms: float = 0) -> Iterator[ReadItem]:
    """Read kafka-dump-log output, one item per non-blank line, in file order."""
    ts_ms = start_ts_ms
    keys: dict[bytes, dict[str, Any]] = {}  # see _common_record
    readline, limit = stream.readline, max_line_bytes + 1
    line_no = 0
    while True:  # lines.iter_lines, inline: this loop is hot
        raw = readline(limit)
        if not raw:
            return
        line_no += 1
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            skip_rest_of_line(stream)
            yield Malformed(line_no, too_long_message(max_line_bytes))
            continue
        content = raw.strip()
        if not content:
            continue
        if content[:1] != b"|":  # content.startswith(b"|"), cheaper
            yield Skipped(line_no, _preamble_reason(content))
            continue
        event = _common_record(content, line_no, ts_ms, keys)
        if event is not None:
            ts_ms = event.ts_ms  # type: ignore[assignment]  # a record event's is a number
            yield event
        else:
            ts_ms, item = _any_record(content, line_no, ts_ms)
            yield item


def record_line_item(content: bytes, line_no: int, ts_ms: float) -> tuple[float, ReadItem]:
    """A ``|`` line's item and the timestamp from there on: its own, or ``ts_ms`` if it has none."""
    event = _common_record(content, line_no, ts_ms, {})
    if event is None:
        return _any_record(content, line_no, ts_ms)
    return event.ts_ms, event  # type: ignore[return-value]  # a record event's ts_ms is a number


def _any_record(content: bytes, line_no: int, ts_ms: float) -> tuple[float, ReadItem]:
    """:func:`record_line_item`, the general path."""
    line_ts = _timestamp(content)
    if line_ts is not None and line_ts >= 0:
        ts_ms = line_ts
    return ts_ms, _record_line(content, line_no, ts_ms)


def _common_record(content: bytes, line_no: int, ts_ms: float,
                   keys: dict[bytes, dict[str, Any]]) -> Event | None:
    """What :func:`record_line_item` gives for a record line as Kafka prints it (the event, whose
    ``ts_ms`` is the timestamp from there on), or None.

    The common line (a ``CreateTime``, a JSON key, a JSON or ``<DELETE>`` payload, a key
    ``type`` and value ``version`` in plain decimal) in one pass; anything else is None, for
    the general path. Equivalence, step by step: each ``partition`` splits where the general
    path's ``find`` does; the timestamp is the general path's (the first label, ``CreateTime``,
    before the key; the number ends at a space, at the latest the one opening `` key: ``); the
    key and payload are the same bytes decoded to the same values (what a decoder rejects
    goes to the general path, which names the problem as before); and the record is one that
    ``_with_int`` and ``record_problem`` pass unchanged but for the two ints.

    ``keys``: key text -> its key as decoded and made an int-typed ``{"type", "data"}`` here
    before; a dump repeats few keys (one per group, member and record type) many times, so
    most keys are a copy (the data holds only strings and numbers: copied, nothing is shared).
    """
    meta, key_mark, json_text = content.partition(_KEY)
    key_text, payload_mark, payload = json_text.partition(_PAYLOAD)
    _, time_mark, stamp = meta.partition(_CREATE_TIME)
    if not (key_mark and payload_mark and time_mark) or key_text[:1] != b"{":
        return None
    known = keys.get(key_text)
    # Without a run of 19 digits in the text there is none in the parts to decode (a known key
    # is not decoded again: only the payload is).
    decode = loads_long_run if has_long_digit_run(json_text if known is None else payload) else plain_loads
    try:
        line_ts = int(stamp.partition(b" ")[0])
        value = None if payload == _DELETE else decode(payload)
        # KeyError, TypeError: not objects, or a type or version other than a plain decimal
        version = None if value is None else _NUMERALS[value["version"]]
        if known is None:
            key = decode(key_text)
            rtype = _NUMERALS[key["type"]]
    except (ValueError, KeyError, TypeError):
        return None
    if value is not None and type(value.get("data")) is not dict:
        return None
    if known is None:
        if type(key.get("data")) is not dict:
            return None
        key["type"] = rtype
        if len(keys) < _MAX_KEYS and tuple(key) == ("type", "data") \
                and _SCALARS.issuperset(map(type, key["data"].values())):
            keys[key_text] = {"type": rtype, "data": key["data"].copy()}
    else:
        key = {"type": known["type"], "data": known["data"].copy()}
    if value is not None:
        value["version"] = version
    return Event(line_no, "record", line_ts if line_ts >= 0 else ts_ms, {"key": key, "value": value})


def _preamble_reason(content: bytes) -> str:
    for prefix, reason in _PREAMBLES:
        if content.startswith(prefix):
            return reason
    return "not a dump-log record line"


def _timestamp(content: bytes) -> int | None:
    meta_end = content.find(_KEY)  # only the metadata before the key, never the JSON
    if meta_end < 0:
        meta_end = len(content)
    for label in _TIMESTAMP_TYPES:
        start = content.find(label, 0, meta_end)
        if start >= 0:
            start += len(label)
            end = content.find(b" ", start)
            try:
                return int(content[start:end] if end > 0 else content[start:])
            except ValueError:
                return None
    return None


def _record_line(content: bytes, line_no: int, ts_ms: float) -> ReadItem:
    key_at = content.find(_KEY)
    if key_at < 0:
        if any(mark in content for mark in _CONTROL_MARKS):
            return Skipped(line_no, "control record")
        return Skipped(line_no, "record without a decoded key (dump taken without --offsets-decoder)")
    key_at += len(_KEY)
    if not content.startswith(b"{", key_at):
        text = content[key_at:].decode("utf-8", "replace")
        if text.startswith("Unknown record type "):
            return Skipped(line_no, text)
        return Malformed(line_no, f"kafka-dump-log could not decode the record: {text}", "key")
    try:
        key, payload = _split_key_payload(content, key_at)
        value = None if payload == _DELETE else loads(payload)
    except UnicodeDecodeError:
        return Malformed(line_no, "line is not valid UTF-8")
    except ValueError as exc:
        return Malformed(line_no, f"dump-log record is broken: {exc}")
    record = {"key": _with_int(key, "type"), "value": _with_int(value, "version")}
    problem = record_problem(record)
    if problem is not None:
        return Malformed(line_no, problem[0], problem[1])
    return Event(line_no, "record", ts_ms, record)


def _split_key_payload(content: bytes, key_at: int) -> tuple[Any, bytes]:
    split = content.find(_PAYLOAD, key_at)
    if split > 0:
        try:  # fast path: the key JSON ends right before " payload: "
            return loads(content[key_at:split]), content[split + len(_PAYLOAD):]
        except ValueError:
            pass  # " payload: " inside a key string: decode the key properly below
    text = content[key_at:].decode("utf-8")
    key, end = _DECODER.raw_decode(text)
    rest = text[end:].encode("utf-8")
    if not rest.startswith(_PAYLOAD):
        raise ValueError("missing ` payload: ` after the key")
    return key, rest[len(_PAYLOAD):]


def _with_int(obj: Any, name: str) -> Any:
    """Kafka prints key type and value version as JSON strings ("8"): make them ints."""
    if isinstance(obj, dict):
        raw = obj.get(name)
        if isinstance(raw, str):
            digits = raw[1:] if raw.startswith("-") else raw
            if digits.isascii() and digits.isdigit():  # not "²" nor "--5": those stay strings, reported
                obj[name] = int(raw)
    return obj
