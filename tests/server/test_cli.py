"""``kgspec serve`` as a user runs it: the ready line, SIGTERM/SIGINT, the summary, exit codes,
usage errors naming the option, and live findings printed with the call that broke a rule."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kio")

from kgspec.conformance.peers.wire import decode_response
from kgspec.model.hashing import deterministic_topic_id

from kgspec.cli import main

from .helpers import check, events
from .test_codec import request_frame


def start(*args: str) -> tuple[subprocess.Popen[str], str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "kgspec", "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("kgspec serve: listening on 127.0.0.1:"), line + (proc.stderr.read() if proc.stderr else "")
    host, _, port = line.split()[-1].rpartition(":")
    return proc, host, int(port)


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> tuple[int, str, str]:
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def call(sock: socket.socket, api: int, version: int, body: dict[str, Any], correlation: int) -> dict[str, Any]:
    frame = request_frame(api, version, body, correlation)
    sock.sendall(len(frame).to_bytes(4, "big") + frame)
    size = int.from_bytes(_exact(sock, 4), "big")
    return decode_response(_exact(sock, size), api, version)


def _exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        assert chunk, "the server closed the connection"
        buf += chunk
    return buf


def test_serve_until_sigterm_prints_the_summary_and_exits_0(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    proc, host, port = start("--topic", "t:2", "--trace-out", str(trace))
    with socket.create_connection((host, port)) as sock:
        response = call(sock, 68, 1, {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 300000,
                                      "subscribedTopicNames": ["t"], "topicPartitions": []}, 1)
    assert (response["errorCode"], response["memberEpoch"]) == (0, 2)
    proc.send_signal(signal.SIGUSR1)
    assert proc.stderr is not None
    assert re.fullmatch(r"kgspec serve: status: served 1 call\(s\) \(1 to the coordinator\), 1 group\(s\), "
                        r"0 fault\(s\) injected, 0 live finding\(s\); heartbeats served in [\d.]+ ms \(p50\), "
                        r"[\d.]+ ms \(p99\)\n", proc.stderr.readline())
    status, out, err = stop(proc)
    assert status == 0, err
    assert out.startswith("kgspec serve: served 1 call(s) (1 to the coordinator) in ")
    assert ", 1 group(s), 0 fault(s) injected, 0 live finding(s); trace: " in out
    assert check(trace).findings == []
    kinds = [next(k for k in e if k != "tsMs") for e in events(trace)]
    assert kinds[:3] == ["header", "topic", "requestHeader"]
    assert kinds[-1] == "tick"


def test_sigint_stops_it_too() -> None:
    proc, _, _ = start()
    status, out, _ = stop(proc, signal.SIGINT)
    assert status == 0
    assert "served 0 call(s)" in out


def test_a_client_rule_broken_is_a_live_finding_and_exit_1(tmp_path: Path) -> None:
    """With --clients, a member reporting a partition it was never given (u-0) is reported at once,
    with the call, and the exit status is 1."""
    trace = tmp_path / "t.jsonl"
    proc, host, port = start("--topic", "t:1", "--topic", "u:1", "--clients", "--trace-out", str(trace))
    join = {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 300000,
            "subscribedTopicNames": ["t"], "topicPartitions": []}
    with socket.create_connection((host, port)) as sock:
        epoch = call(sock, 68, 1, join, 1)["memberEpoch"]
        claim = {"groupId": "g", "memberId": "m1", "memberEpoch": epoch,
                 "topicPartitions": [{"topicId": deterministic_topic_id("u"), "partitions": [0]}]}
        call(sock, 68, 1, claim, 2)
    status, out, err = stop(proc)
    assert status == 1
    line = 1 + [i for i, e in enumerate(events(trace)) if "requestHeader" in e][1]  # the claim's line
    assert (f"kgspec serve: live finding at trace line {line}: group g: client (topicPartitions): client m1 "
            f"reports owning {{'{deterministic_topic_id('u')}': [0]}} that it was never given") in err
    assert "(call: CONSUMER_GROUP_HEARTBEAT from c1)" in err
    assert "1 live finding(s)" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--topic", "t"], "kgspec serve: --topic needs NAME:PARTITIONS with PARTITIONS >= 1, got 't'"),
    (["--topic", "t:0"], "kgspec serve: --topic needs NAME:PARTITIONS with PARTITIONS >= 1, got 't:0'"),
    (["--config", "group.consumer.heartbeat.intervl.ms=5"], "kgspec serve: --config: unknown config "
     "group.consumer.heartbeat.intervl.ms (did you mean group.consumer.heartbeat.interval.ms?)"),
    (["--config", "num.partitions=0"], "kgspec serve: --config num.partitions must be an integer >= 1, got '0'"),
    (["--port", "70000"], "kgspec serve: --port must be 0..65535, got 70000"),
    (["--config", "group.consumer.heartbeat.interval.ms=300"], "kgspec serve: --config "
     "group.consumer.heartbeat.interval.ms: Kafka refuses to start with it (group.consumer.heartbeat.interval.ms "
     "must be greater than or equal to group.consumer.min.heartbeat.interval.ms)"),
])
def test_usage_errors_name_the_option_and_exit_2(args: list[str], message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *args]) == 2
    assert capsys.readouterr().err.strip() == message


def test_a_bad_faults_file_names_the_rule_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faults = tmp_path / "faults.json"
    faults.write_text('{"rules": [{"match": {"api": "Heartbeat"}, "action": "error", "error": "NOPE"}]}')
    assert main(["serve", "--faults", str(faults)]) == 2
    assert capsys.readouterr().err.startswith(f"kgspec serve: {faults}.rules[0].error: 'NOPE' is no Kafka error name")


def test_an_unwritable_trace_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--trace-out", str(tmp_path / "no" / "t.jsonl")]) == 2
    assert capsys.readouterr().err.startswith(f"kgspec serve: --trace-out {tmp_path / 'no' / 't.jsonl'}: cannot write")


def test_a_port_in_use_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert capsys.readouterr().err.startswith(f"kgspec serve: cannot listen on 127.0.0.1:{port}: ")


def test_api_versions_of_an_unknown_version_is_answered_in_v0(tmp_path: Path) -> None:
    """As Kafka: a client newer than the broker sends ApiVersions at a version the broker does not
    know and gets UNSUPPORTED_VERSION in v0's shape, with the ApiVersions versions it may use."""
    proc, host, port = start()
    frame = request_frame(18, 3, {}, 9)
    with socket.create_connection((host, port)) as sock:
        unknown = frame[:2] + (99).to_bytes(2, "big") + frame[4:]
        sock.sendall(len(unknown).to_bytes(4, "big") + unknown)
        size = int.from_bytes(_exact(sock, 4), "big")
        response = decode_response(_exact(sock, size), 18, 0)
    assert response["errorCode"] == 35
    assert response["apiKeys"] == [{"apiKey": 18, "minVersion": 0, "maxVersion": 4}]
    assert stop(proc)[0] == 0


def test_sighup_reloads_the_fault_rules(tmp_path: Path) -> None:
    """Rules change while the server runs: SIGHUP re-reads --faults (a file that does not validate
    leaves the running rules in place)."""
    faults = tmp_path / "faults.json"
    faults.write_text('{"rules": []}')
    proc, host, port = start("--topic", "t:1", "--faults", str(faults))
    assert proc.stderr is not None
    body = {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 300000,
            "subscribedTopicNames": ["t"], "topicPartitions": []}
    with socket.create_connection((host, port)) as sock:
        assert call(sock, 68, 1, body, 1)["errorCode"] == 0
        faults.write_text('{"rules": [{"match": {"api": "ConsumerGroupHeartbeat"}, "action": "error", '
                          '"error": "COORDINATOR_LOAD_IN_PROGRESS"}]}')
        proc.send_signal(signal.SIGHUP)
        assert proc.stderr.readline() == f"kgspec serve: SIGHUP: 1 fault rule(s) loaded from {faults}\n"
        assert call(sock, 68, 1, body, 2)["errorCode"] == 14
        assert call(sock, 68, 1, body, 3)["errorCode"] == 0  # times: 1
        faults.write_text("{broken")
        proc.send_signal(signal.SIGHUP)
        assert "not valid JSON" in proc.stderr.readline()
    assert stop(proc)[0] == 0


def test_the_python_api_refuses_configs_kafka_refuses_to_start_with() -> None:
    import kgspec

    with pytest.raises(ValueError, match=r"^configs: group.consumer.session.timeout.ms: Kafka refuses to start "
                                         r"with it \(group.consumer.session.timeout.ms must be greater than or "
                                         r"equal to group.consumer.min.session.timeout.ms\)$"), \
            kgspec.serve(configs={"group.consumer.session.timeout.ms": 100}):
        pass
