"""Per-line parsing for ``kgspec conform``: the readers' own line parsers, one line at a time.

Spark reads the inputs with its text source, one row per line, and this module turns each
row into the items ``open_trace`` would yield for that line. It imports no pyspark: the
Spark stages (:mod:`.pipeline`) call it from ``mapInArrow``, the tests call it directly.

What a line depends on besides its own bytes, and where that comes from:

- its line number: Spark reads a file in blocks (splits), each by one task, in order, so
  the parser counts a block's rows and writes each row's index in its block as its
  provisional ``line``; after this stage the driver learns every block's row count (``b``
  rows) and :mod:`.blocks` turns (block, index) into the file's line number;
- whether it is the file's first non-blank line (a ``header`` is only valid there): known
  in a file's first block; a header line that starts a later block is held back as an
  ``h`` row for the driver, which alone knows whether every block before it was blank;
- the format: detected once per file from its first lines (``detect_format``);
- dump-log and console output: a record without a timestamp keeps the previous
  record's; the parser carries it along a block. A later block starts from an unknown
  timestamp (NaN); its ``b`` row gives the block's last timestamp, and the replay gives
  a record still at NaN the last timestamp of the blocks before it;
- topic events derived from Metadata/CreateTopics/DeleteTopics/CreatePartitions calls
  need the state of the file's ``TopicTracker``: such calls are routed as ``t`` rows and
  resolved in file order by :func:`resolve_cluster`, with the file's topic and tick events.

Every item becomes one row (see ``PARSED_SCHEMA``); ``cls`` says where it goes:
``g`` a group's event, ``c`` a cluster-wide event (header, topic, tick), ``t`` a
topic-API call still to be resolved, ``o`` an event that names no group (the checker
reports it without a group), ``m`` a malformed line (a finding as it is), ``n`` item
counts for the input summary (``nl`` lines, ``ne`` events; other items are not rows),
``b`` one block's layout (``nl`` its rows, ``line`` its first non-blank row or null,
``okey`` the last timestamp a line of it set or null) and ``h`` a header line that
starts a block after the first (``payload`` the line).
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from io import BytesIO
from typing import Any, Final

from kgspec.conformance.checker import API_NAMES, DESCRIBES, api_of
from kgspec.conformance.events import Event, Malformed, ReadItem, Skipped
from kgspec.conformance.group_configs import GROUP_CONFIG_APIS, group_names
from kgspec.conformance.listing import judged_groups
from kgspec.conformance.readers.console import _strip_timestamp, read_console
from kgspec.conformance.readers.dump_log import _preamble_reason, record_line_item
from kgspec.conformance.readers.errors import TraceFormatError
from kgspec.conformance.readers.lines import DEFAULT_MAX_LINE_BYTES, too_long_message
from kgspec.conformance.readers.logtime import LogClock
from kgspec.conformance.readers.native import HEADER_NOT_FIRST, parse_line
from kgspec.conformance.readers.request_log import GROUP_API_KEYS, _LineParser
from kgspec.conformance.readers.topics import TOPIC_API_KEYS, TopicTracker, api_label, topic_items
from kgspec.model.apis import LIST_GROUPS

PARSED_SCHEMA: Final = ("fi int, okey double, line long, sub int, cls string, grp string, gtype string, "
                        "payload binary, msg string, fld string, nl long, ne long, block long")
Row = tuple[int, float | None, int | None, int, str, str | None, str | None, bytes | None, str | None, str | None,
            int | None, int | None, int]

# Group types for sampling, from the API of a call or the type of a record.
CONSUMER, STREAMS, SHARE, CLASSIC = "consumer", "streams", "share", "classic"
GROUP_TYPES: Final = (CONSUMER, STREAMS, SHARE, CLASSIC)
_API_TYPES: Final = {68: CONSUMER, 69: CONSUMER, 88: STREAMS, 89: STREAMS, 76: SHARE, 77: SHARE, 78: SHARE,
                     79: SHARE, 11: CLASSIC, 12: CLASSIC, 13: CLASSIC, 14: CLASSIC, 15: CLASSIC}
_RECORD_TYPES: Final = {**dict.fromkeys((3, 4, 5, 6, 7, 8, 16), CONSUMER), **dict.fromkeys(range(17, 24), STREAMS),
                        **dict.fromkeys(range(9, 16), SHARE), 2: CLASSIC}
DESCRIBED: Final = "?"  # suffix of a group type known only from a describe naming the group

UNKNOWN_TS: Final = math.nan  # a later block's starting timestamp, until the driver knows it


@dataclass(frozen=True, slots=True)
class FileInfo:
    """A file as its rows name it (``fi``: its index among the reported files, fewer bytes per
    row than its path in every stage and sort) and its format."""

    index: int
    fmt: str


@dataclass(frozen=True, slots=True)
class ParseOptions:
    tz: str | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES


def dumps(obj: object) -> bytes:
    return pickle.dumps(obj, protocol=5)


def loads(data: bytes) -> Any:
    return pickle.loads(data)  # rows written by this job's own parse stage


PICKLE_MAGIC: Final = pickle.dumps(None, protocol=5)[:2]  # b"\x80\x05": no trace line starts so


def event_from_payload(data: bytes, line: int, start_ts: float) -> Event:
    """A group's event from its row: a native line parsed again, or a pickle this job wrote.

    Only bytes that start as this job's pickles do are unpickled; a native line is shipped only
    when it parsed as an event (valid UTF-8, so never starting with ``0x80``), a leading BOM
    included. ``line``: its line in the file; ``start_ts``: the timestamp its block starts from,
    for a record that inherited the block's unknown one (:data:`UNKNOWN_TS`).
    """
    if data[:2] != PICKLE_MAGIC:
        event = parse_line(data, line, False)
        assert isinstance(event, Event)  # it parsed as one in the parse stage
        return event
    result: Event = pickle.loads(data)
    result.line = line
    ts = result.ts_ms
    if ts is not None and ts != ts:  # NaN
        result.ts_ms = start_ts
    return result


HEADER_HELD: Final = "h"


def native_item(content: bytes, line_no: int, first: bool) -> ReadItem:
    """A non-blank native line's item; ``first``: the file's first non-blank line."""
    try:
        return parse_line(content, line_no, first)
    except TraceFormatError as exc:  # kgspec check stops here (exit 2); conform reports the line
        return Malformed(line_no, f"{exc}; the header is ignored", "header.format")


class LineParser:
    """Parses the lines of one block of one file, in order (``line_no``: the row's index in the block).

    ``first_block``: the block starts the file, so its first non-blank line is the file's.
    ``first_index``: the index of the block's first non-blank row (None: none yet).
    ``held``: a header line that starts a later block, left to the driver (an ``h`` row).
    """

    def __init__(self, info: FileInfo, options: ParseOptions, first_block: bool) -> None:
        self.info = info
        self.fmt = info.fmt
        self.max = options.max_line_bytes
        self.first_block = first_block
        self.first_index: int | None = None
        self.held: bytes | None = None
        self.content = b""  # the last non-blank line, stripped (a native event's row ships it)
        # the timestamp a record without one inherits; a later block's is not known yet
        self.ts: float = 0.0 if first_block else UNKNOWN_TS
        self._request_log: _LineParser | None = None
        if self.fmt == "request-log":
            # No tracker here: topic-API calls come out as calls and resolve_cluster derives them.
            self._request_log = _LineParser(LogClock(options.tz), GROUP_API_KEYS | TOPIC_API_KEYS, None)

    @property
    def last_ts(self) -> float | None:
        """The timestamp a record after this block inherits; None: no line of the block set one."""
        return self.ts if self.ts == self.ts else None  # NaN: still the unknown start

    def items(self, line_no: int, raw: bytes) -> tuple[float, list[ReadItem]]:
        """(order key, items) of one line; no items for a blank line."""
        if len(raw) > self.max:
            if self.first_index is None and raw.strip():
                self.first_index = line_no
            if self.fmt == "console":
                return 0.0, list(self._console(line_no, raw))
            return 0.0, [Malformed(line_no, too_long_message(self.max))]
        self.content = content = raw.strip()
        if not content:
            return 0.0, []
        first_content = self.first_index is None
        if first_content:
            self.first_index = line_no
        if self.fmt == "request-log":
            assert self._request_log is not None
            payload, key, completion = self._request_log.parse(content, line_no)
            items = self._request_log.release((0.0, line_no, completion or 0, payload))
            return (float(key) if key is not None else 0.0), items
        if self.fmt == "dump-log":
            if not content.startswith(b"|"):
                return 0.0, [Skipped(line_no, _preamble_reason(content))]
            self.ts, item = record_line_item(content, line_no, self.ts)
            return 0.0, [item]
        if self.fmt == "console":
            return 0.0, list(self._console(line_no, raw))
        if first_content and not self.first_block:
            item = native_item(content, line_no, False)
            if isinstance(item, Malformed) and item.message == HEADER_NOT_FIRST:
                self.held = content  # the file's first non-blank line if every block before is blank
            return 0.0, [item]
        return 0.0, [native_item(content, line_no, first_content and self.first_block)]

    def _console(self, line_no: int, raw: bytes) -> Iterator[ReadItem]:
        _, prefix_ts = _strip_timestamp(raw.strip())
        start = self.ts
        if prefix_ts is not None:
            self.ts = prefix_ts
        for item in read_console(BytesIO(raw + b"\n"), max_record_bytes=self.max, start_ts_ms=start):
            item.line = line_no
            yield item


def group_type(event: Event) -> str | None:
    if event.kind == "call":
        api = api_of(event)  # a native call may name its API instead of numbering it
        return _API_TYPES.get(api) if api is not None else None
    if event.kind == "record":
        key = event.body.get("key")
        rtype = key.get("type") if isinstance(key, dict) else None
        return _RECORD_TYPES.get(rtype) if isinstance(rtype, int) else None
    return None


def _named_groups(ids: Any) -> list[str]:
    """The groups a describe's ids field names (each once); [] if it names none properly."""
    if not isinstance(ids, list) or not ids or not all(isinstance(x, str) for x in ids):
        return []
    return list(dict.fromkeys(ids))


def route(fi: int, block: int, okey: float, sub: int, item: ReadItem, completion: float | None = None,
          line_bytes: bytes | None = None) -> list[Row]:
    """The parsed rows of one item (not counted: see ``count_row``).

    ``line_bytes``: the item's whole native line, shipped instead of a pickle for a group's
    event (smaller, and parsing it again costs a third of pickling and unpickling).
    """
    if isinstance(item, Skipped):
        return []
    if isinstance(item, Malformed):
        return [(fi, okey, item.line, sub, "m", None, None, None, item.message, item.field, None, None, block)]
    if item.kind in ("header", "topic", "tick"):
        return [(fi, okey, item.line, sub, "c", None, None, dumps(item), None, None, None, None, block)]
    if item.kind == "call" and item.api_key in TOPIC_API_KEYS:
        done = completion if completion is not None else (item.ts_ms or 0) + (item.total_time_ms or 0)
        return [(fi, okey, item.line, sub, "t", None, None, dumps((item, done)), None, None, None, None, block)]
    payload = line_bytes if line_bytes is not None else dumps(item)
    if item.kind == "call":
        api = item.api_key
        if api is None:  # api_of, inline: this runs for every event (-1: no API known)
            api = API_NAMES.get(item.api_name or "", -1)
        gtype = _API_TYPES.get(api)
        if api == LIST_GROUPS:
            # Each group it lists judges it (`l` rows join only groups other rows show, as check
            # judges only groups the trace has shown); a call judged as a whole names no group.
            listed = judged_groups(item)
            if listed is None:
                return [(fi, okey, item.line, sub, "o", None, None, payload, None, None, None, None, block)]
            return [(fi, okey, item.line, sub, "l", gid, None, payload, None, None, None, None, block)
                    for gid in listed]
        describe = DESCRIBES.get(api)
        if describe is not None:  # an event of each group it names
            gids = _named_groups(item.request.get(describe.ids_field))
            if gids and gtype is not None:
                gtype += DESCRIBED  # a describe's type ranks below the group's own (pipeline._TYPE_RANK)
            if not gids:
                return [(fi, okey, item.line, sub, "o", None, gtype, payload, None, None, None, None, block)]
            return [(fi, okey, item.line, sub, "g", gid, gtype, payload, None, None, None, None, block)
                    for gid in gids]
        if api in GROUP_CONFIG_APIS:  # an event of each group its GROUP resources name, of any type
            named = group_names(api, item.request)
            if named:
                return [(fi, okey, item.line, sub, "g", gid, CONSUMER + DESCRIBED, payload, None, None, None, None,
                         block) for gid in named]
    else:
        gtype = group_type(item)
    gid = item.group_id
    return [(fi, okey, item.line, sub, "o" if gid is None else "g", gid, gtype, payload, None, None, None, None,
             block)]


def count_row(fi: int, items: int, events: int) -> Row:
    return (fi, 0.0, 0, 0, "n", None, None, None, None, None, items, events, 0)


def block_row(fi: int, block: int, rows: int, parser: LineParser) -> Row:
    return (fi, parser.last_ts, parser.first_index, 0, "b", None, None, None, None, None, rows, None, block)


def parse_block_rows(rows: Iterable[tuple[str, int, bytes | None]], files: dict[str, FileInfo],
                     options: ParseOptions) -> Iterator[Row]:
    """Rows ``(file key, block start, line bytes)`` in read order -> parsed rows.

    A block's rows come in order and from its first (each block is read by one task), so
    a row's index in its block is its provisional ``line`` (0-based); each block ends with
    its ``b`` row. Per partition, the items and events of each file are counted in ``n``
    rows. Topic-API calls are counted later, once resolved. A line whose parsing raises is
    ``malformed``.
    """
    counts: dict[int, list[int]] = {}
    parser: LineParser | None = None
    current: tuple[str, int] | None = None
    fi = 0
    block = 0
    index = -1
    counter: list[int] = []
    for key, block_start, raw in rows:
        if (key, block_start) != current:
            if parser is not None:
                yield block_row(fi, block, index + 1, parser)
            current, block, index = (key, block_start), block_start, -1
            parser = LineParser(files[key], options, block_start == 0)
            fi = parser.info.index
            counter = counts.setdefault(fi, [0, 0])
        assert parser is not None
        index += 1
        try:
            okey, items = parser.items(index, raw or b"")
        except Exception as exc:  # a bug or an input no reader expects: report the line, go on
            okey, items = 0.0, [Malformed(index, f"line could not be parsed: {type(exc).__name__}: {exc}")]
        if parser.held is not None:  # counted as the malformed line it is unless the driver says header
            counter[0] += 1
            yield (fi, 0.0, index, 0, HEADER_HELD, None, None, parser.held, None, None, None, None, block)
            parser.held = None
            continue
        for sub, item in enumerate(items):
            if isinstance(item, Event) and item.kind == "call" and item.api_key in TOPIC_API_KEYS:
                yield from route(fi, block, okey, sub, item, _request_log_completion(item, parser))
                continue
            if isinstance(item, Event) and item.kind == "call" and item.api_key in GROUP_CONFIG_APIS \
                    and group_names(item.api_key, item.request) == []:  # no GROUP resource: a skipped line
                counter[0] += not item.same_line
                continue
            if not getattr(item, "same_line", False):  # as TraceChecker.feed counts lines
                counter[0] += 1
                if isinstance(item, Event):  # events count lines too (a line of several is one)
                    counter[1] += 1
            native = parser.fmt == "native" and len(items) == 1 and isinstance(item, Event)
            yield from route(fi, block, okey, sub, item, line_bytes=parser.content if native else None)
    if parser is not None:
        yield block_row(fi, block, index + 1, parser)
    for fi, (items_n, events_n) in counts.items():
        yield count_row(fi, items_n, events_n)


def _request_log_completion(item: Event, parser: LineParser) -> float | None:
    if parser.fmt != "request-log":
        return None
    # Kafka's line time: the call's arrival plus totalTimeMs (the reader's own arithmetic)
    assert item.ts_ms is not None
    return item.ts_ms + (item.total_time_ms or 0)


def resolve_cluster(rows: Iterable[tuple[int, float, int, int, int, str, bytes]],
                    formats: dict[int, str]) -> Iterator[Row]:
    """Cluster rows (``c`` and ``t``) of whole files, each file's in order -> resolved ``c`` rows + counts.

    Rows are ``(fi, okey, block, line, sub, cls, payload)``, ``line`` still the index in
    the block. Topic-API calls become topic events (or nothing) with the file's
    ``TopicTracker``, as the readers do: in a native trace only until the trace shows a
    topic event of its own.
    """
    trackers: dict[int, tuple[TopicTracker, list[bool]]] = {}
    counts: dict[int, list[int]] = {}
    for fi, okey, block, line, sub, cls, payload in rows:
        tracker, own = trackers.setdefault(fi, (TopicTracker(), [False]))
        counter = counts.setdefault(fi, [0, 0])
        if cls == "c":
            event: Event = loads(payload)
            if event.kind == "topic":
                own[0] = True
            yield (fi, okey, line, sub, "c", None, None, payload, None, None, None, None, block)
            continue
        call, completion = loads(payload)
        if formats.get(fi) == "native" and own[0]:
            items: list[ReadItem] = [Skipped(line, f"{api_label(call)}: topics come from the trace's topic events")]
        else:
            items = topic_items(call, tracker, completion)
        for i, item in enumerate(items):
            if not getattr(item, "same_line", False):
                counter[0] += 1
                if isinstance(item, Event):  # as above: one line of several topics is one event line
                    counter[1] += 1
            if isinstance(item, Event):
                yield (fi, okey, line, sub + i, "c", None, None, dumps(item), None, None, None, None, block)
    for fi, (items_n, events_n) in counts.items():
        yield count_row(fi, items_n, events_n)
