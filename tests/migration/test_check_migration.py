"""`kgspec check` across the type switch: the migration goldens conform, mutated copies are
rejected at the mutated line, and records alone replay across the switch with the invariants."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Event, check_events, golden_script, read_jsonl

GOLDEN = Path(__file__).parent.parent / "golden" / "migration"


def load(name: str) -> list[Event]:
    return read_jsonl(GOLDEN / name)


def find(events: list[Event], pred: Any) -> int:
    """The 1-based line of the first event matching ``pred``."""
    return next(i for i, e in enumerate(events, 1) if pred(e))


def api(e: Event) -> int | None:
    return e.get("requestHeader", {}).get("requestApiKey")


def rtype(e: Event) -> int | None:
    return e.get("record", {}).get("key", {}).get("type")


@pytest.mark.parametrize("name", ["upgrade.jsonl", "downgrade.jsonl"])
def test_golden_migration_traces_conform(name: str, tmp_path: Path) -> None:
    events = load(name)
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0
    assert [g["verdict"] for g in report["groups"]] == ["conforms"]


MAKE_GOLDEN = golden_script("make_golden_migration")


@pytest.mark.parametrize("name", sorted(MAKE_GOLDEN.SCENARIOS))
def test_goldens_are_current(name: str, tmp_path: Path) -> None:
    """Both the classic/consumer goldens and the streams_<profile> ones (tests/migration/test_streams_check.py)."""
    MAKE_GOLDEN.SCENARIOS[name]().write(tmp_path / f"{name}.jsonl")
    assert (tmp_path / f"{name}.jsonl").read_text() == (GOLDEN / f"{name}.jsonl").read_text(), \
        "run scripts/make_golden_migration.py"


def test_upgrade_golden_holds_kafkas_values() -> None:
    """testConsumerGroupHeartbeatWithStableClassicGroup's shape: tombstone, 5*, 3(generation),
    7*, 6(generation, no timestamp), 8* (STABLE at the generation), then the joining member."""
    events = load("upgrade.jsonl")
    hb = find(events, lambda e: api(e) == 68)
    assert events[hb - 1]["response"]["memberEpoch"] == 2
    records = [e["record"] for e in events[hb:hb + 15]]
    assert [r["key"]["type"] for r in records] == [2, 5, 5, 3, 7, 7, 6, 8, 8, 5, 3, 7, 7, 6, 8]
    assert records[0]["value"] is None
    assert records[3]["value"]["data"]["epoch"] == 1
    assert records[6]["value"]["data"] == {"assignmentEpoch": 1}
    for r in records[7:9]:
        data = r["value"]["data"]
        assert (data["memberEpoch"], data["previousMemberEpoch"], data["state"]) == (1, 1, 0)
    assert records[1]["value"]["data"]["classicMemberMetadata"]["sessionTimeoutMs"] == 10_000
    # The classic members learn of the new epoch through REBALANCE_IN_PROGRESS (27).
    beats = [e for e in events if api(e) == 12 and e["tsMs"] == 7100]
    assert [e["response"]["errorCode"] for e in beats] == [27, 27]


def test_downgrade_golden_holds_kafkas_values() -> None:
    """testLastConsumerProtocolMemberLeavingConsumerGroup's shape: 8*, 7*, 6, 5*, 4, 3 tombstones,
    then GroupMetadata at generation = the group epoch; the classic member then rejoins."""
    events = load("downgrade.jsonl")
    leave = find(events, lambda e: api(e) == 68 and e["request"]["memberEpoch"] == -1)
    records = [e["record"] for e in events[leave:leave + 10]]
    assert [r["key"]["type"] for r in records] == [8, 8, 7, 7, 6, 5, 5, 4, 3, 2]
    assert all(r["value"] is None for r in records[:-1])
    data = records[-1]["value"]["data"]
    assert (data["generation"], data["protocol"], data["protocolType"]) == (3, "range", "consumer")
    assert events[leave]["tsMs"] == 2000
    assert data["currentStateTimestamp"] == 2000
    beat = events[find(events, lambda e: api(e) == 12 and e["tsMs"] == 2100) - 1]
    assert beat["response"]["errorCode"] == 27  # PREPARING_REBALANCE after the downgrade
    rejoin = events[find(events, lambda e: api(e) == 11 and e["tsMs"] == 2200) - 1]
    assert rejoin["response"]["generationId"] == 4


def _mutated(name: str, line: int, change: Any) -> list[Event]:
    events = copy.deepcopy(load(name))
    change(events[line - 1])
    return events


MUTATIONS = [
    # (golden, how to find the line, mutation, expected finding name)
    ("upgrade.jsonl", lambda e: rtype(e) == 3 and e["tsMs"] == 7000,
     lambda e: e["record"]["value"]["data"].update(epoch=2), "record"),
    ("upgrade.jsonl", lambda e: api(e) == 12 and e["tsMs"] == 7100,
     lambda e: e["response"].update(errorCode=0), "errorCode"),
    ("upgrade.jsonl", lambda e: api(e) == 11 and e["tsMs"] == 7200,
     lambda e: e["response"].update(generationId=3), "generationId"),
    ("upgrade.jsonl", lambda e: api(e) == 14 and e["tsMs"] == 7700,
     lambda e: e["response"].update(assignment="AAMAAAABAANmb28AAAABAAAAA/////8="), "assignment"),
    ("upgrade.jsonl", lambda e: api(e) == 68,
     lambda e: e["response"].update(memberEpoch=1), "memberEpoch"),
    ("downgrade.jsonl", lambda e: rtype(e) == 2 and e["tsMs"] == 2000,
     lambda e: e["record"]["value"]["data"].update(generation=4), "record"),
    ("downgrade.jsonl", lambda e: api(e) == 12 and e["tsMs"] == 2100,
     lambda e: e["response"].update(errorCode=0), "errorCode"),
]


@pytest.mark.parametrize("index", range(len(MUTATIONS)))
def test_mutated_migration_trace_rejected_at_the_line(index: int, tmp_path: Path) -> None:
    name, where, change, field = MUTATIONS[index]
    line = find(load(name), where)
    status, report = check_events(tmp_path, _mutated(name, line, change))
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (line, field)


def test_sync_assignment_in_another_topic_order_is_accepted(tmp_path: Path) -> None:
    """Kafka serializes a mixed member's partitions from a HashMap; the order is not compared."""
    from kgspec.model.migration.protocol import encode_assignment

    events = load("upgrade.jsonl")
    line = find(events, lambda e: api(e) == 14 and e["tsMs"] == 7300)
    events[line - 1]["response"]["assignment"] = encode_assignment([("foo", [1, 0])], 3)
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0


def test_records_alone_replay_across_the_switch(tmp_path: Path) -> None:
    """The records of both goldens, without the calls: GroupMetadata then consumer records (and the
    reverse) replay and satisfy the invariants."""
    for name in ("upgrade.jsonl", "downgrade.jsonl"):
        events = [e for e in load(name) if "record" in e or "header" in e or "topic" in e]
        status, report = check_events(tmp_path, events)
        assert report["findings"] == [], name
        assert status == 0


def test_double_ownership_through_conversion_is_flagged(tmp_path: Path) -> None:
    """A converted member's record 8 claiming a partition the other converted member holds."""
    events = [e for e in load("upgrade.jsonl") if "record" in e or "header" in e or "topic" in e]
    lines = [i for i, e in enumerate(events, 1) if rtype(e) == 8 and e["tsMs"] == 7000]
    first, second = events[lines[0] - 1], events[lines[1] - 1]
    second["record"]["value"]["data"]["assignedPartitions"] = first["record"]["value"]["data"]["assignedPartitions"]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert (report["findings"][0]["line"], report["findings"][0]["field"]) == (lines[1], "no-double-ownership")
