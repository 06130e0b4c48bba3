"""kip, seed 004: "the coordinator randomly selects a leader from the group"; "if all members list
protocol "a" before protocol "b," then the coordinator will choose "a." If there is no agreement in
terms of preference among the protocols which all members support, then one is chosen randomly."
The checker adopts the trace's leader and protocol when the seed allows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from kgspec.model.classic import seed_choices
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember

from tests.helpers import check, check_events, read_jsonl

GOLDEN = Path(__file__).parent.parent / "golden" / "classic" / "kip_choices.jsonl"


def _group(*prefs: list[str]) -> ClassicGroup:
    g = ClassicGroup("g", 0)
    for i, names in enumerate(prefs):
        g.add(ClassicMember(f"m{i}", None, "c", "/h", 1000, 1000, "consumer", tuple((n, "") for n in names)))
    return g


@pytest.mark.parametrize(("prefs", "legal"), [
    ([["a", "b"], ["a", "b"]], {"a"}),                     # agreement: a
    ([["a", "b"], ["b", "a"], ["a", "b"]], {"a", "b"}),     # no agreement: either (Kafka's vote: a)
    ([["a", "b", "c"], ["b", "a", "c"]], {"a", "b"}),       # c is after a and b for everyone
    ([["c", "a"], ["a"]], {"a"}),                            # only a is common
])
def test_legal_protocols(prefs: list[list[str]], legal: set[str]) -> None:
    assert seed_choices.legal_protocols(_group(*prefs)) == legal


def test_golden_values() -> None:
    """b leads (Kafka: a, the first to join) and roundrobin is chosen (Kafka's vote: range 2 to 1)."""
    events = read_jsonl(GOLDEN)
    joins = [e for e in events if e.get("requestHeader", {}).get("requestApiKey") == 11
             and e["response"]["errorCode"] == 0]
    assert {(e["response"]["leader"][:2], e["response"]["protocolName"], len(e["response"]["members"]))
            for e in joins} == {("c2", "roundrobin", 0), ("c2", "roundrobin", 3)}
    status, report = check(GOLDEN)
    assert (status, report["findings"]) == (0, [])


def test_golden_rejected_under_kafka() -> None:
    status, report = check(GOLDEN, "--profile", "kafka-4.3")
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (5, "leader")


@pytest.mark.parametrize(("field", "value", "at"), [
    ("leader", "nobody", "leader"),             # not a member: not a legal pick
    ("protocolName", "sticky", "protocolName"),  # not supported by every member
])
def test_one_line_mutant_rejected(field: str, value: str, at: str, tmp_path: Path) -> None:
    events = read_jsonl(GOLDEN)
    events[4]["response"][field] = value  # c1's JoinGroup answer of generation 1 (line 5)
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (5, at)
