"""``kgspec check``: replay traces against the model (contract: shared/contracts/trace-format.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from kgspec.conformance.allowlist import AllowedReport, AllowingChecker, AllowList, AllowListError
from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Finding, Report, jsonable, write_json
from kgspec.conformance.readers import FORMATS, TraceFormatError, open_trace
from kgspec.model.config import value_problem
from kgspec.model.mutants import CATALOGUE, Mutants
from kgspec.model.profiles import PROFILES


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="check traces against the model",
        description="Replay each trace against the model and report where the observed behaviour "
                    "departs from the specification. Exit 0: every event conforms; 1: at least one "
                    "finding; 2: usage error or an input that cannot be read as a trace.",
    )
    p.add_argument("traces", nargs="+", metavar="TRACE", help="trace files (JSON Lines, Kafka request log, "
                   "kafka-dump-log output or console-formatter JSON; .gz allowed)")
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
    ValueError for a value the config cannot take (``model.config.value_problem``)."""
    configs = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in parse_pairs(pairs, "--config").items()}
    for name, value in configs.items():
        problem = value_problem(name, value)
        if problem is not None:
            raise ValueError(f"--config {name} {problem}, got {value!r}")
    return configs


def run(args: argparse.Namespace) -> int:
    try:
        configs = parse_configs(args.config)
    except ValueError as exc:
        print(f"kgspec check: {exc}", file=sys.stderr)
        return 2
    allowed: AllowedReport | None = None
    if args.allow:
        try:
            allowed = AllowedReport(AllowList.load(args.allow))
        except AllowListError as exc:
            print(f"kgspec check: {exc}", file=sys.stderr)
            return 2
    report = Report()
    options: dict[str, Any] = {"profile": args.profile, "configs": configs, "clients": args.clients,
                               "mutants": Mutants(tuple(args.mutant))}
    for path in args.traces:
        try:
            items = open_trace(path, args.format, tz=args.tz)
            if allowed is None:
                check_items(path, items, report, **options)
            else:
                checker = AllowingChecker(path, report, allowed, **options)
                checker.feed_all(items)
                checker.finish()
        except TraceFormatError as exc:
            print(f"kgspec check: {exc}", file=sys.stderr)
            return 2
    if args.json:
        out = report.to_json()
        if allowed is not None:
            out["allowList"] = allowed.to_json()  # an extension of the report (contract §2)
        write_json(out, args.json)
    if args.json != "-":
        print_human(report, sys.stdout, quiet=args.quiet)
        if allowed is not None:
            print_allowed(allowed, sys.stdout)
    return 0 if report.ok else 1


def print_allowed(allowed: AllowedReport, out: TextIO) -> None:
    """One line per allow-list entry that matched: id, classification, count."""
    counts = allowed.counts()
    out.write(f"{len(allowed.allowed)} allowed departure(s) ({allowed.allowlist.path})\n")
    for entry in allowed.allowlist.entries:
        if counts.get(entry.id):
            out.write(f"  {entry.id} [{entry.classification}]: {counts[entry.id]}\n")


def print_human(report: Report, out: TextIO, quiet: bool = False) -> None:
    """Per diverging group, the first departure with its context; then a summary line."""
    firsts: dict[tuple[str, str | None], Finding] = {}
    for f in sorted(report.findings, key=lambda f: (f.path, f.line)):
        firsts.setdefault((f.path, f.group_id), f)
    if not quiet:
        for (path, gid), f in firsts.items():
            where = f"group {gid}" if gid else "trace"
            out.write(f"{path}:{f.line}: {where}: {f.kind}{' (' + f.field + ')' if f.field else ''}\n")
            out.write(f"  {f.message}\n")
            if f.kind in ("response-mismatch", "client") or f.expected is not None or f.observed is not None:
                out.write(f"  expected: {json.dumps(f.expected, default=jsonable)}\n")
                out.write(f"  observed: {json.dumps(f.observed, default=jsonable)}\n")
            for label in ("before", "after"):
                view = f.context.get(label)
                if view:
                    out.write(f"  member {label}: {view['state']} at epoch {view['memberEpoch']}, "
                              f"assigned {view['assigned']}, revoking {view['pendingRevocation']} "
                              f"(group epoch {view['groupEpoch']}, assignment epoch {view['assignmentEpoch']})\n")
            more = sum(1 for x in report.findings if x.path == path and x.group_id == gid) - 1
            if more > 0:
                out.write(f"  ... and {more} more finding(s) for this {where}\n")
    lines = sum(i.lines for i in report.inputs)
    verdicts = [g.verdict for g in report.groups]
    out.write(f"{len(report.inputs)} trace(s), {lines} line(s), {len(report.groups)} group(s): "
              f"{verdicts.count('conforms')} conform, {verdicts.count('diverges')} diverge, "
              f"{verdicts.count('incomplete')} incomplete; {len(report.findings)} finding(s)\n")
