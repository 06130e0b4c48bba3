"""``kgspec conform`` on a local Spark session: the report equals ``kgspec check``'s, and
sampling keeps exactly the hashed groups, whatever the partitioning."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.spark import ConformOptions, keep, run_conform
from kgspec.conformance.spark.pipeline import _remote_gzip_finding, _spread_lines

from kgspec.cli import main
from tests.spark.data import GROUPS, MUTATED, Dataset, make_admin_trace


def _check_json(paths: list[Path]) -> dict[str, Any]:
    report = Report()
    for p in paths:
        check_items(str(p), open_trace(p), report)
    out: dict[str, Any] = json.loads(json.dumps(report.to_json(), default=str))
    return out


def _conform_json(spark: Any, paths: list[Path], **options: Any) -> dict[str, Any]:
    result = run_conform(spark, ConformOptions([str(p) for p in paths], **options))
    out: dict[str, Any] = json.loads(json.dumps(result.to_json(), default=str))
    return out


@pytest.mark.spark
def test_conform_report_equals_check(spark: Any, dataset: Dataset, tmp_path: Path) -> None:
    """The smoke test of the default run: every format, one generated multi-group trace."""
    parquet = tmp_path / "findings"
    got = _conform_json(spark, dataset.all, findings_parquet=str(parquet))
    sampling = got.pop("sampling")
    assert got == _check_json(dataset.all)
    assert sampling["groupsSampled"] == sampling["groupsTotal"]
    assert {g["groupId"] for g in got["groups"] if g["verdict"] == "diverges"
            and g["groupId"].startswith("group-")} == MUTATED
    table = spark.read.parquet(str(parquet))
    assert table.count() == len(got["findings"])
    assert sorted(table.columns) == sorted(["path", "line", "groupId", "groupType", "kind", "field", "expected",
                                            "observed", "message"])
    # the run's own settings are gone with it; the session's are kept
    assert spark.conf.get("spark.sql.files.minPartitionNum", None) is None
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"


@pytest.mark.spark
@pytest.mark.slow
def test_admin_calls_reach_their_groups_on_spark(spark: Any, tmp_path: Path) -> None:
    """Describes (one row per named group) and listings (one `l` row per listed group, joined
    to the groups other rows show) give check's report."""
    path = make_admin_trace(tmp_path)
    got = _conform_json(spark, [path])
    sampling = got.pop("sampling")
    assert got == _check_json([path])
    assert sampling["groupsTotal"] == 4  # group-0..2 and "nope"; "elsewhere" is only listed
    # group-1 is named by a StreamsGroupDescribe but is a consumer group; "nope" is only described
    assert {t: v["total"] for t, v in sampling["byType"].items()} == {"consumer": 3, "classic": 1}
    assert sorted((f["groupId"] or "", f["field"]) for f in got["findings"]) == [
        ("", "errorCode"), ("group-1", "groupState"), ("group-2", "groupState")]


@pytest.mark.spark
@pytest.mark.slow
def test_spark_connect_gives_checks_report(tmp_path: Path) -> None:
    """`kgspec conform --remote local[2]`: a local Spark Connect server (pyspark starts it), the
    same code through the Connect client only. A fresh process: this one holds a classic
    SparkContext, and Connect's local server starts its own."""
    path = make_admin_trace(tmp_path)
    out = tmp_path / "report.json"
    cli = "import sys\nfrom kgspec.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    done = subprocess.run([sys.executable, "-c", cli, "conform", "--remote", "local[2]", "-q", "--json", str(out),
                           str(path)], env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    got = json.loads(out.read_text())
    sampling = got.pop("sampling")
    assert got == _check_json([path])
    assert (sampling["groupsSampled"], sampling["groupsTotal"]) == (4, 4)


@pytest.mark.spark
@pytest.mark.slow
def test_formats_from_sparks_sample(spark: Any, dataset: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files the driver cannot read (HDFS, S3, other codecs) are detected from Spark's own sample."""
    import kgspec.conformance.spark.pipeline as pipeline

    monkeypatch.setattr(pipeline, "_local_format", lambda uri: None)
    got = _conform_json(spark, dataset.all)
    got.pop("sampling")
    assert got == _check_json(dataset.all)


@pytest.mark.spark
@pytest.mark.slow
def test_sampling_reports_exactly_the_sampled_mutated_groups(spark: Any, dataset: Dataset) -> None:
    got = _conform_json(spark, [dataset.native], fraction=0.5, seed=3)
    expected = {f"group-{i}" for i in range(GROUPS) if keep(3, f"group-{i}", 0.5)}
    assert 0 < len(expected) < GROUPS
    assert {g["groupId"] for g in got["groups"]} == expected
    diverging = {g["groupId"] for g in got["groups"] if g["verdict"] == "diverges"}
    assert diverging == MUTATED & expected
    assert {f["groupId"] for f in got["findings"] if f["groupId"]} == MUTATED & expected
    assert [f["kind"] for f in got["findings"] if f["groupId"] is None] == ["malformed"]  # always reported
    assert got["sampling"]["groupsTotal"] == GROUPS
    assert got["sampling"]["groupsSampled"] == len(expected)


@pytest.mark.spark
@pytest.mark.slow
def test_sampling_is_deterministic_across_partitionings(spark: Any, dataset: Dataset) -> None:
    first = _conform_json(spark, [dataset.native], fraction=0.3, seed=99, partitions=1)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "16384")  # many blocks per file
    try:
        second = _conform_json(spark, [dataset.native], fraction=0.3, seed=99, partitions=5)
        whole = _conform_json(spark, [dataset.native])
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert first == second
    assert {g["groupId"] for g in first["groups"]} == {
        f"group-{i}" for i in range(GROUPS) if keep(99, f"group-{i}", 0.3)}
    whole.pop("sampling")
    assert whole == _check_json([dataset.native])  # line numbers across blocks


@pytest.mark.spark
@pytest.mark.slow
def test_small_blocks_give_checks_lines_headers_and_timestamps(spark: Any, dataset: Dataset, tmp_path: Path) -> None:
    """Files read in many small blocks: a header after blank blocks, dump-log records that
    inherit a timestamp from an earlier block, an empty file; the report is check's."""
    late_header = tmp_path / "late-header.jsonl"
    late_header.write_bytes(b"\n" * 300 + dataset.fixtures[1].read_bytes())
    lines = dataset.fixtures[3].read_text().splitlines()
    no_ts = tmp_path / "no-ts.dump.txt"
    no_ts.write_text("\n".join(re.sub(r" CreateTime: \d+", "", line) if i in (9, 10) else line
                                for i, line in enumerate(lines)) + "\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    inputs = [late_header, no_ts, dataset.fixtures[2], empty]
    spark.conf.set("spark.sql.files.maxPartitionBytes", "128")
    try:
        got = _conform_json(spark, inputs)
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    got.pop("sampling")
    expected = _check_json(inputs)
    assert got == expected
    assert expected["inputs"][3] == {"path": str(empty), "lines": 0, "events": 0, "malformed": 0, "skipped": 0}


@pytest.mark.spark
@pytest.mark.slow
def test_per_type_fraction(spark: Any, dataset: Dataset) -> None:
    got = _conform_json(spark, [dataset.native], fraction=1.0, fractions={"consumer": 0.0})
    assert got["groups"] == []
    assert got["sampling"]["byType"] == {"consumer": {"total": GROUPS, "sampled": 0}}
    assert [f["kind"] for f in got["findings"]] == ["malformed"]


@pytest.mark.spark
@pytest.mark.slow
def test_corrupt_inputs_lose_no_other_group(spark: Any, dataset: Dataset, tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl.gz"
    data = gzip.compress(dataset.native.read_bytes())
    broken.write_bytes(data[: len(data) // 2])  # truncated gzip
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    got = _conform_json(spark, [dataset.native, broken, binary])
    expected = _check_json([dataset.native])
    assert got["groups"][: len(expected["groups"])] == expected["groups"]
    assert got["inputs"][0] == expected["inputs"][0]
    assert [i["path"] for i in got["inputs"]] == [str(dataset.native), str(broken), str(binary)]
    assert all(f["kind"] == "malformed" for f in got["findings"] if f["path"] == str(binary))
    assert any(f["path"] == str(binary) for f in got["findings"])


@pytest.mark.spark
@pytest.mark.slow
def test_cli_exit_status_and_json(spark: Any, dataset: Dataset, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    status = main(["conform", str(dataset.native), "--json", str(report), "--fraction", "0.5", "--seed", "3",
                   "--partitions", "2"])
    assert status == 1
    data = json.loads(report.read_text())
    assert data["format"] == "kgspec-report/1"
    assert data["sampling"]["seed"] == 3
    out = capsys.readouterr().out
    assert f"{data['sampling']['groupsSampled']} of {GROUPS} group(s) checked" in out
    assert main(["conform", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["conform", str(dataset.native), "--fraction", "2"]) == 2


@pytest.mark.spark
@pytest.mark.slow
def test_cli_session_on_two_local_cores_runs_the_serial_collector() -> None:
    """build_session passes local_java_options' options (the serial collector, late C2) to the JVM
    it starts (a fresh process: the tests' own session has its JVM already); Java options of the
    user's keep G1 and the JVM's own JIT thresholds."""
    import subprocess
    import sys

    script = ("import sys\nfrom kgspec.commands.conform import build_session\n"
              "confs = dict(a.split('=', 1) for a in sys.argv[1:])\n"
              "s = build_session('local[2]', None, confs)\n"
              "mx = s.sparkContext._jvm.java.lang.management.ManagementFactory\n"
              "late = any('Tier4InvocationThreshold=50000' in a for a in mx.getRuntimeMXBean().getInputArguments())\n"
              "print([b.getName() for b in mx.getGarbageCollectorMXBeans()], late)\ns.stop()\n")
    runs = [subprocess.run([sys.executable, "-c", script, *extra], capture_output=True, text=True, timeout=300,
                           check=True).stdout.strip().splitlines()[-1]
            for extra in ([], ["spark.driver.extraJavaOptions=-XX:+UseG1GC"])]
    # local_java_options: late C2 too, unless the user's own Java options are set
    assert runs == ["['Copy', 'MarkSweepCompact'] True", "['G1 Young Generation', 'G1 Old Generation'] False"]


@pytest.mark.spark
def test_a_truncated_gzip_is_reported_as_check_reports_it(spark: Any, tmp_path: Path) -> None:
    """Spark's ignoreCorruptFiles kept the lines before the damage and dropped the rest in
    silence, so a truncated ``.gz`` conformed; now its break is the same finding as in check."""
    golden = Path(__file__).resolve().parents[1] / "golden" / "consumer" / "reconciliation.jsonl"
    data = gzip.compress(golden.read_bytes())
    broken = tmp_path / "cut.jsonl.gz"
    broken.write_bytes(data[: len(data) * 2 // 3])
    expected = _check_json([broken])
    [found] = [f for f in expected["findings"] if "gzip" in f["message"]]
    assert (found["kind"], found["groupId"]) == ("malformed", None)
    got = _conform_json(spark, [broken])
    got.pop("sampling")
    assert [f for f in got["findings"] if "gzip" in f["message"]] == [found]


@pytest.mark.spark
@pytest.mark.parametrize("cut", ["truncated", "garbage"])
def test_a_broken_remote_gzip_is_found_by_a_strict_read(spark: Any, tmp_path: Path, cut: str) -> None:
    """A gzip file on another Hadoop file system (here the local one, named by URI, which is
    how a remote file reaches the check) is read once more without ``ignoreCorruptFiles``: its
    break is a ``malformed`` finding on the line after those Spark kept; a whole one is none."""
    from pyspark.sql import functions as F

    golden = Path(__file__).resolve().parents[1] / "golden" / "consumer" / "reconciliation.jsonl"
    data = gzip.compress(golden.read_bytes())
    broken = tmp_path / "cut.jsonl.gz"
    broken.write_bytes(data[: len(data) * 2 // 3] if cut == "truncated"
                       else data[: len(data) // 2] + bytes(range(256)) * 4)
    whole = tmp_path / "whole.jsonl.gz"
    whole.write_bytes(data)
    raw = (spark.read.option("ignoreCorruptFiles", "true").text([str(broken), str(whole)])
           .select(F.col("_metadata.file_path").alias("uri"), F.col("value")))
    uri = f"file:{broken}"
    kept = raw.filter(F.col("uri") == uri).count()
    assert kept < len(golden.read_bytes().splitlines())  # garbage may stop Spark before its first line
    finding = _remote_gzip_finding(spark, raw, uri, "cut.jsonl.gz")
    assert finding is not None
    assert (finding.path, finding.line, finding.group_id, finding.kind) == ("cut.jsonl.gz", kept + 1, None, "malformed")
    assert re.fullmatch(r"cut\.jsonl\.gz: gzip data is broken \((EOFException|ZipException|IOException): .+\); "
                        r"reading stopped here", finding.message), finding.message
    assert _remote_gzip_finding(spark, raw, f"file:{whole}", "whole.jsonl.gz") is None


@pytest.mark.spark
@pytest.mark.slow
def test_group_config_calls_reach_their_groups_on_spark(spark: Any, tmp_path: Path) -> None:
    """IncrementalAlterConfigs and DescribeConfigs: one row per GROUP resource's group (its
    model must see the change before its next heartbeat); a call of topics only is a skipped line."""
    golden = Path(__file__).resolve().parents[1] / "golden" / "group_configs"
    topics_only = tmp_path / "topics_only.jsonl"
    topics_only.write_text(json.dumps({
        "tsMs": 10, "requestHeader": {"requestApiKey": 32, "requestApiVersion": 4, "clientId": "admin"},
        "request": {"resources": [{"resourceType": 2, "resourceName": "foo", "configurationKeys": None}],
                    "includeSynonyms": False, "includeDocumentation": False},
        "response": {"results": [{"errorCode": 0, "resourceType": 2, "resourceName": "foo", "configs": []}]}}) + "\n")
    paths = [*sorted(golden.glob("*.jsonl")), topics_only]
    got = _conform_json(spark, paths)
    got.pop("sampling")
    assert got == _check_json(paths)
    assert got["findings"] == []


@pytest.mark.spark
@pytest.mark.slow
def test_compressed_inputs_parse_in_spread_blocks_as_check_reads_them(spark: Any, dataset: Dataset,
                                                                       tmp_path: Path) -> None:
    """gzip files are read in one task each; their lines are spread in blocks of consecutive
    lines over the parse tasks (``_spread_lines``: here 7 lines a block). Line numbers, a header
    after blank blocks, dump-log records inheriting another block's timestamp, console and
    request-log lines: the report is check's."""
    from pyspark.sql import functions as F

    def gz(name: str, data: bytes) -> Path:
        path = tmp_path / f"{name}.gz"
        path.write_bytes(gzip.compress(data))
        return path

    lines = dataset.fixtures[3].read_text().splitlines()  # offsets.dump.txt
    no_ts = "\n".join(re.sub(r" CreateTime: \d+", "", line) if i in (9, 10) else line
                      for i, line in enumerate(lines)) + "\n"
    inputs = [gz("mutated.jsonl", dataset.native.read_bytes()),
              gz("late-header.jsonl", b"\n" * 30 + dataset.fixtures[1].read_bytes()),
              gz("no-ts.dump.txt", no_ts.encode()),
              gz("offsets.console.txt", dataset.fixtures[2].read_bytes()),
              gz("request.log", dataset.fixtures[4].read_bytes())]
    got = _conform_json(spark, inputs, spread_lines=7)
    got.pop("sampling")
    expected = _check_json(inputs)
    assert got == expected
    assert {g["groupId"] for g in got["groups"] if g["verdict"] == "diverges"} >= MUTATED

    # the blocks: keys are multiples of 7, each block's lines in file order, key 0 starts a file
    read = spark.read.text(str(inputs[0])).select(F.col("_metadata.file_path").alias("uri"),
                                                  F.col("_metadata.file_block_start").alias("block"),
                                                  F.col("value").cast("binary").alias("v"))
    rows = _spread_lines(read, 3, 7).collect()
    native = dataset.native.read_bytes().split(b"\n")[:-1]
    assert len(rows) == len(native)
    blocks: dict[int, list[bytes]] = {}
    for r in rows:
        blocks.setdefault(r["block"], []).append(bytes(r["v"]))
    assert sorted(blocks) == list(range(0, len(native), 7))
    assert [v for key in sorted(blocks) for v in blocks[key]] == native
