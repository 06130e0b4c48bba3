"""``kgspec check``: replay traces against the model (contract: shared/contracts/trace-format.md)."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import difflib
import heapq
import json
import os
import stat
import sys
import traceback
from collections.abc import Callable, Iterator
from types import GeneratorType
from typing import Any, Final, TextIO

from kgspec.commands import progress
from kgspec.commands.assignor_option import add_assignor_option, load_registry
from kgspec.commands.focus import Focus, Watch, parse_time
from kgspec.commands.human import HumanReport, line_writer
from kgspec.commands.output import (
    ReportFile,
    ReportWriteError,
    UsageError,
    error,
    one_line_errors,
    stdout_closed,
)
from kgspec.commands.report_json import FindingSpool, listed_findings, report_chunks
from kgspec.conformance.allowlist import AllowedReport, AllowingChecker, AllowList, AllowListError
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import Event, ReadItem
from kgspec.conformance.findings import Finding, InputSummary, Report, jsonable, printable
from kgspec.conformance.readers import FORMATS, TraceFormatError, open_trace
from kgspec.conformance.readers.logtime import resolve_tz
from kgspec.conformance.readers.source import STDIN
from kgspec.conformance.timeline import GroupTimeline, TimelineChecker, highlight
from kgspec.model.config import (
    DEFAULTS,
    GROUP_LEVEL,
    SEED_ONLY,
    startup_problem,
    unknown_config_names,
    value_problem,
)
from kgspec.model.mutants import CATALOGUE, Mutants
from kgspec.model.profiles import PROFILES, get_profile


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="check traces against the model",
        description="Replay each trace against the model and report where the observed behaviour "
                    "departs from the specification. Exit 0: every event conforms; 1: at least one "
                    "finding; 2: usage error, an input that cannot be read as a trace, or a report "
                    "that cannot be written; 3: an internal error of kgspec (a bug).",
    )
    p.add_argument("traces", nargs="*", metavar="TRACE", help="trace files (JSON Lines, Kafka request log, "
                   "kafka-dump-log output or console-formatter JSON; gzip allowed); '-' for standard "
                   "input; pipes, FIFOs and process substitution work too")
    p.add_argument("--json", metavar="PATH", help="write the JSON report to PATH ('-' for standard output)")
    p.add_argument("--html", metavar="PATH",
                   help="also write a self-contained HTML page: the summary and, per group with findings, a "
                        "timeline of its members' calls with the first departure highlighted (the inputs are "
                        "read a second time, for those groups only: files, not standard input)")
    p.add_argument("--junit", metavar="PATH",
                   help="also write a JUnit XML report: one test case per group, a failure carrying its first finding")
    p.add_argument("--sarif", metavar="PATH", help="also write a SARIF 2.1.0 report: one result per finding")
    p.add_argument("--format", choices=["auto", *FORMATS], default="auto",
                   help="input format (default: detect from the first lines)")
    p.add_argument("--profile", choices=sorted(PROFILES),
                   help="behaviour profile, overriding the trace header (default: the header's, else kafka-4.3)")
    p.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                   help="override a broker (coordinator) config (repeatable); a value Kafka would refuse to start with "
                        "(under its minimum, heartbeat not below the session timeout, ...) is a usage error")
    p.add_argument("--clients", action="store_true", help="also judge clients against the client-side rules")
    p.add_argument("--allow", metavar="FILE",
                   help="allow-list of a peer's known, classified departures (JSON, see docs/checking.md): "
                        "matching findings are reported as allowed and do not fail the check; "
                        "a bundled list by name: librdkafka-mock")
    p.add_argument("--mutant", action="append", default=[], choices=sorted(CATALOGUE),
                   help="check against a model with this seeded bug switched on (repeatable)")
    p.add_argument("--tz", help="time zone of request-log timestamps (default UTC)")
    p.add_argument("--merge", action="store_true",
                   help="check the traces as one, merged by time (several brokers' request logs of one "
                        "cluster: a group whose coordinator moved has its calls in several files); "
                        "findings still name each file and line")
    p.add_argument("--failover", action="append", default=[], metavar="GROUP@TS",
                   help="the coordinator of GROUP ('*': every group seen so far) failed over at TS (the trace's "
                        "tsMs, or an ISO date-time in --tz), for logs that do not show the move (repeatable)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary line")
    add_assignor_option(p, "the trace's group.consumer.assignors and serverAssignor pick among them by name")
    focus = p.add_argument_group("focus", "what to look at; the model still replays each group in focus from "
                                 "its first event, so --since filters the findings reported, not the events checked")
    focus.add_argument("--group", action="append", default=[], metavar="ID",
                       help="check only this group (repeatable; a glob such as 'orders-*' matches several)")
    focus.add_argument("--since", metavar="TIME",
                       help="report only findings at or after TIME (ISO date-time in --tz, or the trace's tsMs)")
    focus.add_argument("--until", metavar="TIME",
                       help="stop reading after TIME (ISO date-time in --tz, or the trace's tsMs)")
    focus.add_argument("--first", action="store_true",
                       help="stop checking each group at its first finding")
    focus.add_argument("--max-findings", type=int, metavar="N",
                       help="stop the whole run after N findings")
    focus.add_argument("--explain", metavar="FILE:LINE",
                       help="show the group of the event at FILE:LINE before and after it, as tables in the style "
                            "of kafka-consumer-groups --describe --members --verbose (exit 1 when the line has "
                            "findings, else 0)")
    p.set_defaults(check_parser=p)
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


def parse_configs(pairs: list[str], profile: str | None = None) -> dict[str, Any]:
    """``--config`` values: integers where they look like one, as Kafka's configs are;
    ValueError for a name the model does not know (as a trace header's unknown configs are
    ``unsupported``) or a value the config cannot take (``model.config.value_problem``)."""
    configs = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in parse_pairs(pairs, "--config").items()}
    unknown = unknown_config_names(configs, profile)
    seed_only = [n for n in unknown if n in SEED_ONLY]
    if seed_only:
        raise ValueError(f"--config: {', '.join(seed_only)} only the seeds define (profile kip); "
                         f"{profile} has no such config")
    if unknown:
        close = {n: difflib.get_close_matches(n, KNOWN_CONFIGS, 1) for n in unknown}
        names = ", ".join(f"{n} (did you mean {close[n][0]}?)" if close[n] else n for n in unknown)
        known = "" if all(close.values()) else f"; known: {', '.join(sorted(DEFAULTS))}"
        raise ValueError(f"--config: unknown config {names}{known}")
    for name, value in configs.items():
        problem = value_problem(name, value)
        if problem is not None:
            raise ValueError(f"--config {name} {problem}, got {value!r}")
    startup = startup_problem(configs, get_profile(profile).assignment_batching)
    if startup is not None:  # GroupCoordinatorConfig's checks: Kafka would not start
        raise ValueError(f"--config {startup[0]}: Kafka refuses to start with it ({startup[1]})")
    return configs


def parse_failovers(values: list[str], tz: str | None = None) -> list[tuple[float, str]]:
    """``--failover GROUP@TS`` values, sorted by time; ValueError names a bad one. ``TS`` is the
    trace's milliseconds or an ISO date-time (``2025-06-01T00:00:30.250``, in ``tz`` unless it
    carries its own offset), as epoch milliseconds."""
    out: list[tuple[float, str]] = []
    for value in values:
        group, sep, ts = value.rpartition("@")
        at = float("nan")
        try:
            at = float(ts)
        except ValueError:
            try:
                when = dt.datetime.fromisoformat(ts)
            except ValueError:
                pass
            else:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=resolve_tz(tz))
                at = when.timestamp() * 1000
        if not sep or not group or not at == at or at in (float("inf"), float("-inf")):
            raise ValueError(f"--failover needs GROUP@TS (TS in the trace's milliseconds or an ISO date-time), "
                             f"got {value!r}")
        out.append((at, group))
    return sorted(out)


KNOWN_CONFIGS: Final = sorted({*DEFAULTS, *GROUP_LEVEL})
PROGRESS_BYTES: Final = 1 << 20  # smaller inputs are checked before a bar would be seen
TICK_LINES: Final = 2047  # the bar moves every 2048 lines (a mask: line & TICK_LINES == 0)
EXIT_INTERNAL: Final = 3  # a bug of kgspec's own, never a property of the input (contract section 2)


class InternalError(Exception):
    """An unexpected exception while reading or checking one input: exit status 3, never findings."""

    def __init__(self, where: str, original: Exception) -> None:
        super().__init__(where)
        self.where = where
        self.original = original


def run(args: argparse.Namespace) -> int:
    if args.explain is not None:
        return _run_explain(args)
    if not args.traces:
        args.check_parser.error("the following arguments are required: TRACE")
    try:
        configs = parse_configs(args.config, args.profile)
        resolve_tz(args.tz)
        if args.traces.count(STDIN) > 1:
            raise UsageError("standard input ('-') can be read only once")
        failovers = parse_failovers(args.failover, args.tz)
        assignors = load_registry(args.assignor)
        focus = parse_focus(args)
        allowed = AllowedReport(AllowList.load(args.allow)) if args.allow else None
        inputs = [*args.traces, *([args.allow] if args.allow else [])]
        report_file = ReportFile(args.json, inputs) if args.json and args.json != "-" else None
        if args.html and any(t == STDIN or input_bytes([t]) is None for t in args.traces):
            raise UsageError("--html reads the inputs twice: give files, not standard input or a pipe")
        extra = {option: ReportFile(path, inputs, option) for option, path in
                 (("--html", args.html), ("--junit", args.junit), ("--sarif", args.sarif)) if path}
        # A run whose one report is the JSON one spools its findings to disk as they are found
        # (report_json.py); the other reports and the allow-list read them from memory.
        spool = FindingSpool() if args.json and not extra and allowed is None else None
    except (ValueError, TraceFormatError, AllowListError, UsageError) as exc:
        error("check", str(exc))
        return 2
    except OSError as exc:  # no temporary file for the findings
        error("check", f"cannot create a temporary file for the findings: {exc.strerror or exc}")
        return 2
    options: dict[str, Any] = {"profile": args.profile, "configs": configs, "clients": args.clients,
                               "mutants": Mutants(tuple(args.mutant)), **assignors.coordinator_kwargs()}
    try:
        return _run_checks(args, options, failovers, focus, allowed, report_file, extra, spool)
    finally:
        if spool is not None:
            spool.close()


def _run_checks(args: argparse.Namespace, options: dict[str, Any], failovers: list[tuple[float, str]],
                focus: Focus, allowed: AllowedReport | None, report_file: ReportFile | None,
                extra: dict[str, ReportFile], spool: FindingSpool | None) -> int:
    """``run`` once the options are read: check, then write the reports."""
    # Inputs are checked in name order, whatever their order on the command line: the same
    # inputs give a byte-identical report (and, with --merge, the same tie-breaks between files).
    paths = sorted(args.traces)
    streaming = args.json != "-"  # findings go to the terminal as they are found
    try:
        total = input_bytes(paths)
        with progress.bar("checking", total, progress.BYTES,
                          show=progress.wanted() and (total is None or total >= PROGRESS_BYTES)) as meter:
            human = HumanReport(None, quiet=args.quiet) if streaming else None
            watch = Watch(focus, args.tz, _stream(human) if human is not None else None)
            if meter.shown:
                watch.sources = []
                watch.tick = progress.ByteMeter(meter, watch.sources).tick
            report = check_traces(paths, args.format, args.tz, allowed, options, merge=args.merge,
                                  failovers=failovers, watch=watch, report=Report(sink=spool))
    except (TraceFormatError, InternalError) as exc:
        if report_file is not None:
            report_file.discard()
        for other in extra.values():
            other.discard()
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
            # an extension of the report (contract §2)
            more = {"allowList": allowed.to_json()} if allowed is not None else None
            chunks = report_chunks(report, spool.texts(report) if spool is not None else listed_findings(report),
                                   more)
            if report_file is None:
                for chunk in chunks:
                    sys.stdout.write(chunk)
            else:
                try:
                    report_file.write_chunks(chunks)
                except ReportWriteError as exc:  # still print what was found, then fail
                    error("check", str(exc))
                    status = 2
        for option, destination in extra.items():
            try:
                destination.write(_extra_report(option, report, args, options, failovers))
            except ReportWriteError as exc:
                error("check", str(exc))
                status = 2
        if human is not None:
            human.close(report, watch.notes())
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


def _extra_report(option: str, report: Report, args: argparse.Namespace, options: dict[str, Any],
                  failovers: list[tuple[float, str]]) -> str:
    """The text of the ``--html``, ``--junit`` or ``--sarif`` report of a finished run."""
    from kgspec.commands import ci

    if option == "--junit":
        return ci.junit_xml(report)
    if option == "--sarif":
        return json.dumps(ci.sarif(report), indent=2, default=jsonable) + "\n"
    from kgspec.commands.html import page_data, render_page

    firsts, counts = ci.first_findings(report)
    timelines = group_timelines(args.traces, args.format, args.tz, options, frozenset(firsts), report,
                                merge=args.merge, failovers=failovers)
    return render_page(page_data(report, timelines, firsts, counts))


def group_timelines(paths: list[str], fmt: str, tz: str | None, options: dict[str, Any], drawn: frozenset[str],
                    report: Report, *, merge: bool = False,
                    failovers: list[tuple[float, str]] | None = None) -> dict[str, GroupTimeline]:
    """The timelines of the ``drawn`` groups: a second pass over the inputs for those groups only
    (``conformance/timeline.py``), marked with ``report``'s findings and inferred moves."""
    from kgspec.commands.ci import first_findings

    if not drawn:
        return {}
    checkers: list[TimelineChecker] = []
    zone = resolve_tz(tz)

    def make(path: str, into: Report) -> TraceChecker:
        checkers.append(TimelineChecker(path, into, drawn=drawn, zone=zone, **options))
        return checkers[-1]
    check_traces(paths, fmt, tz, None, options, merge=merge, failovers=failovers,
                 watch=Watch(Focus(ids=drawn), tz), make_checker=make)
    firsts, _ = first_findings(report)
    out: dict[str, GroupTimeline] = {}
    for gid in sorted(drawn):
        timeline = GroupTimeline(gid, [m for c in checkers for m in c.timelines[gid].marks])
        lines = {(f.path, f.line) for f in report.findings if f.group_id == gid}
        first = (firsts[gid].path, firsts[gid].line) if gid in firsts else None
        highlight(timeline, lines, first, [n for n in report.inferred if n.get("groupId") == gid])
        out[gid] = timeline
    return out


def _run_explain(args: argparse.Namespace) -> int:
    from kgspec.commands.explain import explain

    try:
        if args.traces:
            raise UsageError("--explain takes its trace as FILE:LINE, not as TRACE arguments")
        options: dict[str, Any] = {"profile": args.profile, "configs": parse_configs(args.config),
                                   "clients": args.clients, "mutants": Mutants(tuple(args.mutant))}
        return explain(args.explain, args.format, args.tz, options, sys.stdout)
    except (ValueError, TraceFormatError, UsageError) as exc:
        error("check", str(exc))
        return 2
    except BrokenPipeError:
        stdout_closed()
        return 0


def check_traces(paths: list[str], fmt: str, tz: str | None, allowed: AllowedReport | None,
                 options: dict[str, Any], *, merge: bool = False,
                 failovers: list[tuple[float, str]] | None = None, watch: Watch | None = None,
                 make_checker: Callable[[str, Report], TraceChecker] | None = None,
                 report: Report | None = None) -> Report:
    """Check each trace in turn into one report (``merge``: all of them as one, by time).

    ``TraceFormatError`` for an input that is no trace (exit 2); any other exception is a bug of
    kgspec's and becomes an ``InternalError`` naming the input and the line being read or checked.
    ``failovers``: (tsMs, group or '*') the user says the coordinator moved at (``--failover``).
    ``watch``: the focus options and the findings' context (``focus.py``); ``make_checker``: the
    checker of each input (default: a plain or allow-listing one); ``report``: the one to fill
    (default: a new one keeping its findings in memory).
    """
    report = report if report is not None else Report()
    watch = watch or Watch(Focus(), tz)
    if merge and len(paths) > 1:
        _check_merged(paths, fmt, tz, allowed, options, report, failovers or [], watch, make_checker)
        return report
    for path in paths:
        if watch.stopped == "--max-findings":
            break
        watch.stopped = None
        items: Iterator[ReadItem] | None = None
        item: ReadItem | None = None
        finishing = False
        try:
            items = open_trace(path, fmt, tz=tz, sources=watch.sources)
            checker = make_checker(path, report) if make_checker is not None \
                else _new_checker(path, report, allowed, options)
            checker.listener = watch.listener(checker)
            due = list(failovers or [])
            for item in _admitted(items, watch):
                if due and type(item) is Event and item.ts_ms is not None and item.ts_ms >= due[0][0]:
                    _failovers_due(checker, due, item)
                checker.feed(item)
            if watch.tick is not None:
                watch.tick()
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


def _admitted(items: Iterator[ReadItem], watch: Watch) -> Iterator[ReadItem]:
    """``items`` as the checker is to see them: each one noted as the current item (findings take
    their context from it); with focus options, filtered (``Watch.admit``) and cut short; the
    progress bar moved every few thousand lines."""
    tick = watch.tick
    if not watch.focus.filters and tick is None:
        for item in items:
            watch.item = item
            yield item
        return
    for item in items:
        if watch.stopped is not None:
            return
        admitted = watch.admit(item)
        if watch.stopped is not None:
            return
        if tick is not None and item.line & TICK_LINES == 0:
            tick()
        if admitted is not None:
            watch.item = admitted
            yield admitted


def input_bytes(paths: list[str]) -> int | None:
    """The inputs' total size, when every one is a regular file (else None: a pipe, standard input)."""
    total = 0
    for path in paths:
        try:
            st = os.stat(path) if path != STDIN else None
        except OSError:
            return 0  # the reader reports it
        if st is None or not stat.S_ISREG(st.st_mode):
            return None
        total += st.st_size
    return total


def _stream(human: HumanReport) -> Callable[[Finding], None]:
    return human.finding


def parse_focus(args: argparse.Namespace) -> Focus:
    """The focus options; ValueError names a bad one."""
    if args.max_findings is not None and args.max_findings < 1:
        raise ValueError(f"--max-findings needs a positive number, got {args.max_findings}")
    since = parse_time(args.since, args.tz, "--since") if args.since is not None else None
    until = parse_time(args.until, args.tz, "--until") if args.until is not None else None
    if since is not None and until is not None and until < since:
        raise ValueError(f"--until {args.until} is before --since {args.since}")
    return Focus(tuple(args.group), since, until, args.first, args.max_findings)


def _new_checker(path: str, report: Report, allowed: AllowedReport | None, options: dict[str, Any]) -> TraceChecker:
    return TraceChecker(path, report, **options) if allowed is None \
        else AllowingChecker(path, report, allowed, **options)


def _failovers_due(checker: TraceChecker, due: list[tuple[float, str]], item: Event) -> None:
    """Replay the ``--failover`` moves due by ``item``'s time, before it."""
    ts = item.ts_ms if item.ts_ms is not None else float("-inf")
    while due and due[0][0] <= ts:
        at, group = due.pop(0)
        for gid in (list(checker.groups) if group == "*" else [group]):
            checker.moves.failover_option(gid, at, item)


def _check_merged(paths: list[str], fmt: str, tz: str | None, allowed: AllowedReport | None,
                  options: dict[str, Any], report: Report, failovers: list[tuple[float, str]],
                  watch: Watch, make_checker: Callable[[str, Report], TraceChecker] | None = None) -> None:
    """``--merge``: one checker over every input, items merged by time (``merge_by_time``); the
    checker's path and line counts follow the input of each item, so findings name its file and line."""
    streams: list[Iterator[ReadItem]] = []
    name = printable(paths[0])
    item: ReadItem | None = None
    finishing = False
    try:
        for path in paths:
            name = printable(path)
            streams.append(open_trace(path, fmt, tz=tz, sources=watch.sources))
        checker = make_checker(paths[0], report) if make_checker is not None \
            else _new_checker(paths[0], report, allowed, options)
        checker.listener = watch.listener(checker)
        summaries = [checker.input]
        for path in paths[1:]:
            summaries.append(InputSummary(path))
            report.inputs.append(summaries[-1])
        feed = checker.feed
        due = list(failovers)
        for index, merged in merge_by_time(streams):
            name = printable(paths[index])
            item = merged
            if watch.focus.filters:
                admitted = watch.admit(merged)
                if watch.stopped is not None:
                    break
                if admitted is None:
                    continue
                item = admitted
            watch.item = item
            if watch.tick is not None and item.line & TICK_LINES == 0:
                watch.tick()
            checker.path, checker.input = paths[index], summaries[index]
            if due and type(item) is Event and item.ts_ms is not None and item.ts_ms >= due[0][0]:
                _failovers_due(checker, due, item)
            feed(item)
        finishing = True
        checker.finish()
    except TraceFormatError:
        raise
    except Exception as exc:
        if finishing:
            where = "at the end of the merged inputs"
        else:
            where = f"while checking the merged inputs ({name} line {item.line if item is not None else '?'})"
        raise InternalError(where, exc) from exc


def merge_by_time(streams: list[Iterator[ReadItem]]) -> Iterator[tuple[int, ReadItem]]:
    """Items of several inputs as one stream, ordered by time: ``(input index, item)``.

    Each input keeps its own order (its reader's, by arrival for a request log); an item is
    keyed by the latest time its input has shown (an item without one, a skipped or malformed
    line, takes its input's current time), so the merge orders inputs against each other and
    never reorders an input. Equal arrival times are ordered by completion (arrival plus
    ``totalTimeMs``), as the lines of one broker's log are; at equal completion a call comes
    before a topic change (the coordinator learns of a topic from the metadata image, published
    after the admin call completes); then the inputs' order (``run`` sorts them by name), then each
    input's order: the same inputs always give the same sequence.
    """
    def keyed(index: int, items: Iterator[ReadItem]) -> Iterator[tuple[float, float, bool, int, int, ReadItem]]:
        clock = done = float("-inf")
        topic = False
        for seq, item in enumerate(items):
            if type(item) is Event and item.ts_ms is not None and item.ts_ms >= clock:
                clock, done, topic = item.ts_ms, item.ts_ms + (item.total_time_ms or 0), item.kind == "topic"
            yield clock, done, topic, index, seq, item

    for _, _, _, index, _, item in heapq.merge(*(keyed(i, s) for i, s in enumerate(streams))):
        yield index, item


def print_allowed(allowed: AllowedReport, out: TextIO) -> None:
    """One line per allow-list entry that matched: id, classification, count."""
    counts = allowed.counts()
    put = line_writer(out)
    put(f"{len(allowed.allowed)} allowed departure(s) ({allowed.allowlist.path})")
    for entry in allowed.allowlist.entries:
        if counts.get(entry.id):
            put(f"  {entry.id} [{entry.classification}]: {counts[entry.id]}")
