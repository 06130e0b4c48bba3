"""librdkafka traces (tests/data/librdkafka, recorded by scripts/record_librdkafka.py) under the
mock's allow-list (conformance/allowlists/librdkafka-mock.json), and the client-side rules."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.allowlist import AllowList, AllowListError, join_order_range
from kgspec.invariants.client import (
    CLIENT_OWNS_ONLY_GIVEN,
    CLIENT_REVOKES_BEFORE_GAIN,
    ClientLedger,
)
from kgspec.model.assignors.api import GroupSpec, MemberSpec, SubscriptionType

from kgspec.cli import main
from tests.helpers import check

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "librdkafka"
ALLOW = ROOT / "conformance" / "allowlists" / "librdkafka-mock.json"
SCENARIOS = ("join-revoke-leave", "session-timeout", "injected-errors")

# Allowed departures per fixture and entry, as recorded (member ids are random per run).
EXPECTED_ALLOWED = {
    "join-revoke-leave": {"joiner-withheld": 4, "mock-range-join-order": 2, "leave-null-member-id": 3,
                          "leave-heartbeat-interval": 3},
    "session-timeout": {"joiner-withheld": 4, "mock-range-join-order": 2, "session-expiry-late": 1,
                        "leave-null-member-id": 2, "leave-heartbeat-interval": 2},
    "injected-errors": {"joiner-withheld": 6, "mock-range-join-order": 3, "injected-fencing-error": 2,
                        "injected-coordinator-error": 2, "full-request-no-assignment": 2,
                        "leave-null-member-id": 2, "leave-heartbeat-interval": 2},
}
# Without the allow-list: (findings, first line, first field).
EXPECTED_PLAIN = {"join-revoke-leave": (32, 8, "memberEpoch"), "session-timeout": (37, 8, "memberEpoch"),
                  "injected-errors": (52, 7, "memberEpoch")}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    for name in SCENARIOS:
        (tmp_path / f"{name}.jsonl").write_bytes((DATA / f"{name}.jsonl").read_bytes())
    return tmp_path


@pytest.mark.parametrize("name", SCENARIOS)
def test_fixture_conforms_under_the_allow_list_with_clients(data: Path, name: str) -> None:
    status, report = check(data / f"{name}.jsonl", "--allow", str(ALLOW), "--clients")
    assert status == 0
    assert report["findings"] == []
    assert [g["verdict"] for g in report["groups"]] == ["conforms"]
    allowed = report["allowList"]["allowed"]
    assert dict(Counter(a["entry"] for a in allowed)) == EXPECTED_ALLOWED[name]
    classes = {e["id"]: e["classification"] for e in report["allowList"]["entries"]}
    assert all(a["classification"] == classes[a["entry"]] for a in allowed)
    counts = {e["id"]: e["count"] for e in report["allowList"]["entries"]}
    assert counts == {e: EXPECTED_ALLOWED[name].get(e, 0) for e in counts}


def test_bundled_allow_list_by_name_is_the_same_list(data: Path) -> None:
    _, by_path = check(data / "session-timeout.jsonl", "--allow", str(ALLOW))
    status, by_name = check(data / "session-timeout.jsonl", "--allow", "librdkafka-mock")
    assert status == 0
    assert by_name["allowList"]["allowed"] == by_path["allowList"]["allowed"]
    assert Path(by_name["allowList"]["path"]).resolve() == ALLOW.resolve()


@pytest.mark.parametrize("name", SCENARIOS)
def test_fixture_fails_without_the_allow_list(data: Path, name: str) -> None:
    status, report = check(data / f"{name}.jsonl")
    count, line, field = EXPECTED_PLAIN[name]
    assert status == 1
    assert len(report["findings"]) == count
    first = report["findings"][0]
    assert (first["line"], first["field"], first["kind"]) == (line, field, "response-mismatch")
    assert "allowList" not in report


def test_first_departure_is_the_withheld_joiner(data: Path) -> None:
    """join-revoke-leave line 8: c2 joins while c1 owns everything; Kafka 4.3 answers the new
    group epoch (3) and an empty assignment, the mock epoch 0 and null."""
    _, report = check(data / "join-revoke-leave.jsonl")
    first_two = [(f["line"], f["field"], f["expected"], f["observed"]) for f in report["findings"][:2]]
    assert first_two == [(8, "memberEpoch", 3, 0), (8, "assignment", {}, None)]
    _, allowed = check(data / "join-revoke-leave.jsonl", "--allow", str(ALLOW))
    line8 = [(a["entry"], a["field"]) for a in allowed["allowList"]["allowed"] if a["line"] == 8]
    assert line8 == [("joiner-withheld", "memberEpoch"), ("joiner-withheld", "assignment"),
                     ("mock-range-join-order", "target")]


def test_granting_a_partition_another_member_owns_fails_even_with_the_allow_list(data: Path) -> None:
    path = data / "join-revoke-leave.jsonl"
    lines = path.read_text().splitlines()
    event = json.loads(lines[10])  # line 11: c2 (epoch 0 again) is given [2, 3] at epoch 3
    assert sorted(event["response"]["assignment"]["topicPartitions"][0]["partitions"]) == [2, 3]
    event["response"]["assignment"]["topicPartitions"][0]["partitions"] = [1, 2, 3]  # c1 still owns 1
    lines[10] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    status, report = check(path, "--allow", str(ALLOW), "--clients")
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"]) == (11, "response-mismatch", "assignment")
    assert first["expected"] == {"t": [2, 3]}
    assert first["observed"] == {"t": [1, 2, 3]}


def test_an_unmarked_fencing_error_is_not_allowed(data: Path) -> None:
    """Only errors the recorder injected (``injectedError``) are allowed."""
    path = data / "injected-errors.jsonl"
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"injectedError":110' in line)
    event = json.loads(lines[index])
    del event["injectedError"]
    lines[index] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    status, report = check(path, "--allow", str(ALLOW))
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"], first["expected"], first["observed"]) == (index + 1, "errorCode", 0, 110)


def test_allow_list_entries_are_classified_and_sourced() -> None:
    allow = AllowList.load(ALLOW)
    assert {e.classification for e in allow.entries} <= {"mock-simplification", "client-behaviour", "injected-fault"}
    assert all(e.description and e.source for e in allow.entries)
    assert len(allow.entries) == 9


def test_bad_allow_list_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"entries": [{"id": "x", "classification": "whatever", "description": "d",
                                            "source": "s", "match": {"kind": "response-mismatch"}}]}))
    with pytest.raises(AllowListError, match="classification"):
        AllowList.load(bad)
    trace = tmp_path / "t.jsonl"
    trace.write_text("")
    assert main(["check", "-q", str(trace), "--allow", str(bad)]) == 2


def test_join_order_range_gives_extras_by_index_among_all_members() -> None:
    spec = GroupSpec(members={m: MemberSpec(m, None, None, frozenset({"T"})) for m in ("b", "a", "c")},
                     subscription_type=SubscriptionType.HOMOGENEOUS)
    out = join_order_range(spec, ["b", "a", "c"], {"T": 4})
    assert out == {"b": {"T": frozenset({0, 1})}, "a": {"T": frozenset({2})}, "c": {"T": frozenset({3})}}


# --- client-side rules (invariants/client.py) -----------------------------------------------

def hb(member: str, epoch: int, owned: list[int] | None) -> dict[str, Any]:
    tps = None if owned is None else [{"topicId": "T", "partitions": owned}]
    return {"memberId": member, "memberEpoch": epoch, "topicPartitions": tps}


def resp(epoch: int, given: list[int] | None, error: int = 0) -> dict[str, Any]:
    asg = None if given is None else {"topicPartitions": [{"topicId": "T", "partitions": given}]}
    return {"errorCode": error, "memberId": "m", "memberEpoch": epoch, "assignment": asg}


def test_client_gaining_before_acknowledging_revocation_is_flagged() -> None:
    ledger = ClientLedger()
    assert ledger.observe(hb("m", 0, []), resp(1, [0, 1])) == []
    assert ledger.observe(hb("m", 1, [0, 1]), resp(1, [0])) == []  # revoke 1
    assert ledger.observe(hb("m", 1, None), resp(2, [0, 2])) == []  # coordinator gives 2 early
    problems = ledger.observe(hb("m", 2, [0, 2]), resp(2, None))
    assert [p.rule for p in problems] == [CLIENT_REVOKES_BEFORE_GAIN]
    assert problems[0].reported == frozenset({("T", 0), ("T", 2)})


def test_client_acknowledging_then_gaining_is_fine() -> None:
    ledger = ClientLedger()
    ledger.observe(hb("m", 0, []), resp(1, [0, 1]))
    ledger.observe(hb("m", 1, [0, 1]), resp(1, [0]))
    assert ledger.observe(hb("m", 1, [0]), resp(2, [0, 2])) == []
    assert ledger.observe(hb("m", 2, [0, 2]), resp(2, None)) == []


def test_client_keeps_its_partitions_after_a_retriable_error_but_not_after_fencing() -> None:
    ledger = ClientLedger()
    ledger.observe(hb("m", 0, []), resp(1, [0, 1]))
    ledger.observe(hb("m", 1, [0, 1]), resp(1, None, error=15))  # COORDINATOR_NOT_AVAILABLE
    assert ledger.observe(hb("m", 1, [0, 1]), resp(1, None)) == []
    ledger.observe(hb("m", 1, None), resp(-1, None, error=110))  # FENCED_MEMBER_EPOCH
    problems = ledger.observe(hb("m", 1, [0, 1]), resp(1, None))
    assert [p.rule for p in problems] == [CLIENT_OWNS_ONLY_GIVEN]


# --- the recorder against the real mock --------------------------------------------------------

HAVE_PEERS = all(importlib.util.find_spec(m) is not None for m in ("confluent_kafka", "kio"))


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_PEERS, reason="needs the peers extra (confluent-kafka, kio)")
def test_recording_script_writes_a_trace_that_checks_under_the_allow_list(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "record_librdkafka.py"), "-q", "--out", str(tmp_path),
                          "--scenario", "join-revoke-leave"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    trace = tmp_path / "join-revoke-leave.jsonl"
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert events[0]["header"]["configs"]["group.consumer.assignors"] == "range"
    assert events[1]["topic"]["name"] == "t"
    assert events[1]["topic"]["partitions"] == 4
    calls = [e for e in events if "requestHeader" in e]
    assert {e["requestHeader"]["clientId"] for e in calls} == {"c1", "c2", "c3"}
    assert {e["requestHeader"]["requestApiKey"] for e in calls} == {68}
    assert sum(1 for e in calls if e["request"]["memberEpoch"] == -1) == 3  # three clean leaves
    status, report = check(trace, "--allow", str(ALLOW), "--clients")
    assert status == 0, report["findings"]


@pytest.mark.skipif(importlib.util.find_spec("kio") is None, reason="needs kio (the peers extra)")
def test_topic_events_are_the_first_sighting_of_each_topic_in_metadata_responses() -> None:
    from kgspec.conformance.peers.librdkafka import topic_events
    from kgspec.conformance.peers.proxy import Call
    from kgspec.conformance.peers.wire import RequestFrame

    def call(api: int, topics: list[tuple[str, str, int, int]] | None) -> Call:
        response = None if topics is None else {"topics": [
            {"name": n, "topicId": tid, "partitions": [{}] * p, "errorCode": e} for n, tid, p, e in topics]}
        return Call(0.0, 1.0, "c", RequestFrame(api, 12, 1, "c1", {"topics": None}), response)

    t, u = "BBBBBBBBBBBBBBBBBBBBBQ", "CCCCCCCCCCCCCCCCCCCCCQ"
    calls = [call(68, [("x", t, 1, 0)]),  # not a Metadata call
             call(3, [("t", t, 4, 0), ("u", u, 2, 3)]),  # u: an error, no sighting yet
             call(3, [("t", t, 6, 0), ("u", u, 2, 0)]),  # t grew: the first sighting stays
             call(3, None)]  # an undecodable response
    assert topic_events(calls) == [{"name": "t", "topicId": t, "partitions": 4},
                                   {"name": "u", "topicId": u, "partitions": 2}]
