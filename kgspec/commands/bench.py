"""``kgspec bench``: time assignors side by side over Kafka's JMH grids and judge their output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kgspec.commands.assignor_option import add_assignor_option

DEFAULT_GRID = "jmh-small"


def register(subparsers: Any) -> None:
    from kgspec.bench.grid import grids

    names = ", ".join(grids())
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="benchmark assignors over Kafka's JMH grids: time, validity, balance, stickiness",
        description="Run consumer and streams assignors over points of Kafka's JMH matrices "
                    "(ServerSideAssignorBenchmark, TargetAssignmentBuilderBenchmark, "
                    "StreamsStickyAssignorBenchmark): CPU time per call (median, spread, after warm-up) and "
                    "the quality of each result. Prints a table and writes JSON and an SVG plot. Exit 0 if "
                    "every result is valid, 1 if one is invalid or an assignor failed, 2 on a usage error.",
    )
    add_assignor_option(parser, "default: uniform and range, and sticky for streams points; the first "
                                "given is the baseline of the ratios")
    parser.add_argument("--grid", default=None, metavar="NAME",
                        help=f"a named grid: {names} (default {DEFAULT_GRID} unless --point is given)")
    parser.add_argument("--point", action="append", default=[], metavar="SPEC",
                        help="one point (repeatable), KIND[:items]: consumer|target|streams, items key=value "
                             "(m, r, t, p, s, standby, mpp) or flags (homo, hetero, full, incr, rack); "
                             "e.g. consumer:m=1000,r=10,t=100,hetero,incr")
    parser.add_argument("--warmup", type=int, default=3, metavar="N", help="untimed calls first (default 3)")
    parser.add_argument("--calls", type=int, default=20, metavar="N", help="timed calls per point (default 20)")
    parser.add_argument("--max-seconds", type=float, default=5.0, metavar="S",
                        help="stop timing a point after S CPU seconds, once 5 calls are done (default 5)")
    parser.add_argument("--json", default="kgspec-bench.json", metavar="PATH",
                        help="the JSON report ('-' for standard output; default kgspec-bench.json)")
    parser.add_argument("--svg", default="kgspec-bench.svg", metavar="PATH",
                        help="the plot (default kgspec-bench.svg)")
    parser.add_argument("--no-files", action="store_true", help="print the table only")
    parser.add_argument("--list", action="store_true", help="list the grid's points and exit")
    parser.set_defaults(run=run)


def _usage(message: str) -> int:
    print(f"kgspec bench: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from kgspec.bench.grid import grids, parse_point
    from kgspec.bench.render import document, problems_text, svg, table
    from kgspec.bench.runner import Timing, applicable, run_bench
    from kgspec.plugins import AssignorLoadError, load_assignor

    available = grids()
    if args.grid is not None and args.grid not in available:
        return _usage(f"unknown grid {args.grid!r}; known: {', '.join(available)}")
    if args.warmup < 0 or args.calls < 1 or args.max_seconds <= 0:
        return _usage("--warmup must not be negative, --calls must be at least 1, --max-seconds positive")
    try:
        points = [parse_point(p) for p in args.point]
    except ValueError as exc:
        return _usage(str(exc))
    grid = args.grid if args.grid is not None or points else DEFAULT_GRID
    if grid is not None:
        points = [*available[grid], *points]
    refs = args.assignor or ["uniform", "range", "sticky"]
    try:
        loaded = [(ref, load_assignor(ref)) for ref in refs]
    except AssignorLoadError as exc:
        return _usage(str(exc))
    assignors = [(str(getattr(a, "name", ref)), a) for ref, a in loaded]
    if args.list:
        for point in points:
            runs = [name for name, a in assignors if applicable(point, a)]
            print(f"{point.label}: {', '.join(runs) or 'no assignor applies'}")
        return 0
    if not any(applicable(p, a) for p in points for _, a in assignors):
        return _usage("none of the assignors applies to the points (consumer assignors run consumer and target "
                      "points, task assignors streams points)")
    timing = Timing(args.warmup, args.calls, args.max_seconds)
    err = Console(stderr=True)
    show = sys.stderr.isatty()

    def progress(m: Any) -> None:
        if show:
            err.print(f"[dim]{m.point.label} / {m.assignor}: {m.median_ms or 0:.3f} ms[/dim]")

    results = run_bench(points, assignors, timing, progress)
    names = [n for n, _ in assignors]
    doc = document(results, timing, names, grid)
    to_stdout = args.json == "-"
    if not to_stdout:
        Console(width=None if sys.stdout.isatty() else 160).print(table(results))
    for line in problems_text(results):
        print(f"kgspec bench: {line}", file=sys.stderr)
    if not args.no_files:
        text = json.dumps(doc, indent=2) + "\n"
        try:
            if to_stdout:
                sys.stdout.write(text)
            else:
                Path(args.json).write_text(text)
            Path(args.svg).write_text(svg(results, names, f"kgspec bench {grid or 'points'}"))
        except OSError as exc:
            return _usage(f"cannot write the report: {exc}")
        if not to_stdout:
            print(f"wrote {args.json} and {args.svg}")
    return 0 if all(m.ok for m in results) else 1
