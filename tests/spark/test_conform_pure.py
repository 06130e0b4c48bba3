"""The plain-Python parts of ``kgspec conform`` (no JVM): sampling hash, per-line parsing,
cluster resolution and per-group replay give ``kgspec check``'s results."""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.events import Event, Malformed
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.readers.detect import detect_format
from kgspec.conformance.spark.blocks import Layout, ParseSummary, summarize_parse
from kgspec.conformance.spark.parse import (
    HEADER_HELD,
    FileInfo,
    ParseOptions,
    Row,
    event_from_payload,
    loads,
    parse_block_rows,
    resolve_cluster,
)
from kgspec.conformance.spark.pipeline import ConformOptions, _file_settings
from kgspec.conformance.spark.replay import ReplayContext, replay_rows
from kgspec.conformance.spark.sampling import group_hash, keep, threshold

from tests.spark.data import FORMATS_DIR, MUTATED, Dataset, make_admin_trace


def test_group_hash_is_sparks_xxhash64() -> None:
    # spark.range(1).select(F.xxhash64(F.lit(7), F.lit("group-1"))) on Spark 4.3.0
    assert group_hash(7, "group-1") == 5338799053797477231


def test_keep_bounds_and_thresholds() -> None:
    assert [keep(0, f"g{i}", 0.0) for i in range(5)] == [False] * 5
    assert [keep(0, f"g{i}", 1.0) for i in range(5)] == [True] * 5
    assert threshold(0.25) == 250_000
    with pytest.raises(ValueError):
        threshold(1.5)
    kept = sum(keep(11, f"group-{i}", 0.5) for i in range(10_000))
    assert 4_800 < kept < 5_200


Groups = list[tuple[str, str, int]]
Findings = list[tuple[int, str | None, str, str | None]]


@dataclass
class _Parsed:
    """A file through the parse stage in blocks, and what the driver learns from the rows."""

    rows: list[Row]
    fmt: str
    layout: Layout
    header: Event | None  # a header line held back at a block's start, resolved as the header
    findings: Findings  # ... or as malformed
    summary: ParseSummary  # its counts: of the parse stage's rows (topic-API calls not yet counted)


def _parse_in_blocks(path: Path, shown: str, block_lines: int | None) -> _Parsed:
    """Read in blocks of ``block_lines`` lines (one block: None), each parsed as its own partition."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    fmt = detect_format(raw[:65536]) or "native"
    size = block_lines or max(len(lines), 1)
    files = {"u": FileInfo(0, fmt)}
    rows: list[Row] = []
    for start in range(0, len(lines), size):  # a block's start: its byte offset, as Spark's
        offset = sum(len(line) + 1 for line in lines[:start])
        rows += parse_block_rows((("u", offset, line) for line in lines[start:start + size]), files, ParseOptions())
    # the driver's view: the summary rows as Spark selects them (blocks.SUMMARY_COLUMNS)
    summary = summarize_parse(((r[0], r[4], r[1], r[2], r[12], r[10], r[11], r[7]) for r in rows
                               if r[4] in ("n", "b", HEADER_HELD)), [shown])
    return _Parsed(rows, fmt, summary.layout, summary.headers.get(0),
                   [(f.line, None, "malformed", f.field) for f in summary.findings], summary)


def _local_conform(path: Path, shown: str, block_lines: int | None = None) -> tuple[Groups, Findings, list[int]]:
    """The pipeline's stages run in Python on the file read in blocks: (groups, findings, [lines, events])."""
    parsed = _parse_in_blocks(path, shown, block_lines)
    rows, fmt, layout, findings = parsed.rows, parsed.fmt, parsed.layout, list(parsed.findings)
    cluster_in = sorted((r for r in rows if r[4] in ("c", "t")), key=lambda r: (r[1], r[12], r[2], r[3]))
    resolved = list(resolve_cluster(((r[0], r[1], r[12], r[2], r[3], r[4], r[7]) for r in cluster_in), {0: fmt}))
    events = []
    for r in resolved:
        if r[4] == "n":  # the topic-API calls, counted once resolved
            parsed.summary.count(r[0], r[10], r[11])
        elif r[4] == "c":
            event = loads(r[7])
            event.line = layout.line(r[0], r[12], r[2])
            events.append(((r[1], event.line, r[3]), event))
    header = next((e for _, e in events if e.kind == "header"), parsed.header)
    settings = _file_settings(shown, header, ConformOptions([shown]), [])
    settings.cluster = sorted(((o, e) for o, e in events if e.kind != "header"), key=lambda x: x[0])
    ctx = ReplayContext([shown], {shown: settings}, layout.starts)
    shown = {r[5] for r in rows if r[4] == "g"}  # a listing reaches only groups other rows show
    group_rows = sorted((r for r in rows if r[4] in ("g", "o") or (r[4] == "l" and r[5] in shown)),
                        key=lambda r: (r[0], r[5] or "", r[1], r[12], r[2], r[3]))
    out = list(replay_rows(((r[0], r[5], r[6], r[1], r[12], r[2], r[3], r[7]) for r in group_rows), ctx))
    groups = sorted((r[2] or "", r[9] or "", r[8] or 0) for r in out if r[0] == "G")
    findings += [(r[5], r[2], r[10] or "", r[11]) for r in out if r[0] == "F"]
    findings += [(layout.line(r[0], r[12], r[2]), None, "malformed", r[9]) for r in rows if r[4] == "m"]
    return groups, sorted(findings, key=str), parsed.summary.counts[0]


def _check(path: Path) -> tuple[Groups, Findings, list[int]]:
    report = Report()
    check_items(str(path), open_trace(path), report)
    groups = sorted((g.group_id, g.verdict, g.events) for g in report.groups)
    findings = [(f.line, f.group_id, f.kind, f.field) for f in report.findings
                if f.field not in ("header.profile", "header.configs")]  # the driver reports those
    return groups, sorted(findings, key=str), [report.inputs[0].lines, report.inputs[0].events]


@pytest.mark.parametrize("name", ["native_malformed.jsonl", "request.log", "offsets.dump.txt",
                                  "offsets.console.txt", "native.jsonl.gz"])
@pytest.mark.parametrize("block_lines", [None, 1, 2, 5])
def test_stages_equal_check_on_format_fixtures(name: str, block_lines: int | None) -> None:
    """Whatever the blocks, line numbers, headers, inherited timestamps and the input's line and
    event counts come out as check's."""
    path = FORMATS_DIR / name
    assert _local_conform(path, str(path), block_lines) == _check(path)


def _items_in_blocks(path: Path, block_lines: int | None) -> list[tuple[int, str, float | None]]:
    """Every event (line, kind, timestamp) and malformed line as the replay and driver see them."""
    parsed = _parse_in_blocks(path, str(path), block_lines)
    layout = parsed.layout
    out: list[tuple[int, str, float | None]] = [(line, "malformed", None) for line, *_ in parsed.findings]
    if parsed.header is not None:
        out.append((parsed.header.line, "header", parsed.header.ts_ms))
    for r in parsed.rows:
        block, index = r[12], r[2]
        if r[4] in ("g", "o", "c", "m"):
            assert index is not None
            line = layout.line(r[0], block, index)
        if r[4] in ("g", "o"):
            assert r[7] is not None
            event = event_from_payload(r[7], line, layout.starts[(r[0], block)].start_ts)
            out.append((event.line, event.kind, event.ts_ms))
        elif r[4] == "c":
            assert r[7] is not None
            out.append((line, loads(r[7]).kind, loads(r[7]).ts_ms))
        elif r[4] == "m":
            out.append((line, "malformed", None))
    return sorted(out, key=str)


def _items_by_check(path: Path) -> list[tuple[int, str, float | None]]:
    return sorted(((i.line, i.kind, i.ts_ms) if isinstance(i, Event) else (i.line, "malformed", None)
                   for i in open_trace(path) if isinstance(i, Event | Malformed)), key=str)


@pytest.mark.parametrize("block_lines", [1, 2, 3, 4])
def test_records_without_a_timestamp_inherit_across_blocks(tmp_path: Path, block_lines: int) -> None:
    """A dump-log record line without a timestamp keeps the one before it, also when the one
    before it was set in an earlier block (the block starts unknown; the driver fills it in)."""
    lines = (FORMATS_DIR / "offsets.dump.txt").read_text().splitlines()
    for i in (9, 10):  # offsets 5 and 6: no CreateTime
        lines[i] = re.sub(r" CreateTime: \d+", "", lines[i])
    path = tmp_path / "no-ts.dump.txt"
    path.write_text("\n".join(lines) + "\n")
    expected = _items_by_check(path)
    assert [(line, ts) for line, kind, ts in expected if line in (10, 11)] == [
        (10, 1748779200205), (11, 1748779200205)]
    assert _items_in_blocks(path, block_lines) == expected


@pytest.mark.parametrize("block_lines", [1, 2, 3, 4, None])
def test_a_header_after_blank_blocks_is_the_header(tmp_path: Path, block_lines: int | None) -> None:
    """The first non-blank line may start a later block: it is the header only if every
    block before it was blank, which the driver alone knows."""
    fixture = (FORMATS_DIR / "native_malformed.jsonl").read_bytes()
    path = tmp_path / "late-header.jsonl"
    path.write_bytes(b"\n \n\t\n" + fixture)
    expected = _items_by_check(path)
    assert (4, "header", None) in expected
    assert _items_in_blocks(path, block_lines) == expected
    if block_lines in (1, 3):  # the header starts block 4 or block 2
        assert any(r[4] == HEADER_HELD for r in _parse_in_blocks(path, str(path), block_lines).rows)


@pytest.mark.parametrize("block_lines", [1, 2, 3])
def test_a_header_after_an_event_is_malformed_in_any_block(tmp_path: Path, block_lines: int) -> None:
    fixture = (FORMATS_DIR / "native_malformed.jsonl").read_bytes().split(b"\n", 1)
    path = tmp_path / "header-second.jsonl"
    path.write_bytes(b'{"tsMs":0,"tick":{}}\n\n\n' + fixture[0] + b"\n" + fixture[1])
    expected = _items_by_check(path)
    assert (4, "malformed", None) in expected
    assert _items_in_blocks(path, block_lines) == expected


def test_stages_equal_check_on_mutated_groups(dataset: Dataset) -> None:
    report = Report()
    check_items(str(dataset.native), open_trace(dataset.native), report)
    groups, findings, counts = _local_conform(dataset.native, str(dataset.native))
    assert groups == sorted((g.group_id, g.verdict, g.events) for g in report.groups)
    assert {g for g, v, _ in groups if v == "diverges"} == MUTATED
    assert findings == sorted(((f.line, f.group_id, f.kind, f.field) for f in report.findings), key=str)
    assert counts == [report.inputs[0].lines, report.inputs[0].events]


def test_driver_detects_local_formats_as_check_does(tmp_path: Path) -> None:
    """Local files are detected by the driver from their first 64 KiB; others are left to Spark."""
    from kgspec.conformance.spark.pipeline import _local_format

    expected = {"native.jsonl.gz": "native", "native_malformed.jsonl": "native",
                "offsets.console.txt": "console", "offsets.dump.txt": "dump-log", "request.log": "request-log"}
    for name, fmt in expected.items():
        assert _local_format((FORMATS_DIR / name).as_uri()) == fmt, name
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"\n\n")
    assert _local_format(blank.as_uri()) == "native"  # nothing to read: as the Spark sample decides
    unknown = tmp_path / "unknown.txt"
    unknown.write_bytes(b"hello\n")
    assert _local_format(unknown.as_uri()) == "native"  # undetectable: conform's fallback
    not_gzip = tmp_path / "plain.jsonl.gz"
    not_gzip.write_bytes(b'{"tsMs": 0}\n')
    assert _local_format(not_gzip.as_uri()) is None  # Spark decides what it can read
    bz2 = tmp_path / "trace.jsonl.bz2"
    bz2.write_bytes(b"BZh9")
    assert _local_format(bz2.as_uri()) is None
    assert _local_format("hdfs://namenode/traces/a.jsonl") is None
    assert _local_format(tmp_path.as_uri()) is None  # a directory


def test_local_cores_of_spark_masters() -> None:
    import os

    from kgspec.conformance.spark.masters import local_cores

    mine = len(os.sched_getaffinity(0))
    assert [local_cores(m) for m in ("local", "local[1]", "local[2]", "local[16]", "local[*]", "local[2,3]",
                                     "local[*,4]")] == [1, 1, 2, 16, mine, 2, mine]
    assert [local_cores(m) for m in ("local[0]", "local[]", "yarn", "spark://h:7077", "local-cluster[2,1,1024]",
                                     "k8s://https://h")] == [None] * 6


def test_small_local_masters_get_the_serial_collector() -> None:
    from kgspec.commands.conform import small_local_gc

    assert small_local_gc("local[1]", {}, "") == "-XX:+UseSerialGC"
    assert small_local_gc("local[2]", {}, "# spark.driver.extraJavaOptions -XX:+UseG1GC\n") == "-XX:+UseSerialGC"
    assert small_local_gc("local[3]", {}, "") is None
    assert small_local_gc("yarn", {}, "") is None
    # the user's Java options win, wherever they are set
    assert small_local_gc("local[2]", {"spark.driver.extraJavaOptions": "-XX:+UseG1GC"}, "") is None
    assert small_local_gc("local[2]", {"spark.driver.defaultJavaOptions": ""}, "") is None
    assert small_local_gc("local[2]", {}, "spark.driver.extraJavaOptions  -Xss4m\n") is None
    assert small_local_gc("local[2]", {}, "spark.driver.defaultJavaOptions=-XX:+UseG1GC\n") is None


def test_local_masters_get_late_c2_and_small_ones_the_serial_collector() -> None:
    from kgspec.commands.conform import local_java_options

    late = ("-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 "
            "-XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000")
    assert local_java_options("local[1]", {}, "") == f"-XX:+UseSerialGC {late}"
    assert local_java_options("local[2]", {}, "") == f"-XX:+UseSerialGC {late}"
    assert local_java_options("local[8]", {}, "") == late
    assert local_java_options("yarn", {}, "") is None
    assert local_java_options("spark://h:7077", {}, "") is None
    # the user's Java options win, wherever they are set
    assert local_java_options("local[8]", {"spark.driver.extraJavaOptions": "-Xss4m"}, "") is None
    assert local_java_options("local[2]", {}, "spark.driver.defaultJavaOptions -XX:+UseG1GC\n") is None


def test_byte_sizes_as_spark_writes_them() -> None:
    from kgspec.conformance.spark.pipeline import byte_size

    assert [byte_size(t) for t in ("134217728b", "4194304b", "128m", "128MB", "1g", "2KiB", "1024", " 8k ")] == [
        134217728, 4194304, 134217728, 134217728, 1 << 30, 2048, 1024, 8192]
    for bad in ("", "b", "12x", "1.5g", "-1m"):
        with pytest.raises(ValueError, match="not a byte size"):
            byte_size(bad)


class _Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)
        self.defaults = {"spark.sql.files.maxPartitionBytes": "134217728b",
                         "spark.sql.files.openCostInBytes": "4194304b"}

    def get(self, key: str, *default: str | None) -> str | None:
        if key in self.values:
            return self.values[key]
        return default[0] if default else self.defaults[key]

    def set(self, key: str, value: str) -> None:
        self.values[key] = value

    def unset(self, key: str) -> None:
        del self.values[key]


@dataclass
class _Context:
    defaultParallelism: int  # Spark's name


@dataclass
class _Session:
    conf: _Conf
    sparkContext: _Context


MIB = 1 << 20


@pytest.mark.parametrize(("cores", "sizes", "splits"), [
    (2, None, 8),  # size unknown (remote or compressed): 4 per core
    (2, [450 * MIB], 8),  # 57 MB splits, under the 128 MiB cap
    (2, [1360 * MIB], 12),  # 11 capped splits would leave the last alone on a core: 6 waves of 2
    (1, [1360 * MIB], 11),  # one core: 11 waves
    (4, [600 * MIB, 600 * MIB], 16),
])
def test_inputs_split_in_whole_waves(cores: int, sizes: list[int] | None, splits: int) -> None:
    from kgspec.conformance.spark.pipeline import _SessionDefaults

    session = _Session(_Conf({}), _Context(cores))
    with _SessionDefaults(session) as defaults:
        defaults.split_inputs(sizes)
        assert session.conf.values == {"spark.sql.files.minPartitionNum": str(splits),
                                       "spark.sql.shuffle.partitions": str(4 * cores)}
    assert session.conf.values == {}  # the session as it was


def test_session_settings_of_the_user_are_kept() -> None:
    from kgspec.conformance.spark.pipeline import _SessionDefaults

    mine = {"spark.sql.files.minPartitionNum": "3", "spark.sql.shuffle.partitions": "200"}
    session = _Session(_Conf(mine), _Context(2))
    with _SessionDefaults(session) as defaults:
        defaults.split_inputs([1360 * MIB])
        assert session.conf.values == mine
    assert session.conf.values == mine


def test_splittable_sizes_only_of_local_uncompressed_files(tmp_path: Path) -> None:
    from kgspec.conformance.spark.pipeline import _splittable_sizes

    plain, other = tmp_path / "a.jsonl", tmp_path / "b.log"
    plain.write_bytes(b"x" * 10)
    other.write_bytes(b"y" * 7)
    assert _splittable_sizes([str(plain), str(other)]) == [10, 7]
    packed = tmp_path / "c.jsonl.gz"
    packed.write_bytes(gzip.compress(b"{}\n"))
    assert _splittable_sizes([str(plain), str(packed)]) is None
    assert _splittable_sizes([str(plain), "hdfs://namenode/traces/a.jsonl"]) is None
    assert _splittable_sizes([str(tmp_path / "gone.jsonl")]) is None


@pytest.mark.parametrize(("server", "during"), [
    ({"spark.master": "local[2]"}, {"spark.sql.shuffle.partitions": "8", "spark.sql.files.minPartitionNum": "12"}),
    ({"spark.master": "yarn", "spark.executor.instances": "3", "spark.executor.cores": "4"},
     {"spark.sql.shuffle.partitions": "48", "spark.sql.files.minPartitionNum": "48"}),
    ({"spark.master": "k8s://h:443", "spark.default.parallelism": "6"},
     {"spark.sql.shuffle.partitions": "24", "spark.sql.files.minPartitionNum": "24"}),
    ({"spark.master": "local[*]"}, {}),  # the server's CPUs are not the client's
    ({"spark.master": "spark://h:7077"}, {}),
    ({}, {}),
])
def test_a_connect_session_gets_defaults_where_its_server_tells_its_cores(
        server: dict[str, str], during: dict[str, str]) -> None:
    from kgspec.conformance.spark.pipeline import _SessionDefaults

    class _Connect:  # Spark Connect: no sparkContext to read the parallelism from
        conf = _Conf(server)

        @property
        def sparkContext(self) -> None:  # Spark's name
            raise RuntimeError("[JVM_ATTRIBUTE_NOT_SUPPORTED] sparkContext is not supported in Spark Connect")

    session = _Connect()
    with _SessionDefaults(session) as defaults:
        defaults.split_inputs([1360 * MIB])
        assert session.conf.values == {**server, **during}
    assert session.conf.values == server


def test_a_call_named_not_numbered_has_its_group_type() -> None:
    from kgspec.conformance.checker import API_NAMES
    from kgspec.conformance.spark.parse import group_type

    def call(name: str) -> Event:
        return Event(1, "call", 0.0, {}, api_name=name, request={"groupId": "g"})

    assert {name: group_type(call(name)) for name in API_NAMES} == {
        "CONSUMER_GROUP_HEARTBEAT": "consumer", "CONSUMER_GROUP_DESCRIBE": "consumer",
        "STREAMS_GROUP_HEARTBEAT": "streams", "STREAMS_GROUP_DESCRIBE": "streams",
        "JOIN_GROUP": "classic", "SYNC_GROUP": "classic", "HEARTBEAT": "classic", "LEAVE_GROUP": "classic",
        # a listing has no group type of its own: it reaches groups other rows show and type
        "DESCRIBE_GROUPS": "classic", "LIST_GROUPS": None,
        # offset calls (issue #15) belong to whatever group owns the id: they type no group
        "OFFSET_COMMIT": None, "OFFSET_FETCH": None, "OFFSET_DELETE": None, "DELETE_GROUPS": None,
        "TXN_OFFSET_COMMIT": None, "WRITE_TXN_MARKERS": None,
        # group configs name their groups in resources (route() gives each a row): no type of their own
        "DESCRIBE_CONFIGS": None, "INCREMENTAL_ALTER_CONFIGS": None}
    assert group_type(call("METADATA")) is None


def test_describes_and_listings_reach_the_groups_they_name(tmp_path: Path) -> None:
    """Describes fan out to each named group, listings to each listed group the trace shows, and
    a listing judged as a whole names none: the stages give check's groups and findings."""
    path = make_admin_trace(tmp_path)
    expected = _check(path)
    groups, findings, (n, _) = expected
    assert [f for f in findings if f[0] > n - 5] == sorted([
        (n - 3, "group-1", "response-mismatch", "groupState"), (n - 2, None, "response-mismatch", "errorCode"),
        (n - 1, "group-2", "response-mismatch", "groupState")], key=str)
    assert [g for g, _, _ in groups] == ["group-0", "group-1", "group-2", "nope"]
    assert _local_conform(path, str(path)) == expected
    assert _local_conform(path, str(path), 7) == expected


def test_a_describe_types_its_groups_below_their_own_calls() -> None:
    """A describe's rows carry its type marked "?" (ranked below any call's or record's type for
    sampling); a malformed describe names no group and keeps the plain type."""
    from kgspec.conformance.spark.parse import route

    def describe(ids: object) -> Event:
        return Event(3, "call", 0.0, {}, api_key=89, api_version=0, request={"groupIds": ids}, response={})

    assert [(r[4], r[5], r[6]) for r in route(0, 0, 0.0, 0, describe(["a", "b", "a"]))] == [
        ("g", "a", "streams?"), ("g", "b", "streams?")]
    assert [(r[4], r[5], r[6]) for r in route(0, 0, 0.0, 0, describe("a"))] == [("o", None, "streams")]


def test_a_native_line_with_a_bom_is_parsed_again_never_unpickled() -> None:
    """A valid line starting with a BOM (which ``kgspec check`` accepts) was taken for a pickle
    by the replay stage and crashed it; only this job's own pickles are unpickled now."""
    from kgspec.conformance.spark.parse import PICKLE_MAGIC, dumps, event_from_payload

    line = b'\xef\xbb\xbf{"tsMs":5,"tick":{"coordinatorFailover":true}}'
    event = event_from_payload(line, 7, 0.0)
    assert (event.kind, event.line, event.ts_ms, event.body) == ("tick", 7, 5.0, {"coordinatorFailover": True})
    assert dumps(event)[:2] == PICKLE_MAGIC
    again = event_from_payload(dumps(event), 9, 0.0)
    assert (again.kind, again.line, again.ts_ms) == ("tick", 9, 5.0)


def test_lines_are_spread_only_when_every_input_is_read_whole() -> None:
    """gzip and the other codecs but bzip2 are read in one task per file (``_spread_lines``)."""
    from kgspec.conformance.spark.pipeline import _all_unsplittable

    assert _all_unsplittable(["/t/a.jsonl.gz"])
    assert _all_unsplittable(["/t/a.gz", "hdfs://nn/t/b.log.zst", "/t/c.snappy"])
    assert not _all_unsplittable(["/t/a.gz", "/t/b.jsonl"])  # a split file keeps its blocks
    assert not _all_unsplittable(["/t/a.jsonl.bz2"])  # bzip2 splits
    assert not _all_unsplittable([])
