"""``kgspec diagram``: print a declared lifecycle as Mermaid or Graphviz DOT."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kgspec.spec.diagrams import render_svg, to_dot, to_mermaid
from kgspec.spec.registry import MACHINES

FORMATS = ("mermaid", "dot")


def register(subparsers: Any) -> None:
    """Add the ``diagram`` subcommand to the kgspec parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "diagram",
        help="render a declared state machine as Mermaid or Graphviz DOT",
        description="Render a lifecycle declared in kgspec.spec as a diagram.",
    )
    parser.add_argument("machine", nargs="?", metavar="MACHINE",
                        help="machine name (see --list)")
    parser.add_argument("--list", action="store_true", dest="list_machines",
                        help="list the declared machines and exit")
    parser.add_argument("--format", choices=FORMATS, default="mermaid",
                        help="output text format (default: mermaid)")
    parser.add_argument("--render", choices=("svg",), default=None,
                        help="with --format dot: render to SVG with the Graphviz 'dot' binary")
    parser.add_argument("--output", "-o", type=Path, default=None, metavar="PATH",
                        help="write to PATH instead of standard output")
    parser.set_defaults(run=run)


def _known() -> str:
    return ", ".join(MACHINES)


def run(args: argparse.Namespace) -> int:
    """Exit status: 0 ok, 2 usage error (unknown or missing machine, bad options)."""
    if args.list_machines:
        for name, listed in MACHINES.items():
            print(f"{name}\t{listed.title}")
        return 0
    if args.machine is None:
        print(f"kgspec diagram: error: MACHINE is required; known machines: {_known()}",
              file=sys.stderr)
        return 2
    if args.machine not in MACHINES:
        print(f"kgspec diagram: error: unknown machine {args.machine!r}; "
              f"known machines: {_known()}", file=sys.stderr)
        return 2
    decl = MACHINES[args.machine]
    text = to_mermaid(decl) if args.format == "mermaid" else to_dot(decl)
    if args.render is not None:
        if args.format != "dot":
            print("kgspec diagram: error: --render svg needs --format dot", file=sys.stderr)
            return 2
        try:
            data = render_svg(text)
        except RuntimeError as exc:
            print(f"kgspec diagram: error: {exc}", file=sys.stderr)
            return 2
        if args.output is None:
            sys.stdout.buffer.write(data)
        else:
            args.output.write_bytes(data)
        return 0
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
    return 0
