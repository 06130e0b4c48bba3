"""The JSON report of ``kgspec check`` (``kgspec-report/1``) as a JSON Schema (draft 2020-12).

Published by ``kgspec schema report``; the tests validate the report of every golden trace
against it. It states what the contract (docs/guide/trace-format.md, section 2) promises: the
keys every report and every entry has, and the keys kgspec has added since (a finding's event
context, ``inferred``, ``allowList``). Objects stay open (``additionalProperties``): the
contract lets the report gain keys, never lose or rename them.
"""

from __future__ import annotations

from typing import Any, Final

from kgspec.conformance.findings import KINDS

_COUNT: Final = {"type": "integer", "minimum": 0}
_TEXT: Final = {"type": "string"}

REPORT_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:kgspec:report:1",
    "title": "kgspec check report (kgspec-report/1)",
    "type": "object",
    "required": ["format", "inputs", "groups", "findings"],
    "properties": {
        "format": {"const": "kgspec-report/1"},
        "inputs": {
            "description": "one entry per input, in command-line order; lines = events + malformed + skipped",
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "lines", "events", "malformed", "skipped"],
                "properties": {"path": _TEXT, "lines": _COUNT, "events": _COUNT, "malformed": _COUNT,
                               "skipped": _COUNT},
            },
        },
        "groups": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["groupId", "type", "events", "verdict"],
                "properties": {
                    "groupId": _TEXT,
                    "type": {"description": "consumer, streams, classic, connect, ...", "type": "string"},
                    "events": _COUNT,
                    "verdict": {"enum": ["conforms", "diverges", "incomplete"]},
                },
            },
        },
        "findings": {
            "description": "grouped by input and group, each group's in line order",
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "line", "groupId", "kind", "message"],
                "properties": {
                    "path": _TEXT,
                    "line": {"type": "integer"},
                    "groupId": {"type": ["string", "null"]},
                    "kind": {"enum": list(KINDS)},
                    "field": _TEXT,
                    "expected": {"description": "present for response-mismatch and client findings"},
                    "observed": {"description": "present for response-mismatch and client findings"},
                    "message": _TEXT,
                    # Added with the event's context (present when the event has them):
                    "time": {"description": "the event's time, ISO-8601 with zone (tsMs in --tz)", "type": "string"},
                    "loggedAt": {"description": "when a request log wrote the line (time + totalTimeMs)",
                                 "type": "string"},
                    "tsMs": {"type": "number"},
                    "api": {"description": "Kafka's name of the call's API (ConsumerGroupHeartbeat, ...)",
                            "type": "string"},
                    "apiVersion": {"type": "integer"},
                    "memberId": _TEXT,
                    "clientId": _TEXT,
                    "clientHost": _TEXT,
                    "instanceId": _TEXT,
                    "recordType": {"type": ["integer", "string", "null"]},
                    "topicNames": {"description": "topic id -> name, for the ids the event mentions",
                                   "type": "object", "additionalProperties": _TEXT},
                },
            },
        },
        "inferred": {
            "description": "coordinator moves inferred from broker logs, and NOT_COORDINATOR answers not judged",
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "line", "groupId", "kind", "message"],
                "properties": {"path": _TEXT, "line": {"type": "integer"}, "groupId": _TEXT, "kind": _TEXT,
                               "tsMs": {"type": ["number", "null"]}, "from": {"type": ["string", "null"]},
                               "to": {"type": ["string", "null"]}, "message": _TEXT,
                               # coordinator-move: when the load may have happened (tsMs is the time adopted)
                               "window": {"type": "object", "required": ["fromTsMs", "toTsMs"],
                                          "properties": {"fromTsMs": {"type": "number"},
                                                         "toTsMs": {"type": "number"}}},
                               "explains": {"type": "array", "items": {"type": "integer"}}},
            },
        },
        "allowList": {"description": "with --allow: the allow-list's matches", "type": "object"},
    },
}
