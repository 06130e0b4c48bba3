"""``kgspec check`` on the golden offset traces (they conform), one-line mutants of them
(flagged at their line), and replay: the records alone rebuild the offsets the calls built.

The goldens are written by scripts/make_golden_offsets.py from the model; the values pinned here
are those Kafka's OffsetMetadataManagerTest and ConsumerGroupTest assert.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.writers.dump_log import write_dump_log
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.records import Record

from tests.helpers import (
    Event,
    assert_golden_conforms,
    assert_golden_current,
    check,
    check_events,
    findings,
    golden_script,
    line_of,
    read_jsonl,
)

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "offsets"
MAKE = golden_script("make_golden_offsets")


def load(name: str) -> list[Event]:
    return read_jsonl(GOLDEN / f"{name}.jsonl")


@pytest.mark.parametrize("name", sorted(MAKE.SCENARIOS))
def test_golden_offset_traces_conform(name: str) -> None:
    assert_golden_conforms(GOLDEN / f"{name}.jsonl")


@pytest.mark.parametrize("name", sorted(MAKE.SCENARIOS))
def test_offset_goldens_are_current(name: str, tmp_path: Path) -> None:
    assert_golden_current(MAKE, name, GOLDEN, tmp_path)


def test_golden_values_are_kafkas() -> None:
    events = load("consumer_commits")
    by_ts = {(e["tsMs"], e["requestHeader"]["requestApiKey"]): e["response"] for e in events if "requestHeader" in e}

    def codes(ts: int) -> list[int]:
        return [p["errorCode"] for t in by_ts[(ts, 8)]["topics"] for p in t["partitions"]]

    assert codes(2500) == [Errors.NONE]  # KIP-1251: older epoch, partition held since it
    assert codes(2550) == [Errors.STALE_MEMBER_EPOCH]  # "not assigned or pending revocation for member"
    assert codes(3100) == [Errors.UNKNOWN_MEMBER_ID]  # a member that left
    assert codes(3200) == [Errors.STALE_MEMBER_EPOCH]  # "newer than current member epoch"
    assert codes(3300) == [Errors.UNSUPPORTED_VERSION]  # a KIP-848 member on v8
    assert codes(3400) == [Errors.UNKNOWN_MEMBER_ID]  # epoch -1 on a group with members
    assert codes(3600) == [Errors.UNKNOWN_TOPIC_OR_PARTITION]
    assert by_ts[(2800, 9)]["groups"][0]["errorCode"] == Errors.STALE_MEMBER_EPOCH  # fetch is strict
    simple = {(e["tsMs"], e["requestHeader"]["requestApiKey"]): e["response"] for e in load("simple_commits")
              if "requestHeader" in e}
    assert [p["errorCode"] for p in simple[(1200, 8)]["topics"][0]["partitions"]] == [
        Errors.OFFSET_METADATA_TOO_LARGE, Errors.UNKNOWN_TOPIC_OR_PARTITION]
    assert simple[(1400, 8)]["topics"][0]["partitions"][0]["errorCode"] == Errors.ILLEGAL_GENERATION  # v5, no group


def _codes_and_fetched(name: str) -> tuple[dict[int, list[int]], dict[int, int]]:
    events = load(name)
    codes = {e["tsMs"]: [p["errorCode"] for t in e["response"]["topics"] for p in t["partitions"]]
             for e in events if e.get("requestHeader", {}).get("requestApiKey") == 8}
    fetched = {e["tsMs"]: e["response"]["groups"][0]["topics"][0]["partitions"][0]["committedOffset"]
               for e in events if e.get("requestHeader", {}).get("requestApiKey") == 9}
    return codes, fetched


def test_commit_fencing_golden_values_are_kafkas() -> None:
    # docs/upstream.md, finding 2; every call answered alike by Kafka 4.3 @ 0157ac7cf2c6 (the oracle).
    codes, fetched = _codes_and_fetched("commit_fencing")
    assert codes == {500: [Errors.NONE], 1400: [Errors.NONE], 1500: [Errors.NONE], 1800: [Errors.STALE_MEMBER_EPOCH]}
    assert fetched == {1600: 10, 1900: 10}  # m1's late commit overwrote m2's 100
    codes, fetched = _codes_and_fetched("commit_fencing_interval_0")
    assert codes == {500: [Errors.STALE_MEMBER_EPOCH], 1400: [Errors.NONE], 1500: [Errors.STALE_MEMBER_EPOCH],
                     1800: [Errors.STALE_MEMBER_EPOCH]}
    assert fetched == {1600: 100, 1900: 100}
    # The second path needs no interval: UNREVOKED_PARTITIONS to UNREVOKED_PARTITIONS at epoch 2.
    codes, fetched = _codes_and_fetched("commit_fencing_unrevoked")
    assert codes == {700: [Errors.NONE], 800: [Errors.NONE], 1100: [Errors.STALE_MEMBER_EPOCH]}
    assert fetched == {900: 10}


@pytest.mark.parametrize(("name", "ts"), [("commit_fencing", 500), ("commit_fencing", 1500),
                                        ("commit_fencing_unrevoked", 800)])
def test_commit_fencing_fixed_behaviour_is_rejected(name: str, ts: int, tmp_path: Path) -> None:
    # What a fix would answer (STALE_MEMBER_EPOCH for a partition m1 no longer holds) is not Kafka 4.3.
    events = load(name)
    line = _mutate_commit_error(events, ts, Errors.STALE_MEMBER_EPOCH)
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report)[0] == (line, "response-mismatch", "errorCode")


def test_commit_fencing_is_judged_at_the_current_epoch_under_kip(tmp_path: Path) -> None:
    # kip keeps the invariant strict: Kafka's accepted late commit is named there.
    status, report = check(GOLDEN / "commit_fencing.jsonl", "--profile", "kip")
    line = line_of(load("commit_fencing"), 500, 8)
    assert status == 1
    assert (line, "invariant", "commit-fencing") in findings(report)


def _mutate_commit_error(events: list[Event], ts: int, code: int, api: int = 8) -> int:
    """Answer the first partition of the commit (OffsetCommit, or ``api``) at ``ts`` with ``code``: its line."""
    line = line_of(events, ts, api)
    events[line - 1]["response"]["topics"][0]["partitions"][0]["errorCode"] = code
    return line


def test_an_accepted_zombie_commit_is_a_mismatch_and_breaks_commit_fencing(tmp_path: Path) -> None:
    events = load("consumer_commits")
    line = _mutate_commit_error(events, 3100, 0)  # the coordinator lets the member that left commit
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report)[:2] == [(line, "response-mismatch", "errorCode"), (line, "invariant", "commit-fencing")]


def test_a_commit_for_a_partition_given_up_accepted_breaks_commit_fencing(tmp_path: Path) -> None:
    events = load("consumer_commits")
    line = _mutate_commit_error(events, 2550, 0)
    _, report = check_events(tmp_path, events)
    assert findings(report)[:2] == [(line, "response-mismatch", "errorCode"), (line, "invariant", "commit-fencing")]
    assert "does not hold it" in report["findings"][1]["message"]


def test_a_refused_good_commit_is_a_mismatch(tmp_path: Path) -> None:
    events = load("consumer_commits")
    line = _mutate_commit_error(events, 2500, Errors.STALE_MEMBER_EPOCH)
    _, report = check_events(tmp_path, events)
    # the model writes the record the trace does not show: the record check says so too
    assert findings(report)[0] == (line, "response-mismatch", "errorCode")


def test_a_wrong_fetched_offset_is_a_mismatch(tmp_path: Path) -> None:
    events = load("consumer_commits")
    line = line_of(events, 2700, 9)
    events[line - 1]["response"]["groups"][0]["topics"][0]["partitions"][1]["committedOffset"] = 5
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "committedOffset")]


def test_a_wrong_group_error_in_a_fetch_is_a_mismatch(tmp_path: Path) -> None:
    events = load("streams_commits")
    line = line_of(events, 1600, 9)
    events[line - 1]["response"]["groups"][0]["errorCode"] = 0
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "errorCode")]


def test_a_wrong_offset_record_is_a_mismatch_at_its_line(tmp_path: Path) -> None:
    events = load("simple_commits")
    line = next(i for i, e in enumerate(events, 1) if "record" in e and e["record"]["value"]["version"] == 1)
    events[line - 1]["record"]["value"]["data"]["expireTimestamp"] += 1
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "record")]


def test_a_streams_commit_accepted_at_an_old_epoch_is_flagged(tmp_path: Path) -> None:
    events = load("streams_commits")
    line = _mutate_commit_error(events, 1300, 0)
    _, report = check_events(tmp_path, events)
    assert findings(report)[:2] == [(line, "response-mismatch", "errorCode"), (line, "invariant", "commit-fencing")]


def test_a_batched_fetch_is_split_by_group() -> None:
    events = load("consumer_commits")
    _, report = check(GOLDEN / "consumer_commits.jsonl")
    assert {g["groupId"] for g in report["groups"]} == {"g", "h"}  # h: named only by the batched fetch
    assert next(e for e in events if e.get("tsMs") == 3500)["response"]["groups"][1] == {
        "groupId": "h", "topics": [], "errorCode": 0}  # an unknown group: no offsets, no error


# --- replay ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MAKE.SCENARIOS))
def test_replay_of_the_records_rebuilds_the_offsets(name: str) -> None:
    recorder = MAKE.SCENARIOS[name]()
    fresh = Coordinator("kafka-4.3")
    for event in recorder.events:
        if "record" in event:
            fresh.replay(Record.from_json(json.loads(json.dumps(event["record"]))))
        elif event.get("requestHeader", {}).get("requestApiKey") == 27:  # a transaction's end marker
            fresh.handle(27, event["requestHeader"]["requestApiVersion"], event["request"], now=event["tsMs"])
    assert fresh.offsets.snapshot() == recorder.coord.offsets.snapshot()
    assert fresh.offsets.snapshot()["offsets"]  # not vacuous


@pytest.mark.parametrize("name", sorted(MAKE.SCENARIOS))
def test_records_alone_check_clean(name: str, tmp_path: Path) -> None:
    events = [e for e in load(name) if "record" in e or "header" in e or "topic" in e]
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0


def test_a_dump_log_of_offset_records_replays(tmp_path: Path) -> None:
    out = io.StringIO()
    write_dump_log(load("consumer_commits"), out)
    path = tmp_path / "00000000000000000000.log.dump"
    path.write_text(out.getvalue())
    status, report = check(path)
    assert report["findings"] == []
    assert status == 0
    assert '"type":"1"' in out.getvalue()


# --- OffsetDelete ------------------------------------------------------------------------------


def test_an_offset_delete_of_a_subscribed_topic_answered_none_is_a_mismatch(tmp_path: Path) -> None:
    events = load("consumer_commits")
    line = line_of(events, 3700, 47)
    assert events[line - 1]["response"]["topics"][0]["partitions"][0]["errorCode"] == Errors.GROUP_SUBSCRIBED_TO_TOPIC
    events[line - 1]["response"]["topics"][0]["partitions"][0]["errorCode"] = 0
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "errorCode")]


def test_a_missing_offset_tombstone_is_flagged(tmp_path: Path) -> None:
    events = load("simple_commits")
    line = line_of(events, 1900, 47)
    assert events[line]["record"]["value"] is None  # the tombstone follows the call
    del events[line]
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "record")]


@pytest.mark.parametrize("value", [{"metadata": "", "commitTimestamp": 1}, {"offset": 1.5, "commitTimestamp": 1},
                                   {"offset": 10, "commitTimestamp": "x"}, {"offset": 10, "topicId": 7}])
def test_an_offset_record_kafka_could_not_read_is_a_replay_finding(value: dict[str, object],
                                                                   tmp_path: Path) -> None:
    """Found by the input fuzz suite: a record-only trace whose offset value lacked ``offset``
    stopped the checker (exit 3, a KeyError in the replay); Kafka's deserializer refuses it."""
    events = [{"header": {"format": "kgspec-trace/1", "profile": "kafka-4.3", "configs": {}}},
              {"tsMs": 1000, "record": {"key": {"type": 1, "data": {"group": "g", "topic": "t", "partition": 0}},
                                        "value": {"version": 3, "data": value}}}]
    status, report = check_events(tmp_path, events)
    assert status == 1
    [finding] = report["findings"]
    assert (finding["line"], finding["groupId"], finding["kind"], finding["field"]) == (2, "g", "invariant", "replay")
    assert "must be" in finding["message"]


# --- the comparison of error codes, and malformed requests -------------------------------------


def test_a_commit_response_missing_or_adding_a_partition_is_a_mismatch(tmp_path: Path) -> None:
    events = load("simple_commits")
    line = line_of(events, 1200, 8)  # bar-2 OFFSET_METADATA_TOO_LARGE, bar-3 UNKNOWN_TOPIC_OR_PARTITION
    partitions = events[line - 1]["response"]["topics"][0]["partitions"]
    partitions[1]["partitionIndex"] = 4
    _, report = check_events(tmp_path, events)
    assert [(f["line"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (line, "response-mismatch", "topics.partitions", "the response has no entry for partition bar-3"),
        (line, "response-mismatch", "topics.partitions",
         "the response answers partition bar-4, which the request does not name")]


def test_a_refused_commit_names_the_models_reasons(tmp_path: Path) -> None:
    events = load("simple_commits")
    line = _mutate_commit_error(events, 1200, 0)
    _, report = check_events(tmp_path, events)
    [finding] = report["findings"]
    assert (finding["line"], finding["field"], finding["expected"], finding["observed"]) == (
        line, "errorCode", Errors.OFFSET_METADATA_TOO_LARGE, 0)
    assert finding["message"] == ("partition bar-2: the coordinator must answer OFFSET_METADATA_TOO_LARGE (12), not "
                                  "NONE (0): bar-2: metadata of 4097 characters > offset.metadata.max.bytes 4096")


def test_an_offset_delete_answered_with_another_group_error_is_a_mismatch(tmp_path: Path) -> None:
    events = load("simple_commits")
    line = line_of(events, 2000, 47)  # groupId "": INVALID_GROUP_ID
    events[line - 1]["response"]["errorCode"] = 0
    _, report = check_events(tmp_path, events)
    assert [(f["line"], f["field"], f["message"]) for f in report["findings"]] == [
        (line, "errorCode", "the coordinator must answer INVALID_GROUP_ID (24), not NONE (0): INVALID_GROUP_ID")]


@pytest.mark.parametrize(("api", "version", "body", "field"), [
    (9, 9, {"groups": [{"groupId": "g", "topics": [{"name": "bar", "partitionIndexes": ["0"]}]}]},
     "request.groups[0].topics[0].partitionIndexes"),
    (9, 9, {"groups": [{"groupId": "g", "topics": None}, {"groupId": "h", "memberEpoch": "1", "topics": None}]},
     "request.groups[1].memberEpoch"),
    (9, 7, {"groupId": "g", "topics": [{"name": "bar", "partitionIndexes": [0.5]}]}, "request.topics[0].partitionIndexes"),
    (9, 3, {"topics": None}, "request.groupId"),
    (8, 9, {"groupId": "g", "generationIdOrMemberEpoch": 1.5, "topics": []}, "request.generationIdOrMemberEpoch"),
    (47, 0, {"groupId": "g", "topics": [{"name": "bar", "partitions": [{"partitionIndex": None}]}]},
     "request.topics[0].partitions"),
])
def test_a_malformed_offsets_request_is_named_by_its_field(api: int, version: int, body: dict[str, Any],
                                                          field: str, tmp_path: Path) -> None:
    events = [{"header": {"format": "kgspec-trace/1", "profile": "kafka-4.3", "configs": {}}},
              {"tsMs": 1000, "requestHeader": {"requestApiKey": api, "requestApiVersion": version, "clientId": "c"},
               "request": body, "response": {}}]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [(2, "malformed", field)]


# --- DeleteGroups (API 42) ---------------------------------------------------------------------


def test_delete_groups_golden_values_are_kafkas() -> None:
    events = load("delete_groups")
    by_ts = {e["tsMs"]: e for e in events if e.get("requestHeader", {}).get("requestApiKey") == 42}
    assert by_ts[1400]["response"]["results"] == [{"groupId": "g", "errorCode": Errors.NON_EMPTY_GROUP}]
    # duplicates answered once, in shard then hash-set order; the unknown id GROUP_ID_NOT_FOUND
    assert by_ts[1600]["response"]["results"] == [{"groupId": "s", "errorCode": 0}, {"groupId": "g", "errorCode": 0},
                                                  {"groupId": "nope", "errorCode": Errors.GROUP_ID_NOT_FOUND}]
    assert by_ts[1800]["response"]["results"] == [{"groupId": "g", "errorCode": Errors.GROUP_ID_NOT_FOUND}]
    deleted = [e["record"]["key"] for e in events if e.get("tsMs") == 1600 and "record" in e]
    assert deleted == [{"type": 1, "data": {"group": "s", "topic": "foo", "partition": 0}},
                       {"type": 2, "data": {"group": "s"}},
                       {"type": 1, "data": {"group": "g", "topic": "foo", "partition": 0}},
                       {"type": 1, "data": {"group": "g", "topic": "foo", "partition": 1}},
                       {"type": 6, "data": {"groupId": "g"}}, {"type": 4, "data": {"groupId": "g"}},
                       {"type": 3, "data": {"groupId": "g"}}]
    fetched = next(e for e in events if e.get("tsMs") == 1700)["response"]["groups"]
    assert fetched == [{"groupId": "g", "topics": [], "errorCode": 0}, {"groupId": "s", "topics": [], "errorCode": 0}]


def test_a_delete_of_a_non_empty_group_accepted_is_a_mismatch(tmp_path: Path) -> None:
    events = load("delete_groups")
    line = line_of(events, 1400, 42)
    events[line - 1]["response"]["results"][0]["errorCode"] = 0
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "results.errorCode")]
    assert "NON_EMPTY_GROUP" in report["findings"][0]["message"]


def test_a_delete_without_its_group_tombstone_is_flagged_at_the_groups_next_call(tmp_path: Path) -> None:
    events = load("delete_groups")
    tombstone = next(i for i, e in enumerate(events, 1) if e.get("tsMs") == 1600 and "record" in e
                     and e["record"]["key"]["type"] == 2)
    del events[tombstone - 1]  # the simple group's GroupMetadata tombstone left out
    _, report = check_events(tmp_path, events)
    # the group's next call comes while the model's tombstone is unseen; its record is not the tombstone
    call = line_of(events, 1900, 8)
    assert findings(report) == [(call, "response-mismatch", "record"), (call + 1, "response-mismatch", "record")]
    assert report["findings"][1]["message"].startswith("expected GroupMetadata(group=s) tombstone")


def test_a_delete_result_for_a_group_not_named_is_flagged(tmp_path: Path) -> None:
    events = load("delete_groups")
    line = line_of(events, 1800, 42)
    events[line - 1]["response"]["results"].append({"groupId": "other", "errorCode": 0})
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "results")]


def test_delete_groups_of_a_malformed_request_names_the_field(tmp_path: Path) -> None:
    events = load("delete_groups")
    line = line_of(events, 1800, 42)
    events[line - 1]["request"]["groupsNames"] = ["g", 7]
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "malformed", "request.groupsNames[1]")]


# --- expiry (the offsets' cleanup timer) ----------------------------------------------------------


def test_expiry_golden_values_are_kafkas() -> None:
    """Retention 1 min, cleanup every 10 s from the load at 0: s's v4-retention offset (expire
    time 4000) goes at the 10 s run; at 70 s g (empty since 40 s, offsets of 2000) and s (commit
    of 1000) lose their offsets, then the groups their records."""
    events = load("expiry")
    tombstones = [(e["tsMs"], e["record"]["key"]["type"], e["record"]["key"]["data"].get("group"))
                  for e in events if "record" in e and e["record"]["value"] is None
                  and e["record"]["key"]["type"] in (1, 2, 3)]
    assert tombstones == [(10_000, 1, "s"), (70_000, 1, "g"), (70_000, 1, "g"), (70_000, 3, None),
                          (70_000, 1, "s"), (70_000, 2, "s")]


def test_an_expiry_kafka_did_not_run_is_flagged(tmp_path: Path) -> None:
    events = [e for e in load("expiry") if e.get("tsMs") != 70_000]
    _, report = check_events(tmp_path, events)
    tick = next(i for i, e in enumerate(events, 1) if e.get("tsMs") == 80_000 and "tick" in e)
    # the tick after the run: each group's tombstones are missing; s's next record is no tombstone
    assert sorted((f["line"], f["groupId"], f["kind"], f["field"]) for f in report["findings"]) == [
        (tick, "g", "response-mismatch", "record"), (tick, "s", "response-mismatch", "record"),
        (tick + 3, "s", "response-mismatch", "record")]


def test_an_offset_expired_early_is_flagged_at_its_line(tmp_path: Path) -> None:
    events = load("expiry")
    line = next(i for i, e in enumerate(events, 1) if e.get("tsMs") == 10_000 and "record" in e)
    events[line - 1]["record"]["key"]["data"]["partition"] = 0  # foo-0 is not expired at 10 s
    _, report = check_events(tmp_path, events)
    assert findings(report)[0] == (line, "response-mismatch", "record")


def test_without_a_load_the_cleanup_phase_is_unknown(tmp_path: Path) -> None:
    """No failover tick: the model does not know when the coordinator loaded its partition, runs
    no cleanup, and the trace's expiry tombstones are records it did not write."""
    events = [e for e in load("expiry") if not e.get("tick", {}).get("coordinatorFailover")]
    _, report = check_events(tmp_path, events)
    line = next(i for i, e in enumerate(events, 1) if e.get("tsMs") == 10_000 and "record" in e)
    assert findings(report)[0] == (line, "response-mismatch", "record")
    assert "the model writes nothing here" in report["findings"][0]["message"]


# --- TxnOffsetCommit and WriteTxnMarkers ------------------------------------------------------------


def test_transactions_golden_values_are_kafkas() -> None:
    events = load("transactions")
    calls = {(e["tsMs"], e["requestHeader"]["requestApiKey"]): e["response"] for e in events if "requestHeader" in e}

    def fetched(ts: int) -> list[tuple[int, int]]:
        return [(p["committedOffset"], p["errorCode"]) for p in calls[(ts, 9)]["groups"][0]["topics"][0]["partitions"]]

    assert fetched(1300) == [(-1, Errors.UNSTABLE_OFFSET_COMMIT)] * 2  # pending: requireStable
    assert fetched(1500) == [(10, 0), (11, 0)]  # committed by the marker
    assert fetched(2000) == [(10, 0), (-1, Errors.UNSTABLE_OFFSET_COMMIT)]  # 20 aborted; 40 pending
    assert calls[(1800, 28)]["topics"][0]["partitions"][0]["errorCode"] == Errors.ILLEGAL_GENERATION
    records = [e["record"] for e in events if "record" in e and e["record"]["key"]["type"] == 1]
    assert [(r["producerId"], r["value"]["data"]["offset"]) for r in records] == [(7, 10), (7, 11), (8, 20), (9, 40)]
    assert all("topicId" not in r["value"]["data"] for r in records)  # fromRequest: the zero id


def test_a_transactional_record_without_its_producer_is_a_mismatch(tmp_path: Path) -> None:
    events = load("transactions")
    line = next(i for i, e in enumerate(events, 1) if "record" in e and e["record"].get("producerId") == 8)
    del events[line - 1]["record"]["producerId"]  # written as a plain commit
    _, report = check_events(tmp_path, events)
    assert findings(report)[0] == (line, "response-mismatch", "record")
    assert "producer 8's transaction" in report["findings"][0]["message"]


def test_a_pending_offset_fetched_as_stable_is_a_mismatch(tmp_path: Path) -> None:
    events = load("transactions")
    line = line_of(events, 1300, 9)
    events[line - 1]["response"]["groups"][0]["topics"][0]["partitions"][0].update(committedOffset=10, errorCode=0)
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "errorCode"), (line, "response-mismatch", "committedOffset")]


def test_a_stale_transactional_commit_accepted_is_a_mismatch(tmp_path: Path) -> None:
    events = load("transactions")
    line = _mutate_commit_error(events, 1800, 0, api=28)  # TxnOffsetCommit
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "errorCode")]


def test_an_aborted_transaction_seen_committed_is_a_mismatch(tmp_path: Path) -> None:
    events = load("transactions")
    marker = line_of(events, 1700, 27)
    events[marker - 1]["request"]["markers"][0]["transactionResult"] = True  # the trace's Kafka committed 20
    line = line_of(events, 2000, 9)
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(line, "response-mismatch", "committedOffset")]  # the model says 20, Kafka 10


def test_a_failed_marker_on_the_offsets_topic_is_flagged(tmp_path: Path) -> None:
    events = load("transactions")
    line = line_of(events, 1400, 27)
    events[line - 1]["response"]["markers"][0]["topics"][0]["partitions"][0]["errorCode"] = 6  # NOT_LEADER_OR_FOLLOWER
    _, report = check_events(tmp_path, events)
    assert findings(report)[0] == (line, "response-mismatch", "markers.topics.partitions.errorCode")


@pytest.mark.parametrize("name", ["delete_groups", "transactions"])
def test_request_log_of_the_new_apis_is_checked_not_unsupported(name: str, tmp_path: Path) -> None:
    """DeleteGroups, TxnOffsetCommit and WriteTxnMarkers are read from a broker request log and
    checked (a request log has no records: the responses alone)."""
    from kgspec.conformance.writers.request_log import write_request_log
    out = io.StringIO()
    write_request_log(load(name), out)
    path = tmp_path / "server.log"
    path.write_text(out.getvalue())
    status, report = check(path, "--config", "group.consumer.assignment.interval.ms=0")
    assert report["findings"] == []
    assert status == 0
    apis = {28, 27} if name == "transactions" else {42}
    assert apis <= {e["requestHeader"]["requestApiKey"] for e in load(name) if "requestHeader" in e}
    assert report["inputs"][0]["events"] == sum(1 for e in load(name) if "requestHeader" in e or "topic" in e)


def test_a_record_with_a_bad_producer_id_is_malformed_at_its_line(tmp_path: Path) -> None:
    events = load("transactions")
    line = next(i for i, e in enumerate(events, 1) if "record" in e and e["record"].get("producerId") == 8)
    events[line - 1]["record"]["producerId"] = "x"
    _, report = check_events(tmp_path, events)
    malformed = [f for f in report["findings"] if f["kind"] == "malformed"]
    assert [(f["line"], f["message"]) for f in malformed] == [
        (line, "record.producerId must be a non-negative integer")]


def test_a_dump_log_of_transactions_is_written_as_kafka_prints_it() -> None:
    """The writer puts a transactional record in its producer's batch and a marker in a control
    batch; the reader does not read them yet (docs/offsets.md, "Transactions"): the records
    replay as committed ones, the markers are skipped control records."""
    from kgspec.conformance.readers.dump_log import read_dump_log
    out = io.StringIO()
    write_dump_log(load("transactions"), out)
    text = out.getvalue()
    assert "producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: false" in text
    assert "isTransactional: true isControl: true" in text
    assert [line.split("endTxnMarker: ")[1] for line in text.splitlines() if "endTxnMarker" in line] == [
        "COMMIT coordinatorEpoch: 0", "ABORT coordinatorEpoch: 0"]
    skipped = [i.reason for i in read_dump_log(io.BytesIO(text.encode())) if type(i).__name__ == "Skipped"]
    assert skipped.count("control record") == 2


def test_a_marker_record_of_a_native_trace_is_validated(tmp_path: Path) -> None:
    events = load("transactions")
    events.append({"tsMs": 3000, "record": {"endTxnMarker": "MAYBE", "producerId": 9}})
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(len(events), "malformed", "record.endTxnMarker")]


def test_a_marker_record_of_a_native_trace_ends_the_transaction(tmp_path: Path) -> None:
    """``{"endTxnMarker": "COMMIT", "producerId": 9}``: producer 9's pending 40 on foo-1 is committed."""
    events = load("transactions")
    events.append({"tsMs": 3000, "record": {"endTxnMarker": "COMMIT", "producerId": 9}})
    fetch_all = next(e for e in events if e.get("tsMs") == 2000)
    after = json.loads(json.dumps(fetch_all))
    after["tsMs"] = 3100
    after["response"]["groups"][0]["topics"][0]["partitions"][1].update(committedOffset=40, errorCode=0)
    events.append(after)
    status, report = check_events(tmp_path, events)
    assert report["findings"] == []
    assert status == 0
    wrong = json.loads(json.dumps(after))
    wrong["tsMs"] = 3200
    wrong["response"]["groups"][0]["topics"][0]["partitions"][1]["committedOffset"] = 11  # as if aborted
    events.append(wrong)
    _, report = check_events(tmp_path, events)
    assert findings(report) == [(len(events), "response-mismatch", "committedOffset")]
