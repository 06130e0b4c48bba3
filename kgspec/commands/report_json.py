"""The ``--json`` report of ``kgspec check``, written in pieces rather than built in memory.

The text is byte for byte ``json.dumps(report.to_json(), indent=2, default=jsonable) + "\\n"``
(``tests/report/test_report_json_stream.py`` holds it to that), produced as chunks: the small
parts (inputs, groups, inferred moves, allow-list) as ``json.dumps`` writes them, each finding
serialised on its own and indented as it sits in the ``findings`` array.

:class:`FindingSpool` is the report's sink (``Report.sink``) for a run that writes only the JSON
report: each listed finding is serialised as it is found and appended to a temporary file, and
only its place is kept in memory (input, group id, line, offset and length: 24 bytes in an
array, whatever the finding's context held). At the end the findings are read back in the
report's order (``Report.finding_order``: input, group, line, then the order found).
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from kgspec.conformance.findings import Finding, Report, jsonable

FORMAT: Final = "kgspec-report/1"
_ITEM_INDENT: Final = "    "  # a finding inside the top-level "findings" array
# What ``json.dumps(value, indent=2, default=jsonable)`` builds on every call, built once (a
# finding is encoded on its own: about a quarter less CPU than a new encoder each time).
_ENCODE: Final = json.JSONEncoder(indent=2, default=jsonable).encode


def finding_text(finding: Finding) -> str:
    """One finding as it appears in the report's ``findings`` array (without the comma)."""
    return _ITEM_INDENT + _ENCODE(finding.to_json()).replace("\n", "\n" + _ITEM_INDENT)


def _member(key: str, value: Any) -> str:
    """``"key": value`` at the top level of the report, as ``json.dumps(..., indent=2)`` writes it."""
    return "  " + json.dumps(key) + ": " + _ENCODE(value).replace("\n", "\n  ")


def report_chunks(report: Report, findings: Iterable[str], extra: Mapping[str, Any] | None = None) -> Iterator[str]:
    """The JSON report of ``report`` in pieces; ``findings``: the texts of its findings in the
    report's order (``finding_text``); ``extra``: keys after the contract's (``allowList``)."""
    yield "{\n" + _member("format", FORMAT) + ",\n"
    yield _member("inputs", [i.to_json() for i in report.inputs]) + ",\n"
    yield _member("groups", [g.to_json() for g in report.groups]) + ",\n"
    first = True
    for text in findings:
        yield ('  "findings": [\n' if first else ",\n") + text
        first = False
    yield '  "findings": []' if first else "\n  ]"
    tail: dict[str, Any] = {}
    if report.inferred:
        tail["inferred"] = report.inferred
    tail.update(extra or {})
    for key, value in tail.items():
        yield ",\n" + _member(key, value)
    yield "\n}\n"


def listed_findings(report: Report) -> Iterator[str]:
    """The texts of the findings kept in ``report.findings``, in the report's order."""
    for finding in sorted(report.findings, key=report.finding_order()):
        yield finding_text(finding)


class FindingSpool:
    """Findings serialised to a temporary file as they are listed (see the module docstring)."""

    def __init__(self, directory: str | None = None) -> None:
        # kept open across calls and closed by ``close``; the system removes it (unlinked on creation)
        self._file = tempfile.TemporaryFile(dir=directory, prefix="kgspec-findings-")  # noqa: SIM115
        self._size = 0
        # (path, group id) -> flat array of (line, offset, length), in the order found
        self._places: dict[tuple[str, str | None], array[int]] = {}

    def __call__(self, finding: Finding) -> None:
        data = finding_text(finding).encode("utf-8")
        self._file.write(data)
        key = (finding.path, finding.group_id)
        places = self._places.get(key)
        if places is None:
            places = self._places[key] = array("q")
        places.extend((finding.line, self._size, len(data)))
        self._size += len(data)

    def texts(self, report: Report) -> Iterator[str]:
        """The spooled findings' texts in the report's order (``Report.finding_order``)."""
        self._file.flush()
        fd = self._file.fileno()
        order = {g.group_id: i for i, g in enumerate(report.groups)}
        ranked: dict[tuple[str, int], list[array[int]]] = {}
        for (path, gid), places in self._places.items():
            ranked.setdefault((path, order.get(gid or "", -1)), []).append(places)
        for key in sorted(ranked):
            for offset, length in _in_line_order(ranked[key]):
                yield os.pread(fd, length, offset).decode("utf-8")

    def close(self) -> None:
        self._file.close()


def _in_line_order(parts: list[array[int]]) -> Iterator[tuple[int, int]]:
    """(offset, length) of the entries of ``parts`` by line, then by offset (the order found)."""
    if len(parts) == 1:
        places = parts[0]
        lines = places[0::3]
        if all(a <= b for a, b in itertools.pairwise(lines)):  # the common case: found in line order
            for i in range(0, len(places), 3):
                yield places[i + 1], places[i + 2]
            return
    entries = sorted((p[i], p[i + 1], p[i + 2]) for p in parts for i in range(0, len(p), 3))
    for _, offset, length in entries:
        yield offset, length
