"""The Spark pipeline of ``kgspec conform`` (see ``docs/conformance.md``).

1. **Formats**: the files Spark will read (files, directories, globs, any Hadoop URI;
   ``.gz`` by extension) are listed without a job (``inputFiles``). The first lines of
   each file give its format: the driver reads them itself where the file is local, else
   a Spark job samples the first block's lines.
2. **Parse** (``mapInArrow``): Spark's text source reads every input once, one row per
   line, with ``_metadata.file_path`` and ``_metadata.file_block_start``; each line goes
   through the readers' own per-line parsers (:mod:`.parse`). A block is read by one
   task, in order, so a row's index in its block is known there; the per-block row
   counts collected after this stage give line numbers (:mod:`.blocks`). Compressed files
   (one read task each) have their lines spread over the parse tasks in blocks first
   (:func:`_spread_lines`). The rows are persisted for the next stages.
3. **Cluster events**: headers, topic and tick events and topic-API calls, resolved per
   file in order and collected on the driver; every group's replay gets its file's list.
4. **Sampling**: one row per group id (its type: consumer, streams, share, classic) and the
   hash decision of :mod:`.sampling`, persisted; events of kept groups are selected by a join.
5. **Replay** (``mapInArrow``): repartition by (file, group), ``sortWithinPartitions`` by
   (file, group, order key, line), one group at a time through a ``TraceChecker``
   (:mod:`.replay`).
6. **Report**: summaries and findings are collected into the ``Report`` of ``kgspec
   check``; findings can also be written as Parquet by Spark itself.

No master is set here: the caller's session decides (``local[*]``, a cluster, Spark Connect).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlparse

from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding, GroupSummary, InputSummary, Report
from kgspec.conformance.readers.detect import detect_format, read_sample
from kgspec.conformance.readers.errors import TraceFormatError
from kgspec.conformance.readers.source import GZIP_MAGIC, Source
from kgspec.model.mutants import Mutants

from .blocks import SUMMARY_COLUMNS, Layout, summarize_parse
from .masters import session_parallelism
from .parse import (
    DESCRIBED,
    GROUP_TYPES,
    HEADER_HELD,
    PARSED_SCHEMA,
    FileInfo,
    ParseOptions,
    loads,
    parse_block_rows,
    resolve_cluster,
)
from .replay import (
    OUTPUT_SCHEMA,
    FileSettings,
    ReplayContext,
    finding_from_row,
    replay_rows,
)
from .sampling import spark_keep, validate_seed

SAMPLE_LINES: Final = 64
SAMPLE_BYTES: Final = 4096
# Hadoop's other codecs, chosen by suffix: Spark decompresses these files, the driver does not
_HADOOP_CODEC_SUFFIXES: Final = frozenset({".bz2", ".deflate", ".lz4", ".snappy", ".zst", ".br"})
# Files Spark reads whole, in one task (bzip2 alone of Hadoop's codecs splits)
_UNSPLITTABLE_SUFFIXES: Final = frozenset({".gz", *_HADOOP_CODEC_SUFFIXES} - {".bz2"})
# Lines per parse block of a compressed input, once its lines are spread over the cores
SPREAD_LINES: Final = 20_000
# A group's type for sampling: the highest of its rows' types. A describe names groups of any
# type (a StreamsGroupDescribe may name a consumer group), so its rows ("streams?") rank below
# every type that the group's own calls and records show, as the checker types a group.
_OWN_RANK: Final = {"streams": 4, "share": 3, "consumer": 2, "classic": 1}
_TYPE_RANK: Final = {**{t + DESCRIBED: r for t, r in _OWN_RANK.items()},
                     **{t: r + len(_OWN_RANK) for t, r in _OWN_RANK.items()}}
FINDINGS_SCHEMA: Final = ("path string, line long, groupId string, groupType string, kind string, field string, "
                          "expected string, observed string, message string")


@dataclass(slots=True)
class ConformOptions:
    inputs: list[str]
    format: str = "auto"
    fraction: float = 1.0
    fractions: dict[str, float] = field(default_factory=dict)  # per group type
    seed: int = 0
    profile: str | None = None
    configs: dict[str, Any] = field(default_factory=dict)
    clients: bool = False
    mutants: tuple[str, ...] = ()
    tz: str | None = None
    partitions: int | None = None  # replay partitions (default: spark.sql.shuffle.partitions)
    # lines per parse block of compressed inputs (None: SPREAD_LINES if the session has 2+ cores)
    spread_lines: int | None = None
    findings_parquet: str | None = None


@dataclass(slots=True)
class ConformResult:
    report: Report
    sampling: dict[str, Any]
    formats: dict[str, str]  # reported path -> format
    # wall seconds of each Spark action, in order (listing the files, parse, ...): what scales and what not
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = self.report.to_json()
        out["sampling"] = self.sampling
        return out


def _local_path(uri: str) -> str | None:
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return os.path.normpath(unquote(parsed.path))
    return None


def file_key(uri: str) -> str:
    """One name per file whichever way Spark spells its URI (``inputFiles`` writes
    ``file:///a``, ``_metadata.file_path`` ``file:/a``)."""
    local = _local_path(uri)
    return local if local is not None else uri


def _is_uri(arg: str) -> bool:
    scheme = urlparse(arg).scheme
    return len(scheme) > 1  # not a Windows drive letter


class _Names:
    """Spark's file URIs -> the paths reported, and the input order of ``kgspec check``."""

    def __init__(self, inputs: list[str]) -> None:
        self.inputs = inputs
        self.exact: dict[str, tuple[int, str]] = {}
        for i, arg in enumerate(inputs):
            if not _is_uri(arg) and os.path.isfile(arg):
                for key in {os.path.abspath(arg), os.path.realpath(arg)}:
                    self.exact.setdefault(key, (i, arg))

    def name(self, uri: str) -> tuple[int, str]:
        local = _local_path(uri)
        if local is not None and local in self.exact:
            return self.exact[local]
        shown = local if local is not None else uri
        for i, arg in enumerate(self.inputs):
            target = arg if _is_uri(arg) else os.path.abspath(arg)
            if shown.startswith(target.rstrip("/") + "/") or fnmatch.fnmatch(shown, target) or shown == target:
                return i, shown
        return len(self.inputs), shown


def _arrow_schema(ddl: str) -> Any:
    """A DDL schema of this module ("name type, ...") as the pyarrow schema mapInArrow returns."""
    import pyarrow as pa

    types = {"string": pa.string(), "double": pa.float64(), "long": pa.int64(), "int": pa.int32(),
             "binary": pa.binary()}
    return pa.schema([(name, types[kind]) for name, kind in (f.split() for f in ddl.split(","))])


def _batches_to_rows(batches: Iterable[Any], columns: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
    for batch in batches:
        index = batch.schema.get_field_index
        yield from zip(*(batch.column(index(c)).to_pylist() for c in columns), strict=True)


def _rows_to_batches(rows: Iterable[tuple[Any, ...]], schema: Any, size: int = 8192) -> Iterator[Any]:
    import pyarrow as pa

    types = [f.type for f in schema]

    def batch(chunk: list[tuple[Any, ...]]) -> Any:
        columns = list(zip(*chunk, strict=True))
        return pa.RecordBatch.from_arrays([pa.array(c, type=t) for c, t in zip(columns, types, strict=True)],
                                          schema=schema)

    chunk: list[tuple[Any, ...]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield batch(chunk)
            chunk = []
    if chunk:
        yield batch(chunk)


def _map_fn(columns_in: tuple[str, ...], ddl_out: str,
            fn: Callable[[Iterator[tuple[Any, ...]]], Iterator[tuple[Any, ...]]]) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """A ``mapInArrow`` function: Arrow batches in, rows through ``fn``, Arrow batches out (no pandas)."""
    def run(batches: Iterable[Any]) -> Iterator[Any]:
        yield from _rows_to_batches(fn(_batches_to_rows(batches, columns_in)), _arrow_schema(ddl_out))
    return run


def _parse_fn(files: dict[str, FileInfo], options: ParseOptions) -> Callable[[Iterable[Any]], Iterator[Any]]:
    return _map_fn(("uri", "block", "v"), PARSED_SCHEMA, lambda rows: parse_block_rows(_keyed(rows), files, options))


def _keyed(rows: Iterable[tuple[str, int, bytes | None]]) -> Iterator[tuple[str, int, bytes | None]]:
    """Rows with Spark's file URI replaced by :func:`file_key` (worked out once per run of a file's rows)."""
    uri_seen, key = None, ""
    for uri, block, value in rows:
        if uri != uri_seen:
            uri_seen, key = uri, file_key(uri)
        yield key, block, value


def _resolve_fn(formats: dict[int, str]) -> Callable[[Iterable[Any]], Iterator[Any]]:
    return _map_fn(("fi", "okey", "block", "line", "sub", "cls", "payload"), PARSED_SCHEMA,
                   lambda rows: resolve_cluster(rows, formats))


def _replay_fn(ctx: ReplayContext) -> Callable[[Iterable[Any]], Iterator[Any]]:
    return _map_fn(("fi", "grp", "gtype", "okey", "block", "line", "sub", "payload"), OUTPUT_SCHEMA,
                   lambda rows: replay_rows(rows, ctx))


def _sample_fn(keys: frozenset[str]) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """The first lines of the first block of each of ``keys``' files (a block is read in order)."""
    def first_lines(rows: Iterable[tuple[str, int, bytes | None]]) -> Iterator[tuple[str, int, bytes]]:
        taken: dict[str, int] = {}
        for key, _, value in _keyed(rows):
            i = taken.get(key, 0)
            if key in keys and i < SAMPLE_LINES:
                taken[key] = i + 1
                yield key, i, (value or b"")[:SAMPLE_BYTES]
    return _map_fn(("uri", "block", "v"), "uri string, i long, v binary", first_lines)


def _input_files(spark: Any, raw: Any, names: _Names, fmt: str) -> tuple[list[str], dict[str, FileInfo]]:
    """The reported paths, in report order, and every file Spark will read (by :func:`file_key`)
    with its index in that list and its format."""
    from pyspark.sql import functions as F

    uris = {file_key(uri): uri for uri in raw.inputFiles()}
    formats: dict[str, str] = dict.fromkeys(uris, fmt) if fmt != "auto" else {
        key: found for key, uri in uris.items() if (found := _local_format(uri)) is not None}
    remote = frozenset(key for key in uris if key not in formats)
    if remote:  # by Spark's sample of their first lines
        rows = (raw.where(F.col("block") == 0).select("uri", "block", F.col("value").cast("binary").alias("v"))
                .mapInArrow(_sample_fn(remote), "uri string, i long, v binary").collect())
        lines: dict[str, list[tuple[int, bytes]]] = {}
        for r in rows:
            lines.setdefault(r["uri"], []).append((r["i"], bytes(r["v"])))
        for key in remote:
            formats[key] = detect_format(b"\n".join(v for _, v in sorted(lines.get(key, [])))) or "native"
    named = {key: names.name(uri) for key, uri in uris.items()}
    paths = sorted({path: order for order, path in named.values()}.items(), key=lambda x: (x[1], x[0]))
    index = {path: i for i, (path, _) in enumerate(paths)}
    return [path for path, _ in paths], {key: FileInfo(index[named[key][1]], formats[key]) for key in uris}


def _splittable_sizes(keys: Iterable[str]) -> list[int] | None:
    """The sizes of the input files, if every one is a local file Spark splits (not compressed)."""
    sizes = []
    for key in keys:
        local = _local_path(key)
        if local is None or local.endswith(".gz") or os.path.splitext(local)[1] in _HADOOP_CODEC_SUFFIXES:
            return None
        try:
            sizes.append(os.path.getsize(local))
        except OSError:
            return None
    return sizes


def _local_format(uri: str) -> str | None:
    """The format of a file the driver can read itself, from its first lines; None: ask Spark.

    A local file's first 64 KiB are what ``kgspec check`` reads to detect the format (its own
    sampling, here), and reading them spares a Spark job that scans every split for the first
    block's lines (a third of the layout pass). Compressed files other than gzip, and anything
    not a plain local file, are left to Spark, which decompresses by extension as it reads.
    """
    local = _local_path(uri)
    if local is None or not os.path.isfile(local) or os.path.splitext(local)[1] in _HADOOP_CODEC_SUFFIXES:
        return None
    try:
        # gzip by the name, as Spark decides, not by the magic bytes as kgspec check does
        sample = read_sample(Path(local), compressed=local.endswith(".gz"))
    except TraceFormatError:
        return None  # Spark reads what it can (ignoreCorruptFiles): let its sample decide
    return detect_format(sample) or "native"


def _file_settings(path: str, header: Event | None, opts: ConformOptions,
                   report_findings: list[Finding]) -> FileSettings:
    scratch = Report()
    checker = TraceChecker(path, scratch, profile=opts.profile, configs=opts.configs, clients=opts.clients,
                           mutants=Mutants(opts.mutants))
    if header is not None:
        checker.feed(header)
    report_findings.extend(scratch.findings)
    return FileSettings(checker.profile, dict(checker.configs))


def run_conform(spark: Any, opts: ConformOptions) -> ConformResult:
    """Run the pipeline on ``spark`` (any session: classic or Spark Connect)."""

    seed = validate_seed(opts.seed)
    with _SessionDefaults(spark) as defaults:
        return _run(spark, opts, seed, defaults)


class _SessionDefaults:
    """Spark SQL settings a run sets where the session leaves them unset, and unsets after.

    - ``spark.sql.shuffle.partitions`` = 4 per core: the replay's output and the per-group
      table are persisted, and Spark's adaptive execution does not coalesce a persisted
      plan's shuffle, so the replay ran 200 tasks (Spark's default), which made a one-core run
      40 % slower. Letting it coalesce them (``canChangeCachedPlanOutputPartitioning``) was
      no better: it merges partitions up to 64 MiB, and 3 replay tasks on 2 cores take two
      waves (the replay scaled 1.43x). 4 per core keeps every core busy to the end
      (``docs/conformance.md``). ``--partitions N`` sets the replay's alone.
    - ``spark.sql.files.minPartitionNum`` (:meth:`split_inputs`): the input read in a whole
      number of waves of splits per core.

    The task slots come from the session (:func:`.masters.session_parallelism`): a Spark
    Connect client reads them from the server's configs where it can (a ``local[N]`` master,
    executors × cores, ``spark.default.parallelism``); where it cannot, nothing is set.
    """

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self._set: list[str] = []
        self.parallelism: int | None = session_parallelism(spark)

    def __enter__(self) -> _SessionDefaults:
        if self.parallelism is not None:
            self.default("spark.sql.shuffle.partitions", str(4 * self.parallelism))
        return self

    def __exit__(self, *exc: object) -> None:
        for key in self._set:
            self._spark.conf.unset(key)

    def default(self, key: str, value: str) -> None:
        if self._spark.conf.get(key, None) is None:
            self._spark.conf.set(key, value)
            self._set.append(key)

    def split_inputs(self, sizes: list[int] | None) -> None:
        """At least 4 splits per core, in a whole number of waves where the input's size is
        known (``sizes``: every input is a local file Spark splits).

        Spark's default is one split per core, capped at ``spark.sql.files.maxPartitionBytes``
        (128 MiB): a 450 MB file is read as 128+128+128+66 MB, which two cores finish in
        256 MB-times instead of 225, and a 1.36 GB file as 11 splits, the last of which runs
        alone on one of two cores. Splits of ``total / (waves × cores)`` keep every core busy
        to the end of the parse stage.
        """
        if self.parallelism is None:
            return
        waves = 4
        if sizes:
            conf = self._spark.conf
            open_cost = byte_size(conf.get("spark.sql.files.openCostInBytes"))
            total = sum(size + open_cost for size in sizes)
            waves = max(waves, -(-total // (byte_size(conf.get("spark.sql.files.maxPartitionBytes"))
                                            * self.parallelism)))
        self.default("spark.sql.files.minPartitionNum", str(waves * self.parallelism))


_BYTE_SIZE: Final = re.compile(r"\s*([0-9]+)\s*([kmgtp]?)(?:i?b)?\s*", re.IGNORECASE)
_BYTE_UNITS: Final = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def byte_size(text: str) -> int:
    """A Spark byte-size setting (``134217728b``, ``128m``, ``4MB``, ``1024``) in bytes."""
    match = _BYTE_SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a byte size: {text!r}")
    return int(match.group(1)) * _BYTE_UNITS[match.group(2).lower()]


def _run(spark: Any, opts: ConformOptions, seed: int, defaults: _SessionDefaults) -> ConformResult:
    from pyspark.sql import functions as F

    stages = _StageClock()
    names = _Names(opts.inputs)
    raw = (spark.read.option("recursiveFileLookup", "true").option("ignoreCorruptFiles", "true")
           .text(list(opts.inputs))
           .select(F.col("_metadata.file_path").alias("uri"), F.col("_metadata.file_block_start").alias("block"),
                   F.col("value")))
    paths, files = _input_files(spark, raw, names, opts.format)
    broken = _broken_gzip_findings(files, names, spark, raw)
    defaults.split_inputs(_splittable_sizes(files))
    stages.lap("formats")
    formats = {info.index: info.fmt for info in files.values()}

    with contextlib.ExitStack() as cached:
        lines = raw.select("uri", "block", F.col("value").cast("binary").alias("v"))
        spread = opts.spread_lines or (SPREAD_LINES if (defaults.parallelism or 1) > 1 else None)
        if spread is not None and _all_unsplittable(files):
            lines = _spread_lines(lines, 4 * (defaults.parallelism or 1), spread)
        parsed = _cache(cached, lines.mapInArrow(_parse_fn(files, ParseOptions(tz=opts.tz)), PARSED_SCHEMA))
        result = _run_parsed(spark, opts, parsed, paths, formats, seed, stages, cached, broken)
    result.stage_seconds = stages.seconds
    return result


def _all_unsplittable(files: Iterable[str]) -> bool:
    """Every input is a file Spark reads in one task (gzip and the other codecs but bzip2)."""
    keys = list(files)
    return bool(keys) and all(any(k.endswith(sfx) for sfx in _UNSPLITTABLE_SUFFIXES) for k in keys)


def _spread_lines(lines: Any, partitions: int, spread: int) -> Any:
    """The lines of compressed files, in blocks of ``spread`` lines over ``partitions`` tasks.

    Spark reads a gzip file in one task (its one split: ``block`` 0); the parse stage would parse
    it on one core while the others wait: the serial stage of a compressed input. Reading stays
    one task per file (decompression is sequential), but the lines are then shuffled in blocks
    of consecutive lines to ``partitions`` parse tasks, each block sorted back into file order.
    A block's key (the ``block`` column) is the position of its first possible line
    (``monotonically_increasing_id`` rounded down to a multiple of ``spread``): one task reads a
    whole file in order, so these keys order a file's blocks as the file does, and key 0 is the
    start of a file. Line numbers, held headers and inherited timestamps then come out of the
    per-block rows exactly as for the blocks of a split file (:mod:`.blocks`).
    """
    from pyspark.sql import functions as F

    pos = F.monotonically_increasing_id()
    return (lines.withColumn("pos", pos)
            .withColumn("block", F.col("pos") - F.col("pos") % F.lit(spread))
            .repartition(partitions, "uri", "block")
            .sortWithinPartitions("uri", "block", "pos")
            .select("uri", "block", "v"))


def _broken_gzip_findings(files: dict[str, FileInfo], names: _Names, spark: Any = None,
                          raw: Any = None) -> list[Finding]:
    """A ``malformed`` finding for each gzip file whose data breaks off (truncated, garbage,
    a bad CRC), on the line where reading stops, as ``kgspec check`` reports it. Spark's
    ``ignoreCorruptFiles`` keeps what it read before the damage and drops the rest silently, so
    the driver reads each local gzip once to the end to find out; a remote one (any other
    Hadoop file system) is read once more by Spark, strictly (``_remote_gzip_finding``)."""
    found: list[Finding] = []
    for key in sorted(files):
        local = _local_path(key)
        if local is None:
            if spark is not None and raw is not None and key.endswith(".gz"):  # gzip by the name, as Spark
                remote = _remote_gzip_finding(spark, raw, key, names.name(key)[1])
                if remote is not None:
                    found.append(remote)
            continue
        if not os.path.isfile(local):
            continue
        try:
            with open(local, "rb") as fh:
                if fh.read(2) != GZIP_MAGIC:
                    continue
            source = Source(local)
        except (OSError, TraceFormatError):
            continue  # unreadable as a whole: Spark's listing and sample report it
        try:
            while source.stream.read(1 << 20):
                pass
            problem, (line, _) = source.error, source.error_line
        finally:
            source.close()
        if problem is not None:
            found.append(Finding(names.name(key)[1], line, None, "malformed", problem, None))
    return found


# The decompressor's own failure, as the JVM names it: a cut stream (EOFException), bad data
# (ZipException from Java's inflater, IOException from Hadoop's native zlib).
_JAVA_ERROR: Final = re.compile(r"(java\.(?:io\.EOFException|io\.IOException|util\.zip\.ZipException)): ([^\n]*)")


def _remote_gzip_finding(spark: Any, raw: Any, uri: str, name: str) -> Finding | None:
    """``uri``'s break, if its gzip data breaks off: Spark reads it again without
    ``ignoreCorruptFiles`` (one more decompression of the file, the price of not losing its
    tail in silence). Reading stopped on the line after those Spark kept (a line cut by the
    break, if Spark kept it, is a line of broken JSON before it)."""
    from pyspark.sql import functions as F

    try:
        spark.read.option("ignoreCorruptFiles", "false").text(uri).count()
        return None
    except Exception as exc:  # Py4JJavaError or pyspark's captured exception: both carry the JVM's text
        text = str(exc)
    match = _JAVA_ERROR.search(text)
    if match is None:
        return None  # not a broken stream (the file went away, say): the listing reports it
    kept = raw.filter(F.col("uri") == uri).count()
    cause = f"{match.group(1).rsplit('.', 1)[1]}: {match.group(2).strip()}"
    return Finding(name, kept + 1, None, "malformed",
                   f"{name}: gzip data is broken ({cause}); reading stopped here", None)


def _cache(cached: contextlib.ExitStack[Any], frame: Any) -> Any:
    """``frame`` persisted (memory, then disk) until ``cached`` closes: a frame that more than
    one Spark action reads is computed once."""
    from pyspark import StorageLevel

    frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
    cached.callback(frame.unpersist)
    return frame


class _StageClock:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = round(now - self._last, 3)
        self._last = now


def _run_parsed(spark: Any, opts: ConformOptions, parsed: Any, paths: list[str], formats: dict[int, str],
                seed: int, stages: _StageClock, cached: contextlib.ExitStack[Any],
                broken: list[Finding] | None = None) -> ConformResult:
    from pyspark.sql import functions as F

    # The counts, block layouts and held headers (the rows are few: per partition and per block),
    # and the malformed lines: one job for both (a job costs the driver a plan and a wave of tasks).
    read_rows = (parsed.where(F.col("cls").isin("n", "b", HEADER_HELD, "m"))
                 .select(*SUMMARY_COLUMNS, "sub", "msg", "fld").collect())
    malformed = [r for r in read_rows if r["cls"] == "m"]
    summary = summarize_parse((tuple(r)[:len(SUMMARY_COLUMNS)] for r in read_rows if r["cls"] != "m"), paths)
    layout, headers, driver_findings = summary.layout, summary.headers, summary.findings
    driver_findings.extend(broken or [])
    stages.lap("parse")

    # Cluster-wide events, resolved per file in order.
    cluster_rows = (parsed.where(F.col("cls").isin("c", "t"))
                    .select("fi", "okey", "block", "line", "sub", "cls", "payload")
                    .repartition(F.col("fi")).sortWithinPartitions("fi", "okey", "block", "line", "sub")
                    .mapInArrow(_resolve_fn(formats), PARSED_SCHEMA).collect())
    cluster: list[list[tuple[tuple[float, int, int], Event]]] = [[] for _ in paths]
    for r in cluster_rows:
        if r["cls"] == "n":  # the topic-API calls, counted once resolved
            summary.count(r["fi"], r["nl"], r["ne"])
            continue
        event: Event = loads(r["payload"])
        event.line = layout.line(r["fi"], r["block"], r["line"])
        if event.kind == "header":
            headers[r["fi"]] = event
        else:
            cluster[r["fi"]].append(((r["okey"], event.line, r["sub"]), event))
    files: dict[str, FileSettings] = {}
    for i, p in enumerate(paths):
        files[p] = _file_settings(p, headers.get(i), opts, driver_findings)
        files[p].cluster = sorted(cluster[i], key=lambda x: x[0])
    ctx = ReplayContext(paths, files, layout.starts, opts.clients, opts.mutants)
    stages.lap("cluster events")

    # Sampling: whole groups, by hash of (seed, group id), per-type fractions.
    ranked = F.lit(0)
    for name, r in _TYPE_RANK.items():
        ranked = F.when(F.col("gtype") == name, r).otherwise(ranked)
    rank = F.max(ranked)
    gtype = F.element_at(F.create_map(*[x for t, r in _TYPE_RANK.items()
                                        for x in (F.lit(r), F.lit(t.removesuffix(DESCRIBED)))]), F.col("rank"))
    groups = (parsed.where(F.col("cls") == "g").groupBy("grp").agg(rank.alias("rank"))
              .select("grp", F.coalesce(gtype, F.lit("consumer")).alias("type")))
    # one row per group, read by the tally and by the replay's join
    groups = _cache(cached, groups.withColumn("kept", spark_keep(F.col("grp"), F.col("type"), seed, opts.fraction,
                                                                 opts.fractions)))
    tally: dict[str, dict[str, int]] = {t: {"total": 0, "sampled": 0} for t in GROUP_TYPES}
    for r in groups.groupBy("type", "kept").count().collect():
        tally[r["type"]]["total"] += r["count"]
        if r["kept"]:
            tally[r["type"]]["sampled"] += r["count"]
    stages.lap("sampling")

    kept = groups.where(F.col("kept")).select("grp", F.col("type").alias("gtype"))
    columns = ("fi", "grp", "gtype", "okey", "block", "line", "sub", "payload")
    # a listing's `l` rows reach only groups that `g` rows show (conformance/listing.py)
    events = parsed.where(F.col("cls").isin("g", "l")).drop("gtype").join(kept, "grp").select(*columns)
    orphans = parsed.where(F.col("cls") == "o").select(*columns)
    replay_in = events.unionByName(orphans)
    if opts.partitions:
        replay_in = replay_in.repartition(opts.partitions, "fi", "grp")
    else:
        replay_in = replay_in.repartition("fi", "grp")
    # group first: its sort prefix tells rows apart (a file index is the same in most rows)
    out = _cache(cached, replay_in.sortWithinPartitions("grp", "fi", "okey", "block", "line", "sub")
                 .mapInArrow(_replay_fn(ctx), OUTPUT_SCHEMA))
    rows = out.collect()
    stages.lap("replay")
    if opts.findings_parquet:
        _write_findings(spark, opts.findings_parquet, out, parsed, paths, layout, driver_findings)
    stages.lap("findings")

    report = Report()
    for i, p in enumerate(paths):
        report.inputs.append(InputSummary(p, *summary.counts[i]))
    path_index = {p: i for i, p in enumerate(paths)}
    summaries = sorted((r for r in rows if r["rec"] == "G"),
                       key=lambda r: (path_index[r["path"]], r["okey"], r["line"], r["sub"]))
    for r in summaries:
        g = GroupSummary(r["grp"], r["kind"], r["events"])
        g.diverged = r["verdict"] == "diverges"
        g.incomplete = r["verdict"] == "incomplete"
        report.groups.append(g)
    ordered: list[tuple[tuple[int, int, int, int], Finding]] = []
    for i, f in enumerate(driver_findings):
        ordered.append(((path_index[f.path], f.line, -1, i), f))
    for r in malformed:
        line = layout.line(r["fi"], r["block"], r["line"])
        ordered.append(((r["fi"], line, r["sub"], 0), Finding(paths[r["fi"]], line, None, "malformed", r["msg"], r["fld"])))
    for r in rows:
        if r["rec"] == "F":
            f = finding_from_row(r["path"], r["grp"], r["line"], r["kind"], r["field"], r["expected"],
                                 r["observed"], r["message"])
            ordered.append(((path_index[r["path"]], r["line"], r["sub"], r["seq"]), f))
    ordered.sort(key=lambda x: x[0])
    report.findings.extend(f for _, f in ordered)
    _settle_buckets(report, paths, {(path_index[f.path], f.line) for f in driver_findings if f.kind == "malformed"}
                    | {(r["fi"], layout.line(r["fi"], r["block"], r["line"])) for r in malformed})

    total = sum(t["total"] for t in tally.values())
    sampled = sum(t["sampled"] for t in tally.values())
    sampling = {
        "method": "pmod(xxhash64(seed, groupId), 1000000) < fraction * 1000000",
        "seed": seed,
        "fraction": opts.fraction,
        "fractions": {t: opts.fractions.get(t, opts.fraction) for t in GROUP_TYPES},
        "groupsTotal": total,
        "groupsSampled": sampled,
        "byType": {t: v for t, v in tally.items() if v["total"]},
    }
    return ConformResult(report, sampling, {paths[i]: fmt for i, fmt in formats.items()})


def _settle_buckets(report: Report, paths: list[str], read_malformed: set[tuple[int, int]]) -> None:
    """Each input line in one bucket, as ``kgspec check`` counts them (contract §2): the parse
    stage counted lines and event lines; a line the replay found malformed (time going
    backwards, a refused request or record) is malformed, not an event; the rest is skipped."""
    index = {p: i for i, p in enumerate(paths)}
    found = {(index[f.path], f.line) for f in report.findings if f.kind == "malformed" and f.path in index}
    for i, entry in enumerate(report.inputs):
        bad = {line for fi, line in found | read_malformed if fi == i}
        by_replay = {line for fi, line in found - read_malformed if fi == i}
        entry.events -= len(by_replay)
        entry.malformed = len(bad)
        entry.skipped = entry.lines - entry.events - entry.malformed


def _write_findings(spark: Any, target: str, out: Any, parsed: Any, paths: list[str], layout: Layout,
                    driver_findings: list[Finding]) -> None:
    from pyspark.sql import functions as F

    replayed = out.where(F.col("rec") == "F").select(
        "path", "line", F.col("grp").alias("groupId"), F.col("gtype").alias("groupType"), "kind", "field",
        "expected", "observed", "message")
    starts = spark.createDataFrame([(fi, b, s.lines_before, paths[fi]) for (fi, b), s in layout.starts.items()],
                                   "fi int, block long, before long, path string")
    malformed = parsed.where(F.col("cls") == "m").join(F.broadcast(starts), ["fi", "block"]).select(
        "path", (F.col("before") + F.col("line") + 1).alias("line"),  # the index in its block -> line
        F.lit(None).cast("string").alias("groupId"), F.lit(None).cast("string").alias("groupType"),
        F.lit("malformed").alias("kind"), F.col("fld").alias("field"), F.lit("null").alias("expected"),
        F.lit("null").alias("observed"), F.col("msg").alias("message"))
    table = replayed.unionByName(malformed)
    if driver_findings:
        extra = spark.createDataFrame(
            [(f.path, f.line, None, None, f.kind, f.field, "null", "null", f.message) for f in driver_findings],
            FINDINGS_SCHEMA)
        table = table.unionByName(extra)
    table.write.mode("overwrite").parquet(target)
