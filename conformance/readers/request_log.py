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
from collections import deque
from collections.abc import Collection, Iterator
from typing import Any, BinaryIO, Final

from kgspec.model.config import is_number

from ..events import Event, Malformed, ReadItem, Skipped
from .call_memo import TOTAL_TIME, CallMemo, Held, total_time_at
from .jsonfast import loads
from .lines import DEFAULT_MAX_LINE_BYTES, skip_rest_of_line, too_long_message
from .logtime import LogClock, round_ms
from .topics import TOPIC_API_KEYS, TopicTracker, topic_items
from .validate import call_event

DEFAULT_REORDER_WINDOW_MS: Final = 10 * 60 * 1000
COMPLETED: Final = b"Completed request:"
DEBUG_COMPLETED: Final = b"] DEBUG " + COMPLETED  # what follows the stamp on Kafka's usual line
LOGGER_SUFFIX: Final = b" (kafka.request.logger)"  # ``%c`` of the request logger
_LOGGER_LINE_END: Final = LOGGER_SUFFIX + b"\n"
_JSON_START: Final = 24 + len(DEBUG_COMPLETED)  # where the JSON of Kafka's usual line starts
_MILLIS: Final = {b"%03d" % n: n for n in range(1000)}  # the three digits of a stamp's milliseconds
_INF: Final = float("inf")
# Calls that carry a group: the coordinator's APIs (consumer, classic, streams, share,
# offsets), and WriteTxnMarkers (27), which ends the transactions of TxnOffsetCommit's offsets.
# The checker reports the ones it does not model as `unsupported`.
# (32 DescribeConfigs and 44 IncrementalAlterConfigs: their GROUP resources are the checker's)
GROUP_API_KEYS: Final = frozenset({8, 9, 11, 12, 13, 14, 15, 16, 27, 28, 32, 42, 44, 47, 68, 69, 76, 77, 88, 89,
                                   90, 91, 92})


def read_request_log(stream: BinaryIO, *, tz: str | dt.tzinfo | None = None,
                     reorder_window_ms: float = DEFAULT_REORDER_WINDOW_MS,
                     api_keys: Collection[int] | None = GROUP_API_KEYS, derive_topics: bool = True,
                     max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[ReadItem]:
    """Read a broker request log; calls come out in arrival order (see the module doc).

    ``api_keys=None`` keeps every API. Memory is bounded by the lines of one window.
    """
    parser = _LineParser(LogClock(tz), api_keys, TopicTracker() if derive_topics else None)
    # Entries hold a call's raw JSON until it leaves the queue: bytes are compact and not
    # tracked by the garbage collector, parsed dicts for a whole window are neither. A repeated
    # call holds two ints instead (CallMemo.find), its event built on release from shared pieces.
    queue = ArrivalQueue()
    ordered, late = queue.ordered, queue.late  # the queue's two parts, used inline: this loop is hot
    release, canonical, popleft = parser.release, parser.parse_canonical, ordered.popleft
    completed, release_repeat = parser._completed, parser.release_repeat
    latest = float("-inf")  # the log's clock: the latest completion seen
    readline, limit = stream.readline, max_line_bytes + 1
    line_no = 0
    while True:
        raw = readline(limit)
        if not raw:
            break
        line_no += 1
        entry = canonical(raw, line_no)
        if entry is None:  # anything but the canonical line: the general path decides
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                skip_rest_of_line(stream)
                entry = (latest, line_no, 0, [Malformed(line_no, too_long_message(max_line_bytes))])
            else:
                content = raw.strip()
                if not content:
                    continue
                payload, key, completion = parser.parse(content, line_no)
                if completion is not None and completion > latest:
                    latest = completion
                entry = (latest if key is None else key, line_no, completion or 0, payload)
        elif entry[2] > latest:
            latest = entry[2]
        # ArrivalQueue.push, inline
        if not ordered or entry[0] >= ordered[-1][0]:
            ordered.append(entry)
        else:
            heapq.heappush(late, entry)
        horizon = latest - reorder_window_ms
        while True:  # release what is ready: queue.pop_ready and self.release, inline
            if late:
                ready = queue.pop_ready(horizon)
                if ready is None:
                    break
            elif ordered and ordered[0][0] <= horizon:
                ready = popleft()
            else:
                break
            queued = ready[3]
            if type(queued) is tuple:  # a repeated call (CallMemo.find): one event, no list to build
                yield release_repeat(queued, ready[1], ready[2])
            elif type(queued) is bytes:
                yield from completed(queued, ready[1], ready[2])
            else:
                yield from queued  # type: ignore[misc]
    ready = queue.pop_ready(float("inf"))
    while ready is not None:
        yield from release(ready)
        ready = queue.pop_ready(float("inf"))


_Entry = tuple[float, int, int, "bytes | list[ReadItem] | Held"]


class ArrivalQueue:
    """The re-ordering buffer: entries ``(key, line, completion, payload)`` out by ``(key, line)``.

    A priority queue, exactly as a heap of the entries would be (line numbers are unique,
    so payloads are never compared), but cheaper for a log: most calls arrive in the order
    they complete, and those go to a deque in order; only a call that overtakes an earlier
    one (a longer ``totalTimeMs``) goes to the heap. Popping takes the smaller of the two heads.
    """

    __slots__ = ("late", "ordered")

    def __init__(self) -> None:
        self.ordered: deque[_Entry] = deque()  # sorted by (key, line)
        self.late: list[_Entry] = []  # a heap

    def push(self, entry: _Entry) -> None:
        ordered = self.ordered
        if not ordered or entry[0] >= ordered[-1][0]:  # a later line: (key, line) sorts after
            ordered.append(entry)
        else:
            heapq.heappush(self.late, entry)

    def pop_ready(self, horizon: float) -> _Entry | None:
        """Remove and return the smallest entry if its key is at most ``horizon``."""
        ordered, late = self.ordered, self.late
        if ordered:
            head = ordered[0]
            if late:
                other = late[0]
                if other[0] < head[0] or (other[0] == head[0] and other[1] < head[1]):
                    return heapq.heappop(late) if other[0] <= horizon else None
            return ordered.popleft() if head[0] <= horizon else None
        if late and late[0][0] <= horizon:
            return heapq.heappop(late)
        return None


class _LineParser:
    def __init__(self, clock: LogClock, api_keys: Collection[int] | None, tracker: TopicTracker | None) -> None:
        self._clock = clock
        self._api_keys = api_keys
        self._tracker = tracker
        # the last canonical line's "[yyyy-MM-dd HH:mm:ss," and its second's epoch ms (none yet)
        self._second, self._second_ms = b"\n", 0
        # API keys whose calls are kept as calls: neither skipped nor turned into topic events
        self._plain_keys = frozenset() if api_keys is None else \
            frozenset(api_keys) - (TOPIC_API_KEYS if tracker is not None else frozenset())
        # Repeated calls decoded once (call_memo.py): parse_canonical and parse queue them as held repeats.
        memo = CallMemo(self._plain_keys)
        self.release_repeat, self._repeat, self._unhold = memo.release, memo.find, memo.unhold

    def parse_canonical(self, raw: bytes, line_no: int) -> _Entry | None:
        """The queue entry of a canonical call line, as :meth:`parse` would make it; else None.

        Canonical: ``[yyyy-MM-dd HH:mm:ss,SSS] LEVEL Completed request:{...} (logger)`` read
        with its newline, with a ``totalTimeMs`` that is a non-negative number. Such a line
        needs no stripping (``[`` first, ``)`` before the newline), so every offset below is
        the one :meth:`parse` finds in the stripped line; only the JSON is copied, or for a
        call the memo knows, nothing (the entry holds the known pieces). Anything else returns
        None and :meth:`parse` decides it.
        """
        millis = _MILLIS.get(raw[21:24])
        if raw.startswith(self._second) and millis is not None and raw.startswith(DEBUG_COMPLETED, 24) \
                and raw.endswith(_LOGGER_LINE_END):
            # Kafka's usual line in the second of the previous canonical line ("[" and the second,
            # which hold no "] ", then ","): the stamp ends at 24 and the level is DEBUG, so parse()'s
            # partition finds the JSON right after; the logger suffix is the request logger's.
            completion = self._second_ms + millis
            start = _JSON_START
            end = len(raw) - 1
            cut = end - len(LOGGER_SUFFIX)
        else:
            if not raw.endswith(b")\n") or raw[0] != 91:  # "["
                return None
            if raw.find(b"] ", 1) != 24 or raw[20] != 44 or not raw[21:24].isdigit():
                return None
            stamped = self._clock.epoch_ms(raw[1:24])  # LogClock's value: its second plus the millis
            if stamped is None:
                return None
            completion = stamped
            self._second, self._second_ms = raw[:21], completion - int(raw[21:24])
            space = raw.find(b" ", 26)  # after the level, as parse() partitions the rest of the line
            if not raw.startswith(COMPLETED, space + 1):
                return None
            start = space + 1 + len(COMPLETED)
            end = len(raw) - 1
            # the " (kafka.request.logger)" suffix, as _cut_suffix: its " (" is the last one
            cut = end - len(LOGGER_SUFFIX) if raw.endswith(LOGGER_SUFFIX, 0, end) else raw.rfind(b" (", start, end)
        at = raw.rfind(TOTAL_TIME, start, end)  # as _scan_total_time on the same text
        if at < 0:
            return None
        if cut <= start:
            cut = end
        # A repeated call is queued as its known pieces (smaller than its text), anything else as its
        # text. No suffix holds "totalTimeMs", so ``at`` is the JSON text's last one too.
        found = self._repeat(raw, start, at, cut)
        total = found[1] if found is not None else None  # the number below, when Y alone decides it
        if total is None:
            total = total_time_at(raw, at + len(TOTAL_TIME), end)
            if total is None:
                if found is not None:
                    self._unhold(found[0])
                return None
        key = completion - total
        return int(key) if key.is_integer() else round_ms(key), line_no, completion, \
            raw[start:cut] if found is None else found[0]

    def parse(self, line: bytes, line_no: int) -> tuple[bytes | list[ReadItem] | Held, float | None, int | None]:
        """(items, or a call's JSON to parse later or the repeat it is, sort key, completion ms);
        a None key means "now"."""
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
            text = _cut_suffix(text)
            at = text.rfind(TOTAL_TIME)
            found = self._repeat(text, 0, at, len(text)) if at >= 0 else None
            return text if found is None else found[0], round_ms(completion - total), completion
        # anything odd is decided now and sorts by the line's time
        return self._completed(_cut_suffix(text), line_no, completion), completion, completion

    def release(self, entry: _Entry) -> list[ReadItem]:
        """The items of a queue entry (``read_request_log`` does this inline)."""
        _, line_no, completion, payload = entry
        if type(payload) is tuple:
            return [self.release_repeat(payload, line_no, completion)]
        if type(payload) is not bytes:
            return payload  # type: ignore[return-value]
        return self._completed(payload, line_no, completion)

    def _completed(self, text: bytes, line_no: int, completion: int) -> list[ReadItem]:
        """The items of a call's JSON text (the logger suffix already cut)."""
        if not text.startswith(b"{"):
            return [Malformed(line_no, "request-log line without JSON (logs before Kafka 2.8 are not supported)")]
        try:
            obj = loads(text)
        except UnicodeDecodeError:
            return [Malformed(line_no, "line is not valid UTF-8")]
        except ValueError as exc:
            reason = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            return [Malformed(line_no, f"request-log JSON is broken: {reason}")]
        if type(obj) is not dict:
            return [Malformed(line_no, "request-log JSON must be an object")]
        return self._call(obj, line_no, completion)

    def _call(self, obj: dict[str, Any], line_no: int, completion: int) -> list[ReadItem]:
        # The common case first: a group API's call with every field well-typed is the event
        # that _checked_call and call_event's fast path build; anything else goes through them.
        header, request, response = obj.get("requestHeader"), obj.get("request"), obj.get("response")
        if type(header) is dict and type(request) is dict and type(response) is dict:
            api_key, total = header.get("requestApiKey"), obj.get("totalTimeMs")
            if type(api_key) is int and api_key in self._plain_keys and (
                    (type(total) is float and 0 <= total < _INF) or (type(total) is int and total >= 0)):
                api_name, version = header.get("requestApiKeyName"), header.get("requestApiVersion")
                client_id, connection = header.get("clientId"), obj.get("connection")
                if (api_name is None or (type(api_name) is str and api_name)) \
                        and (version is None or type(version) is int) \
                        and (client_id is None or type(client_id) is str) \
                        and (connection is None or type(connection) is str):
                    obj["tsMs"] = arrival = round_ms(completion - total)
                    return [Event(line_no, "call", arrival, obj, api_key, api_name, version, client_id, request,
                                  response, total, connection)]
        return self._checked_call(obj, line_no, completion)

    def _checked_call(self, obj: dict[str, Any], line_no: int, completion: int) -> list[ReadItem]:
        header = obj.get("requestHeader")
        if not isinstance(header, dict):
            return [Malformed(line_no, "missing `requestHeader`", "requestHeader")]
        api_key = header.get("requestApiKey")
        derive = self._tracker is not None and type(api_key) is int and api_key in TOPIC_API_KEYS
        if not derive and self._api_keys is not None and isinstance(api_key, int) and api_key not in self._api_keys:
            return [Skipped(line_no, f"{_label(header)}: not a group API")]
        total = obj.get("totalTimeMs", 0)
        if not is_number(total) or total < 0:
            return [Malformed(line_no, "`totalTimeMs` must be a non-negative number", "totalTimeMs")]
        if obj.get("response") == "" or obj.get("request") == "":
            # RequestConvertToJson writes "" when there is none (connection closed, no response)
            return [Skipped(line_no, f"{_label(header)}: no request or response in the log")]
        obj["tsMs"] = arrival = round_ms(completion - total)
        event = call_event(obj, line_no, arrival)
        if derive and isinstance(event, Event):
            assert self._tracker is not None
            return topic_items(event, self._tracker, completion)
        return [event]


def _label(header: dict[str, Any]) -> str:
    return str(header.get("requestApiKeyName") or f"api key {header.get('requestApiKey')}")


def _cut_suffix(text: bytes) -> bytes:
    """Drop the `` (kafka.request.logger)`` suffix of ``%c``."""
    if text.endswith(b")"):
        cut = text.rfind(b" (")
        if cut > 0:
            return text[:cut]
    return text


def _scan_total_time(text: bytes) -> float | None:
    """``totalTimeMs`` read without parsing the JSON (Kafka writes it after the response)."""
    at = text.rfind(TOTAL_TIME)
    if at < 0:
        return None
    start = at + len(TOTAL_TIME)
    end = start
    while end < len(text) and text[end] not in b",}":
        end += 1
    try:
        value = float(text[start:end])
    except ValueError:
        return None
    return value if value >= 0 else None
