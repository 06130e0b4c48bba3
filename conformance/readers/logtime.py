"""Timestamps of Kafka's log4j lines (``[%d]``: ``2025-06-01 12:00:00,123``) to epoch ms."""

from __future__ import annotations

import datetime as dt
import re
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import TraceFormatError

_OFFSET_RE: Final = re.compile(r"([+-])(\d\d):?(\d\d)")


def resolve_tz(tz: str | dt.tzinfo | None) -> dt.tzinfo:
    """``None``/``"UTC"``/``"Z"`` → UTC; ``"+02:00"``/``"-0530"`` → fixed offset; else an IANA name."""
    if tz is None:
        return dt.UTC
    if isinstance(tz, dt.tzinfo):
        return tz
    if tz in ("UTC", "utc", "Z", "z"):
        return dt.UTC
    match = _OFFSET_RE.fullmatch(tz)
    if match:
        sign = -1 if match[1] == "-" else 1
        try:
            return dt.timezone(sign * dt.timedelta(hours=int(match[2]), minutes=int(match[3])))
        except ValueError as exc:  # datetime takes offsets strictly within a day
            raise TraceFormatError(f"time zone offset {tz!r} is out of range (-23:59 to +23:59)") from exc
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:  # OSError: a directory of tzdata, ...
        raise TraceFormatError(f"unknown time zone {tz!r}") from exc


class LogClock:
    """Parses log timestamps in one time zone; caches the epoch of each minute seen."""

    def __init__(self, tz: str | dt.tzinfo | None = None) -> None:
        self._zone = resolve_tz(tz)
        self._minutes: dict[bytes, int] = {}
        self._second: tuple[bytes, int] = (b"", 0)  # the last ``yyyy-MM-dd HH:mm:ss`` and its epoch ms

    def epoch_ms(self, text: bytes) -> int | None:
        """``yyyy-MM-dd HH:mm:ss[,SSS]`` (or ``T`` / ``.``) with an optional ``Z``/``±hh:mm``."""
        if len(text) == 23 and text[19] == 44 and text[20:23].isdigit():  # log4j's default, in the same second
            second, base = self._second
            if text[:19] == second:
                return base + int(text[20:23])
            value = self._epoch_ms(text)
            if value is not None:
                self._second = (text[:19], value - int(text[20:23]))
            return value
        return self._epoch_ms(text)

    def _epoch_ms(self, text: bytes) -> int | None:
        if len(text) < 19 or text[4] != 45 or text[7] != 45 or text[13] != 58 or text[16] != 58:
            return None
        minute_key = text[:16]
        tail = text[19:]
        millis = 0
        if tail[:1] in (b",", b"."):
            digits = len(tail) - len(tail[1:].lstrip(b"0123456789"))
            fraction = tail[1:digits]
            if not fraction:
                return None
            millis = int((fraction + b"00")[:3])
            tail = tail[digits:]
        try:
            seconds = int(text[17:19])
        except ValueError:
            return None
        if tail:
            minute_key += b"@" + tail  # the line states its own offset
        base = self._minutes.get(minute_key)
        if base is None:
            base = self._minute_epoch_ms(text[:16], tail)
            if base is None:
                return None
            if len(self._minutes) > 4096:  # a long log: keep memory constant
                self._minutes.clear()
            self._minutes[minute_key] = base
        return base + seconds * 1000 + millis

    def _minute_epoch_ms(self, text: bytes, offset: bytes) -> int | None:
        try:
            year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
            hour, minute = int(text[11:13]), int(text[14:16])
            if offset:
                zone = resolve_tz(offset.decode("ascii").strip())
            else:
                zone = self._zone
            # datetime validates the fields (no month 13) and applies DST for IANA zones
            return int(dt.datetime(year, month, day, hour, minute, tzinfo=zone).timestamp()) * 1000
        except (ValueError, UnicodeDecodeError, TraceFormatError):
            return None


def round_ms(value: float) -> float:
    """Round to microseconds (totalTimeMs is a double) and keep whole numbers as ints."""
    if isinstance(value, int):
        return value
    if value.is_integer():  # round() would give it back unchanged
        return int(value)
    rounded = round(value, 3)
    return int(rounded) if rounded.is_integer() else rounded
