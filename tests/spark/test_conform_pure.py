"""The plain-Python parts of ``kgspec conform`` (no JVM): sampling hash, per-line parsing,
cluster resolution and per-group replay give ``kgspec check``'s results."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.readers.detect import detect_format
from kgspec.conformance.spark.parse import (
    Block,
    FileLayout,
    ParseOptions,
    loads,
    parse_block_rows,
    resolve_cluster,
)
from kgspec.conformance.spark.pipeline import ConformOptions, _file_settings
from kgspec.conformance.spark.replay import ReplayContext, replay_rows
from kgspec.conformance.spark.sampling import group_hash, keep, threshold

from tests.spark.data import FORMATS_DIR, MUTATED, Dataset


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


def _local_conform(path: Path, shown: str) -> tuple[list[tuple[str, str, int]], list[tuple[int, str | None, str, str | None]]]:
    """The pipeline's stages run in Python on one block: (groups, findings)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    fmt = detect_format(raw[:65536]) or "native"
    first = next((i + 1 for i, line in enumerate(lines) if line.strip()), 0)
    layout = FileLayout(shown, fmt, first, {0: Block(100, 0, 0)})
    rows = list(parse_block_rows((("u", 0, 100 + i, line) for i, line in enumerate(lines)),
                                 {"u": layout}, ParseOptions()))
    cluster_in = sorted((r for r in rows if r[4] in ("c", "t")), key=lambda r: (r[1], r[2], r[3]))
    resolved = list(resolve_cluster(((r[0], r[1], r[2], r[3], r[4], r[7]) for r in cluster_in), {shown: fmt}))
    events = [((r[1], r[2], r[3]), loads(r[7])) for r in resolved if r[4] == "c"]
    header = next((e for _, e in events if e.kind == "header"), None)
    settings = _file_settings(shown, header, ConformOptions([shown]), [])
    settings.cluster = sorted(((o, e) for o, e in events if e.kind != "header"), key=lambda x: x[0])
    ctx = ReplayContext({shown: settings})
    group_rows = sorted((r for r in rows if r[4] in ("g", "o")),
                        key=lambda r: (r[0], r[5] or "", r[1], r[2], r[3]))
    out = list(replay_rows(((r[0], r[5], r[6], r[1], r[2], r[3], r[7]) for r in group_rows), ctx))
    groups = sorted((r[2] or "", r[9] or "", r[8] or 0) for r in out if r[0] == "G")
    findings = sorted((r[5], r[2], r[10] or "", r[11]) for r in out if r[0] == "F")
    findings += [(r[2], None, "malformed", r[9]) for r in rows if r[4] == "m"]
    return groups, sorted(findings, key=str)


@pytest.mark.parametrize("name", ["native_malformed.jsonl", "request.log", "offsets.dump.txt",
                                  "offsets.console.txt", "native.jsonl.gz"])
def test_stages_equal_check_on_format_fixtures(name: str) -> None:
    path = FORMATS_DIR / name
    report = Report()
    check_items(str(path), open_trace(path), report)
    groups, findings = _local_conform(path, str(path))
    assert groups == sorted((g.group_id, g.verdict, g.events) for g in report.groups)
    expected = [(f.line, f.group_id, f.kind, f.field) for f in report.findings
                if f.field not in ("header.profile", "header.configs")]  # the driver reports those
    assert findings == sorted(expected, key=str)


def test_stages_equal_check_on_mutated_groups(dataset: Dataset) -> None:
    report = Report()
    check_items(str(dataset.native), open_trace(dataset.native), report)
    groups, findings = _local_conform(dataset.native, str(dataset.native))
    assert groups == sorted((g.group_id, g.verdict, g.events) for g in report.groups)
    assert {g for g, v, _ in groups if v == "diverges"} == MUTATED
    assert findings == sorted(((f.line, f.group_id, f.kind, f.field) for f in report.findings), key=str)


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
