"""Console-consumer formatter JSON of a run's records.

The layout of ``CoordinatorRecordMessageFormatter.writeTo`` (Kafka 4.1+):
``{"key":{"type":N,"data":...},"value":{"version":V,"data":...}}`` with ``"value":null``
for a tombstone and no newline between records. Kafka's shipped subclasses print only
classic-group and offset records (types 0-2) and share-group records; for consumer and
streams groups this is the layout a subclass allowing every type prints. ``newlines``
puts one record per line (``print.timestamp``-style ``CreateTime:<ms>`` prefixes with
``timestamps``), which keeps each record on a line of its own for line mapping.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

_COMPACT = (",", ":")


def write_console(events: Iterable[dict[str, Any]], out: TextIO, *, timestamps: bool = True,
                  newlines: bool = True) -> list[int | None]:
    """Write the ``record`` events; returns the native event index per line written."""
    if timestamps and not newlines:
        raise ValueError("timestamps need newlines: a prefix would hide the record boundary")
    lines: list[int | None] = []
    for index, event in enumerate(events):
        record = event.get("record")
        if record is None:
            continue
        value = record.get("value")
        text = json.dumps({"key": record["key"], "value": value}, separators=_COMPACT)
        if timestamps:
            text = f"CreateTime:{int(event['tsMs'])}\t{text}"
        out.write(text)
        if newlines:
            out.write("\n")
            lines.append(index)
        elif not lines:
            lines.append(index)  # every record on the one line: it maps to the first
    if not newlines and lines:
        out.write("\n")
    return lines
