"""The wire codec on kio: requests read into Kafka's JSON, the model's JSON written as responses."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("kio")

from kgspec.conformance.peers.wire import decode_response
from kio.index import load_request_schema
from kio.schema.request_header.v2.header import RequestHeader
from kio.serial import entity_writer
from kio.static.primitive import i16, i32

from kgspec.server.codec import (
    CodecError,
    from_kafka_json,
    kio_versions,
    read_request,
    response_frame,
)

TOPIC_ID = "JUxmFSdeRnSLhXMi3QDX9g"


def request_frame(api: int, version: int, body: dict[str, object], correlation: int = 5) -> bytes:
    schema = load_request_schema(api, version)
    buffer = io.BytesIO()
    entity_writer(RequestHeader)(buffer, RequestHeader(request_api_key=i16(api), request_api_version=i16(version),
                                                       correlation_id=i32(correlation), client_id="c1"))
    entity_writer(schema)(buffer, from_kafka_json(schema, body))
    return buffer.getvalue()


def test_a_heartbeat_request_reads_as_kafkas_json() -> None:
    body = {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 300000,
            "subscribedTopicNames": ["t"], "topicPartitions": []}
    req = read_request(request_frame(68, 1, body))
    assert (req.api_key, req.api_version, req.correlation_id, req.client_id, req.flexible) == (68, 1, 5, "c1", True)
    assert req.api_name == "CONSUMER_GROUP_HEARTBEAT"
    assert req.json() == {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "instanceId": None, "rackId": None,
                          "rebalanceTimeoutMs": 300000, "subscribedTopicNames": ["t"], "subscribedTopicRegex": None,
                          "serverAssignor": None, "topicPartitions": []}


def test_a_heartbeat_response_writes_what_kafka_would_send() -> None:
    model = {"errorCode": 0, "errorMessage": None, "memberId": "m1", "memberEpoch": 3, "heartbeatIntervalMs": 5000,
             "assignment": {"topicPartitions": [{"topicId": TOPIC_ID, "partitions": [0, 2]}]}}
    frame = response_frame(68, 1, 42, model)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert int.from_bytes(frame[4:8], "big") == 42
    assert frame[8] == 0  # response header v1: no tagged fields
    assert decode_response(frame[4:], 68, 1) == {"throttleTimeMs": 0, **model}


def test_api_versions_responses_keep_header_v0_even_when_flexible() -> None:
    frame = response_frame(18, 3, 1, {"errorCode": 35, "apiKeys": [{"apiKey": 18, "minVersion": 0, "maxVersion": 4}]})
    assert frame[8:10] == (35).to_bytes(2, "big")  # the error code right after the correlation id


def test_fields_the_model_leaves_out_take_the_schemas_defaults() -> None:
    frame = response_frame(11, 9, 1, {"errorCode": 79, "memberId": "c1-x"})
    decoded = decode_response(frame[4:], 11, 9)
    assert (decoded["generationId"], decoded["protocolType"], decoded["leader"], decoded["members"]) == (
        -1, None, "", [])
    assert decoded["memberId"] == "c1-x"


def test_unknown_versions_have_no_body_and_short_frames_are_refused() -> None:
    frame = request_frame(18, 3, {})
    unknown = frame[:2] + (99).to_bytes(2, "big") + frame[4:]
    req = read_request(unknown)
    assert (req.api_key, req.api_version, req.correlation_id, req.body) == (18, 99, 5, None)
    with pytest.raises(CodecError, match="shorter than its header"):
        read_request(b"\x00\x12")
    with pytest.raises(CodecError, match="cannot read CONSUMER_GROUP_HEARTBEAT v1"):
        read_request(request_frame(68, 1, {"groupId": "g"})[:20])


def test_kio_versions() -> None:
    assert kio_versions(68) == (0, 1)
    assert kio_versions(1) == (4, 18)
    assert kio_versions(9999) is None
