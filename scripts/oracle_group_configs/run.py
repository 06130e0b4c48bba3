"""Run the model's group-config rules against Kafka's own classes (a developer script, never a test).

Needs an oracle build (``/work/shared/oracle``: ``build.sh`` for 4.3, ``build41.sh`` for 4.1) in
``ORACLE_DIR``. Compiles the probes here against it, then

1. asks ``GroupConfig.validate`` and ``GroupCoordinatorConfig`` (Kafka refusing to start) for the
   cases below and compares verdict and message with ``model/group_configs/validate.py`` and
   ``model/config.py``'s ``startup_problem``;
2. with ``--traces``: feeds the traces' heartbeats to Kafka's ``GroupMetadataManager``
   (``GconfDrive``), handing each alteration the model accepts to its ``GroupConfigManager`` as the
   broker's ``ConfigHandler`` does, and compares each heartbeat's response fields and the session
   timers with the model's.

    ORACLE_DIR=/tmp/oracle-4.3 .venv/bin/python scripts/oracle_group_configs/run.py --release 4.3 \\
        --traces tests/golden/group_configs/consumer_configs.jsonl tests/golden/group_configs/streams_configs.jsonl

Exit 0 when everything agrees. docs/group-configs.md ("Checked against Kafka's own classes").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from kgspec.model.config import Config, startup_problem, value_problem
from kgspec.model.coordinator import Coordinator
from kgspec.model.group_configs.validate import InvalidGroupConfig, validate
from kgspec.model.profiles import get_profile

HERE = Path(__file__).resolve().parent
Case = tuple[dict[str, str], dict[str, str]]
GROUP_CASES: list[Case] = [
    *(({}, {name: value}) for name, value in [
        ("consumer.session.timeout.ms", "1"), ("consumer.session.timeout.ms", "70000"),
        ("consumer.heartbeat.interval.ms", "1"), ("consumer.heartbeat.interval.ms", "70000"),
        ("consumer.heartbeat.interval.ms", "-5"), ("consumer.heartbeat.interval.ms", "ten"),
        ("consumer.heartbeat.interval.ms", "1.0"), ("consumer.heartbeat.interval.ms", " 6000 "),
        ("consumer.heartbeat.interval.ms", "+6000"), ("consumer.heartbeat.interval.ms", "2147483648"),
        ("consumer.assignment.interval.ms", "20000"), ("consumer.assignment.interval.ms", "-1"),
        ("share.record.lock.duration.ms", "10000"), ("share.delivery.count.limit", "1"),
        ("share.delivery.count.limit", "11"), ("share.partition.max.record.locks", "50"),
        ("share.partition.max.record.locks", "11000"), ("share.isolation.level", "read_commit"),
        ("share.isolation.level", "READ_COMMITTED"), ("share.renew.acknowledge.enable", "yes"),
        ("share.renew.acknowledge.enable", "TRUE"), ("streams.session.timeout.ms", "70000"),
        ("streams.heartbeat.interval.ms", "1000"), ("streams.num.standby.replicas", "3"),
        ("streams.num.standby.replicas", "-1"), ("streams.assignment.interval.ms", "20000"),
        ("streams.initial.rebalance.delay.ms", "-1"), ("no.such.config", "1"),
        *(("share.auto.offset.reset", v) for v in (
            "hello", "by_duration", "by_duration:-PT10S", "by_duration:PT10S", "EARLIEST", "Latest", " latest",
            "by_duration:pt10s", "BY_DURATION:PT10S", "by_duration:P1DT2H", "by_duration:PT", "by_duration:P",
            "by_duration:PT1.5S", "by_duration:P-1D", "by_duration:PT-10S", "by_duration:+PT10S",
            "by_duration:PT0S", "by_duration:P1D2H", "by_duration: PT10S")),
    ]),
    ({}, {"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": "9000"}),
    ({"group.consumer.min.session.timeout.ms": "5000"},
     {"consumer.session.timeout.ms": "10000", "consumer.heartbeat.interval.ms": "10000"}),
    ({"group.consumer.session.timeout.ms": "50000", "group.consumer.max.heartbeat.interval.ms": "50000"},
     {"consumer.heartbeat.interval.ms": "48000"}),
    ({}, {"consumer.heartbeat.interval.ms": "15000", "consumer.session.timeout.ms": "45000"}),
]
BROKER_CASES: list[dict[str, str]] = [
    {"group.consumer.session.timeout.ms": "-5"}, {"group.consumer.heartbeat.interval.ms": "45000"},
    {"group.consumer.heartbeat.interval.ms": "10000", "group.consumer.session.timeout.ms": "10000",
     "group.consumer.min.session.timeout.ms": "1000"},
    {"group.consumer.min.session.timeout.ms": "50000"}, {"group.streams.num.standby.replicas": "3"},
    {"group.streams.assignment.interval.ms": "20000"}, {"group.consumer.heartbeat.interval.ms": "500"},
    {"group.streams.heartbeat.interval.ms": "50000", "group.streams.max.heartbeat.interval.ms": "60000"},
    {"group.consumer.max.session.timeout.ms": "40000"}, {"group.streams.num.standby.replicas": "-1"},
    {"group.consumer.heartbeat.interval.ms": "15000", "group.consumer.session.timeout.ms": "45000",
     "group.consumer.min.session.timeout.ms": "1000", "group.consumer.max.heartbeat.interval.ms": "50000",
     "group.consumer.max.session.timeout.ms": "45000"},
]
RESPONSE_FIELDS = ("errorCode", "memberEpoch", "heartbeatIntervalMs", "assignment", "activeTasks", "standbyTasks",
                   "warmupTasks")


def classpath(oracle: Path) -> str:
    return f"{oracle / 'classes'}:{(oracle / 'classpath.txt').read_text().strip()}"


def compile_probes(oracle: Path, out: Path, release: str) -> None:
    package = out / "org" / "apache" / "kafka" / "coordinator" / "group"
    package.mkdir(parents=True)
    shutil.copy(HERE / "GconfDrive.java", package / "GconfDrive.java")
    probe = "Probe41.java" if release == "4.1" else "Probe.java"
    shutil.copy(HERE / probe, out / probe)
    subprocess.run(["javac", "-nowarn", "-cp", classpath(oracle), "-d", str(out), str(out / probe),
                    str(package / "GconfDrive.java")], check=True, capture_output=True)


def _encode(props: dict[str, str]) -> str:
    return ";".join(f"{k}={v}" for k, v in props.items())


def _kafka_message(line: str) -> str:
    return line.split(": ", 1)[1] if ": " in line else line


def validation(oracle: Path, out: Path, release: str) -> tuple[int, int]:
    profile = get_profile(f"kafka-{release}")
    lines = [f"{_encode(b)}\t{_encode(g)}" for b, g in GROUP_CASES] + [f"{_encode(b)}\t-" for b in BROKER_CASES]
    main = "Probe41" if release == "4.1" else "Probe"
    answers = subprocess.run(["java", "-cp", f"{out}:{classpath(oracle)}", main], input="\n".join(lines) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
    agree = 0
    for (broker, group), kafka in zip(GROUP_CASES, answers, strict=False):
        try:
            validate("g", group, Config({k: int(v) for k, v in broker.items()}), profile)
            mine = "OK"
        except InvalidGroupConfig as exc:
            mine = exc.message
        agree += _report(mine == _kafka_message(kafka), group, mine, kafka)
    for broker, kafka in zip(BROKER_CASES, answers[len(GROUP_CASES):], strict=True):
        typed = {k: int(v) for k, v in broker.items()}
        under = [n for n, v in typed.items() if value_problem(n, v)]
        mine = (startup_problem(typed, profile.assignment_batching) or ("", "OK"))[1]
        same = "Value must be at least" in kafka if under else mine == _kafka_message(kafka)
        agree += _report(same, broker, f"under its minimum: {under}" if under else mine, kafka)
    return agree, len(lines)


def _report(same: bool, case: object, mine: str, kafka: str) -> bool:
    print("OK  " if same else "DIFF", case, "| model:", mine, "| kafka:", kafka)
    return same


def _canon(value: Any) -> Any:
    if isinstance(value, list):
        return sorted(json.dumps(x, sort_keys=True) for x in value)
    if isinstance(value, dict):
        return json.dumps({k: _canon(x) for k, x in value.items()}, sort_keys=True)
    return value


def drive(oracle: Path, out: Path, path: Path) -> tuple[int, int]:
    """The trace's heartbeats through Kafka's GroupMetadataManager and the model, side by side."""
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    header = events[0]["header"]
    coord = Coordinator(header["profile"], header.get("configs") or {})
    kafka = subprocess.Popen(["java", "-cp", f"{out}:{classpath(oracle)}", "org.apache.kafka.coordinator.group.GconfDrive"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert kafka.stdin is not None
    assert kafka.stdout is not None

    def send(event: dict[str, Any]) -> dict[str, Any]:
        assert kafka.stdin is not None
        assert kafka.stdout is not None
        kafka.stdin.write(json.dumps(event) + "\n")
        kafka.stdin.flush()
        reply: dict[str, Any] = json.loads(kafka.stdout.readline())
        if not reply["ok"]:
            raise RuntimeError(f"{path}: the oracle failed: {reply['error']}")
        return reply

    send(events[0])
    checked = agree = 0
    for line, event in enumerate(events[1:], 2):
        if "topic" in event:
            topic = event["topic"]
            coord.advance(int(event["tsMs"]))
            coord.update_topic(topic["name"], topic["topicId"], topic["partitions"])
            send(event)
        if "requestHeader" not in event:
            continue
        api, ts = event["requestHeader"]["requestApiKey"], int(event["tsMs"])
        coord.advance(ts)
        before = {g: dict(p) for g, p in coord.group_configs.items()}
        decision = coord.handle(api, event["requestHeader"]["requestApiVersion"], event["request"], now=ts)
        if api in (32, 44):  # ConfigHandler -> GroupCoordinatorService.updateGroupConfig
            for gid in sorted(set(before) | set(coord.group_configs)):
                if before.get(gid) != coord.group_configs.get(gid):
                    send({"cmd": "groupConfig", "groupId": gid, "configs": coord.group_configs.get(gid, {})})
            continue
        reply = send(event)
        theirs, mine = reply.get("response") or {}, decision.response or {}
        diffs = [(f, mine.get(f), theirs.get(f)) for f in RESPONSE_FIELDS
                 if f in theirs and f in mine and _canon(mine[f]) != _canon(theirs[f])]
        their_sessions = {k: v for k, v in reply["timers"].items() if k.startswith("session-timeout")}
        my_sessions = {k: t["deadlineMs"] for k, t in coord.timers.snapshot().items() if k.startswith("session-timeout")}
        if their_sessions != my_sessions:
            diffs.append(("session timers", my_sessions, their_sessions))
        checked += 1
        agree += not diffs
        print(f"{path.name}:{line} API {api}", "OK" if not diffs else f"DIFF {diffs}")
    kafka.stdin.close()
    kafka.wait()
    return agree, checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", choices=["4.1", "4.3"], default="4.3", help="the oracle build's release")
    parser.add_argument("--traces", nargs="*", default=[], type=Path, help="traces whose heartbeats to drive")
    args = parser.parse_args()
    oracle = Path(os.environ.get("ORACLE_DIR", f"/tmp/oracle-{args.release}"))
    if not (oracle / "classpath.txt").is_file():
        print(f"run.py: no oracle build in {oracle} (set ORACLE_DIR; /work/shared/oracle/README.md)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        compile_probes(oracle, out, args.release)
        agree, total = validation(oracle, out, args.release)
        for path in args.traces:
            more, calls = drive(oracle, out, path)
            agree, total = agree + more, total + calls
    print(f"{agree}/{total} agree")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
