"""``kgspec conform``: ``kgspec check`` at scale on Spark, with sampling of whole groups.

Inputs are files, directories or globs in any supported trace format, local or any
Hadoop-compatible URI (``hdfs://``, ``s3a://``, ...). The report is ``kgspec check``'s
(``--json``) plus a ``sampling`` object; findings can also go to a Parquet table. The
default master is ``local[*]``; ``--master``, ``--remote`` (Spark Connect, or
``SPARK_REMOTE``) and ``spark-submit`` (which sets the master itself) run the same code.
Exit status as ``kgspec check``: 0 conforms, 1 findings, 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Final

from kgspec.commands import progress
from kgspec.conformance.readers import FORMATS
from kgspec.conformance.spark.masters import local_cores
from kgspec.model.mutants import CATALOGUE
from kgspec.model.profiles import PROFILES

MISSING_SPARK = "kgspec conform needs the `spark` extra: pip install 'kgspec[spark]'"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "conform",
        help="check many traces on Spark, sampling whole groups",
        description="Replay traces against the model on Spark: parse every line, key events by group "
                    "(topic and tick events reach every group of their file), keep a deterministic "
                    "hash-based sample of whole groups, replay each group in order and report as "
                    "`kgspec check` does. Exit 0: every checked event conforms; 1: findings; 2: usage "
                    "error or unreadable input.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="trace files, directories or globs; local paths or Hadoop URIs (.gz allowed)")
    p.add_argument("--json", metavar="PATH", help="write the JSON report (with sampling metadata) to PATH ('-': stdout)")
    p.add_argument("--findings-parquet", metavar="DIR", help="write the findings as a Parquet table to DIR")
    p.add_argument("--fraction", type=float, default=1.0, help="fraction of groups to check (default 1)")
    p.add_argument("--fraction-consumer", type=float, help="fraction of consumer groups (default: --fraction)")
    p.add_argument("--fraction-streams", type=float, help="fraction of streams groups (default: --fraction)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed, 0 <= seed < 2^31 (default 0)")
    p.add_argument("--format", choices=["auto", *FORMATS], default="auto",
                   help="input format (default: detect per file from its first lines)")
    p.add_argument("--profile", choices=sorted(PROFILES), help="behaviour profile, overriding trace headers")
    p.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                   help="override a coordinator config (repeatable)")
    p.add_argument("--clients", action="store_true", help="also judge clients against the client-side rules")
    p.add_argument("--mutant", action="append", default=[], choices=sorted(CATALOGUE),
                   help="check against a model with this seeded bug switched on (repeatable)")
    p.add_argument("--tz", help="time zone of request-log timestamps (default UTC)")
    p.add_argument("--master", help="Spark master (default: local[*] unless spark-submit or --remote set one)")
    p.add_argument("--remote", help="Spark Connect URL, e.g. sc://host:15002 (default: $SPARK_REMOTE)")
    p.add_argument("--partitions", type=int,
                   help="replay partitions (default: spark.sql.shuffle.partitions if set, else 4 per core)")
    p.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                   help="extra Spark config (repeatable)")
    p.add_argument("--event-log", metavar="DIR",
                   help="write Spark's event log to DIR (uncompressed) and print where the run's seconds went, "
                        "per Spark stage, to stderr (not with --remote: the server keeps its own log)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary lines")
    p.set_defaults(run=run)


def spark_available() -> bool:
    return importlib.util.find_spec("pyspark") is not None and importlib.util.find_spec("pandas") is not None \
        and importlib.util.find_spec("pyarrow") is not None


def _status_tracker(spark: Any) -> Any:
    """The driver's status tracker, for the progress bar; None with Spark Connect (no driver here)."""
    try:
        return spark.sparkContext.statusTracker()
    except Exception:  # Connect sessions have no SparkContext
        return None


def build_session(master: str | None, remote: str | None, confs: dict[str, str]) -> Any:
    """A session for the CLI: --remote / $SPARK_REMOTE (Connect), else --master, else the
    master spark-submit passed (spark.master), else local[*]. A local master gets the JIT
    settings of :func:`local_java_options` (and on one or two cores the serial collector)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("kgspec conform")
    remote = remote or os.environ.get("SPARK_REMOTE")
    if remote:
        builder = builder.remote(remote)
    else:
        from pyspark import SparkConf

        if not SparkConf().contains("spark.master"):  # else spark-submit started the JVM, with its master
            master = master or "local[*]"
            java = local_java_options(master, confs, _spark_defaults())
            if java is not None:
                builder = builder.config(DRIVER_DEFAULT_JAVA_OPTIONS, java)
        if master:
            builder = builder.master(master)
        builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in confs.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


DRIVER_DEFAULT_JAVA_OPTIONS = "spark.driver.defaultJavaOptions"
_JAVA_OPTIONS_KEYS = (DRIVER_DEFAULT_JAVA_OPTIONS, "spark.driver.extraJavaOptions")


def small_local_gc(master: str, confs: dict[str, str], defaults: str) -> str | None:
    """``-XX:+UseSerialGC`` for a local master on one or two cores, unless the driver's Java
    options are set (by ``--spark-conf`` or ``spark-defaults.conf``, whose text is ``defaults``).

    Why: on one CPU the JVM picks the serial collector itself; from two it picks G1, whose
    barriers and concurrent threads cost the two-core run 30 % more JVM CPU time in the
    parse stage here and about 8 % of its wall time (``docs/conformance.md``). Two-core runs
    use one heap of a few GiB, which the serial collector handles without long pauses.
    """
    cores = local_cores(master)
    if cores is None or cores > 2 or _user_java_options(confs, defaults):
        return None
    return "-XX:+UseSerialGC"


# C2 compiles a method after 10x the JVM's default invocations and loop iterations (defaults
# 5000, 600, 15000, 40000): C1 still compiles everything it does by default.
LATE_C2: Final = ("-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 "
                  "-XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000")


def local_java_options(master: str, confs: dict[str, str], defaults: str) -> str | None:
    """The driver's Java options for a local master, unless the user sets them (as
    :func:`small_local_gc`): :data:`LATE_C2`, and on one or two cores the serial collector.

    Why late C2: the JIT is the largest part of the JVM's fixed cost. Most of what C2 compiled
    was Spark's driver machinery (task serialization, Janino, the SQL analyzer), code that runs
    thousands of times per run, not millions; the data path (text reading, Arrow, sort, shuffle)
    runs its methods once or more per line, so at 10^6 lines it still reaches C2. JVM CPU time
    (``docs/conformance.md``): a 936-line trace 24.1 -> 18.2 s, 10^6 events 44.1 -> 34.4 s.
    """
    cores = local_cores(master)
    if cores is None or _user_java_options(confs, defaults):
        return None
    return f"-XX:+UseSerialGC {LATE_C2}" if cores <= 2 else LATE_C2


def _user_java_options(confs: dict[str, str], defaults: str) -> bool:
    """The driver's Java options are set by ``--spark-conf`` or ``spark-defaults.conf`` (``defaults``)."""
    if any(key in confs for key in _JAVA_OPTIONS_KEYS):
        return True
    # java.util.Properties: "key value", "key=value", "key: value"
    return any(re.split(r"[\s=:]", line.strip(), maxsplit=1)[0] in _JAVA_OPTIONS_KEYS
               for line in defaults.splitlines())


def _spark_defaults() -> str:
    """The text of the spark-defaults.conf spark-submit will read ('' if none)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR")
    if conf_dir is None and os.environ.get("SPARK_HOME"):
        conf_dir = os.path.join(os.environ["SPARK_HOME"], "conf")
    if conf_dir is None:
        spec = importlib.util.find_spec("pyspark")
        if spec is None or spec.origin is None:
            return ""
        conf_dir = os.path.join(os.path.dirname(spec.origin), "conf")
    try:
        with open(os.path.join(conf_dir, "spark-defaults.conf"), encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return ""


def event_log_confs(directory: str) -> dict[str, str]:
    """Spark's settings for ``--event-log DIR``: the directory (created) as a URI, uncompressed."""
    path = Path(directory).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return {"spark.eventLog.enabled": "true", "spark.eventLog.dir": path.as_uri(),
            "spark.eventLog.compress": "false"}


def print_event_log(spark: Any, directory: str) -> None:
    """Stops the session (which closes its event log) and prints the log's summary to stderr."""
    from kgspec.conformance.spark.eventlog import format_times, read_log

    app = spark.sparkContext.applicationId
    spark.stop()
    folder = Path(directory)
    logs = [p for p in folder.iterdir() if app in p.name]
    try:
        times = read_log(logs[0] if logs else folder)
    except (OSError, ValueError) as exc:
        print(f"kgspec conform: --event-log: {exc}", file=sys.stderr)
        return
    print(f"Spark stages of {app} (event log in {folder}):", file=sys.stderr)
    print(format_times(times), file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if not spark_available():
        print(MISSING_SPARK, file=sys.stderr)
        return 2
    from kgspec.commands.check import parse_configs, parse_pairs
    from kgspec.commands.human import print_human
    from kgspec.commands.output import ReportFile, ReportWriteError, UsageError, error
    from kgspec.conformance.findings import jsonable
    from kgspec.conformance.spark import ConformOptions, run_conform
    from kgspec.conformance.spark.sampling import threshold

    try:
        configs = parse_configs(args.config, args.profile)
        confs = parse_pairs(args.spark_conf, "--spark-conf")
        fractions = {t: f for t, f in (("consumer", args.fraction_consumer), ("streams", args.fraction_streams))
                     if f is not None}
        for f in (args.fraction, *fractions.values()):
            threshold(f)
        if not 0 <= args.seed < 1 << 31:
            raise ValueError(f"--seed must be between 0 and {(1 << 31) - 1}")
        if args.partitions is not None and args.partitions < 1:
            raise ValueError("--partitions must be at least 1")
        report_file = ReportFile(args.json, args.inputs) if args.json and args.json != "-" else None
        if args.event_log:
            if args.remote or os.environ.get("SPARK_REMOTE"):
                raise ValueError("--event-log needs a local driver, not --remote/SPARK_REMOTE "
                                 "(set spark.eventLog.dir on the Connect server)")
            confs = {**event_log_confs(args.event_log), **confs}
    except (ValueError, UsageError) as exc:
        error("conform", str(exc))
        return 2
    opts = ConformOptions(inputs=list(args.inputs), format=args.format, fraction=args.fraction,
                          fractions=fractions, seed=args.seed, profile=args.profile, configs=configs,
                          clients=args.clients, mutants=tuple(args.mutant), tz=args.tz,
                          partitions=args.partitions, findings_parquet=args.findings_parquet)
    started = time.perf_counter()
    spark = build_session(args.master, args.remote, confs)
    try:
        tracker = _status_tracker(spark)
        with progress.bar("conform", None, "tasks", show=progress.wanted() and tracker is not None,
                          extra="") as meter, progress.SparkStages(tracker, meter):
            result = run_conform(spark, opts)
    except Exception as exc:
        if report_file is not None:
            report_file.discard()
        if type(exc).__name__ in ("AnalysisException", "IllegalArgumentException", "TraceFormatError"):
            error("conform", f"{exc}".splitlines()[0])
            return 2
        raise
    elapsed = time.perf_counter() - started
    if args.event_log:
        print_event_log(spark, args.event_log)
    report = result.report
    if args.json:
        text = json.dumps(result.to_json(), indent=2, default=jsonable) + "\n"
        if report_file is None:
            sys.stdout.write(text)
        else:
            try:
                report_file.write(text)
            except ReportWriteError as exc:
                error("conform", str(exc))
                return 2
    if args.json != "-":
        print_human(report, sys.stdout, quiet=args.quiet)
        s = result.sampling
        by_type = ", ".join(f"{t} {v['sampled']}/{v['total']}" for t, v in s["byType"].items())
        events = sum(i.events for i in report.inputs)
        print(f"sampling: seed {s['seed']}, {s['groupsSampled']} of {s['groupsTotal']} group(s) checked "
              f"({by_type or 'none'}); "
              f"{events} event(s) read in {elapsed:.1f} s")
    return 0 if report.ok else 1
