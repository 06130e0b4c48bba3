"""``kgspec record``: a client's call through the decoding proxy to a broker, written as the
kafka.request.logger line Kafka would write, and read back by kgspec check. The broker here is
a stand-in speaking the Kafka protocol (kio encodes its frames)."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

kio = pytest.importorskip("kio")  # the peers extra

from kgspec.conformance.peers.wire import decode_request  # noqa: E402
from kio.index import load_request_schema, load_response_schema  # noqa: E402
from kio.schema.errors import ErrorCode  # noqa: E402
from kio.schema.request_header.v2.header import RequestHeader  # noqa: E402
from kio.schema.response_header.v1.header import ResponseHeader  # noqa: E402
from kio.schema.types import GroupId, TopicName  # noqa: E402
from kio.serial import entity_writer  # noqa: E402
from kio.static.primitive import i16, i32, i32Timedelta  # noqa: E402

from kgspec.cli import main  # noqa: E402


def _frame(*parts: tuple[type, object]) -> bytes:
    buf = io.BytesIO()
    for kind, value in parts:
        entity_writer(kind)(buf, value)  # type: ignore[arg-type]
    data = buf.getvalue()
    return len(data).to_bytes(4, "big") + data


def _read(sock: socket.socket) -> bytes:
    size = int.from_bytes(sock.recv(4, socket.MSG_WAITALL), "big")
    return sock.recv(size, socket.MSG_WAITALL)


def _broker(server: socket.socket) -> None:
    """Answers one ConsumerGroupHeartbeat v0: member m1 at epoch 1."""
    conn, _ = server.accept()
    with conn:
        request = decode_request(_read(conn))
        response = load_response_schema(68, 0)
        conn.sendall(_frame((ResponseHeader, ResponseHeader(correlation_id=i32(request.correlation_id))),
                            (response, response(throttle_time=i32Timedelta.parse(dt.timedelta(0)),
                                                error_code=ErrorCode.none, error_message=None, member_id="m1",
                                                member_epoch=i32(1),
                                                heartbeat_interval=i32Timedelta.parse(dt.timedelta(seconds=5)),
                                                assignment=None))))


def _client(port: int, answered: list[bytes]) -> None:
    request = load_request_schema(68, 0)
    for _ in range(100):  # until the proxy listens
        with contextlib.suppress(OSError):
            sock = socket.create_connection(("127.0.0.1", port))
            break
        time.sleep(0.05)
    with sock:
        sock.sendall(_frame(
            (RequestHeader, RequestHeader(request_api_key=i16(68), request_api_version=i16(0),
                                          correlation_id=i32(7), client_id="c1")),
            (request, request(group_id=GroupId("g"), member_id="m1", member_epoch=i32(0), instance_id=None,
                              rack_id=None, rebalance_timeout=i32Timedelta.parse(dt.timedelta(seconds=30)),
                              subscribed_topic_names=(TopicName("foo"),), server_assignor=None,
                              topic_partitions=()))))
        answered.append(_read(sock))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_record_writes_a_request_log_check_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    broker = threading.Thread(target=_broker, args=(server,), daemon=True)
    broker.start()
    port = _free_port()
    answered: list[bytes] = []
    client = threading.Thread(target=_client, args=(port, answered), daemon=True)
    client.start()
    out = tmp_path / "kafka-request.log"
    assert main(["record", "--listen", f"127.0.0.1:{port}", "--upstream", f"127.0.0.1:{server.getsockname()[1]}",
                 "--out", str(out), "--duration", "2"]) == 0
    server.close()
    assert answered  # the client got the broker's answer through the proxy
    assert "recorded 1 call(s) into" in capsys.readouterr().err
    [line] = out.read_text().splitlines()
    match = re.fullmatch(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] DEBUG Completed request:(\{.*\}) "
                         r"\(kafka\.request\.logger\)", line)
    assert match is not None
    body = json.loads(match[2])
    assert body["requestHeader"] == {"requestApiKey": 68, "requestApiVersion": 0, "correlationId": 7,
                                     "clientId": "c1", "requestApiKeyName": "CONSUMER_GROUP_HEARTBEAT"}
    assert body["request"]["groupId"] == "g"
    assert (body["response"]["memberId"], body["response"]["memberEpoch"]) == ("m1", 1)
    assert re.fullmatch(r"127\.0\.0\.1:\d+-127\.0\.0\.1:\d+-0", body["connection"])
    report = tmp_path / "r.json"
    main(["check", "-q", "--json", str(report), str(out)])
    checked = json.loads(report.read_text())
    assert checked["inputs"][0]["events"] == 1
    assert [g["groupId"] for g in checked["groups"]] == ["g"]


@pytest.mark.parametrize(("args", "message"), [
    (["--listen", "nowhere", "--upstream", "127.0.0.1:9092"], "--listen needs HOST:PORT, got 'nowhere'"),
    (["--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:99999"], "--upstream needs HOST:PORT"),
    (["--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:9092", "--duration", "0"], "--duration must be positive"),
])
def test_record_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                             message: str) -> None:
    assert main(["record", *args, "--out", str(tmp_path / "x.log")]) == 2
    assert message in capsys.readouterr().err
