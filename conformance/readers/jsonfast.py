"""JSON decoding for the readers: orjson when installed, with the standard library's exact
behaviour.

orjson is several times faster than ``json`` on trace lines. It is used only where it gives
the same value as ``json.loads``: when it rejects a text (the stdlib then decides, so the
error messages in ``Malformed`` findings and the stdlib's extensions such as ``NaN`` stay
as they were), and never for a text with a run of 19 or more digits, since orjson reads
integers beyond 64 bits as floats.
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


def _stdlib(data: bytes) -> Any:
    return json.loads(data)


def _make_loads() -> Callable[[bytes], Any]:
    try:
        import orjson
    except ImportError:  # optional speed-up; the stdlib is always right
        return _stdlib
    fast, decode_error = orjson.loads, orjson.JSONDecodeError

    def loads(data: bytes) -> Any:
        # has_long_digit_run(data), inline: this runs for every line
        if data[::9].translate(_DIGITS_TO_ZERO).find(b"00") < 0 or \
                data.translate(_DIGITS_TO_ZERO).find(_LONG_RUN) < 0:
            try:
                return fast(data)
            except decode_error:
                pass
        return json.loads(data)

    return loads


loads: Final = _make_loads()
