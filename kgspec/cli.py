"""The ``kgspec`` command line.

Each subcommand lives in its own module under ``kgspec.commands`` and exposes
``register(subparsers)``; the module's ``run(args)`` returns the exit status.
Modules whose optional dependencies are missing still register, and explain
what to install when run.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from kgspec import __version__
from kgspec.commands.output import one_line_errors, stdout_closed

# Order is the order shown by `kgspec --help`.
COMMAND_MODULES = (
    "check",
    "diagram",
    "fuzz",
    "simulate",
    "prove",
    "conform",
    "serve",
    "bench",
    "schema",
    "record",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kgspec",
        description="Spec, model and conformance checker for Kafka group coordination protocols.",
    )
    parser.add_argument("--version", action="version", version=f"kgspec {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"kgspec.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("kgspec.commands"):
                continue  # command not built yet
            raise
        module.register(sub)
    one_line_errors(parser)  # `kgspec check --bogus`: the top level reports unknown arguments
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    status = 0  # a command whose output was cut before it returned (`kgspec simulate | head`)
    try:
        status = args.run(args)
        sys.stdout.flush()  # here, not at the interpreter's exit, where a failure cannot be handled
    except BrokenPipeError:  # the reader went away: stop writing, without a traceback
        stdout_closed()
    return status
