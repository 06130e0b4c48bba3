"""The contract's own JSON Lines format (``trace-format.md`` §1).

Each non-blank line is validated strictly; a line that is not a valid event becomes a
``Malformed`` item and reading goes on. The one exception is an unsupported
``header.format``, which raises ``TraceFormatError`` (exit status 2 by the contract).

Until the trace shows a ``topic`` event of its own, Metadata/CreateTopics/DeleteTopics/
CreatePartitions calls (as a request log turned into JSON Lines would carry) are turned
into ``topic`` events at their completion time (``tsMs + totalTimeMs``); after one, they
are ``Skipped`` since the trace then states its topics itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

from kgspec.model.config import is_number

from ..events import Event, Malformed, ReadItem, Skipped
from .header import HeaderError, TraceHeader
from .jsonfast import loads
from .lines import DEFAULT_MAX_LINE_BYTES, iter_lines, too_long_message
from .request_log import GROUP_API_KEYS
from .topics import TOPIC_API_KEYS, TopicTracker, api_label, topic_items
from .validate import call_event, kind_key, record_event, tick_event, timestamp, topic_event


def read_native(stream: BinaryIO, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                derive_topics: bool = True) -> Iterator[ReadItem]:
    """Read a kgspec JSON Lines trace from a binary stream, one item per non-blank line.

    ``derive_topics=False`` passes Metadata/CreateTopics/DeleteTopics/CreatePartitions
    calls through as calls.
    """
    tracker = TopicTracker()
    own_topics = False  # the trace has shown a topic event of its own
    first = True
    for line_no, content in iter_lines(stream, max_line_bytes):
        if content is None:
            yield Malformed(line_no, too_long_message(max_line_bytes))
            first = False
            continue
        item = parse_line(content, line_no, first)
        first = False
        if isinstance(item, Event):
            if item.kind == "topic":
                own_topics = True
            elif derive_topics and item.kind == "call" and item.api_key in TOPIC_API_KEYS:
                if own_topics:
                    yield Skipped(line_no, f"{api_label(item)}: topics come from the trace's topic events")
                    continue
                yield from topic_items(item, tracker, _completion(item))
                continue
        yield item


HEADER_NOT_FIRST: Final = "`header` is only allowed as the first event"


# Kafka's API keys are below this (92 in 4.3); a call of a key below it that no group
# coordinator serves (Produce, Fetch, ...) is skipped as the request-log reader skips it.
_KAFKA_API_KEYS_BELOW: Final = 128


def parse_line(content: bytes, line_no: int, first: bool) -> Event | Malformed | Skipped:
    """One native event from the bytes of one line; ``first``: the trace's first line.

    A call of a broker API that is no coordinator's (not a group API, not a topic API) is
    ``Skipped``: counted, never ``unsupported``.
    """
    try:
        obj = loads(content)
    except UnicodeDecodeError:
        return Malformed(line_no, "line is not valid UTF-8")
    except ValueError as exc:
        return Malformed(line_no, f"not valid JSON: {_json_reason(exc)}")
    if not isinstance(obj, dict):
        return Malformed(line_no, f"event must be a JSON object, not {_json_type(obj)}")
    item = event_from_object(obj, line_no, first)
    if type(item) is Event and item.kind == "call":
        key = item.api_key
        if key is not None and 0 <= key < _KAFKA_API_KEYS_BELOW and key not in GROUP_API_KEYS \
                and key not in TOPIC_API_KEYS:
            return Skipped(line_no, f"{api_label(item)}: not a group API")
    return item


def event_from_object(obj: dict[str, Any], line_no: int, first: bool) -> Event | Malformed:
    kind = kind_key(obj, line_no)
    if isinstance(kind, Malformed):
        return kind
    if kind == "header":
        return _header_event(obj, line_no, first)
    ts = timestamp(obj, line_no)
    if isinstance(ts, Malformed):
        return ts
    if kind == "requestHeader":
        return call_event(obj, line_no, ts)
    if kind == "record":
        return record_event(obj, line_no, ts)
    if kind == "topic":
        return topic_event(obj, line_no, ts)
    return tick_event(obj, line_no, ts)


def _header_event(obj: dict[str, Any], line_no: int, first: bool) -> Event | Malformed:
    if not first:
        return Malformed(line_no, HEADER_NOT_FIRST, "header")
    ts = obj.get("tsMs")
    if ts is not None and not is_number(ts):
        return Malformed(line_no, "`tsMs` must be a number", "tsMs")
    try:
        TraceHeader.parse(obj["header"])  # TraceFormatError propagates: exit 2
    except HeaderError as exc:
        return Malformed(line_no, str(exc), exc.field_name)
    return Event(line_no, "header", ts, obj["header"])


def _completion(call: Event) -> float:
    assert call.ts_ms is not None
    return call.ts_ms + (call.total_time_ms or 0)


def _json_reason(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return str(exc)


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"
