"""Verdicts that were wrong while a dry run changed the model (issue: the step as a value).

Each test failed before ``decide`` became pure: a retry with a legal alternative saw the first
try's side effects (a fresh random member id, a bumped endpoint epoch, a cached refinement).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.recorder import TraceRecorder
from kgspec.model.coordinator import Coordinator
from kgspec.model.step import Choices

from tests.helpers import check_events
from tests.streams.helpers import request, sub, topology

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"


def _alternative_target_trace(version: int) -> list[dict[str, Any]]:
    """a joins before its topic exists; b joins (at ``version``) once it does, and the trace's
    coordinator gives b the other legal half of the uniform target."""
    r = TraceRecorder("kafka-4.3", {"group.consumer.assignment.interval.ms": 0},
                      member_ids=["generated-b"])
    r.call(10, "a", {"groupId": "g", "memberId": "a", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
                     "subscribedTopicNames": ["foo"], "topicPartitions": []}, version=1)
    r.topic(20, "foo", 4)
    b_request = {"groupId": "g", "memberId": "" if version == 0 else "b", "memberEpoch": 0,
                 "rebalanceTimeoutMs": 1000, "subscribedTopicNames": ["foo"], "topicPartitions": []}
    joined = r.call(30, "b", b_request, version=version)
    given = {p for e in joined["assignment"]["topicPartitions"] for p in e["partitions"]}
    assert len(given) == 2  # b's half, free at once: a owns nothing yet
    events = copy.deepcopy(r.events)
    b_call = next(e for e in events if e.get("tsMs") == 30 and "response" in e)
    other = sorted({0, 1, 2, 3} - given)
    b_call["response"]["assignment"]["topicPartitions"][0]["partitions"] = other
    if version == 0:
        b_call["response"]["memberId"] = "id-the-broker-drew"
    # Only the call: the records the recorder wrote are the model's own target, not the trace's.
    return [e for e in events if "record" not in e]


@pytest.mark.parametrize("version", [0, 1])
def test_alternative_uniform_target_conforms_whoever_chose_the_member_id(version: int, tmp_path: Path) -> None:
    """Before: with v0 the retry drew a fresh random id, so the adopted target mismatched."""
    status, report = check_events(tmp_path, _alternative_target_trace(version))
    assert report["findings"] == []
    assert status == 0


def _streams_join(member: str) -> dict[str, Any]:
    return request(member, 0, rebalanceTimeoutMs=1000, topology=topology(sub("0", ["in"]), epoch=1),
                   activeTasks=[], standbyTasks=[], warmupTasks=[], processId=f"p-{member}",
                   userEndpoint={"host": "h", "port": 1}, shutdownApplication=True)


def test_streams_decisions_leave_soft_state_alone() -> None:
    """Before: three uncommitted StreamsGroupHeartbeat dry runs bumped endpointInformationEpoch
    0 -> 3 and set the shutdown member; a retried call then bumped twice."""
    coord = Coordinator("kafka-trunk", {"group.streams.initial.rebalance.delay.ms": 0})  # an endpoint change bumps
    coord.update_topic("in", "AAAAAAAAAAAAAAAAAAAAAQ", 2)
    coord.handle(88, 0, {**_streams_join("m1"), "shutdownApplication": False}, now=0)
    group = coord.streams_groups["g"]
    epoch_before = group.endpoint_information_epoch
    request = {**_streams_join("m1"), "memberEpoch": group.members["m1"].member_epoch, "topology": None,
               "rebalanceTimeoutMs": -1, "processId": None, "userEndpoint": {"host": "h2", "port": 2}}
    decisions = [coord.decide(88, 0, request, now=10) for _ in range(3)]
    assert group.endpoint_information_epoch == epoch_before
    assert group.shutdown_request_member_id is None
    assert decisions[0] == decisions[1] == decisions[2]
    coord.commit(decisions[0])
    assert group.shutdown_request_member_id == "m1"
    assert group.endpoint_information_epoch == epoch_before + 1


def test_streams_heartbeat_v1_is_modelled_on_trunk(tmp_path: Path) -> None:
    """Before: the checker's own version table stopped at v0 while the model answered v1 on
    trunk, so a trunk trace at v1 was 'not modelled'."""
    r = TraceRecorder("kafka-trunk", {"group.streams.initial.rebalance.delay.ms": 0})
    r.topic(0, "in", 2)
    r.call(10, "m1", {**_streams_join("m1"), "shutdownApplication": False}, api_key=88, version=1)
    status, report = check_events(tmp_path, r.events)
    assert [f["kind"] for f in report["findings"]] == []
    assert status == 0
    status, report = check_events(tmp_path, r.events, "--profile", "kafka-4.3")
    assert status == 1
    assert [(f["kind"], f["field"]) for f in report["findings"]] == [
        ("unsupported", "requestHeader.requestApiVersion")]


def _classic_join_the_model_names(tmp_path: Path) -> Path:
    """join_sync.jsonl with its first JoinGroup answered UNKNOWN_MEMBER_ID and no member id: the
    model names the new member itself, and the finding's message quotes that id."""
    lines = (GOLDEN / "classic" / "join_sync.jsonl").read_text().splitlines()
    first = json.loads(lines[1])
    first["response"].update(errorCode=25, memberId="")
    lines[1] = json.dumps(first)
    path = tmp_path / "classic.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("trace", "extra", "status"), [
    ("classic", (), 1), ("consumer/join_with_records.jsonl", (), 0),
    ("consumer/reconciliation.jsonl", ("--mutant", "assignor-double-assign"), 1)])
def test_reports_are_byte_identical_across_hash_seeds(trace: str, extra: tuple[str, ...], status: int,
                                                       tmp_path: Path) -> None:
    """Before: classic member ids came from uuid4, so a message quoting one differed per run; the
    double-assign mutant took the first topic of a set, whose order follows string hashing.
    Each run must also end as expected (findings: 1), so three equal failures do not pass."""
    path = _classic_join_the_model_names(tmp_path) if trace == "classic" else GOLDEN / trace
    outputs = []
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = tmp_path / f"{seed}.json"
        run = subprocess.run([sys.executable, "-m", "kgspec", "check", str(path), "--json", str(out), *extra],
                             capture_output=True, env=env, cwd=ROOT, check=False)
        outputs.append((run.returncode, run.stdout, out.read_bytes()))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0][0] == status
    if trace == "classic":
        assert outputs[0][0] == 1
        assert b"pending as c1-" in outputs[0][1]


def test_member_ids_are_deterministic_and_drawn_only_on_commit() -> None:
    coord = Coordinator("kafka-4.3")
    request = {"groupId": "g", "memberId": "", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
               "subscribedTopicNames": ["foo"], "topicPartitions": []}
    first = coord.decide(68, 0, request, now=0)
    again = coord.decide(68, 0, request, now=0)
    assert first == again
    chosen = coord.decide(68, 0, request, now=0, choices=Choices(member_id="mine"))
    assert chosen.response is not None
    assert chosen.response["memberId"] == "mine"
    coord.commit(first)
    assert first.response is not None
    other = Coordinator("kafka-4.3")
    assert other.decide(68, 0, request, now=0).response == first.response  # same seed, same id
    second = coord.decide(68, 0, {**request, "groupId": "h"}, now=0)
    assert second.response is not None
    assert second.response["memberId"] != first.response["memberId"]
