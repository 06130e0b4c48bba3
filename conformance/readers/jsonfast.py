"""JSON decoding for the readers: orjson when installed, with the standard library's exact
behaviour.

orjson is several times faster than ``json`` on trace lines. It is used only where it gives
the same value as ``json.loads``: when it rejects a text (the stdlib then decides, so the
error messages in ``Malformed`` findings and the stdlib's extensions such as ``NaN`` stay
as they were), and never for a text with a run of 19 or more digits, since orjson reads
integers beyond 64 bits as floats (:func:`loads_long_run` takes such a text when its value
holds no float).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

# Every digit to "0": a run of 19 digits becomes a run of 19 zeros, found with one bytes.find.
_DIGITS_TO_ZERO: Final = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN: Final = b"0" * 19


def has_long_digit_run(data: bytes) -> bool:
    """Whether ``data`` holds 19 ASCII digits in a row.

    A cheap necessary condition first: a run of 19 digits starting at ``i`` holds the
    positions ``p`` (the first multiple of 9 from ``i``, at most ``i + 8``) and ``p + 9``
    (at most ``i + 17``), which are adjacent in ``data[::9]``. Only when that sample has two
    adjacent digits is the whole text translated and searched.
    """
    if data[::9].translate(_DIGITS_TO_ZERO).find(b"00") < 0:
        return False
    return data.translate(_DIGITS_TO_ZERO).find(_LONG_RUN) >= 0


class TooDeep(ValueError):
    """A JSON text nested beyond what the parsers take (orjson stops at 1,024 levels, the standard
    library's recursion at about 1,000): a ``malformed`` line, never a crash (docs/checking.md).
    No Kafka message nests more than a dozen levels."""

    def __init__(self) -> None:
        super().__init__("JSON nested too deeply (the checker reads about 1,000 levels at most)")


def _json_loads(data: bytes) -> Any:
    """``json.loads``, with a recursion that runs out (deep nesting) as a ``ValueError``."""
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeep() from None


def _stdlib(data: bytes) -> Any:
    return _json_loads(data)


def _make_loads() -> tuple[Callable[[bytes], Any], Callable[[bytes], Any] | None]:
    """(:func:`loads`, orjson's own ``loads`` or None without orjson)."""
    try:
        import orjson
    except ImportError:  # optional speed-up; the stdlib is always right
        return _stdlib, None
    fast, decode_error = orjson.loads, orjson.JSONDecodeError

    def loads(data: bytes) -> Any:
        # has_long_digit_run(data), inline: this runs for every line
        if data[::9].translate(_DIGITS_TO_ZERO).find(b"00") < 0 or \
                data.translate(_DIGITS_TO_ZERO).find(_LONG_RUN) < 0:
            try:
                return fast(data)
            except decode_error:
                pass
        return _json_loads(data)

    return loads, fast


loads, _orjson_loads = _make_loads()

plain_loads: Final[Callable[[bytes], Any]] = loads if _orjson_loads is None else _orjson_loads
"""``loads`` for a text without a run of 19 digits, whose caller takes any ``ValueError`` as
"not the common case": orjson itself (the value is ``json.loads``'s whenever orjson accepts
the text), or :func:`loads` without orjson."""


def loads_long_run(data: bytes) -> Any:
    """``loads(data)`` for a text that may hold a run of 19 digits, mostly without the standard
    library (in a dump of ``__consumer_offsets`` a 64-bit metadata hash has 19 digits about
    half the time).

    :func:`loads` leaves such a text to the standard library because orjson reads an integer
    beyond 64 bits as a float, and maybe a float of many digits otherwise. orjson reads every
    other number exactly, as an int, so a value orjson decodes without any float in it is the
    one the standard library decodes; anything else is :func:`loads`'s to decode.
    """
    if _orjson_loads is not None:
        try:
            value = _orjson_loads(data)
        except ValueError:
            return loads(data)
        if _without_floats(value):
            return value
    return loads(data)


def _without_floats(value: Any) -> bool:
    pending = [value]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is float:
            return False
        if kind is dict:
            pending.extend(node.values())
        elif kind is list:
            pending.extend(node)
    return True
