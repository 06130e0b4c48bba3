"""``kgspec simulate``: write realistic multi-group traces in the contract format."""

from __future__ import annotations

import argparse
import gzip
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from kgspec.commands import model_choice_problem, progress
from kgspec.commands.assignor_option import add_assignor_option, load_registry
from kgspec.model.mutants import Mutants


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "simulate",
        help="simulate consumer or streams groups and write the run as a trace",
        description="Simulate consumer or streams groups (clients, lossy network, churn, failover) against the "
                    "model and write every coordinator call as a kgspec-trace/1 file.",
    )
    parser.add_argument("--groups", type=int, default=1, metavar="N", help="number of groups (default 1)")
    parser.add_argument("--members", type=int, default=3, metavar="M", help="members per group (default 3)")
    parser.add_argument("--duration-ms", type=int, default=120000, metavar="T",
                        help="simulated time in ms (default 120000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--mutant", action="append", default=[], metavar="NAME",
                        help="inject a seeded bug (repeatable); see `kgspec fuzz --help`")
    parser.add_argument("--loss", type=float, default=0.0, metavar="P",
                        help="probability each message is lost (default 0)")
    parser.add_argument("--duplicate", type=float, default=0.0, metavar="P",
                        help="probability each message is delivered twice (default 0)")
    parser.add_argument("--failover-every", type=int, default=None, metavar="MS",
                        help="fail the coordinator over every MS milliseconds")
    parser.add_argument("--profile", default="kafka-4.3", help="behaviour profile (default kafka-4.3)")
    parser.add_argument("--protocol", default="consumer", choices=("consumer", "streams"),
                        help="group protocol (default consumer)")
    parser.add_argument("--standby-replicas", type=int, default=1, metavar="N",
                        help="streams: group.streams.num.standby.replicas (default 1)")
    parser.add_argument("--commits", action="store_true",
                        help="consumer clients commit offsets as the Java consumer does (auto-commit every 5 s, "
                             "before revoking, on close) and churn makes zombies resend old commits (default off)")
    parser.add_argument("--check", action="store_true",
                        help="check every invariant while simulating (stops at the first violation; exit 1)")
    parser.add_argument("--format", choices=SIM_FORMATS, default="native",
                        help="what to write: native (kgspec-trace/1 JSON Lines, the default), request-log (Kafka's "
                             "kafka.request.logger lines: the calls and topic changes), dump-log (kafka-dump-log "
                             "--offsets-decoder output: the coordinator's records) or console (the console "
                             "consumer's JSON formatter: the records); every one is read by kgspec check")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="PATH",
                        help="trace file to write (.gz for gzip)")
    add_assignor_option(parser, "the first consumer assignor given becomes the groups' default "
                                "(first in group.consumer.assignors); a streams one named sticky replaces Kafka's")
    parser.set_defaults(run=run)


SIM_FORMATS = ("native", "request-log", "dump-log", "console")


def write_as(fmt: str, events: Iterable[dict[str, Any]], path: Path) -> int:
    """Write ``events`` to ``path`` in ``fmt`` (gzip when the name ends in .gz); the line count."""

    if fmt == "native":
        from kgspec.sim.trace import write_trace

        return write_trace(events, path)
    from kgspec.conformance.writers import write_console, write_dump_log, write_request_log

    writers: dict[str, Callable[[Iterable[dict[str, Any]], TextIO], list[int | None]]] = {
        "request-log": write_request_log, "dump-log": write_dump_log, "console": write_console}
    writer = writers[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as zipped:
            return len(writer(events, zipped))
    with open(path, "w", encoding="utf-8") as out:
        return len(writer(events, out))


def _counted(events: list[dict[str, Any]], meter: progress.Bar) -> Iterator[dict[str, Any]]:
    for n, event in enumerate(events, 1):
        yield event
        if n & 1023 == 0:
            meter.update(n)
    meter.update(len(events))


def _usage(message: str) -> int:
    print(f"kgspec simulate: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Exit status: 0 written, 1 an invariant broke (with --check), 2 usage error."""
    from kgspec.sim.scenario import Scenario, run_scenario

    problem = model_choice_problem(args.mutant, args.protocol, args.profile)
    if problem is not None:
        return _usage(problem)
    if args.groups < 1 or args.members < 1 or args.duration_ms < 0:
        return _usage("--groups and --members must be at least 1, --duration-ms not negative")
    if not (0.0 <= args.loss < 1.0 and 0.0 <= args.duplicate <= 1.0):
        return _usage("--loss must be in [0, 1) and --duplicate in [0, 1]")
    if args.failover_every is not None and args.failover_every <= 0:
        return _usage("--failover-every must be positive")
    if args.standby_replicas < 0:
        return _usage("--standby-replicas must not be negative")
    try:
        registry = load_registry(args.assignor)
    except ValueError as exc:
        return _usage(str(exc))
    from kgspec.plugins import prefer

    scenario = Scenario(args.groups, args.members, args.duration_ms, args.seed, args.loss,
                        args.duplicate, args.failover_every, args.check, args.profile, args.protocol,
                        args.standby_replicas, commits=args.commits)
    with progress.bar("simulating", args.duration_ms, "simulated ms") as meter:
        sim = run_scenario(scenario, Mutants(tuple(args.mutant)), configs=prefer({}, registry),
                           progress=meter.update if meter.shown else None,
                           records=args.format in ("dump-log", "console"), **registry.coordinator_kwargs())
    events = sim.finish()
    with progress.bar("writing", len(events), "events") as meter:
        lines = write_as(args.format, _counted(events, meter), args.output)
    print(f"wrote {lines} {'events' if args.format == 'native' else 'lines'} ({sim.steps} coordinator steps, {sim.failovers} failovers, "
          f"{sim.now} ms) to {args.output}", file=sys.stderr)
    for violation in sim.violations[:5]:
        print(f"violation: {violation}", file=sys.stderr)
    return 1 if sim.violations else 0
