"""Reports for CI systems: ``kgspec check --junit PATH`` and ``--sarif PATH``.

- JUnit XML: one test suite, one test case per group (named by group id, class
  ``kgspec.check.<type>``), failed with the group's first finding (its kind as the failure's
  type, the finding's lines as its text) when the group diverges, in error when it is
  incomplete (malformed or unsupported events); plus one case per input for the findings of
  no group (malformed lines, unsupported headers).
- SARIF 2.1.0: one run of the tool ``kgspec``, one rule per finding kind, one result per finding
  with its file and line (``physicalLocation``), its group, member and time as properties.

Strings from the input go through ``printable``: XML 1.0 cannot carry most control characters
at all, and a CI page should show them as escapes as the terminal does.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any, Final
from urllib.parse import quote

from kgspec import __version__
from kgspec.commands.human import finding_lines
from kgspec.conformance.findings import KINDS, Finding, Report, printable

SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
_RULES: Final = {
    "response-mismatch": "The coordinator answered differently from the reference Kafka release.",
    "invariant": "An invariant of the protocol is broken by what the trace shows.",
    "malformed": "The line is not valid JSON or not a valid event.",
    "unsupported": "A valid event the model does not cover yet.",
    "client": "A client broke a client-side rule (--clients).",
}
_LEVELS: Final = {"response-mismatch": "error", "invariant": "error", "client": "error", "malformed": "warning",
                  "unsupported": "note"}


def first_findings(report: Report) -> tuple[dict[str, Finding], dict[str, int]]:
    """Each group's first finding (in line order) and its number of findings."""
    firsts: dict[str, Finding] = {}
    counts: Counter[str] = Counter()
    for f in sorted((f for f in report.findings if f.group_id is not None), key=lambda f: (f.path, f.line)):
        assert f.group_id is not None
        firsts.setdefault(f.group_id, f)
        counts[f.group_id] += 1
    return firsts, dict(counts)


def junit_xml(report: Report) -> str:
    firsts, counts = first_findings(report)
    suite = ET.Element("testsuite", name="kgspec check")
    failures = errors = 0
    for g in report.groups:
        case = ET.SubElement(suite, "testcase", classname=f"kgspec.check.{g.type}", name=printable(g.group_id))
        first = firsts.get(g.group_id)
        if first is not None:
            case.set("file", printable(first.path))
            case.set("line", str(first.line))
        if g.verdict == "conforms":
            continue
        tag = "failure" if g.verdict == "diverges" else "error"
        failures, errors = (failures + 1, errors) if tag == "failure" else (failures, errors + 1)
        outcome = ET.SubElement(case, tag, type=first.kind if first is not None else g.verdict)
        if first is not None:
            more = counts[g.group_id] - 1
            outcome.set("message", printable(f"{first.path}:{first.line}: {first.message}"))
            outcome.text = "\n".join(printable(line) for line in finding_lines(first)) + \
                (f"\n... and {more} more finding(s) for this group" if more else "")
    for i in report.inputs:
        own = [f for f in report.findings if f.group_id is None and f.path == i.path]
        case = ET.SubElement(suite, "testcase", classname="kgspec.check.input", name=printable(i.path))
        if own:
            failures += 1
            outcome = ET.SubElement(case, "failure", type=own[0].kind,
                                    message=printable(f"{own[0].path}:{own[0].line}: {own[0].message}"))
            outcome.text = f"{len(own)} finding(s) of no group; first:\n" + \
                "\n".join(printable(line) for line in finding_lines(own[0]))
    cases = len(report.groups) + len(report.inputs)
    suite.set("tests", str(cases))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", "0")
    root = ET.Element("testsuites", name="kgspec check", tests=str(cases), failures=str(failures), errors=str(errors))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def sarif(report: Report) -> dict[str, Any]:
    rules = [{"id": kind, "name": kind, "shortDescription": {"text": _RULES[kind]},
              "defaultConfiguration": {"level": _LEVELS[kind]}} for kind in KINDS]
    index = {kind: i for i, kind in enumerate(KINDS)}
    results = []
    for f in report.findings:
        event: dict[str, Any] = f.context.get("event") or {}
        properties: dict[str, Any] = {k: v for k, v in (("groupId", f.group_id), ("field", f.field)) if v is not None}
        properties.update(event)
        if f.kind in ("response-mismatch", "client") or f.expected is not None or f.observed is not None:
            properties["expected"] = f.expected
            properties["observed"] = f.observed
        results.append({
            "ruleId": f.kind, "ruleIndex": index.get(f.kind, 0), "level": _LEVELS.get(f.kind, "error"),
            "message": {"text": printable(f.message)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.path)},
                                                "region": {"startLine": max(1, f.line)}}}],
            "properties": properties,
        })
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kgspec", "version": __version__,
                                "informationUri": "https://kafka.apache.org/", "rules": rules}},
            "artifacts": [{"location": {"uri": _uri(i.path)}} for i in report.inputs],
            "results": results,
        }],
    }


def _uri(path: str) -> str:
    """A path as a SARIF artifact URI: relative paths stay relative (to the run's directory)."""
    return quote(path.replace("\\", "/"), safe="/:")
