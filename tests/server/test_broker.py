"""The broker without sockets: each API's answer, the trace it writes, and the fault actions.

A fake clock drives time, so parked calls and timers are exact.
"""

from __future__ import annotations

import io
import json
import uuid
from typing import Any

import pytest

pytest.importorskip("kio")

from kgspec.model.coordinator import Coordinator
from kgspec.model.hashing import deterministic_topic_id
from kio.index import load_request_schema

from kgspec.server.broker import Broker, Clock, Conn
from kgspec.server.codec import Request, from_kafka_json
from kgspec.server.faults import parse_rule
from kgspec.server.logs import PartitionLog
from kgspec.server.options import Options

from .test_logs import batch

CONN = Conn("127.0.0.1:9092-127.0.0.1:50000-0", "/127.0.0.1")


class FakeTime:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make(**options: Any) -> tuple[Broker, FakeTime, io.StringIO]:
    fake = FakeTime()
    out = io.StringIO()
    broker = Broker(Options(**options), Clock(fake, start_ms=1_000_000), out, lambda f, e: None)
    return broker, fake, out


def req(api: int, version: int, body: dict[str, Any], client: str = "c1", correlation: int = 7) -> Request:
    schema = load_request_schema(api, version)
    return Request(api, version, correlation, client, from_kafka_json(schema, body), bool(schema.__flexible__))


def lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.getvalue().splitlines()]


def heartbeat(member: str, epoch: int, **fields: Any) -> dict[str, Any]:
    body = {"groupId": "g", "memberId": member, "memberEpoch": epoch, "rebalanceTimeoutMs": 300000,
            "subscribedTopicNames": ["t"], "topicPartitions": []}
    body.update(fields)
    return body


def test_api_versions_lists_exactly_the_apis_served_with_the_models_versions() -> None:
    broker, _, _ = make()
    response = broker.serve(CONN, req(18, 3, {"clientSoftwareName": "x", "clientSoftwareVersion": "1"})).response
    assert response["errorCode"] == 0
    assert {k["apiKey"]: (k["minVersion"], k["maxVersion"]) for k in response["apiKeys"]} == {
        0: (3, 11), 1: (4, 12), 2: (1, 7), 3: (1, 12), 8: (2, 10), 9: (1, 10), 10: (0, 6), 11: (0, 9),
        12: (0, 4), 13: (0, 5), 14: (0, 5), 15: (0, 6), 16: (0, 5), 18: (0, 4), 19: (2, 7), 42: (0, 2),
        47: (0, 0), 68: (0, 1), 69: (0, 1), 88: (0, 0), 89: (0, 0)}


def test_api_versions_of_a_version_kio_does_not_know_is_unsupported_version_with_the_list() -> None:
    broker, _, _ = make()
    outcome = broker.serve(CONN, Request(18, 99, 1, "c1", None, False))
    assert outcome.response == {"errorCode": 35, "apiKeys": [{"apiKey": 18, "minVersion": 0, "maxVersion": 4}]}


def test_a_version_outside_the_served_range_is_unsupported_version() -> None:
    broker, _, out = make(topics={"t": 1})
    outcome = broker.serve(CONN, req(1, 13, {"topics": []}))  # Fetch v13 names topics by id only
    assert outcome.response == {"errorCode": 35}
    assert len(lines(out)) == 2  # header and topic: nothing served


def test_metadata_auto_creates_a_topic_and_the_trace_says_so() -> None:
    broker, _, out = make(broker_configs={"num.partitions": 3, "auto.create.topics.enable": True})
    response = broker.serve(CONN, req(3, 12, {"topics": [{"name": "new", "topicId": None}],
                                              "allowAutoTopicCreation": True})).response
    assert response["brokers"] == [{"nodeId": 0, "host": "127.0.0.1", "port": 9092, "rack": None}]
    [topic] = response["topics"]
    assert (topic["errorCode"], topic["name"], topic["topicId"]) == (0, "new", deterministic_topic_id("new"))
    assert [p["partitionIndex"] for p in topic["partitions"]] == [0, 1, 2]
    assert lines(out)[-1] == {"tsMs": 1_000_000, "topic": {"name": "new", "topicId": deterministic_topic_id("new"),
                                                           "partitions": 3}}
    assert broker.coord.topics.id_of("new") == deterministic_topic_id("new")


def test_metadata_without_auto_creation_answers_unknown_topic() -> None:
    broker, _, _ = make()
    response = broker.serve(CONN, req(3, 12, {"topics": [{"name": "nope", "topicId": None}],
                                              "allowAutoTopicCreation": False})).response
    assert [(t["name"], t["errorCode"]) for t in response["topics"]] == [("nope", 3)]
    assert "nope" not in broker.data.logs


def test_find_coordinator_answers_itself_for_every_key() -> None:
    broker, _, _ = make()
    broker.set_address("127.0.0.1", 4321)
    v4 = broker.serve(CONN, req(10, 4, {"keyType": 0, "coordinatorKeys": ["g", "h"]})).response
    assert v4 == {"coordinators": [{"key": "g", "nodeId": 0, "host": "127.0.0.1", "port": 4321, "errorCode": 0},
                                   {"key": "h", "nodeId": 0, "host": "127.0.0.1", "port": 4321, "errorCode": 0}]}
    v1 = broker.serve(CONN, req(10, 1, {"key": "g", "keyType": 0})).response
    assert v1 == {"errorCode": 0, "nodeId": 0, "host": "127.0.0.1", "port": 4321}


def test_create_topics_creates_once() -> None:
    broker, _, _ = make()
    body = {"topics": [{"name": "x", "numPartitions": 2, "replicationFactor": 1, "assignments": [], "configs": []}]}
    first = broker.serve(CONN, req(19, 7, body)).response["topics"][0]
    assert (first["errorCode"], first["numPartitions"], first["topicId"]) == (0, 2, deterministic_topic_id("x"))
    again = broker.serve(CONN, req(19, 7, body)).response["topics"][0]
    assert again["errorCode"] == 36  # TOPIC_ALREADY_EXISTS


def test_produce_fetch_and_list_offsets_over_the_in_memory_log() -> None:
    broker, _, _ = make(topics={"t": 2})
    produce = {"acks": -1, "timeoutMs": 1000, "topicData": [
        {"name": "t", "partitionData": [{"index": 1, "records": batch(3)}]}]}
    assert broker.serve(CONN, req(0, 9, produce)).response["responses"][0]["partitionResponses"][0]["baseOffset"] == 0
    assert broker.serve(CONN, req(0, 9, produce)).response["responses"][0]["partitionResponses"][0]["baseOffset"] == 3
    fetch = {"maxWaitMs": 500, "minBytes": 1, "maxBytes": 1 << 20, "topics": [
        {"topic": "t", "partitions": [{"partition": 1, "fetchOffset": 4, "partitionMaxBytes": 1 << 20}]}]}
    part = broker.serve(CONN, req(1, 12, fetch)).response["responses"][0]["partitions"][0]
    assert (part["errorCode"], part["highWatermark"], part["lastStableOffset"]) == (0, 6, 6)
    assert int.from_bytes(part["records"][:8], "big") == 3  # the batch holding offset 4 starts at 3
    empty = {**fetch, "topics": [{"topic": "t", "partitions": [{"partition": 0, "fetchOffset": 0,
                                                                 "partitionMaxBytes": 1 << 20}]}]}
    assert broker.serve(CONN, req(1, 12, empty)).wait_ms == 500  # nothing yet: the fetch waits
    offsets = {"replicaId": -1, "topics": [{"name": "t", "partitions": [
        {"partitionIndex": 1, "timestamp": -2}, {"partitionIndex": 1, "timestamp": -1}]}]}
    parts = broker.serve(CONN, req(2, 7, offsets)).response["topics"][0]["partitions"]
    assert [p["offset"] for p in parts] == [0, 6]


def test_produce_with_acks_0_has_no_response() -> None:
    broker, _, _ = make(topics={"t": 1})
    outcome = broker.serve(CONN, req(0, 9, {"acks": 0, "timeoutMs": 1000, "topicData": [
        {"name": "t", "partitionData": [{"index": 0, "records": batch(1)}]}]}))
    assert outcome.drop
    assert broker.data.logs["t"][0].end_offset == 1
    failed = broker.serve(CONN, req(0, 9, {"acks": 0, "timeoutMs": 1000, "topicData": [
        {"name": "nope", "partitionData": [{"index": 0, "records": batch(1)}]}]}))
    assert failed.close  # no response to carry the error: Kafka closes the connection


def test_a_heartbeat_is_the_models_answer_and_its_records_follow_it_in_the_trace() -> None:
    broker, _, out = make(topics={"t": 2})
    response = broker.serve(CONN, req(68, 1, heartbeat("m1", 0))).response
    model = Coordinator()
    model.update_topic("t", deterministic_topic_id("t"), 2)
    expected = model.handle(68, 1, req(68, 1, heartbeat("m1", 0)).json(), now=1_000_000, client_id="c1")
    assert response == expected.response
    assert response["memberEpoch"] == 2
    events = lines(out)
    assert [next(k for k in e if k != "tsMs") for e in events[:3]] == ["header", "topic", "requestHeader"]
    assert events[2]["connection"] == CONN.id
    assert [e["record"]["key"]["type"] for e in events[3:]] == [r.type for r in expected.records]
    assert broker.trace.findings == []


def test_a_parked_join_keeps_its_line_until_the_model_answers_it() -> None:
    broker, fake, out = make(topics={"t": 1})
    join = {"groupId": "cg", "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000, "memberId": "",
            "protocolType": "consumer", "protocols": [{"name": "range", "metadata": "AAE="}]}
    required = broker.serve(CONN, req(11, 9, join)).response
    assert required["errorCode"] == 79  # MEMBER_ID_REQUIRED, with the id Kafka draws: clientId-UUID
    member = required["memberId"]
    assert member.startswith("c1-")
    assert uuid.UUID(member[3:])
    outcome = broker.serve(CONN, req(11, 9, {**join, "memberId": member}))
    assert outcome.parked is not None  # the initial rebalance delay (3 s) holds it
    before = len(lines(out))
    fake.t = 3.0
    broker.advance()
    [(call_id, response)] = broker.completed()
    assert call_id == outcome.parked
    assert (response["errorCode"], response["generationId"], response["leader"]) == (0, 1, member)
    settled = lines(out)[before:]
    assert settled[0]["requestHeader"]["requestApiKey"] == 11
    assert settled[0]["totalTimeMs"] == 3000
    assert broker.trace.findings == []


def test_error_fault_answers_before_the_coordinator_and_is_not_traced() -> None:
    broker, _, out = make(topics={"t": 1}, faults=[parse_rule(
        {"match": {"api": "ConsumerGroupHeartbeat", "nth": 2}, "action": "error", "error": "NOT_COORDINATOR"})])
    first = broker.serve(CONN, req(68, 1, heartbeat("m1", 0)))
    second = broker.serve(CONN, req(68, 1, heartbeat("m1", first.response["memberEpoch"])))
    assert second.response == {"errorCode": 16}
    assert len([e for e in lines(out) if "requestHeader" in e]) == 1
    assert broker.stats.faults == 1


def test_clock_fault_expires_the_session_before_the_call() -> None:
    broker, _, _ = make(topics={"t": 1}, faults=[parse_rule(
        {"match": {"api": 68, "nth": 2}, "action": "clock", "advanceMs": 46000})])
    first = broker.serve(CONN, req(68, 1, heartbeat("m1", 0)))
    second = broker.serve(CONN, req(68, 1, heartbeat("m1", first.response["memberEpoch"])))
    assert second.response["errorCode"] == 25  # UNKNOWN_MEMBER_ID: the 45 s session expired first
    assert broker.clock.now() == 1_046_000
    assert broker.trace.findings == []


def test_failover_fault_reloads_and_marks_the_trace() -> None:
    broker, _, out = make(topics={"t": 1}, faults=[parse_rule({"match": {"nth": 2}, "action": "failover"})])
    first = broker.serve(CONN, req(68, 1, heartbeat("m1", 0)))
    second = broker.serve(CONN, req(68, 1, heartbeat("m1", first.response["memberEpoch"])))
    assert second.response["errorCode"] == 0
    assert second.response["memberEpoch"] == first.response["memberEpoch"]
    assert {"tsMs": 1_000_000, "tick": {"coordinatorFailover": True}} in lines(out)
    assert broker.trace.findings == []


def test_close_and_drop_and_delay_faults() -> None:
    broker, _, _ = make(faults=[parse_rule({"match": {"api": 18}, "action": "close"}),
                                parse_rule({"match": {"api": 3}, "action": "drop"}),
                                parse_rule({"match": {"api": 10}, "action": "delay", "delayMs": 250})])
    assert broker.serve(CONN, req(18, 3, {})).close
    assert broker.serve(CONN, req(3, 12, {"topics": []})).drop
    assert broker.serve(CONN, req(10, 4, {"coordinatorKeys": ["g"]})).delay_ms == 250


def test_delete_groups_is_the_models() -> None:
    """DeleteGroups is answered by the model (issue #15): NON_EMPTY_GROUP while a member is in,
    GROUP_ID_NOT_FOUND for an unknown id; once empty, the group is deleted and its tombstones are
    in the served trace."""
    broker, _, out = make(topics={"t": 1})
    joined = broker.serve(CONN, req(68, 1, heartbeat("m1", 0))).response
    response = broker.serve(CONN, req(42, 2, {"groupsNames": ["g", "unknown"]})).response
    assert response == {"throttleTimeMs": 0, "results": [{"groupId": "g", "errorCode": 68},
                                                         {"groupId": "unknown", "errorCode": 69}]}
    broker.serve(CONN, req(68, 1, heartbeat("m1", -1, memberId=joined["memberId"])))
    response = broker.serve(CONN, req(42, 2, {"groupsNames": ["g"]})).response
    assert response == {"throttleTimeMs": 0, "results": [{"groupId": "g", "errorCode": 0}]}
    deleted = [e for e in lines(out) if e.get("requestHeader", {}).get("requestApiKey") == 42]
    assert [d["response"]["results"][0]["errorCode"] for d in deleted] == [68, 0]
    tombstones = [e["record"]["key"]["type"] for e in lines(out) if "record" in e and e["record"]["value"] is None]
    assert 3 in tombstones  # the group's metadata tombstone (ConsumerGroupMetadataKey)
    assert broker.trace.findings == []


def test_shutdown_fires_due_timers_and_ends_with_a_tick() -> None:
    broker, fake, out = make(topics={"t": 1})
    broker.serve(CONN, req(68, 1, heartbeat("m1", 0)))
    fake.t = 50.0  # past the 45 s session
    broker.shutdown()
    events = lines(out)
    assert events[-1] == {"tsMs": 1_050_000, "tick": {}}
    tombstones = [e for e in events if "record" in e and e["record"]["value"] is None]
    assert {e["tsMs"] for e in tombstones} == {1_045_000}  # written at the session deadline
    assert broker.trace.findings == []


def test_partition_log_is_what_fetch_reads() -> None:
    log = PartitionLog()
    assert log.append(batch(2)) == 0
    assert log.end_offset == 2


def test_a_failing_live_check_stops_checking_and_says_so() -> None:
    broker, _, out = make(topics={"t": 1})

    def boom(item: object) -> None:
        raise RuntimeError("bug")

    broker.trace.checker.feed = boom  # type: ignore[method-assign]
    response = broker.serve(CONN, req(68, 1, heartbeat("m1", 0))).response
    assert response["errorCode"] == 0  # still served, still traced
    assert '"requestHeader"' in out.getvalue()
    assert broker.trace.broken == ("the live check failed at trace line 3 (RuntimeError: bug); it checks nothing "
                                   "further (run `kgspec check` on the trace)")


def test_error_answers_name_each_group_of_a_describe() -> None:
    broker, _, _ = make(faults=[parse_rule({"match": {"api": 69}, "action": "error", "error": 15})])
    response = broker.serve(CONN, req(69, 0, {"groupIds": ["a", "b"]})).response
    assert response == {"errorCode": 15, "groups": [{"groupId": "a", "errorCode": 15},
                                                    {"groupId": "b", "errorCode": 15}]}


def test_a_static_members_id_starts_with_its_instance_id() -> None:
    """``ClassicGroup.generateMemberId``: ``groupInstanceId-UUID`` for a static member."""
    broker, fake, _ = make(topics={"t": 1})
    join = {"groupId": "sg", "groupInstanceId": "i1", "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000,
            "memberId": "", "protocolType": "consumer", "protocols": [{"name": "range", "metadata": "AAE="}]}
    outcome = broker.serve(CONN, req(11, 9, join))
    assert outcome.parked is not None  # a static member is admitted at once and waits for the delay
    fake.t = 3.0
    broker.advance()
    [(_, response)] = broker.completed()
    assert response["errorCode"] == 0
    assert response["memberId"].startswith("i1-")
    assert uuid.UUID(response["memberId"][3:])
