"""Streams records 17, 19-23: builders, replay (incl. tombstones) and replay equivalence."""

from __future__ import annotations

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.record_schemas import validate_record
from kgspec.model.records import Record, ReplayError
from kgspec.model.streams import records as srec
from kgspec.model.streams.member import StreamsMember

from tests.streams.goldens import standby_rebalance
from tests.streams.helpers import coordinator, hb, join


def test_replay_equivalence_after_every_event() -> None:
    rec = standby_rebalance(records=True)
    live = rec.coord
    replayed = Coordinator("kafka-4.3")
    for event in rec.events:
        if "record" in event:
            replayed.replay(Record.from_json(event["record"]))
    assert replayed.snapshot()["streamsGroups"] == live.snapshot()["streamsGroups"]


def test_record_values() -> None:
    c = coordinator()
    r = join(c, 0, "m1", "p1", clientTags=[{"key": "z", "value": "1"}, {"key": "a", "value": "2"}])
    assert [x.type for x in r.records] == [19, 23, 17, 21, 20, 22]
    by_type = {x.type: x for x in r.records}
    assert by_type[17].value == {"epoch": 2, "metadataHash": c.streams_groups["g"].metadata_hash,
                                 "validatedTopologyEpoch": 0,
                                 "lastAssignmentConfigs": [{"key": "num.standby.replicas", "value": "0"}]}
    assert by_type[19].value is not None
    assert by_type[19].value["clientTags"] == [{"key": "a", "value": "2"}, {"key": "z", "value": "1"}]
    assert by_type[19].value == {"instanceId": None, "rackId": None, "clientId": "m1", "clientHost": "/127.0.0.1",
                                 "rebalanceTimeoutMs": 30000, "topologyEpoch": 0, "processId": "p1",
                                 "userEndpoint": None,
                                 "clientTags": [{"key": "a", "value": "2"}, {"key": "z", "value": "1"}]}
    assert by_type[21].value == {"activeTasks": [{"subtopologyId": "sub1", "partitions": [0, 1, 2, 3, 4, 5]},
                                                 {"subtopologyId": "sub2", "partitions": [0, 1, 2]}],
                                 "standbyTasks": [], "warmupTasks": []}
    assert by_type[20].value == {"assignmentEpoch": 2}  # timestamp 0 (tagged) omitted
    assert by_type[22].value is not None
    assert by_type[22].value["state"] == 1
    assert by_type[22].value["activeTasks"] == [
        {"subtopologyId": "sub1", "partitions": [0, 1, 2, 3, 4, 5], "assignmentEpochs": [2] * 6},
        {"subtopologyId": "sub2", "partitions": [0, 1, 2], "assignmentEpochs": [2, 2, 2]}]
    assert by_type[22].value["standbyTasks"] == []
    assert by_type[22].value == {
        "memberEpoch": 2, "previousMemberEpoch": 0, "state": 1,
        "activeTasks": by_type[22].value["activeTasks"], "standbyTasks": [], "warmupTasks": [],
        "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [], "warmupTasksPendingRevocation": []}


def test_missing_assignment_epochs_default_to_member_epoch() -> None:
    c = Coordinator("kafka-4.3")
    c.replay(srec.member_metadata_record("g", StreamsMember("m1", process_id="p")))
    c.replay(Record(22, {"groupId": "g", "memberId": "m1"}, {
        "memberEpoch": 7, "previousMemberEpoch": 6, "state": 1,
        "activeTasks": [{"subtopologyId": "s", "partitions": [0, 1]}], "standbyTasks": [], "warmupTasks": [],
        "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [], "warmupTasksPendingRevocation": []}))
    assert c.streams_groups["g"].members["m1"].assigned["active"] == {"s": {0: 7, 1: 7}}


def test_tombstone_order_is_enforced() -> None:
    c = coordinator()
    join(c, 0, "m1", "p1")
    with pytest.raises(ReplayError, match="did not receive StreamsGroupCurrentMemberAssignmentValue tombstone"):
        c.replay(srec.member_metadata_tombstone("g", "m1"))
    with pytest.raises(ReplayError, match="still has 1 members"):
        c.replay(srec.group_metadata_tombstone("g"))
    hb(c, 10, "m1", -1)
    with pytest.raises(ReplayError, match="did not receive StreamsGroupTargetAssignmentMetadataValue tombstone"):
        c.replay(srec.group_metadata_tombstone("g"))
    c.replay(srec.target_metadata_tombstone("g"))
    c.replay(srec.topology_tombstone("g"))
    c.replay(srec.group_metadata_tombstone("g"))
    assert c.streams_groups == {}


def test_on_loaded_rearms_streams_timers() -> None:
    rec = standby_rebalance(records=True)
    replayed = Coordinator("kafka-4.3")
    for event in rec.events:
        if "record" in event:
            replayed.replay(Record.from_json(event["record"]))
    replayed.on_loaded(20000)
    # (and the offsets' cleanup, which GroupCoordinatorShard.onLoaded arms)
    assert sorted(replayed.timers.snapshot()) == ["expire-group-metadata", "session-timeout-g-m-a",
                                                  "session-timeout-g-m-c"]


def test_written_records_match_the_43_schemas() -> None:
    rec = standby_rebalance(records=True)
    records = [e["record"] for e in rec.events if "record" in e]
    assert {r["key"]["type"] for r in records} == {17, 19, 20, 21, 22, 23}
    problems = [p for r in records for p in validate_record(r, "4.3")]
    assert problems == []
