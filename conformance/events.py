"""Trace events as read from a file, before any model sees them.

Readers (native JSON Lines, Kafka's request log, ``kafka-dump-log`` output, console
formatter JSON) all produce the same two things, in input-line order:

- :class:`Event`: a valid event of the contract (``shared/contracts/trace-format.md``);
- :class:`Malformed`: a line that is not valid JSON or not a valid event.

Every non-blank input line yields exactly one of them (lines a format says to skip,
such as dump-log batch headers or other APIs in a request log, yield a ``Skipped``),
so the checker can account for every line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EventKind = Literal["header", "call", "topic", "record", "tick"]


@dataclass(slots=True)
class Event:
    line: int  # 1-based line number in the input file
    kind: EventKind
    ts_ms: float | None  # None only for a header
    body: dict[str, Any]  # the kind's object: header/topic/record/tick body; for a call, the whole event
    # Calls only:
    api_key: int | None = None
    api_name: str | None = None
    api_version: int | None = None
    client_id: str | None = None
    request: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)
    total_time_ms: float | None = None
    connection: str | None = None
    # True when an earlier item already accounted for this input line: one line can carry
    # several events (console-formatter output has no newlines; a Metadata response in a
    # request log can describe several topics). Count lines with ``not same_line``.
    same_line: bool = False

    @property
    def group_id(self) -> str | None:
        """The group the event belongs to; None for cluster-wide events (topic, tick, header)."""
        if self.kind == "call":
            gid = self.request.get("groupId")
            return gid if isinstance(gid, str) else None
        if self.kind == "record":
            key = self.body.get("key")
            if isinstance(key, dict):
                data = key.get("data")
                if isinstance(data, dict):
                    gid = data.get("groupId", data.get("group"))
                    return gid if isinstance(gid, str) else None
        return None


@dataclass(slots=True)
class Malformed:
    line: int
    message: str
    field: str | None = None
    same_line: bool = False  # as Event.same_line


@dataclass(slots=True)
class Skipped:
    """A line the format defines as carrying no event (a dump-log batch header, another API)."""

    line: int
    reason: str


ReadItem = Event | Malformed | Skipped
