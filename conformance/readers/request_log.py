"""Kafka's broker request log (``kafka-request.log``).

Line shape (``RequestChannel.scala`` ``updateRequestMetrics``; pattern ``[%d] %p %m (%c)%n``
of ``config/log4j2.yaml``)::

    [2025-06-01 12:00:00,123] DEBUG Completed request:{json} (kafka.request.logger)

(``INFO`` for deprecated API versions.) The JSON is ``RequestConvertToJson.requestDescMetrics``:
``isForwarded``, ``requestHeader``, ``request``, ``response``, ``connection``,
``totalTimeMs`` and other timings. Kafka writes the line when the response is sent, so:

- the line's timestamp (log-local time; UTC unless ``tz`` says otherwise) is the completion;
- the call's ``tsMs`` is its arrival, ``completion - totalTimeMs``;
- calls are re-ordered by arrival with a heap: an item is released once the log has
  reached ``reorder_window_ms`` past it, which is exact while no call takes longer
  than the window. Items keep their own line numbers.

Calls of APIs outside ``api_keys`` are ``Skipped``, except Metadata, CreateTopics,
DeleteTopics and CreatePartitions, which become ``topic`` events at their completion
time (``derive_topics``). Other log lines (and stack traces) are ``Skipped``; a
``Completed request:`` line whose JSON is broken is ``Malformed``.
"""

from __future__ import annotations

import datetime as dt
import heapq
import json
from collections.abc import Collection, Iterator
from typing import Any, BinaryIO, Final

from ..events import Event, Malformed, ReadItem, Skipped
from .header import is_number
from .jsonfast import loads
from .lines import DEFAULT_MAX_LINE_BYTES, iter_lines, too_long_message
from .logtime import LogClock
from .topics import TOPIC_API_KEYS, TopicTracker, topic_items
from .validate import call_event

DEFAULT_REORDER_WINDOW_MS: Final = 10 * 60 * 1000
COMPLETED: Final = b"Completed request:"
# Calls that carry a group: the coordinator's APIs (consumer, classic, streams, share,
# offsets). The checker reports the ones it does not model as `unsupported`.
GROUP_API_KEYS: Final = frozenset({8, 9, 11, 12, 13, 14, 15, 16, 28, 42, 47, 68, 69, 76, 77, 88, 89, 90, 91, 92})


def read_request_log(stream: BinaryIO, *, tz: str | dt.tzinfo | None = None,
                     reorder_window_ms: float = DEFAULT_REORDER_WINDOW_MS,
                     api_keys: Collection[int] | None = GROUP_API_KEYS, derive_topics: bool = True,
                     max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[ReadItem]:
    """Read a broker request log; calls come out in arrival order (see the module doc).

    ``api_keys=None`` keeps every API. Memory is bounded by the lines of one window.
    """
    parser = _LineParser(LogClock(tz), api_keys, TopicTracker() if derive_topics else None)
    # Entries hold a call's raw JSON until it leaves the heap: bytes are compact and not
    # tracked by the garbage collector, parsed dicts for a whole window are neither.
    heap: list[tuple[float, int, int, bytes | list[ReadItem]]] = []
    latest = float("-inf")  # the log's clock: the latest completion seen
    for line_no, content in iter_lines(stream, max_line_bytes):
        if content is None:
            payload: bytes | list[ReadItem] = [Malformed(line_no, too_long_message(max_line_bytes))]
            key, completion = None, None
        else:
            payload, key, completion = parser.parse(content, line_no)
            if completion is not None and completion > latest:
                latest = completion
        heapq.heappush(heap, (latest if key is None else key, line_no, completion or 0, payload))
        horizon = latest - reorder_window_ms
        while heap and heap[0][0] <= horizon:
            yield from parser.release(heapq.heappop(heap))
    while heap:
        yield from parser.release(heapq.heappop(heap))


class _LineParser:
    def __init__(self, clock: LogClock, api_keys: Collection[int] | None, tracker: TopicTracker | None) -> None:
        self._clock = clock
        self._api_keys = api_keys
        self._tracker = tracker

    def parse(self, line: bytes, line_no: int) -> tuple[bytes | list[ReadItem], float | None, int | None]:
        """(items or a call's JSON to parse later, sort key, completion ms); a None key means "now"."""
        if not line.startswith(b"["):
            return [Skipped(line_no, "not a request-log line")], None, None
        close = line.find(b"] ", 1)
        completion = self._clock.epoch_ms(line[1:close]) if close > 0 else None
        if completion is None:
            return [Skipped(line_no, "not a request-log line")], None, None
        level, _, message = line[close + 2:].partition(b" ")
        if not message.startswith(COMPLETED):
            return [Skipped(line_no, f"log line without a request ({level.decode('ascii', 'replace')})")], \
                completion, completion
        text = message[len(COMPLETED):]
        total = _scan_total_time(text)
        if total is not None:  # a call sorts by its arrival
            return text, _ms(completion - total), completion
        # anything odd is decided now and sorts by the line's time
        return self._completed(text, line_no, completion), completion, completion

    def release(self, entry: tuple[float, int, int, bytes | list[ReadItem]]) -> list[ReadItem]:
        _, line_no, completion, payload = entry
        return self._completed(payload, line_no, completion) if isinstance(payload, bytes) else payload

    def _completed(self, text: bytes, line_no: int, completion: int) -> list[ReadItem]:
        if text.endswith(b")"):  # drop the " (kafka.request.logger)" suffix of %c
            cut = text.rfind(b" (")
            if cut > 0:
                text = text[:cut]
        if not text.startswith(b"{"):
            return [Malformed(line_no, "request-log line without JSON (logs before Kafka 2.8 are not supported)")]
        try:
            obj = loads(text)
        except UnicodeDecodeError:
            return [Malformed(line_no, "line is not valid UTF-8")]
        except ValueError as exc:
            reason = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            return [Malformed(line_no, f"request-log JSON is broken: {reason}")]
        if not isinstance(obj, dict):
            return [Malformed(line_no, "request-log JSON must be an object")]
        return self._call(obj, line_no, completion)

    def _call(self, obj: dict[str, Any], line_no: int, completion: int) -> list[ReadItem]:
        header = obj.get("requestHeader")
        if not isinstance(header, dict):
            return [Malformed(line_no, "missing `requestHeader`", "requestHeader")]
        api_key = header.get("requestApiKey")
        derive = self._tracker is not None and api_key in TOPIC_API_KEYS
        if not derive and self._api_keys is not None and isinstance(api_key, int) and api_key not in self._api_keys:
            return [Skipped(line_no, f"{_label(header)}: not a group API")]
        total = obj.get("totalTimeMs", 0)
        if not is_number(total) or total < 0:
            return [Malformed(line_no, "`totalTimeMs` must be a non-negative number", "totalTimeMs")]
        if obj.get("response") == "" or obj.get("request") == "":
            # RequestConvertToJson writes "" when there is none (connection closed, no response)
            return [Skipped(line_no, f"{_label(header)}: no request or response in the log")]
        obj["tsMs"] = arrival = _ms(completion - total)
        event = call_event(obj, line_no, arrival)
        if derive and isinstance(event, Event):
            assert self._tracker is not None
            return topic_items(event, self._tracker, completion)
        return [event]


def _ms(value: float) -> float:
    """Round to microseconds (totalTimeMs is a double) and keep whole numbers as ints."""
    if isinstance(value, int):
        return value
    rounded = round(value, 3)
    return int(rounded) if rounded.is_integer() else rounded


def _label(header: dict[str, Any]) -> str:
    return str(header.get("requestApiKeyName") or f"api key {header.get('requestApiKey')}")


def _scan_total_time(text: bytes) -> float | None:
    """``totalTimeMs`` read without parsing the JSON (Kafka writes it after the response)."""
    at = text.rfind(b'"totalTimeMs":')
    if at < 0:
        return None
    start = at + len(b'"totalTimeMs":')
    end = start
    while end < len(text) and text[end] not in b",}":
        end += 1
    try:
        value = float(text[start:end])
    except ValueError:
        return None
    return value if value >= 0 else None
