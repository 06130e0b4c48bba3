"""kip (seed 002, "Records"): the seed's epoch-only StreamsGroupMetadataValue (17) and its
StreamsGroupPartitionMetadata record (18), written, replayed and derived from
(model/streams/seed_records.py); Kafka's profiles keep the metadata hash and refuse record 18."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.shapes import record_shape_problem
from kgspec.invariants.replay import replay_equivalence, replay_records
from kgspec.model.coordinator import Coordinator
from kgspec.model.records import Record, ReplayError

from tests.helpers import check_events, read_jsonl
from tests.streams.goldens import GOLDEN
from tests.streams.helpers import BAR, FOO, STATEFUL, coordinator, hb, join, owned, record_types

CHANGELOG = "CCCCCCCCCCCCCCCCCCCCCC"


def _meta(partitions: int = 6) -> dict[str, object]:
    return {"topics": [
        {"topicId": CHANGELOG, "topicName": "app-store-changelog", "numPartitions": partitions, "partitionMetadata": []},
        {"topicId": FOO, "topicName": "foo", "numPartitions": partitions, "partitionMetadata": []}]}


def _grow(c: Coordinator) -> None:
    """Eight partitions for the source topic and its changelog (copartitioned: still ready)."""
    c.update_topic("foo", FOO, 8)
    c.update_topic("app-store-changelog", CHANGELOG, 8)


def _kip() -> Coordinator:
    c = coordinator("kip")
    c.update_topic("app-store-changelog", CHANGELOG, 6)
    return c


def test_join_creates_the_topology_and_partition_metadata_records() -> None:
    """"When the group coordinator receives valid topology metadata in a heartbeat request, both
    records are created, using the topology sent in the request and the topic metadata currently
    known to the group coordinator." Then the seed's record 17: the group epoch alone."""
    c = _kip()
    r = join(c, 0, "m1", "p1", STATEFUL)
    assert record_types(r) == [19, 23, 18, 17, 21, 20, 22]
    assert r.records[2].key == {"groupId": "g"}
    assert r.records[2].value == _meta()  # required topics that exist, by name; no racks: []
    assert r.records[3].value == {"epoch": 2}
    group = c.streams_groups["g"]
    assert group.partition_metadata == (("app-store-changelog", CHANGELOG, 6), ("foo", FOO, 6))
    assert (group.metadata_hash, group.validated_topology_epoch, group.state) == (0, 0, "STABLE")
    # Kafka (trunk): no record 18, record 17 with the metadata hash and the rest
    k = coordinator("kafka-trunk")
    k.update_topic("app-store-changelog", CHANGELOG, 6)
    kafka = join(k, 0, "m1", "p1", STATEFUL)
    assert record_types(kafka) == [19, 23, 17, 21, 20, 22]
    assert kafka.records[2].value is not None
    assert sorted(kafka.records[2].value) == ["epoch", "lastAssignmentConfigs", "metadataHash",
                                              "validatedTopologyEpoch"]


def test_changed_partition_metadata_is_written_and_bumps_the_epoch() -> None:
    """"When the group coordinator detects that the partition metadata for one of the input
    partitions used in the topology changed ... the stream group partition metadata record is
    updated, and a new assignment is computed." """
    c = _kip()
    first = join(c, 0, "m1", "p1", STATEFUL).response
    assert first is not None
    _grow(c)
    r = hb(c, 100, "m1", 2, **owned(first))
    assert record_types(r) == [18, 17, 21, 20, 22]
    assert r.records[0].value == _meta(8)
    assert r.records[1].value == {"epoch": 3}
    assert r.records[2].value is not None
    assert r.records[2].value["activeTasks"] == [{"subtopologyId": "0", "partitions": list(range(8))}]
    # unchanged metadata: no record 18, no bump
    again = hb(c, 200, "m1", 3, **owned(r.response or {}, owned(first)))
    assert 18 not in record_types(again)
    assert 17 not in record_types(again)


def test_missing_changelog_then_created_bumps_through_record_18() -> None:
    """A topic the topology needs is created: the partition metadata changes (record 18), and the
    topology, ready now, is validated from records 23 and 18 alone."""
    c = coordinator("kip")  # no changelog topic yet
    r = join(c, 0, "m1", "p1", STATEFUL)
    assert r.records[2].value == {"topics": [{"topicId": FOO, "topicName": "foo", "numPartitions": 6,
                                              "partitionMetadata": []}]}
    group = c.streams_groups["g"]
    assert (group.validated_topology_epoch, group.state) == (-1, "NOT_READY")
    c.update_topic("app-store-changelog", CHANGELOG, 6)
    again = hb(c, 100, "m1", r.response["memberEpoch"] if r.response else 0, activeTasks=[], standbyTasks=[],
               warmupTasks=[])
    assert record_types(again)[:2] == [18, 17]
    assert again.records[0].value == _meta()
    assert (group.validated_topology_epoch, group.state) == (0, "STABLE")


def test_replay_rebuilds_identical_state_from_the_seeds_records() -> None:
    """Records are the state: a fresh kip coordinator replaying records 17 (epoch only) and 18
    rebuilds the group, its validated topology epoch and its state included."""
    c = _kip()
    log: list[Record] = []
    first = join(c, 0, "m1", "p1", STATEFUL)
    log += first.records
    second = join(c, 50, "m2", "p2", STATEFUL)
    log += second.records
    _grow(c)
    log += hb(c, 100, "m1", 2, **owned(first.response or {})).records
    fresh = replay_records(log, "kip", {"group.streams.initial.rebalance.delay.ms": 0})
    live, replayed = c.streams_groups["g"], fresh.streams_groups["g"]
    assert replay_equivalence(live, replayed) == []
    assert (replayed.group_epoch, replayed.validated_topology_epoch, replayed.state) == (4, 0, live.state)
    assert live.state == "RECONCILING"  # m2 has not heartbeated since the bump
    assert replayed.partition_metadata == (("app-store-changelog", CHANGELOG, 8), ("foo", FOO, 8))
    assert replayed.last_assignment_configs == {  # soft: the configs at load (the seed's three)
        "num.standby.replicas": "0", "acceptable.recovery.lag": "10000", "num.warmup.replicas": "2"}


def test_group_deletion_tombstones_the_partition_metadata() -> None:
    """"When the group lost all members and offsets.retention.minutes expires, tombstones is
    written to remove the records": 18 before 17, as Kafka 4.0 ordered them."""
    c = _kip()
    r = join(c, 0, "m1", "p1", STATEFUL)
    assert r.response is not None
    hb(c, 10, "m1", -1)
    decision = c.handle(42, 2, {"groupsNames": ["g"]}, now=20)
    assert [(x.type, x.value) for x in decision.records if x.type in (17, 18, 23)] == [
        (18, None), (17, None), (23, None)]
    assert "g" not in c.streams_groups


def test_kafka_profiles_refuse_record_18() -> None:
    record = Record(18, {"groupId": "g"}, _meta())
    for profile in ("kafka-4.1", "kafka-4.3", "kafka-trunk"):
        with pytest.raises(ReplayError, match="Unknown record type 18"):
            replay_records([record], profile)
    assert replay_records([record], "kip").streams_groups["g"].partition_metadata is not None


def test_record_shapes_are_the_seeds_under_kip() -> None:
    """kip reads records 17 and 18 with the seed's schemas: Kafka's 17 is no longer whole without
    ``metadataHash``; a partition count that is not an int32 is refused in 18."""
    assert record_shape_problem("kip", 17, {"groupId": "g"}, {"epoch": 2}, 0) is None
    assert record_shape_problem("kafka-4.3", 17, {"groupId": "g"}, {"epoch": 2}, 0) is not None
    bad = _meta()
    bad["topics"][0]["numPartitions"] = 1.5  # type: ignore[index]
    problem = record_shape_problem("kip", 18, {"groupId": "g"}, bad, 0)
    assert problem is not None
    assert problem[0].startswith("record.value.data.topics")
    assert record_shape_problem("kip", 18, {"groupId": "g"}, _meta(), 0) is None
    assert record_shape_problem("kip", 18, {"groupId": "g"}, {"topics": [{"topicName": "foo"}]}, 0) is not None
    assert BAR  # bar exists but no topology reads it: never in record 18


# --- the golden tests/golden/streams/kip_warmup_records.jsonl (kip_warmup with its records) -----

INPUT, CHANGELOG_G, REP = "qBnWXTcDQmlD_DQNFl-JLg", "4FvUTwFLWtacYTEDi42Iyg", "s55klDYq8W6YY_iv4E4FkA"


def _golden_record(line: int) -> dict[str, Any]:
    record: dict[str, Any] = read_jsonl(GOLDEN / "kip_warmup_records.jsonl")[line - 1]["record"]
    return record


def test_golden_records_are_the_seeds() -> None:
    """m-a's join writes 23, then 18 with the three topics the topology needs (3 partitions each,
    no racks), then 17 with the epoch alone; m-b's join puts the moving task 0_2 in m-b's target
    record as a warm-up while m-a's target keeps it active; the caught-up warm-up (line 31) makes
    a new target: 0_2 active for m-b, gone from m-a."""
    assert _golden_record(8) == {"key": {"type": 18, "data": {"groupId": "g"}}, "value": {"version": 0, "data": {
        "topics": [{"topicId": CHANGELOG_G, "topicName": "app-0-changelog", "numPartitions": 3, "partitionMetadata": []},
                   {"topicId": REP, "topicName": "app-rep", "numPartitions": 3, "partitionMetadata": []},
                   {"topicId": INPUT, "topicName": "input", "numPartitions": 3, "partitionMetadata": []}]}}}
    assert [_golden_record(n)["value"]["data"] for n in (9, 15, 31)] == [{"epoch": 2}, {"epoch": 3}, {"epoch": 4}]
    targets = {n: (_golden_record(n)["key"]["data"]["memberId"], _golden_record(n)["value"]["data"])
               for n in (16, 17, 32, 33)}
    assert targets == {
        16: ("m-a", {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 1, 2]},
                                     {"subtopologyId": "1", "partitions": [0]}], "standbyTasks": [], "warmupTasks": []}),
        17: ("m-b", {"activeTasks": [{"subtopologyId": "1", "partitions": [1, 2]}], "standbyTasks": [],
                     "warmupTasks": [{"subtopologyId": "0", "partitions": [2]}]}),
        32: ("m-a", {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]},
                                     {"subtopologyId": "1", "partitions": [0]}], "standbyTasks": [], "warmupTasks": []}),
        33: ("m-b", {"activeTasks": [{"subtopologyId": "0", "partitions": [2]},
                                     {"subtopologyId": "1", "partitions": [1, 2]}], "standbyTasks": [], "warmupTasks": []}),
    }


def _kafka_17(data: dict[str, Any]) -> None:
    data.update(metadataHash=7, validatedTopologyEpoch=1)


def _more_partitions(data: dict[str, Any]) -> None:
    data["topics"][2]["numPartitions"] = 4


def _warmup_as_active(data: dict[str, Any]) -> None:  # Kafka's record 21: the assignor's output
    data.update(activeTasks=[{"subtopologyId": "0", "partitions": [2]}, {"subtopologyId": "1", "partitions": [1, 2]}],
                warmupTasks=[])


@pytest.mark.parametrize(("line", "edit"), [(8, _more_partitions), (9, _kafka_17), (17, _warmup_as_active)],
                         ids=["record-18-partitions", "record-17-kafka-fields", "record-21-without-warmup"])
def test_one_line_record_mutants_are_flagged_at_their_line(line: int, edit: Callable[[dict[str, Any]], None],
                                                          tmp_path: Path) -> None:
    events = read_jsonl(GOLDEN / "kip_warmup_records.jsonl")
    edit(events[line - 1]["record"]["value"]["data"])
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"]) == (line, "response-mismatch", "record")


def test_a_record_18_under_kafka_profiles_is_not_modelled(tmp_path: Path) -> None:
    """Kafka 4.1+ has no record type 18 (its loader skips an unknown type): under Kafka's profiles
    the checker reports it unsupported, as before kip modelled it; under kip it is replayed."""
    events = read_jsonl(GOLDEN / "kip_warmup_records.jsonl")
    record_18 = events[7]
    assert record_18["record"]["key"]["type"] == 18
    for profile in ("kafka-4.3", "kafka-trunk"):
        header = {"header": {**events[0]["header"], "profile": profile}}
        status, report = check_events(tmp_path, [header, record_18])
        assert [(f["line"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
            (2, "unsupported", "record.key.type", "StreamsGroupPartitionMetadata records are not modelled yet")]
    status, report = check_events(tmp_path, [events[0], record_18])
    assert (status, report["findings"]) == (0, [])
