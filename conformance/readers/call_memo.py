"""Repeated calls of a request log, decoded once: a member's heartbeats repeat byte for byte.

In a steady group a member's next heartbeat line is its previous one but for the
``correlationId`` and the timings from ``"totalTimeMs":`` on. :class:`CallMemo` splits a
call's JSON text ``T`` as ``H v M Y``:

- ``H``: up to the first ``"correlationId":``, which must be Kafka's header start
  ``{"isForwarded":…,"requestHeader":{"requestApiKey":…,"requestApiVersion":…,"correlationId":``
  (:data:`_HEAD`: it holds that name once, at its end, and nothing but names, numbers and a
  boolean, so ``v`` is the value of the header's ``correlationId``);
- ``v``: the digits up to the next ``,`` (a JSON integer of at most 10 digits);
- ``M``: from that comma up to the last ``"totalTimeMs":`` (ending in ``,``);
- ``Y``: the rest, from ``"totalTimeMs":`` to the end.

``(H, M)`` is unambiguous (``H`` ends at the first occurrence of the name, which ``H`` holds
only at its end); it maps to the decoded ``P = H v M[:-1] + "}"`` of the first text seen
with it. Why a text with a known ``(H, M)`` decodes to the known pieces:

1. ``T = X + "," + Y`` with ``X + "}"`` and ``"{" + Y`` both JSON objects means ``T`` is
   the object of ``X``'s members followed by ``Y``'s (JSON's grammar is unambiguous), so
   ``json.loads(T) == {**json.loads(X + "}"), **json.loads("{" + Y)}`` (last one wins, as
   ``dict(pairs)``). A hit uses it only when the two share no name, so every piece read
   below comes from ``P``; ``Y`` is decoded too (or found in a memo of exact texts).
2. ``P`` is remembered only if it is exactly ``orjson.dumps`` of its value: canonical,
   so the header holds ``correlationId`` once, and a text whose ``v`` differs decodes
   to the same value with that one number replaced (another integer token in the same
   place, still followed by ``,``).
3. The pieces are checked once, as ``_LineParser._call``'s fast path checks them, so a
   hit builds the same :class:`Event` (a fresh body and header; ``request`` and
   ``response`` are shared by the events of one ``(H, M)``: nothing downstream mutates them).

Anything else (another shape, a broken ``Y``, a name in both parts) returns None and the
caller decodes the whole text as before. Memory is bounded: each table is emptied when full.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any, Final

from ..events import Event
from .jsonfast import loads
from .logtime import round_ms

TOTAL_TIME: Final = b'"totalTimeMs":'
_CORRELATION_ID: Final = b'"correlationId":'
_HEAD: Final = re.compile(
    rb'\{"isForwarded":(?:true|false),"requestHeader":\{"requestApiKey":(0|[1-9][0-9]{0,4}),'
    rb'"requestApiVersion":(?:0|[1-9][0-9]{0,4}),"correlationId":')
_INF: Final = float("inf")
MAX_CALLS: Final = 8192  # distinct (H, M) kept: a member's heartbeat is one while it is steady
MAX_CALL_BYTES: Final = 1 << 24  # and the bytes of their M (their decoded pieces are a few times that)
MAX_MIDDLE: Final = 1 << 16  # a larger M is never kept (large calls seldom repeat)
MAX_TAILS: Final = 1024  # distinct Y kept
MAX_TAIL: Final = 1 << 12  # a larger Y is decoded with the whole text (Kafka's are about 300 bytes)
_UNSEEN: Final[Any] = object()
_KAFKA_HEADER: Final = ["requestApiKey", "requestApiVersion", "correlationId", "clientId", "requestApiKeyName"]
_KAFKA_PART: Final = ["isForwarded", "requestHeader", "request", "response", "connection"]  # P's names, Kafka's order


def _canonical_encoder() -> Callable[[Any], bytes] | None:
    try:
        import orjson
    except ImportError:  # orjson is a dependency; without it no call is remembered
        return None
    return orjson.dumps


_dumps: Final = _canonical_encoder()

# One Y of a known call: (Y, the body an event copies: {**P, **Y's value}, Y's totalTimeMs, and
# the number parse_canonical reads after "totalTimeMs": when Y alone decides it, else None).
_State = tuple[bytes, dict[str, Any], float, "float | None"]
_NO_STATE: Final[_State] = (b"", {}, 0, None)  # no text has an empty Y where its "totalTimeMs": is
# A decoded Y: (Y, its totalTimeMs, the number parse_canonical reads, its value, and the bodies of
# Kafka's P, not forwarded and forwarded, with request, response, connection and header left to each
# event: None if Y names one of P's names).
_Tail = tuple[bytes, float, "float | None", dict[str, Any], "tuple[dict[str, Any], dict[str, Any]] | None"]


class _Known:
    """A known call ``(H, M)``: its decoded pieces, and its last Y."""

    __slots__ = ("api_key", "api_name", "client_id", "connection", "head", "header", "kafka_header", "kafka_part",
                 "part", "request", "response", "state", "version")

    def __init__(self, head: bytes, part: dict[str, Any], header: dict[str, Any], api_key: int,
                 api_name: str | None, version: int | None, client_id: str | None, connection: str | None) -> None:
        self.head, self.part, self.header = head, part, header
        self.api_key, self.api_name, self.version, self.client_id = api_key, api_name, version, client_id
        self.request: dict[str, Any] = part["request"]
        self.response: dict[str, Any] = part["response"]
        self.connection = connection
        self.state = _NO_STATE
        # Kafka's header, exactly: a repeat's is built from the fields above (the known header's dict,
        # seldom in cache by then, is not read); another header is copied.
        self.kafka_header = list(header) == _KAFKA_HEADER
        # Kafka's P (and a boolean isForwarded, as H has it): its body can start from one shared with others
        self.kafka_part = list(part) == _KAFKA_PART and type(part["isForwarded"]) is bool


Held = tuple[int, int]  # a queued repeat: its key in CallMemo._held and its correlationId (ints only)


class CallMemo:
    """Finds the known call a call's JSON text repeats (see the module doc).

    Only calls of the APIs in ``plain_keys`` are kept, and only those ``_LineParser._call``
    makes an :class:`Event` of on its fast path.
    """

    __slots__ = ("_call_bytes", "_calls", "_head", "_heads", "_held", "_plain_keys", "_tails")

    def __init__(self, plain_keys: Collection[int]) -> None:
        self._plain_keys = plain_keys
        self._head = b"\n"  # the last H accepted (none yet: no JSON text starts with a newline)
        self._heads: dict[bytes, bytes | None] = {}  # H -> H itself if Kafka's header start of a kept API
        self._calls: dict[bytes, _Known | None] = {}  # M -> the known call (H, M); None: not one to keep
        self._call_bytes = 0  # of the M in _calls
        self._tails: dict[bytes, _Tail | None] = {}  # Y -> Y decoded (None: not a valid tail)
        # id(state) -> [known call, state, repeats queued with it]. The reader's queue holds a repeat
        # as two ints: entries of nothing but ints and bytes leave the garbage collector's lists,
        # which a window of tuples of objects would fill (and full collections would walk).
        self._held: dict[int, list[Any]] = {}

    def find(self, raw: bytes, start: int, at: int, end: int) -> tuple[Held, float | None] | None:
        """The repeat ``raw[start:end]`` is, held until :meth:`release` (or :meth:`unhold`), and the
        number ``parse_canonical`` reads after its ``"totalTimeMs":`` when Y alone decides it.

        ``raw[start:end]`` is a call's JSON text and ``at`` the start of its last ``"totalTimeMs":``.
        None: decode the text in full (it is not a repeat, or not a call kept this way).
        """
        head = self._head
        c = start + len(head)  # the last H holds the name only at its end: the text's first is there
        if not raw.startswith(head, start):
            c = raw.find(_CORRELATION_ID, start, at)  # the text's first (it cannot straddle ``at``)
            if c < 0:
                return None
            c += len(_CORRELATION_ID)
            accepted = self._accept(raw[start:c])
            if accepted is None:
                return None
            head = accepted
        comma = raw.find(b",", c, at)
        if comma < 0:
            return None
        digits = raw[c:comma]
        if not digits.isdigit() or len(digits) > 10 or (digits[0] == 48 and len(digits) > 1):
            return None
        middle = raw[comma:at]
        known = self._calls.get(middle, _UNSEEN)
        if known is _UNSEEN or (known is not None and known.head is not head):
            known = self._learn(head, middle, digits)
        if known is None:
            return None
        state = known.state
        tail = state[0]
        if end - at != len(tail) or not raw.startswith(tail, at):
            state = self._retail(known, raw[at:end])
            if state is None:
                return None
        key = id(state)  # unique while held: the entry keeps the state alive
        held = self._held.get(key)
        if held is None:
            self._held[key] = [known, state, 1]
        else:
            held[2] += 1
        return (key, int(digits)), state[3]

    def release(self, repeat: Held, line_no: int, completion: int) -> Event:
        """The event of a held repeat completed at ``completion``, as decoding its text makes it."""
        key, correlation_id = repeat
        held = self._held[key]
        if held[2] == 1:
            del self._held[key]
        else:
            held[2] -= 1
        known, state = held[0], held[1]
        body = state[1].copy()  # P's names, then Y's: the values set below stay where decoding puts them
        body["request"], body["response"], body["connection"] = known.request, known.response, known.connection
        if known.kafka_header:  # {**known.header, "correlationId": correlation_id}
            body["requestHeader"] = {"requestApiKey": known.api_key, "requestApiVersion": known.version,
                                     "correlationId": correlation_id, "clientId": known.client_id,
                                     "requestApiKeyName": known.api_name}
        else:
            header = known.header.copy()
            header["correlationId"] = correlation_id
            body["requestHeader"] = header
        total = state[2]
        arrival = completion - total
        if type(arrival) is float:  # round_ms, inline
            arrival = int(arrival) if arrival.is_integer() else round_ms(arrival)
        body["tsMs"] = arrival
        return Event(line_no, "call", arrival, body, known.api_key, known.api_name, known.version, known.client_id,
                     known.request, known.response, total, known.connection)

    def unhold(self, repeat: Held) -> None:
        """Forget a held repeat that will not be released."""
        held = self._held[repeat[0]]
        if held[2] == 1:
            del self._held[repeat[0]]
        else:
            held[2] -= 1

    def _accept(self, head: bytes) -> bytes | None:
        """``head`` (one object per distinct H) if it is Kafka's header start of a kept API; else None."""
        if head in self._heads:
            kept = self._heads[head]
        else:
            match = _HEAD.fullmatch(head)
            kept = head if match is not None and int(match[1]) in self._plain_keys and _dumps is not None else None
            if len(self._heads) >= MAX_CALLS:
                self._heads.clear()
            self._heads[head] = kept
        if kept is not None:
            self._head = kept
        return kept

    def _learn(self, head: bytes, middle: bytes, digits: bytes) -> _Known | None:
        """Remember the call ``(H, M)`` by its ``M``: its pieces, or None if it is not one to keep."""
        if len(middle) > MAX_MIDDLE:
            return None
        known = self._known(head, head + digits + middle[:-1] + b"}", int(digits)) \
            if middle.endswith(b",") else None
        if len(self._calls) >= MAX_CALLS or self._call_bytes > MAX_CALL_BYTES:
            self._calls.clear()
            self._call_bytes = 0
        self._calls[middle] = known
        self._call_bytes += len(middle)
        return known

    def _known(self, head: bytes, part_text: bytes, correlation_id: int) -> _Known | None:
        """P's pieces if P is canonical and a call that ``_LineParser._call`` keeps on its fast path."""
        assert _dumps is not None
        try:
            part = loads(part_text)
            if type(part) is not dict or _dumps(part) != part_text:
                return None
        except (ValueError, TypeError, RecursionError):  # broken, or beyond orjson (big integers)
            return None
        header, request, response = part.get("requestHeader"), part.get("request"), part.get("response")
        if type(header) is not dict or type(request) is not dict or type(response) is not dict \
                or header.get("correlationId") != correlation_id or "connection" not in part:
            return None
        api_key, api_name, version = header.get("requestApiKey"), header.get("requestApiKeyName"), \
            header.get("requestApiVersion")
        client_id, connection = header.get("clientId"), part["connection"]
        if type(api_key) is int and api_key in self._plain_keys \
                and (api_name is None or (type(api_name) is str and api_name)) \
                and (version is None or type(version) is int) \
                and (client_id is None or type(client_id) is str) \
                and (connection is None or type(connection) is str):
            return _Known(head, part, header, api_key, api_name, version, client_id, connection)
        return None

    def _retail(self, known: _Known, tail: bytes) -> _State | None:
        """Make ``tail`` the known call's Y; None if it is broken, shares a name with P or is large."""
        if len(tail) > MAX_TAIL:
            return None
        decoded = self._tails.get(tail, _UNSEEN)
        if decoded is _UNSEEN:
            decoded = self._decode_tail(tail)
        if decoded is None:
            return None
        shared, total, scanned, times, kafka_bodies = decoded
        if known.kafka_part and kafka_bodies is not None:
            # Kafka's P: the body {**P, **Y's value} but for what release() sets, shared by the calls
            # that end alike (so copying it reads a dict in cache, not one of this call's own)
            body = kafka_bodies[known.part["isForwarded"] is True]
        else:
            body = {**known.part, **times}
            if len(body) != len(known.part) + len(times):
                return None  # a name in both parts: the later value wins, which the known pieces do not show
        # The tails memo's own copy of Y: the calls that end alike compare with one object.
        known.state = state = shared, body, total, scanned
        return state

    def _decode_tail(self, tail: bytes) -> _Tail | None:
        decoded = None
        try:
            times = loads(b"{" + tail)
        except (ValueError, RecursionError):
            times = None
        if type(times) is dict:
            total = times.get("totalTimeMs")
            if (type(total) is float and 0 <= total < _INF) or (type(total) is int and total >= 0):
                kafka: dict[str, Any] = {**dict.fromkeys(_KAFKA_PART, None), "isForwarded": False, **times}
                bodies = (kafka, {**kafka, "isForwarded": True}) if len(kafka) == len(_KAFKA_PART) + len(times) \
                    else None
                decoded = tail, total, total_time_at(tail, len(TOTAL_TIME), len(tail)), times, bodies
        if len(self._tails) >= MAX_TAILS:
            self._tails.clear()
        self._tails[tail] = decoded
        return decoded


def total_time_at(raw: bytes, at: int, end: int) -> float | None:
    """The non-negative number from ``at`` to the next comma before ``end``: how
    ``_LineParser.parse_canonical`` reads ``totalTimeMs`` (None: it leaves the line to ``parse``)."""
    comma = raw.find(b",", at, end)
    if comma < 0:
        return None
    try:
        # _scan_total_time stops at a "}" too, but float() rejects any text holding one, and
        # parse() decides those (``b"}" in`` costs more than this whole check: it tries an int first)
        total = float(raw[at:comma])
    except ValueError:
        return None
    return total if total >= 0 else None
