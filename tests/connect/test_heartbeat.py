"""ConnectGroupHeartbeat rules, one test per rule of the draft ('Request Validation', 'Request
Handling', 'Response Schema') and per kgspec decision (docs/connect.md)."""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.coordinator import Coordinator

from tests.connect.harness import COMPUTE_ASSIGNMENT, CONFIG, HB, Cluster, assignor, ct, names
from tests.connect.scenarios import empty_group_and_two_workers

JOIN: dict[str, Any] = {"groupId": "g", "memberId": "W1", "memberEpoch": 0, "instanceId": None,
                        "rebalanceTimeoutMs": 60000, "serverAssignor": None, "clientAssignors": [assignor()],
                        "connectorsAndTasks": ct()}


@pytest.mark.parametrize(("change", "message"), [
    ({"groupId": ""}, "GroupId can't be empty."),
    ({"memberId": ""}, "MemberId can't be empty."),
    ({"memberEpoch": -2}, "MemberEpoch must be >= -1."),
    ({"instanceId": ""}, "InstanceId can't be empty."),
    ({"rebalanceTimeoutMs": 0}, "RebalanceTimeoutMs must be larger than zero in the first heartbeat request."),
    ({"serverAssignor": "uniform"}, "ServerAssignor and ClientAssignors cannot be used together."),
    ({"clientAssignors": [assignor(name="")]}, "Assignor.Name must be non-empty."),
    ({"clientAssignors": [{**assignor(), "minimumVersion": -2}]}, "Assignor.MinimumVersion must be >= -1."),
    ({"clientAssignors": [assignor(lo=3, hi=2)]},
     "Assignor.MaximumVersion must be >= 0 and >= Assignor.MinimumVersion."),
    ({"clientAssignors": [{**assignor(lo=0, hi=2), "version": 3}]},
     "Assignor.Version must be >= Assignor.MinimumVersion and <= Assignor.MaximumVersion."),
], ids=["group-id", "member-id", "epoch", "instance-id", "rebalance-timeout", "server-and-client",
        "assignor-name", "min-version", "max-version", "version-range"])
def test_invalid_request(change: dict[str, Any], message: str) -> None:
    r = Coordinator("kip").handle(HB, 0, {**JOIN, **change}, now=0)
    assert r.response == {"errorCode": 42, "errorMessage": message, "memberEpoch": 0, "heartbeatIntervalMs": 0,
                          "assignment": None}
    assert r.records == []


def test_server_assignor_is_unsupported() -> None:
    r = Coordinator("kip").handle(HB, 0, {**JOIN, "clientAssignors": None, "serverAssignor": "uniform"}, now=0)
    assert r.response is not None
    assert r.response["errorCode"] == 112


def test_version_range_must_overlap_the_other_workers() -> None:
    c = Cluster()
    c.hb("W1", 0, assignors=[assignor(lo=0, hi=1)])
    response = c.hb("W2", 0, assignors=[assignor(lo=2, hi=2)])
    assert response["errorCode"] == 112
    assert c.view()["group"] == (1, ["W1"])


def test_unknown_member_with_nonzero_epoch() -> None:
    c = Cluster()
    assert c.hb("W1", 3, ct())["errorCode"] == 25
    assert c.coord.connect_groups == {}


def test_join_creates_group_and_worker_at_epoch_1() -> None:
    c = Cluster()
    c.hb("W1", 0)
    group = c.coord.connect_groups["g"]
    assert (group.group_epoch, group.assignment_epoch, group.members["W1"].joined_epoch) == (1, 0, 1)
    assert [e["record"]["key"]["type"] for e in c.events if "record" in e] == [1002, 1000]


def test_fenced_member_epoch_removes_the_worker() -> None:
    c = Cluster()
    c.hb("W1", 0)
    c.hb("W2", 0)
    response = c.hb("W2", 7, ct())
    assert response["errorCode"] == 110
    assert c.view()["group"] == (3, ["W1"])
    assert [e["record"]["key"]["type"] for e in c.events[-3:]] == [1004, 1002, 1000]
    assert c.events[-3]["record"]["value"] is None
    assert c.events[-2]["record"]["value"] is None


def test_lost_response_previous_epoch_with_subset_is_accepted() -> None:
    c, _ = empty_group_and_two_workers()  # W1: epoch 2 (previous 1) with AC0, AT1, AT2
    response = c.hb("W1", 1, ct("AC0", "AT1"))  # the response moving it to 2 was lost
    assert (response["errorCode"], response["memberEpoch"]) == (0, 2)


def test_previous_epoch_owning_more_than_assigned_is_fenced() -> None:
    c, _ = empty_group_and_two_workers()
    assert c.hb("W1", 1, ct("AC0", "BT1"))["errorCode"] == 110
    assert c.view()["group"] == (3, ["W2"])


def test_rejoin_with_epoch_zero_keeps_the_worker() -> None:
    c, _ = empty_group_and_two_workers()
    response = c.hb("W1", 0, ct("AC0", "AT1", "AT2"))
    assert (response["errorCode"], response["memberEpoch"], names(response["assignment"])) == \
        (0, 2, ["AC0", "AT1", "AT2"])
    assert c.view()["group"] == (2, ["W1", "W2"])


def test_leave_with_epoch_minus_one() -> None:
    c = Cluster()
    c.hb("W1", 0)
    c.hb("W2", 0)
    response = c.hb("W2", -1, None)
    assert response == {"errorCode": 0, "errorMessage": None, "memberEpoch": -1, "heartbeatIntervalMs": 0,
                        "assignment": None}
    assert c.view()["group"] == (3, ["W1"])


def test_leave_of_unknown_worker() -> None:
    c = Cluster()
    c.hb("W1", 0)
    assert c.hb("W9", -1, None)["errorCode"] == 25


def test_assignment_omitted_when_nothing_changed() -> None:
    c = Cluster()
    c.hb("W1", 0)
    response = c.hb("W1", 0, ct())  # W1 is at epoch 0 (target epoch 0): a plain heartbeat
    assert response["assignment"] is not None  # epoch 0 is a full request: the assignment is sent
    c.configure(CONFIG)
    c.hb("W1", 0, ct())
    c.prepare("W1", 0)
    c.install("W1", 0, 2, {"W1": ["AC0", "AT1", "AT2", "BC0", "BT1"]})
    assert c.hb("W1", 0, ct())["memberEpoch"] == 2
    response = c.hb("W1", 2, ct("AC0", "AT1", "AT2", "BC0", "BT1"))
    assert (response["errorCode"], response["memberEpoch"], response["assignment"]) == (0, 2, None)


def test_changed_reason_bumps_the_group_epoch() -> None:
    c = Cluster()
    c.hb("W1", 0)
    c.hb("W1", 0, ct(), assignors=[assignor(reason=3)])
    assert c.view()["group"] == (2, ["W1"])


def test_unchanged_assignors_do_not_bump() -> None:
    c = Cluster()
    c.hb("W1", 0)
    c.hb("W1", 0, ct(), assignors=[assignor()])
    assert c.view()["group"] == (1, ["W1"])


def test_connectors_added_bump_the_group_epoch() -> None:
    c = Cluster()
    c.hb("W1", 0)
    records = c.configure(CONFIG)
    assert [(r.type, r.key, r.value) for r in records] == [
        (1001, {"groupId": "g"}, {"connectors": [{"name": "A", "tasks": [1, 2]}, {"name": "B", "tasks": [1]}]}),
        (1000, {"groupId": "g"}, {"epoch": 2})]
    assert c.configure(CONFIG) == []  # no change, no record


def test_group_id_of_another_type() -> None:
    coord = Coordinator("kip")
    coord.handle(68, 1, {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 5000,
                         "subscribedTopicNames": ["t"], "topicPartitions": []}, now=0)
    assert "g" in coord.groups
    r = coord.handle(HB, 0, JOIN, now=0)
    assert r.response == {"errorCode": 69, "errorMessage": "Group g is not a connect group.", "memberEpoch": 0,
                          "heartbeatIntervalMs": 0, "assignment": None}
    assert r.records == []


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.2", "kafka-4.3", "kafka-trunk"])
def test_kafka_releases_do_not_know_connect_apis(profile: str) -> None:
    r = Coordinator(profile).handle(HB, 0, JOIN, now=0)
    assert r.response == {"errorCode": 35, "errorMessage": f"CONNECT_GROUP_HEARTBEAT is not an API of {profile} "
                                                           "(the Connect draft is modelled only under profile kip)"}
    assert r.records == []


def test_only_version_0() -> None:
    r = Coordinator("kip").handle(HB, 1, JOIN, now=0)
    assert r.response == {"errorCode": 35,
                          "errorMessage": "CONNECT_GROUP_HEARTBEAT has only version 0 (draft: validVersions 0)"}
    assert r.records == []


def test_revoking_worker_gets_the_intersection_and_keeps_its_epoch() -> None:
    c = Cluster()
    c.configure(CONFIG)
    c.hb("W1", 0)
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": ["AC0", "AT1", "AT2", "BC0", "BT1"]})
    c.hb("W1", 0, ct())
    c.hb("W2", 0)
    c.hb("W1", 1, ct("AC0", "AT1", "AT2", "BC0", "BT1"))
    c.prepare("W1", 1)
    c.install("W1", 1, 2, {"W1": ["AT1"], "W2": ["AC0", "AT2", "BC0", "BT1"]})
    w2 = c.hb("W2", 1, ct())  # everything it is given is still W1's: epoch 2, nothing yet
    assert (w2["memberEpoch"], names(w2["assignment"])) == (2, [])
    w1 = c.hb("W1", 1, ct("AC0", "AT1", "AT2", "BC0", "BT1"))
    assert (w1["memberEpoch"], names(w1["assignment"])) == (1, ["AT1"])
    assert c.hb("W1", 1, None)["memberEpoch"] == 1  # null owned: no acknowledgement
    assert c.hb("W1", 1, ct("AT1"))["memberEpoch"] == 2
    w2 = c.hb("W2", 2, ct())
    assert names(w2["assignment"]) == ["AC0", "AT2", "BC0", "BT1"]


def test_compute_assignment_is_sent_once() -> None:
    c = Cluster()
    assert c.hb("W1", 0)["errorCode"] == COMPUTE_ASSIGNMENT
    assert c.hb("W1", 0, ct())["errorCode"] == 0
