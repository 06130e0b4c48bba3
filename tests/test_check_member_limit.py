"""The checker follows a group up to ``MAX_MEMBERS_PER_GROUP`` members (docs/checking.md, Limits).

Beyond, one `unsupported` finding on the line that grew it past the limit; the group's verdict is
`incomplete` and its later events are counted, not checked. Lowered here to 3 to be testable.
"""

from __future__ import annotations

import pytest
from kgspec.conformance import checker as checker_module
from kgspec.conformance.checker import check_items
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Report
from kgspec.conformance.readers.native import event_from_object
from kgspec.conformance.recorder import TraceRecorder
from kgspec.conformance.session import MAX_MEMBERS_PER_GROUP


def _check(events: list[dict[str, object]]) -> Report:
    items = [event_from_object(e, n, n == 1) for n, e in enumerate(events, 1)]
    assert all(isinstance(i, Event) for i in items)
    report = Report()
    check_items("t.jsonl", iter(items), report)
    return report


def _joins(records: bool) -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", {"group.consumer.assignment.interval.ms": 0}, records=records)
    r.topic(0, "foo", 6)
    for n in range(5):
        r.join(10 + n, f"m{n}", ["foo"])
    return r


def test_the_limit_is_documented_and_generous() -> None:
    assert MAX_MEMBERS_PER_GROUP == 50_000


def test_a_group_past_the_limit_is_not_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    events = _joins(records=False).events
    events[-1]["response"]["memberEpoch"] = 99  # wrong, but after the limit: not checked
    assert [f.kind for f in _check(events).findings] == ["response-mismatch"]  # followed without the limit
    monkeypatch.setattr(checker_module, "MAX_MEMBERS_PER_GROUP", 3)
    report = _check(events)
    assert [(f.line, f.kind, f.field, f.message) for f in report.findings] == [
        (6, "unsupported", "memberId",
         "group g has 4 members, more than the checker follows (3); its later events are not checked")]
    (group,) = report.groups
    assert (group.verdict, group.events) == ("incomplete", 5)


def test_records_past_the_limit_are_not_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [e for e in _joins(records=True).events if "record" in e or "topic" in e or "header" in e]
    monkeypatch.setattr(checker_module, "MAX_MEMBERS_PER_GROUP", 3)
    report = _check(records)
    assert [(f.kind, f.field) for f in report.findings] == [("unsupported", "memberId")]
    assert "has 4 members" in report.findings[0].message
    (group,) = report.groups
    assert group.verdict == "incomplete"
