"""CI outputs (issue #18): the JSON report's published schema (``kgspec schema report``) holds for
every golden trace's report; ``--junit`` (one test case per group) and ``--sarif`` (2.1.0) are
what CI systems read."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.report_schema import REPORT_SCHEMA

from kgspec.cli import main
from tests.report.schema_check import problems
from tests.report.test_findings_human import INCIDENT, MEMBER, ROOT

GOLDEN = sorted((ROOT / "tests" / "golden").rglob("*.jsonl"))

# What SARIF 2.1.0 (OASIS, sarif-schema-2.1.0.json) requires of what kgspec writes: a subset of
# the official schema, by its property names and constraints.
SARIF_SUBSET: dict[str, Any] = {
    "type": "object", "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string"}, "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {
            "type": "object", "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                                   "informationUri": {"type": "string"},
                                   "rules": {"type": "array", "items": {
                                       "type": "object", "required": ["id"],
                                       "properties": {"id": {"type": "string"},
                                                      "shortDescription": {"type": "object", "required": ["text"]},
                                                      "defaultConfiguration": {"type": "object", "properties": {
                                                          "level": {"enum": ["none", "note", "warning", "error"]}}}}}}}}}},
                "artifacts": {"type": "array", "items": {"type": "object", "properties": {
                    "location": {"type": "object", "required": ["uri"]}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "properties": {
                                "artifactLocation": {"type": "object", "required": ["uri"],
                                                     "properties": {"uri": {"type": "string"}}},
                                "region": {"type": "object", "properties": {
                                    "startLine": {"type": "integer", "minimum": 1}}}}}}}},
                        "properties": {"type": "object"}}}}}}},
    },
}


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "report"]) == 0
    assert json.loads(capsys.readouterr().out) == REPORT_SCHEMA


def test_the_validator_can_fail() -> None:
    assert problems({"format": "kgspec-report/2", "inputs": [], "groups": [], "findings": [
        {"path": "t", "line": "3", "groupId": None, "kind": "bogus", "message": "m"}]}, REPORT_SCHEMA) == [
        "$.format: 'kgspec-report/2' is not 'kgspec-report/1'",
        "$.findings[0].line: '3' is not of type integer",
        "$.findings[0].kind: 'bogus' is not one of ['response-mismatch', 'invariant', 'malformed', 'unsupported', "
        "'client']",
    ]
    assert problems({"inputs": [{"path": "t", "lines": -1, "events": 0, "malformed": 0}]}, REPORT_SCHEMA) == [
        "$: 'format' is required", "$: 'groups' is required", "$: 'findings' is required",
        "$.inputs[0]: 'skipped' is required", "$.inputs[0].lines: -1 is below 0"]


@pytest.mark.parametrize("trace", GOLDEN, ids=[str(p.relative_to(ROOT / "tests" / "golden")) for p in GOLDEN])
def test_every_golden_report_meets_the_schema(trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["check", "-q", "--json", str(out), str(trace)]) in (0, 1)
    assert problems(json.loads(out.read_text()), REPORT_SCHEMA) == []


def test_incident_reports_for_ci(tmp_path: Path) -> None:
    paths = {name: tmp_path / name for name in ("r.json", "r.xml", "r.sarif")}
    assert main(["check", "-q", "--json", str(paths["r.json"]), "--junit", str(paths["r.xml"]),
                 "--sarif", str(paths["r.sarif"]), str(INCIDENT)]) == 1
    assert problems(json.loads(paths["r.json"].read_text()), REPORT_SCHEMA) == []

    root = ET.parse(paths["r.xml"]).getroot()
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "4", "1", "0")
    [suite] = list(root)
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert sorted(cases) == sorted(["payments-app", "orders-app", "audit-app", str(INCIDENT)])
    assert all(len(cases[name]) == 0 for name in ("orders-app", "audit-app", str(INCIDENT)))  # passed
    payments = cases["payments-app"]
    assert (payments.get("classname"), payments.get("file"), payments.get("line")) == (
        "kgspec.check.consumer", str(INCIDENT), "18")
    [failure] = list(payments)
    assert (failure.tag, failure.get("type")) == ("failure", "response-mismatch")
    assert failure.get("message") == (f"{INCIDENT}:18: memberEpoch must be 2, not 3: member {MEMBER} is still "
                                      "revoking payments-4, payments-5, payments-6, payments-7, so its epoch must stay 2")
    assert failure.text is not None
    assert failure.text.splitlines()[0] == f"{INCIDENT}:18: group payments-app: response-mismatch (memberEpoch)"
    assert failure.text.splitlines()[-1] == "... and 1 more finding(s) for this group"

    sarif = json.loads(paths["r.sarif"].read_text())
    assert problems(sarif, SARIF_SUBSET) == []
    [run] = sarif["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "response-mismatch", "invariant", "malformed", "unsupported", "client"]
    first = run["results"][0]
    assert first["ruleId"] == "response-mismatch"
    assert first["level"] == "error"
    assert first["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": str(INCIDENT)},
                                                        "region": {"startLine": 18}}}]
    assert first["properties"]["memberId"] == MEMBER
    assert first["properties"]["time"] == "2025-06-01T00:00:05.069+00:00"
    assert (first["properties"]["expected"], first["properties"]["observed"]) == (2, 3)
    assert [r["ruleId"] for r in run["results"]] == ["response-mismatch", "invariant"]


def test_junit_escapes_what_xml_cannot_carry(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"tsMs": 0, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1}, '
                     '"request": {"groupId": "g\\u001b", "memberId": "", "memberEpoch": "x"}, "response": {}}\n')
    out = tmp_path / "r.xml"
    assert main(["check", "-q", "--junit", str(out), str(trace)]) == 1
    root = ET.parse(out).getroot()  # well-formed XML 1.0 despite the ESC in the group id
    assert next(c.get("name") for c in root.iter("testcase")) == "g\\x1b"
