"""Timers (session, revocation, assignment computation) and records (shapes, replay, failover)."""

from __future__ import annotations

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.records import Record
from kgspec.spec.connect import NOTIFIED, REQUESTED

from tests.connect.harness import COMPUTE_ASSIGNMENT, CONFIG, Cluster, ct
from tests.connect.scenarios import SCENARIOS, empty_group_and_two_workers

ALL = ["AC0", "AT1", "AT2", "BC0", "BT1"]


def test_session_timeout_fences_the_worker() -> None:
    c = Cluster()
    c.hb("W1", 0)
    c.at(1000)
    c.hb("W2", 0)
    c.at(45000)  # W1's session: 45 s after its last heartbeat at 0
    assert c.view()["group"] == (3, ["W2"])
    assert [e["record"]["key"]["type"] for e in c.events[-3:]] == [1004, 1002, 1000]


def test_rebalance_timeout_fences_a_worker_that_does_not_revoke() -> None:
    c = Cluster()
    c.configure(CONFIG)
    c.hb("W1", 0, rebalance_timeout=10000)
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": ALL})
    c.hb("W1", 0, ct(), rebalance_timeout=10000)
    c.hb("W2", 0)
    c.hb("W1", 1, ct(*ALL))
    c.prepare("W1", 1)
    c.install("W1", 1, 2, {"W1": ["AC0"], "W2": ["AT1", "AT2", "BC0", "BT1"]})
    c.at(1000)
    assert c.hb("W1", 1, ct(*ALL))["memberEpoch"] == 1  # revoking from 1000
    c.at(5000)
    c.hb("W2", 1, ct())
    assert c.hb("W1", 1, ct(*ALL))["memberEpoch"] == 1  # still revoking: the timer keeps its deadline
    c.at(11000)
    assert c.view()["group"] == (3, ["W2"])


def test_assignment_timeout_fences_the_computing_worker() -> None:
    c = Cluster()
    c.hb("W1", 0, rebalance_timeout=20000)
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": []})
    c.hb("W1", 0, ct(), rebalance_timeout=20000)
    c.at(1000)
    c.hb("W2", 0)
    assert c.hb("W1", 1, ct())["errorCode"] == COMPUTE_ASSIGNMENT  # at 1000, 20 s to install
    c.at(15000)
    c.hb("W1", 1, ct())
    c.hb("W2", 1, ct())
    c.at(21000)
    assert c.view()["group"] == (3, ["W2"])
    assert c.hb("W2", 1, ct())["errorCode"] == COMPUTE_ASSIGNMENT


def test_record_shapes() -> None:
    c, _ = empty_group_and_two_workers()
    records = [e["record"] for e in c.events if "record" in e]
    assert records[0] == {"key": {"type": 1001, "data": {"groupId": "g"}},
                          "value": {"version": 0, "data": {"connectors": [{"name": "A", "tasks": [1, 2]},
                                                                          {"name": "B", "tasks": [1]}]}}}
    assert records[1]["value"]["data"] == {
        "groupEpoch": 1, "instanceId": None, "clientId": "W1", "clientHost": "/127.0.0.1", "rebalanceTimeoutMs": 60000,
        "assignors": [{"name": "incremental", "minimumVersion": 0, "maximumVersion": 2, "reason": 0, "version": 2,
                       "metadata": None}]}
    assert records[2] == {"key": {"type": 1000, "data": {"groupId": "g"}}, "value": {"version": 0, "data": {"epoch": 1}}}
    assert records[3]["key"] == {"type": 1003, "data": {"groupId": "g"}}
    assert records[3]["value"]["data"] == {
        "assignmentEpoch": 1, "error": 0, "delayedUntilMs": -1,
        "members": [{"memberId": "W1", "error": 0, "connectorsAndTasks": ct(*ALL), "version": 2, "metadata": None}]}
    assert records[4] == {"key": {"type": 1004, "data": {"groupId": "g", "memberId": "W1"}},
                          "value": {"version": 0, "data": {
                              "memberEpoch": 1, "previousMemberEpoch": 0, "state": 1, "error": 0,
                              "connectorsAndTasks": ct(*ALL), "connectorsAndTasksPendingRevocation": ct(),
                              "version": 2, "metadata": None}}}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_replay_rebuilds_identical_state(name: str) -> None:
    c, _ = SCENARIOS[name]()
    fresh = Coordinator("kip")
    fresh.apply(Record.from_json(e["record"]) for e in c.events if "record" in e)
    assert fresh.snapshot()["connectGroups"] == c.coord.snapshot()["connectGroups"]


def test_failover_starts_the_computation_over() -> None:
    c = Cluster()
    c.hb("W1", 0)
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": []})
    c.hb("W1", 0, ct())
    c.hb("W2", 0)
    assert c.hb("W1", 1, ct())["errorCode"] == COMPUTE_ASSIGNMENT
    assert c.coord.connect_groups["g"].computation.phase == NOTIFIED
    c.coord.failover(1000)
    comp = c.coord.connect_groups["g"].computation
    assert (comp.phase, comp.member_id, comp.sticky) == ("IDLE", None, None)
    c.at(1000)
    assert c.prepare("W1", 1)["errorCode"] == 25  # the new coordinator has chosen nobody yet
    assert c.coord.connect_groups["g"].computation.phase == REQUESTED
    assert c.hb("W2", 1, ct())["errorCode"] == COMPUTE_ASSIGNMENT  # the first eligible to heartbeat
    assert sorted(k for k in c.coord.timers.snapshot() if k.startswith("connect-session")) == \
        ["connect-session-g-W1", "connect-session-g-W2"]
