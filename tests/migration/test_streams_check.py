"""`kgspec check` on traces mixing classic and streams calls on one group id: a golden per profile
(scripts/make_golden_migration.py) conforms under its profile, pins Kafka's (or, for kip, the
seed's) values, is rejected under a profile that answers differently at the first line that
differs, and mutated copies are rejected at the mutated line."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kgspec.model.migration.streams_protocol import decode_streams_assignment

from tests.helpers import check_events
from tests.migration.test_check_migration import Event, api, find, load, rtype

PROFILES = ["kafka-4.1", "kafka-4.2", "kafka-4.3", "kafka-trunk", "kip"]


def at(events: list[Event], line: int) -> Event:
    return events[line - 1]


@pytest.mark.parametrize("profile", PROFILES)
def test_streams_golden_conforms_under_its_profile(profile: str, tmp_path: Path) -> None:
    events = load(f"streams_{profile}.jsonl")
    assert events[0]["header"]["profile"] == profile
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0
    assert [g["verdict"] for g in report["groups"]] == ["conforms"]


@pytest.mark.parametrize(("profile", "epoch"), [("kafka-4.2", 1), ("kafka-4.3", 2), ("kafka-trunk", 2)])
def test_kafka_golden_holds_the_offline_migration(profile: str, epoch: int) -> None:
    """KAFKA-19570: refused while the classic group has a member; once EMPTY, the tombstone and the
    new streams group; classic calls to it: INCONSISTENT_GROUP_PROTOCOL (23) / UNKNOWN_MEMBER_ID (25);
    once EMPTY again, a JoinGroup writes 20, 17, 23 tombstones and the empty GroupMetadata."""
    events = load(f"streams_{profile}.jsonl")
    refused = [e for e in events if api(e) == 88 and e["tsMs"] in (3500, 3600)]
    assert [(e["response"]["errorCode"], e["response"]["errorMessage"]) for e in refused] == [
        (69, "Group g is not a streams group.")] * 2
    joined = find(events, lambda e: api(e) == 88 and e["tsMs"] == 5000)
    assert at(events, joined)["response"]["memberEpoch"] == epoch
    assert [(rtype(e), e["record"]["value"] is None) for e in events[joined:joined + 7]] == [
        (2, True), (19, False), (23, False), (17, False), (21, False), (20, False), (22, False)]
    classic = {api(e): e["response"] for e in events if api(e) in (11, 14, 12, 13) and 5200 <= e["tsMs"] <= 5500}
    assert (classic[11]["errorCode"], classic[11]["memberId"]) == (23, "")
    assert (classic[14]["errorCode"], classic[12]["errorCode"]) == (25, 25)
    assert (classic[13]["errorCode"], [m["errorCode"] for m in classic[13]["members"]]) == (0, [25])
    consumer = next(e for e in events if api(e) == 68)["response"]
    assert (consumer["errorCode"], consumer["errorMessage"]) == (69, "Group g is not a consumer group.")
    join = find(events, lambda e: api(e) == 11 and e["tsMs"] == 6100)
    assert at(events, join)["response"]["errorCode"] == 79
    assert [(rtype(e), e["record"]["value"] is None) for e in events[join:join + 4]] == [
        (20, True), (17, True), (23, True), (2, False)]


def test_kafka_4_1_golden_refuses_the_empty_classic_group() -> None:
    events = load("streams_kafka-4.1.jsonl")
    joined = at(events, find(events, lambda e: api(e) == 88 and e["tsMs"] == 5000))
    assert (joined["response"]["errorCode"], joined["response"]["errorMessage"]) == (
        69, "Group g is not a streams group.")
    assert not any(rtype(e) in (17, 19, 20, 21, 22, 23) for e in events)


def test_kip_golden_holds_the_seeds_values() -> None:
    """Generation 1 -> group epoch 1 on conversion, 2 after the streams member joins; the classic
    members' JoinGroups answer generation 1 while they revoke, 2 after; the last streams member's
    leave writes every streams tombstone and GroupMetadata at generation 2."""
    events = load("streams_kip.jsonl")
    joined = find(events, lambda e: api(e) == 88 and e["tsMs"] == 7000)
    assert at(events, joined)["response"]["memberEpoch"] == 2
    types = [rtype(e) for e in events[joined:joined + 18]]
    # 18: the seed's partition metadata beside the topology; 17: the seed's epoch-only record
    assert types == [2, 19, 19, 23, 18, 17, 21, 21, 20, 22, 22, 19, 17, 21, 21, 21, 20, 22]
    assert events[joined + 5]["record"]["value"]["data"] == {"epoch": 1}
    assert events[joined + 12]["record"]["value"]["data"] == {"epoch": 2}
    assert [e["response"]["errorCode"] for e in events if api(e) == 12 and e["tsMs"] == 7100] == [27, 27]
    first = [e["response"]["generationId"] for e in events if api(e) == 11 and e["tsMs"] == 7200]
    second = [e["response"]["generationId"] for e in events if api(e) == 11 and e["tsMs"] in (7405, 7415)]
    assert (first, second) == ([1, 1], [2, 2])
    owned = []
    for e in events:
        if api(e) == 14 and e["tsMs"] in (7408, 7418):
            active, standby = decode_streams_assignment(e["response"]["assignment"])
            owned.append((sorted(active["0"]), sorted(standby["0"])))
    assert owned == [([0, 2], [3, 4]), ([1, 3], [2, 5])]
    leave = find(events, lambda e: api(e) == 88 and e["request"]["memberEpoch"] == -1)
    records = [e["record"] for e in events[leave:leave + 14]]
    assert [r["key"]["type"] for r in records] == [22, 22, 22, 21, 21, 21, 20, 19, 19, 19, 18, 17, 23, 2]
    assert records[-1]["value"]["data"]["generation"] == 2
    assert [e["response"]["errorCode"] for e in events if api(e) == 12 and e["tsMs"] == 8100] == [27, 27]


@pytest.mark.parametrize(("golden", "other", "where", "difference"), [
    ("kafka-4.3", "kafka-4.1", lambda e: api(e) == 88 and e["tsMs"] == 5000, ("errorCode", 69, 0)),
    ("kafka-4.1", "kafka-4.3", lambda e: api(e) == 88 and e["tsMs"] == 5000, ("errorCode", 0, 69)),
    ("kip", "kafka-4.3", lambda e: api(e) == 88 and e["tsMs"] == 7000, ("errorCode", 69, 0)),
    ("kafka-4.3", "kafka-4.2", lambda e: api(e) == 88 and e["tsMs"] == 5000, ("memberEpoch", 1, 2)),
])
def test_golden_rejected_under_another_profile(golden: str, other: str, where: Any, difference: tuple[str, int, int],
                                               tmp_path: Path) -> None:
    """The first finding is the first line the other profile answers differently: (field, the other
    profile's value, the golden's)."""
    events = load(f"streams_{golden}.jsonl")
    status, report = check_events(tmp_path, events, "--profile", other)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"]) == (find(events, where), "response-mismatch")
    assert (first["field"], first["expected"], first["observed"]) == difference


def _mutated(events: list[Event], line: int, change: Any) -> list[Event]:
    out = copy.deepcopy(events)
    change(out[line - 1])
    return out


MUTATIONS = [
    ("kafka-4.3", lambda e: api(e) == 88 and e["tsMs"] == 5000, lambda e: e["response"].update(memberEpoch=3),
     "memberEpoch"),
    ("kafka-4.3", lambda e: api(e) == 88 and e["tsMs"] == 3600, lambda e: e["response"].update(errorCode=0),
     "errorCode"),
    ("kafka-4.3", lambda e: api(e) == 11 and e["tsMs"] == 5200, lambda e: e["response"].update(errorCode=25),
     "errorCode"),
    ("kafka-4.3", lambda e: api(e) == 14 and e["tsMs"] == 5300, lambda e: e["response"].update(errorCode=27),
     "errorCode"),
    ("kafka-4.3", lambda e: rtype(e) == 17 and e["tsMs"] == 6100 and e["record"]["value"] is None,
     lambda e: e["record"].update(value={"version": 0, "data": {"epoch": 4, "metadataHash": 0}}), "record"),
    ("kafka-4.1", lambda e: api(e) == 88 and e["tsMs"] == 5000, lambda e: e["response"].update(errorCode=0),
     "errorCode"),
    ("kip", lambda e: rtype(e) == 17 and e["tsMs"] == 7000, lambda e: e["record"]["value"]["data"].update(epoch=5),
     "record"),
    ("kip", lambda e: api(e) == 11 and e["tsMs"] == 7405, lambda e: e["response"].update(generationId=1),
     "generationId"),
    ("kip", lambda e: api(e) == 12 and e["tsMs"] == 7100, lambda e: e["response"].update(errorCode=0), "errorCode"),
    ("kip", lambda e: rtype(e) == 2 and e["tsMs"] == 8000, lambda e: e["record"]["value"]["data"].update(generation=3),
     "record"),
]


@pytest.mark.parametrize("index", range(len(MUTATIONS)))
def test_mutated_streams_golden_rejected_at_the_line(index: int, tmp_path: Path) -> None:
    golden, where, change, field = MUTATIONS[index]
    events = load(f"streams_{golden}.jsonl")
    line = find(events, where)
    status, report = check_events(tmp_path, _mutated(events, line, change))
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (line, field)


@pytest.mark.parametrize("profile", ["kafka-4.3", "kip"])
def test_streams_golden_records_alone_replay(profile: str, tmp_path: Path) -> None:
    """The records alone replay across both switches (classic -> streams -> classic) with the invariants."""
    events = [e for e in load(f"streams_{profile}.jsonl") if "record" in e or "header" in e or "topic" in e]
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0
