"""Line numbers across the blocks (splits) Spark reads a file in, learnt after parsing.

Spark reads a file in blocks, each by one task, in order. The parse stage (:mod:`.parse`)
cannot know how many lines come before its block, so it writes each row's index in its
block as a provisional line, and one ``b`` row per block: its row count, its first
non-blank row and the last timestamp a dump-log or console line of it set. From those
rows alone the driver computes what a sequential read knows: every block's first line
number and the timestamp its records inherit, and every file's first non-blank line.
This replaces a pass over the whole input before parsing (``docs/conformance.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kgspec.conformance.events import Event, Malformed, ReadItem
from kgspec.conformance.findings import Finding

from .parse import HEADER_HELD, native_item


@dataclass(frozen=True, slots=True)
class BlockStart:
    lines_before: int
    start_ts: float  # what a dump-log/console record without a timestamp inherits at the block's start


@dataclass(slots=True)
class Layout:
    starts: dict[tuple[int, int], BlockStart] = field(default_factory=dict)  # (file index, block start) ->
    first_line: dict[int, int] = field(default_factory=dict)  # file index -> first non-blank line (absent: none)

    def line(self, fi: int, block: int, index: int) -> int:
        """The 1-based line number of row ``index`` (0-based) of a block."""
        return self.starts[(fi, block)].lines_before + index + 1


def layout_from_blocks(rows: Iterable[tuple[int, int, int, int | None, float | None]]) -> Layout:
    """``(file index, block start, rows, first non-blank index or None, last timestamp or None)`` per block."""
    by_file: dict[int, list[tuple[int, int, int | None, float | None]]] = {}
    for fi, block, count, first, last_ts in rows:
        by_file.setdefault(fi, []).append((block, count, first, last_ts))
    layout = Layout()
    for fi, blocks in by_file.items():
        blocks.sort(key=lambda b: b[0])
        before = 0
        ts: float = 0.0  # as a sequential read starts
        for block, count, first, last_ts in blocks:
            layout.starts[(fi, block)] = BlockStart(before, ts)
            if first is not None and fi not in layout.first_line:
                layout.first_line[fi] = before + first + 1
            if last_ts is not None:  # Spark's double column: an integral value was a Python int
                ts = int(last_ts) if float(last_ts).is_integer() else float(last_ts)
            before += count
    return layout


def resolve_held_header(fi: int, block: int, index: int, content: bytes, layout: Layout) -> ReadItem:
    """A header line that started a later block (an ``h`` row): the file's header if every
    block before it was blank, else the malformed line it is anywhere else."""
    line = layout.line(fi, block, index)
    return native_item(content, line, layout.first_line.get(fi) == line)


SUMMARY_COLUMNS = ("fi", "cls", "okey", "line", "block", "nl", "ne", "payload")
SummaryRow = tuple[int, str, "float | None", "int | None", int, "int | None", "int | None", "bytes | None"]


@dataclass(slots=True)
class ParseSummary:
    """What the driver learns from the parse stage's few ``n``, ``b`` and ``h`` rows."""

    counts: list[list[int]]  # file index -> [lines, events]
    layout: Layout
    headers: dict[int, Event]  # file index -> a header held back at a block's start, found to be the file's
    findings: list[Finding]  # ... or found malformed

    def count(self, fi: int, lines: int | None, events: int | None) -> None:
        """An ``n`` row: the lines and events a stage counted in file ``fi``."""
        self.counts[fi][0] += lines or 0
        self.counts[fi][1] += events or 0


def summarize_parse(rows: Iterable[SummaryRow], paths: list[str]) -> ParseSummary:
    """Counts and block layouts from rows of :data:`SUMMARY_COLUMNS` (``n``, ``b`` and ``h`` rows),
    then the header lines that start a later block, now that it is known whether the blocks
    before them were blank."""
    summary = ParseSummary([[0, 0] for _ in paths], Layout(), {}, [])
    blocks: list[tuple[int, int, int, int | None, float | None]] = []
    held: list[SummaryRow] = []
    for row in rows:
        fi, cls, okey, line, block, nl, ne, _ = row
        if cls == "n":
            summary.count(fi, nl, ne)
        elif cls == "b":
            blocks.append((fi, block, nl or 0, line, okey))
        elif cls == HEADER_HELD:
            held.append(row)
    summary.layout = layout_from_blocks(blocks)
    for fi, _, _, index, block, _, _, payload in held:
        assert index is not None  # an h row has its index in the block
        assert payload is not None  # and its line
        item = resolve_held_header(fi, block, index, bytes(payload), summary.layout)
        if isinstance(item, Event):
            summary.headers[fi] = item
            summary.count(fi, 0, 1)
        else:
            assert isinstance(item, Malformed)
            summary.findings.append(Finding(paths[fi], item.line, None, "malformed", item.message, item.field))
    return summary
