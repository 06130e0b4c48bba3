"""`kgspec check` on golden traces (must conform), mutated copies (rejected at the right
line) and bad input (findings with line numbers, never a crash)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgspec.cli import main
from tests.helpers import Event, check, check_events, golden_script, read_jsonl, write_jsonl

GOLDEN = Path(__file__).parent / "golden" / "consumer"


def load(name: str) -> list[Event]:
    return read_jsonl(GOLDEN / name)


def call_line(events: list[Event], ts: int, member: str | None = None) -> int:
    for i, e in enumerate(events, 1):
        if e.get("tsMs") == ts and "requestHeader" in e and (member is None or e["request"].get("memberId") == member):
            return i
    raise AssertionError(f"no call at {ts}")


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.jsonl")))
def test_golden_traces_conform(name: str, tmp_path: Path) -> None:
    status, report = check(GOLDEN / name)
    assert report["findings"] == []
    assert status == 0
    lines = len([x for x in (GOLDEN / name).read_text().splitlines() if x.strip()])
    assert report["inputs"][0]["lines"] == lines
    assert report["inputs"][0]["events"] == lines
    assert {g["verdict"] for g in report["groups"]} == {"conforms"}
    events = load(name)
    group_ids = sorted({g for e in events if "request" in e  # a Describe names its groups
                        for g in e["request"].get("groupIds") or [e["request"]["groupId"]]})
    assert [(g["groupId"], g["type"], g["verdict"]) for g in report["groups"]] == [
        (group_id, "consumer", "conforms") for group_id in group_ids]
    # every call and record belongs to a group; headers, ticks and topic changes to none
    assert sum(g["events"] for g in report["groups"]) == sum(
        1 for e in events if not {"header", "tick", "topic"} & e.keys())


MAKE_GOLDEN = golden_script("make_golden")


@pytest.mark.parametrize("name", [*MAKE_GOLDEN.SCENARIOS, "uniform_recorded"])
def test_goldens_are_current(name: str, tmp_path: Path) -> None:
    recorder = MAKE_GOLDEN.two_members("kafka-4.3", MAKE_GOLDEN.NO_BATCHING) if name == "uniform_recorded" \
        else MAKE_GOLDEN.SCENARIOS[name]()
    written = recorder.write(tmp_path / f"{name}.jsonl")
    assert written.read_text() == (GOLDEN / f"{name}.jsonl").read_text(), "run scripts/make_golden.py"



def test_goldens_do_not_depend_on_pythons_hash_seed(tmp_path: Path) -> None:
    """Set iteration order varies with PYTHONHASHSEED; the topics of an assignment (records 7 and 8,
    responses) must not (two goldens were once written in a seed's order)."""
    code = ("import sys; sys.path.insert(0, '.'); from pathlib import Path; from tests.helpers import golden_script; "
            "m = golden_script('make_golden'); "
            "[f().write(Path(sys.argv[1]) / f'{n}.jsonl') for n, f in m.SCENARIOS.items()]")
    root = Path(__file__).resolve().parent.parent
    for seed in ("1", "2"):
        (tmp_path / seed).mkdir()
        subprocess.run([sys.executable, "-c", code, str(tmp_path / seed)], cwd=root, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True)
    names = sorted(MAKE_GOLDEN.SCENARIOS)
    assert [(tmp_path / "1" / f"{n}.jsonl").read_text() for n in names] == [
        (GOLDEN / f"{n}.jsonl").read_text() for n in names]
    assert [(tmp_path / "2" / f"{n}.jsonl").read_text() for n in names] == [
        (GOLDEN / f"{n}.jsonl").read_text() for n in names]

# --- the goldens hold Kafka's values (so regenerating them cannot hide a regression) ----------


def responses(events: list[Event]) -> list[tuple[int, str, int, int, Any]]:
    return [(e["tsMs"], e["request"].get("memberId"), e["request"].get("memberEpoch"),
             e["response"].get("memberEpoch"), e["response"].get("errorCode"))
            for e in events if "requestHeader" in e and e["requestHeader"]["requestApiKey"] == 68]


def test_join_golden_has_kafka_epochs_and_record_order() -> None:
    events = load("join_with_records.jsonl")
    # testMemberJoinsEmptyConsumerGroup (4.3): epoch 2; records 5, 3(epoch 2), 7, 6(2), 8.
    first_call = call_line(events, 1000)
    types = []
    for e in events[first_call:]:
        if "record" not in e:
            break
        types.append(e["record"]["key"]["type"])
    assert types == [5, 3, 7, 6, 8]
    assert events[first_call]["record"]["value"]["data"]["subscribedTopicRegex"] == ""
    assert events[first_call + 1]["record"]["value"]["data"]["epoch"] == 2
    assert responses(events)[0] == (1000, "m1", 0, 2, 0)
    # The second member joins at epoch 3 with nothing (UNRELEASED); m1 revokes at epoch 2 first.
    assert responses(events)[1] == (2000, "m2", 0, 3, 0)
    assert responses(events)[2][3] == 2
    assert responses(events)[3][3] == 3


def test_kafka_41_golden_starts_at_epoch_one() -> None:
    # Before KAFKA-20268 new groups start at 0, so the first member gets epoch 1.
    assert [r[3] for r in responses(load("kafka_41.jsonl"))] == [1, 2, 1, 2, 2]


def test_batching_golden_follows_the_assignment_interval() -> None:
    # testConsumerGroupAssignmentInterval: m2 joins inside the interval -> old target epoch 2;
    # after the interval its heartbeat computes epoch 3.
    assert [r[3] for r in responses(load("batching.jsonl"))] == [2, 2, 3, 2]


def test_static_golden_has_kafka_error_codes() -> None:
    rs = responses(load("static_membership.jsonl"))
    codes = {(ts, member): (epoch, err) for ts, member, _, epoch, err in rs}
    assert codes[(600, "m2b")] == (0, 111)  # UNRELEASED_INSTANCE_ID
    assert codes[(700, "m2")] == (-2, 0)  # temporary leave answers epoch -2
    assert codes[(800, "m2b")][1] == 0
    assert codes[(900, "m2")] == (0, 82)  # FENCED_INSTANCE_ID


def test_validation_golden_has_kafka_error_codes() -> None:
    assert [r[4] for r in responses(load("validation_errors.jsonl"))] == [42, 42, 42, 42, 112, 69, 0, 25, 110]


def test_timeouts_golden_fences_on_rebalance_then_session_timeout() -> None:
    events = load("timeouts.jsonl")
    fences = [(e["tsMs"], e["record"]["value"]["data"]["epoch"]) for e in events
              if "record" in e and e["record"]["key"]["type"] == 3]
    # joins bump to 2 and 3; the rebalance timeout (5100 + 10000) fences m1 -> 4;
    # m2's session (last heartbeat 5000 + 45000) expires -> 5.
    assert fences == [(0, 2), (5000, 3), (15100, 4), (50000, 5)]


# --- mutated copies are rejected at the right line ----------------------------------------


def _set_response(field: str, value: Any) -> Callable[[Event], None]:
    def mutate(e: Event) -> None:
        e["response"][field] = value
    return mutate


def _add_partitions(parts: list[int]) -> Callable[[Event], None]:
    def mutate(e: Event) -> None:
        tps = e["response"]["assignment"]["topicPartitions"]
        topic_id = tps[0]["topicId"] if tps else "q81hsiQxUtq5ITI-WXGnvw"
        e["response"]["assignment"]["topicPartitions"] = [{"topicId": topic_id, "partitions": parts}]
    return mutate


MUTATIONS = [
    # (golden, ts, member, mutation, field, expected, observed)
    ("join_with_records.jsonl", 3000, "m1", _set_response("memberEpoch", 3), "memberEpoch", 2, 3),  # bump while revoking
    ("join_with_records.jsonl", 2000, "m2", _add_partitions([3, 4, 5]), "assignment", {}, {"foo": [3, 4, 5]}),  # grant before ack
    ("validation_errors.jsonl", 900, "m1", _set_response("errorCode", 0), "errorCode", 110, 0),  # accept a stale epoch
    ("static_membership.jsonl", 600, "m2b", _set_response("errorCode", 0), "errorCode", 111, 0),
    ("reconciliation.jsonl", 100, "m1", _set_response("heartbeatIntervalMs", 3000), "heartbeatIntervalMs", 5000, 3000),
    ("join_with_records.jsonl", 1000, "m1", _set_response("assignment", None), "assignment", {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]}, None),
]


@pytest.mark.parametrize(("golden", "ts", "member", "mutate", "field", "expected", "observed"), MUTATIONS)
def test_mutated_trace_is_rejected_at_the_line(tmp_path: Path, golden: str, ts: int, member: str,
                                                mutate: Callable[[Event], None], field: str,
                                                expected: Any, observed: Any) -> None:
    events = load(golden)
    line = call_line(events, ts, member)
    mutate(events[line - 1])
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"]) == (line, "response-mismatch", field)
    assert (first["expected"], first["observed"]) == (expected, observed)


def test_session_timeout_not_fenced_is_rejected(tmp_path: Path) -> None:
    """A coordinator that accepts a member after its session expired (a heartbeat at 60000)."""
    events = load("timeouts.jsonl")
    m1_last = next(e for e in events if "requestHeader" in e and e["tsMs"] == 5100)
    late = json.loads(json.dumps(m1_last))
    late["tsMs"] = 60_001
    late["request"]["memberEpoch"] = 2
    late["response"] = {"errorCode": 0, "errorMessage": None, "memberId": "m1", "memberEpoch": 2,
                        "heartbeatIntervalMs": 5000, "assignment": None}
    events.append(late)
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert report["findings"][0]["line"] == len(events)
    assert report["findings"][0]["field"] == "errorCode"
    assert report["findings"][0]["expected"] == 25  # UNKNOWN_MEMBER_ID: it was fenced


def test_wrong_record_is_rejected_at_its_line(tmp_path: Path) -> None:
    events = load("join_with_records.jsonl")
    index = next(i for i, e in enumerate(events) if "record" in e and e["record"]["key"]["type"] == 3)
    events[index]["record"]["value"]["data"]["epoch"] = 7
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert (report["findings"][0]["line"], report["findings"][0]["field"]) == (index + 1, "record")


def test_uniform_alternative_target_is_accepted_and_unbalanced_one_rejected(tmp_path: Path) -> None:
    assert check(GOLDEN / "uniform_alternative.jsonl")[0] == 0
    events = load("uniform_recorded.jsonl")
    line = call_line(events, 300, "m1")
    topic_id = events[1]["topic"]["topicId"]
    events[line - 1]["response"]["assignment"] = {"topicPartitions": [{"topicId": topic_id, "partitions": [1, 2, 3]}]}
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert report["findings"][0]["line"] == line
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [(line, "response-mismatch", "assignment")]


# --- bad input -------------------------------------------------------------------------------------


def test_bad_lines_become_findings_and_checking_goes_on(tmp_path: Path) -> None:
    good = load("reconciliation.jsonl")
    lines = [json.dumps(e) for e in good[:4]]
    lines.append('{"tsMs": 150, "requestHeader": {"requestApiKey": 68')  # broken JSON
    # ShareGroupHeartbeat: unsupported (OffsetCommit, then TxnOffsetCommit, which this line used,
    # are modelled since issue #15)
    lines.append(json.dumps({"tsMs": 160, "requestHeader": {"requestApiKey": 76, "requestApiVersion": 1},
                             "request": {"groupId": "g"}, "response": {"errorCode": 0}}))
    lines.append(json.dumps({"tsMs": 170, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1},
                             "request": {"groupId": "g", "memberId": "m1"}, "response": {"errorCode": 0}}))
    lines.append(json.dumps({"tsMs": 50, "tick": {}}))  # time goes backwards
    lines.append(json.dumps({"tsMs": 180, "topic": {"name": "x", "topicId": "not-a-uuid", "partitions": 1}}))
    lines.append("x" * 300)  # not JSON
    lines.extend(json.dumps(e) for e in good[4:])
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status, report = check(path)
    assert status == 1
    found = sorted((f["line"], f["kind"], f.get("field")) for f in report["findings"])
    assert found == [(5, "malformed", None), (6, "unsupported", "requestHeader.requestApiKey"),
                     (7, "malformed", "request.memberEpoch"), (8, "malformed", "tsMs"),
                     (9, "malformed", "topic.topicId"), (10, "malformed", None)]
    # Every line is accounted for, in one bucket: an event, or malformed: lines the reader could
    # not read (5, 9, 10) and lines the checker found malformed (7, 8: no events).
    assert report["inputs"][0]["lines"] == len(lines)
    assert report["inputs"][0]["events"] == len(lines) - 5
    assert (report["inputs"][0]["malformed"], report["inputs"][0]["skipped"]) == (5, 0)
    # the rest of the trace still conforms: no response mismatch anywhere
    assert not [f for f in report["findings"] if f["kind"] == "response-mismatch"]
    assert report["groups"][0]["verdict"] == "incomplete"


def test_enormous_line_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w") as fh:
        fh.write(json.dumps({"tsMs": 0, "tick": {}}) + "\n")
        fh.write('{"tsMs": 1, "tick": {}, "pad": "' + "a" * (17 * 1024 * 1024) + '"}\n')
        fh.write(json.dumps({"tsMs": 2, "tick": {}}) + "\n")
    status, report = check(path)
    assert status == 1
    assert [(f["line"], f["kind"]) for f in report["findings"]] == [(2, "malformed")]
    assert report["inputs"][0]["lines"] == 3


def test_gzip_and_exit_code_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gz = tmp_path / "t.jsonl.gz"
    gz.write_bytes(gzip.compress((GOLDEN / "batching.jsonl").read_bytes()))
    assert main(["check", "-q", str(gz)]) == 0
    assert main(["check", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad_header = write_jsonl(tmp_path / "h.jsonl", [{"header": {"format": "kgspec-trace/9"}}])
    assert main(["check", str(bad_header)]) == 2


def test_human_output_shows_first_departure_with_context(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = load("join_with_records.jsonl")
    line = call_line(events, 3000, "m1")
    events[line - 1]["response"]["memberEpoch"] = 3
    path = write_jsonl(tmp_path / "t.jsonl", events)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:{line}: group g: response-mismatch (memberEpoch)" in out
    assert "is still revoking" in out
    assert "member before: STABLE at epoch 2" in out
    assert "member after: UNREVOKED_PARTITIONS at epoch 2" in out


def test_coordinator_generated_member_id_is_adopted(tmp_path: Path) -> None:
    from kgspec.conformance.recorder import TraceRecorder

    r = TraceRecorder("kafka-4.3", {"group.consumer.assignment.interval.ms": 0},
                      member_ids=["3f2a9c1e-0000-4000-8000-000000000001"])
    r.topic(0, "foo", 2)
    joined = r.call(10, "c1", {"groupId": "g", "memberId": "", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
                               "subscribedTopicNames": ["foo"], "topicPartitions": []}, version=0)
    assert joined["memberId"] == "3f2a9c1e-0000-4000-8000-000000000001"
    r.heartbeat(20, joined["memberId"], joined["memberEpoch"], topicPartitions=joined["assignment"]["topicPartitions"])
    events = r.events
    generated = joined["memberId"]
    # Another implementation generates another id: legal, and followed from then on.
    for e in events:
        if "request" in e and e["request"].get("memberId") == generated:
            e["request"]["memberId"] = "other-id"
        if "response" in e and e["response"].get("memberId") == generated:
            e["response"]["memberId"] = "other-id"
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0


def test_clients_option_flags_a_client_owning_what_it_was_not_given(tmp_path: Path) -> None:
    events = load("reconciliation.jsonl")
    line = call_line(events, 1000, "m1")
    topic_id = events[1]["topic"]["topicId"]
    events[line - 1]["request"]["topicPartitions"] = [{"topicId": topic_id, "partitions": [0, 1, 2, 5]}]
    status, report = check_events(tmp_path, events, "--clients")
    clients = [f for f in report["findings"] if f["kind"] == "client"]
    assert status == 1
    assert clients[0]["line"] == line
    assert clients[0]["field"] == "topicPartitions"


def test_mutated_describe_is_rejected_per_group_and_member(tmp_path: Path) -> None:
    events = load("reconciliation.jsonl")
    line = call_line(events, 1400)
    group = events[line - 1]["response"]["groups"][0]
    group["groupEpoch"] += 1
    member = next(m for m in group["members"] if m["memberId"] == "m1")
    member["assignment"]["topicPartitions"] = []
    status, report = check_events(tmp_path, events)
    assert status == 1
    fields = [(f["line"], f["field"]) for f in report["findings"]]
    assert fields == [(line, "groupEpoch"), (line, "assignment")]
    assert report["findings"][0]["expected"] == group["groupEpoch"] - 1
