"""``kgspec schema report``: print the JSON Schema of ``kgspec check``'s JSON report."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kgspec.commands.output import one_line_errors


def register(sub: Any) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of a report",
                       description="Print the JSON Schema (draft 2020-12) of a kgspec output. `report`: the JSON "
                                   "report of `kgspec check --json` (kgspec-report/1).")
    p.add_argument("what", choices=["report"], help="which schema (report: kgspec check --json)")
    p.set_defaults(run=run)
    one_line_errors(p)


def run(args: argparse.Namespace) -> int:
    from kgspec.conformance.report_schema import REPORT_SCHEMA

    sys.stdout.write(json.dumps(REPORT_SCHEMA, indent=2) + "\n")
    return 0
