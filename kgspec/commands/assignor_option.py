"""``--assignor`` for every command that can choose an assignor (check, simulate, fuzz, bench)."""

from __future__ import annotations

import argparse
from typing import Any

ASSIGNOR_HELP = ("an assignor to register (repeatable): a built-in or entry-point name, module:Class, "
                 "or exec:'COMMAND' / NAME=exec:'COMMAND' (an external process; docs/assignors.md)")


def add_assignor_option(parser: argparse.ArgumentParser, extra: str = "") -> None:
    parser.add_argument("--assignor", action="append", default=[], metavar="REF",
                        help=ASSIGNOR_HELP + (f"; {extra}" if extra else ""))


def load_registry(refs: list[str]) -> Any:
    """The registry for ``refs`` (kgspec.plugins.AssignorRegistry); AssignorLoadError (a ValueError)
    with a message naming the reference at fault."""
    from kgspec.plugins import assignor_registry

    return assignor_registry(refs)
