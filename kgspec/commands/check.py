"""``kgspec check``: replay traces against the model (contract: shared/contracts/trace-format.md)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from types import GeneratorType
from typing import Any, Final, TextIO

from kgspec.commands.output import (
    ReportFile,
    ReportWriteError,
    UsageError,
    error,
    one_line_errors,
    stdout_closed,
)
from kgspec.conformance.allowlist import AllowedReport, AllowingChecker, AllowList, AllowListError
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import ReadItem
from kgspec.conformance.findings import Finding, Report, jsonable, printable
from kgspec.conformance.readers import FORMATS, TraceFormatError, open_trace
from kgspec.conformance.readers.logtime import resolve_tz
from kgspec.conformance.readers.source import STDIN
from kgspec.model.config import DEFAULTS, GROUP_LEVEL, unknown_config_names, value_problem
from kgspec.model.mutants import CATALOGUE, Mutants
from kgspec.model.profiles import PROFILES


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="check traces against the model",
        description="Replay each trace against the model and report where the observed behaviour "
                    "departs from the specification. Exit 0: every event conforms; 1: at least one "
                    "finding; 2: usage error, an input that cannot be read as a trace, or a report "
                    "that cannot be written; 3: an internal error of kgspec (a bug).",
    )
    p.add_argument("traces", nargs="+", metavar="TRACE", help="trace files (JSON Lines, Kafka request log, "
                   "kafka-dump-log output or console-formatter JSON; gzip allowed); '-' for standard "
                   "input; pipes, FIFOs and process substitution work too")
    p.add_argument("--json", metavar="PATH", help="write the JSON report to PATH ('-' for standard output)")
    p.add_argument("--format", choices=["auto", *FORMATS], default="auto",
                   help="input format (default: detect from the first lines)")
    p.add_argument("--profile", choices=sorted(PROFILES),
                   help="behaviour profile, overriding the trace header (default: the header's, else kafka-4.3)")
    p.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                   help="override a coordinator config (repeatable)")
    p.add_argument("--clients", action="store_true", help="also judge clients against the client-side rules")
    p.add_argument("--allow", metavar="FILE",
                   help="allow-list of a peer's known, classified departures (JSON, see docs/checking.md): "
                        "matching findings are reported as allowed and do not fail the check; "
                        "a bundled list by name: librdkafka-mock")
    p.add_argument("--mutant", action="append", default=[], choices=sorted(CATALOGUE),
                   help="check against a model with this seeded bug switched on (repeatable)")
    p.add_argument("--tz", help="time zone of request-log timestamps (default UTC)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary line")
    p.set_defaults(run=run)
    one_line_errors(p)


def parse_pairs(pairs: list[str], option: str) -> dict[str, str]:
    """``NAME=VALUE`` options; ValueError names the option and the bad pair."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"{option} needs NAME=VALUE, got {pair!r}")
        out[name] = value
    return out


def parse_configs(pairs: list[str]) -> dict[str, Any]:
    """``--config`` values: integers where they look like one, as Kafka's configs are;
    ValueError for a name the model does not know (as a trace header's unknown configs are
    ``unsupported``) or a value the config cannot take (``model.config.value_problem``)."""
    configs = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in parse_pairs(pairs, "--config").items()}
    unknown = unknown_config_names(configs)
    if unknown:
        close = {n: difflib.get_close_matches(n, KNOWN_CONFIGS, 1) for n in unknown}
        names = ", ".join(f"{n} (did you mean {close[n][0]}?)" if close[n] else n for n in unknown)
        known = "" if all(close.values()) else f"; known: {', '.join(sorted(DEFAULTS))}"
        raise ValueError(f"--config: unknown config {names}{known}")
    for name, value in configs.items():
        problem = value_problem(name, value)
        if problem is not None:
            raise ValueError(f"--config {name} {problem}, got {value!r}")
    return configs


KNOWN_CONFIGS: Final = sorted({*DEFAULTS, *GROUP_LEVEL})
EXIT_INTERNAL: Final = 3  # a bug of kgspec's own, never a property of the input (contract section 2)


class InternalError(Exception):
    """An unexpected exception while reading or checking one input: exit status 3, never findings."""

    def __init__(self, where: str, original: Exception) -> None:
        super().__init__(where)
        self.where = where
        self.original = original


def run(args: argparse.Namespace) -> int:
    try:
        configs = parse_configs(args.config)
        resolve_tz(args.tz)
        if args.traces.count(STDIN) > 1:
            raise UsageError("standard input ('-') can be read only once")
        allowed = AllowedReport(AllowList.load(args.allow)) if args.allow else None
        report_file = ReportFile(args.json, [*args.traces, *([args.allow] if args.allow else [])]) \
            if args.json and args.json != "-" else None
    except (ValueError, TraceFormatError, AllowListError, UsageError) as exc:
        error("check", str(exc))
        return 2
    options: dict[str, Any] = {"profile": args.profile, "configs": configs, "clients": args.clients,
                               "mutants": Mutants(tuple(args.mutant))}
    try:
        report = check_traces(args.traces, args.format, args.tz, allowed, options)
    except (TraceFormatError, InternalError) as exc:
        if report_file is not None:
            report_file.discard()
        if isinstance(exc, TraceFormatError):
            error("check", str(exc))
            return 2
        error("check", f"internal error {exc.where} (a bug in kgspec, not a finding): "
                       f"{type(exc.original).__name__}: {exc.original}")
        with contextlib.suppress(OSError):
            traceback.print_exception(exc.original, file=sys.stderr)
        return EXIT_INTERNAL
    status = 0 if report.ok else 1
    try:
        if args.json:
            out = report.to_json()
            if allowed is not None:
                out["allowList"] = allowed.to_json()  # an extension of the report (contract §2)
            text = json.dumps(out, indent=2, default=jsonable) + "\n"
            if report_file is None:
                sys.stdout.write(text)
            else:
                try:
                    report_file.write(text)
                except ReportWriteError as exc:  # still print what was found, then fail
                    error("check", str(exc))
                    status = 2
        if args.json != "-":
            print_human(report, sys.stdout, quiet=args.quiet)
            if allowed is not None:
                print_allowed(allowed, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted; the outcome stands
        stdout_closed()
    except OSError as exc:  # standard output on a full disk, ...
        error("check", f"cannot write to standard output: {exc.strerror or exc}")
        stdout_closed()
        return 2
    except Exception as exc:  # a bug in the writers
        error("check", f"internal error while writing the report (a bug in kgspec): {type(exc).__name__}: {exc}")
        with contextlib.suppress(OSError):
            traceback.print_exception(exc, file=sys.stderr)
        return EXIT_INTERNAL
    return status


def check_traces(paths: list[str], fmt: str, tz: str | None, allowed: AllowedReport | None,
                 options: dict[str, Any]) -> Report:
    """Check each trace in turn into one report.

    ``TraceFormatError`` for an input that is no trace (exit 2); any other exception is a bug of
    kgspec's and becomes an ``InternalError`` naming the input and the line being read or checked.
    """
    report = Report()
    for path in paths:
        items: Iterator[ReadItem] | None = None
        item: ReadItem | None = None
        finishing = False
        try:
            items = open_trace(path, fmt, tz=tz)
            checker = TraceChecker(path, report, **options) if allowed is None \
                else AllowingChecker(path, report, allowed, **options)
            feed = checker.feed
            for item in items:
                feed(item)
            finishing = True
            checker.finish()
        except TraceFormatError:
            raise
        except Exception as exc:
            name = printable(path)
            if items is None:
                where = f"while opening {name}"
            elif finishing:
                where = f"at the end of {name}"
            elif isinstance(items, GeneratorType) and items.gi_frame is None:  # the reader raised
                where = f"while reading {name} after line {item.line}" if item is not None \
                    else f"while reading {name}"
            else:
                where = f"while checking {name} line {item.line if item is not None else '?'}"
            raise InternalError(where, exc) from exc
    return report


def print_allowed(allowed: AllowedReport, out: TextIO) -> None:
    """One line per allow-list entry that matched: id, classification, count."""
    counts = allowed.counts()
    put = _line_writer(out)
    put(f"{len(allowed.allowed)} allowed departure(s) ({allowed.allowlist.path})")
    for entry in allowed.allowlist.entries:
        if counts.get(entry.id):
            put(f"  {entry.id} [{entry.classification}]: {counts[entry.id]}")


def print_human(report: Report, out: TextIO, quiet: bool = False) -> None:
    """Per diverging group, the first departure with its context; then a summary line.

    Every line goes through ``printable``: ids, messages and paths come from the input, and a
    control character in them must show as an escape, never act on the terminal or start a line.
    """
    put = _line_writer(out)
    firsts: dict[tuple[str, str | None], Finding] = {}
    counts: Counter[tuple[str, str | None]] = Counter()
    for f in sorted(report.findings, key=lambda f: (f.path, f.line)):
        firsts.setdefault((f.path, f.group_id), f)
        counts[f.path, f.group_id] += 1
    if not quiet:
        for (path, gid), f in firsts.items():
            where = f"group {gid}" if gid else "trace"
            put(f"{path}:{f.line}: {where}: {f.kind}{' (' + f.field + ')' if f.field else ''}")
            put(f"  {f.message}")
            if f.kind in ("response-mismatch", "client") or f.expected is not None or f.observed is not None:
                put(f"  expected: {json.dumps(f.expected, default=jsonable)}")
                put(f"  observed: {json.dumps(f.observed, default=jsonable)}")
            for label in ("before", "after"):
                view = f.context.get(label)
                if view:
                    put(f"  member {label}: {view['state']} at epoch {view['memberEpoch']}, "
                        f"assigned {view['assigned']}, revoking {view['pendingRevocation']} "
                        f"(group epoch {view['groupEpoch']}, assignment epoch {view['assignmentEpoch']})")
            more = counts[path, gid] - 1
            if more > 0:
                put(f"  ... and {more} more finding(s) for this {where}")
    lines = sum(i.lines for i in report.inputs)
    malformed, skipped = sum(i.malformed for i in report.inputs), sum(i.skipped for i in report.inputs)
    buckets = ", ".join(f"{n} {what}" for n, what in ((malformed, "malformed"), (skipped, "skipped")) if n)
    verdicts = [g.verdict for g in report.groups]
    put(f"{len(report.inputs)} trace(s), {lines} line(s){f' ({buckets})' if buckets else ''}, "
        f"{len(report.groups)} group(s): "
        f"{verdicts.count('conforms')} conform, {verdicts.count('diverges')} diverge, "
        f"{verdicts.count('incomplete')} incomplete; {len(report.findings)} finding(s)")


def _line_writer(out: TextIO) -> Callable[[str], None]:
    def put(line: str) -> None:
        out.write(printable(line) + "\n")
    return put
