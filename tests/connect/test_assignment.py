"""Assignment process rules: worker selection, Prepare, Install, validation, assignor errors, the
scheduled rebalance delay (draft 'Assignment Process', 'Worker Selection', 'Assignment Validation',
'Assignment Error', 'Triggering Rebalances', the two APIs)."""

from __future__ import annotations

from kgspec.model.connect.group import ConnectMember, eligible_workers, selected_assignor
from kgspec.model.connect.member import Assignor
from kgspec.model.connect.ops import (
    CONNECT_GROUP_INSTALL_ASSIGNMENT,
    CONNECT_GROUP_PREPARE_ASSIGNMENT,
)
from kgspec.model.coordinator import Coordinator
from kgspec.spec.connect import IDLE, NOTIFIED, PREPARED, REQUESTED

from tests.connect.harness import (
    COMPUTE_ASSIGNMENT,
    CONFIG,
    INVALID_ASSIGNMENT,
    Cluster,
    assignor,
    ct,
)
from tests.connect.scenarios import empty_group_and_two_workers, epoch_35, worker_leaving

ALL = ["AC0", "AT1", "AT2", "BC0", "BT1"]


def _two_workers_asked() -> Cluster:
    """W1 and W2 joined; W1 is chosen for group epoch 2 and has prepared."""
    c = Cluster()
    c.configure(CONFIG)
    c.hb("W1", 0)
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": ALL})
    c.hb("W1", 0, ct())
    c.hb("W2", 0)
    assert c.hb("W1", 1, ct(*ALL))["errorCode"] == COMPUTE_ASSIGNMENT
    assert c.prepare("W1", 1)["groupEpoch"] == 2
    return c


def _phase(c: Cluster) -> tuple[str, str | None]:
    comp = c.coord.connect_groups["g"].computation
    return comp.phase, comp.member_id


def test_worker_selection_by_version_range() -> None:
    members = {m: ConnectMember(m, assignors=(Assignor("x", lo, hi),))
               for m, lo, hi in (("A", 1, 5), ("B", 3, 4), ("C", 2, 4))}
    assert eligible_workers(members) == {"A"}  # the draft's example
    members["A"] = ConnectMember("A", assignors=(Assignor("x", 1, 3),))
    assert eligible_workers(members) == set()  # 'we will throw a FATAL error'


def test_assignor_precedence_of_the_longest_standing_worker() -> None:
    members = {"W1": ConnectMember("W1", joined_epoch=1, assignors=(Assignor("b", 0, 1), Assignor("a", 0, 1))),
               "W2": ConnectMember("W2", joined_epoch=2, assignors=(Assignor("a", 0, 1), Assignor("b", 0, 1)))}
    assert selected_assignor(members) == "b"


def test_only_a_covering_worker_is_asked() -> None:
    c = Cluster()
    c.hb("W1", 0, assignors=[assignor(lo=3, hi=4)])
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": []})
    response = c.hb("W2", 0, assignors=[assignor(lo=1, hi=5)])  # W2 covers W1's range; W1 no longer covers
    assert response["errorCode"] == COMPUTE_ASSIGNMENT
    assert _phase(c) == (NOTIFIED, "W2")


def test_no_covering_worker_nobody_computes() -> None:
    c = Cluster()
    c.hb("W1", 0, assignors=[assignor(lo=1, hi=3)])
    c.prepare("W1", 0)
    c.install("W1", 0, 1, {"W1": []})
    c.hb("W1", 0, ct(), assignors=[assignor(lo=1, hi=3)])
    assert c.hb("W2", 0, assignors=[assignor(lo=2, hi=4)])["errorCode"] == 0
    assert c.hb("W1", 1, ct())["errorCode"] == 0
    assert _phase(c) == (REQUESTED, None)
    assert c.prepare("W2", 1)["errorCode"] == 25


def test_prepare_validation_and_lookups() -> None:
    c = _two_workers_asked()
    assert c.prepare("W1", -1)["errorCode"] == 42
    assert c.call(CONNECT_GROUP_PREPARE_ASSIGNMENT, {"groupId": "other", "memberId": "W1",
                                                     "memberEpoch": 0}).response == \
        {"errorCode": 69, "errorMessage": "Group other not found."}
    assert c.prepare("W9", 1)["errorCode"] == 25
    assert c.prepare("W1", 2)["errorCode"] == 110
    assert c.prepare("W2", 1)["errorCode"] == 25  # not the chosen one


def test_prepare_returns_members_and_the_current_target() -> None:
    c = _two_workers_asked()
    response = c.prepare("W1", 1)
    assert response == {
        "errorCode": 0, "errorMessage": None, "groupEpoch": 2, "assignorName": "incremental",
        "members": [
            {"memberId": "W1", "memberEpoch": 1, "instanceId": None,
             "assignor": {"version": 2, "reason": 0, "metadata": None}, "connectorsAndTasks": ct(*ALL)},
            {"memberId": "W2", "memberEpoch": 1, "instanceId": None,
             "assignor": {"version": 2, "reason": 0, "metadata": None}, "connectorsAndTasks": ct()}]}
    assert _phase(c) == (PREPARED, "W1")


def test_install_with_both_partitions_and_connectors_is_invalid() -> None:
    c = _two_workers_asked()
    request = {"groupId": "g", "memberId": "W1", "memberEpoch": 1, "groupEpoch": 2, "error": 0,
               "members": [{"memberId": "W1", "connectorsAndTasks": ct(*ALL), "topicPartitions": []}]}
    assert c.call(CONNECT_GROUP_INSTALL_ASSIGNMENT, request).response == \
        {"errorCode": 42, "errorMessage": "Both Partitions and ConnectorsAndTasks are set."}


def test_install_by_a_worker_not_chosen() -> None:
    c = _two_workers_asked()
    assert c.install("W2", 1, 2, {"W1": ALL})["errorCode"] == 25


def test_install_naming_an_unknown_worker() -> None:
    c = _two_workers_asked()
    response = c.install("W1", 1, 2, {"W1": ALL, "W9": []})
    assert response == {"errorCode": INVALID_ASSIGNMENT, "errorMessage": "Workers ['W9'] do not exist."}
    assert _phase(c) == (REQUESTED, "W1")  # asked again on its next heartbeat
    assert c.hb("W1", 1, ct(*ALL))["errorCode"] == COMPUTE_ASSIGNMENT


def test_install_assigning_twice() -> None:
    c = _two_workers_asked()
    response = c.install("W1", 1, 2, {"W1": ALL, "W2": ["AT1"]})
    assert response == {"errorCode": INVALID_ASSIGNMENT, "errorMessage": "['AT1'] are assigned more than once."}


def test_install_leaving_work_unassigned() -> None:
    c = _two_workers_asked()
    response = c.install("W1", 1, 2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0"]})
    assert response == {"errorCode": INVALID_ASSIGNMENT, "errorMessage": "['BT1'] are not assigned."}


def test_install_of_unconfigured_work() -> None:
    c = _two_workers_asked()
    response = c.install("W1", 1, 2, {"W1": ALL, "W2": ["CC0"]})
    assert response == {"errorCode": INVALID_ASSIGNMENT, "errorMessage": "['CC0'] are not configured connectors/tasks."}


def test_install_at_an_epoch_not_prepared() -> None:
    c = _two_workers_asked()
    assert c.install("W1", 1, 1, {"W1": ALL})["errorCode"] == INVALID_ASSIGNMENT  # not newer than target 1
    c.hb("W1", 1, ct(*ALL))
    c.prepare("W1", 1)
    assert c.install("W1", 1, 5, {"W1": ALL})["errorCode"] == INVALID_ASSIGNMENT


def test_assignor_error_retains_the_current_assignments() -> None:
    c = _two_workers_asked()
    assert c.install("W1", 1, 2, {}, error=7) == {"errorCode": 0, "errorMessage": None}
    group = c.coord.connect_groups["g"]
    assert (group.assignment_epoch, group.target_error) == (2, 7)
    assert c.view()["target"] == (2, {"W1": ALL})
    response = c.hb("W2", 1, ct())
    assert (response["memberEpoch"], response["assignment"]["error"]) == (2, 0)  # W2 has no target entry
    assert c.hb("W1", 1, ct(*ALL))["memberEpoch"] == 2


def test_validation_uses_the_prepared_metadata_when_the_group_moved_on() -> None:
    c = _two_workers_asked()  # prepared at 2 with W1, W2
    c.hb("W3", 0)  # group epoch 3 during the computation
    assert c.install("W1", 1, 2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]})["errorCode"] == 0
    assert c.view()["target"][0] == 2
    assert _phase(c) == (REQUESTED, "W1")  # still behind: the same worker computes again
    assert c.hb("W1", 1, ct(*ALL))["errorCode"] == COMPUTE_ASSIGNMENT


def test_worker_that_left_during_computation_drops_out_of_the_target() -> None:
    c = _two_workers_asked()
    c.hb("W2", -1, None)  # group epoch 3
    assert c.install("W1", 1, 2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]})["errorCode"] == 0
    assert c.view()["target"] == (2, {"W1": ["AC0", "AT1", "AT2"]})


def test_computing_worker_leaves_another_is_chosen() -> None:
    c = _two_workers_asked()
    c.hb("W1", -1, None)
    assert c.hb("W2", 1, ct())["errorCode"] == COMPUTE_ASSIGNMENT
    assert _phase(c) == (NOTIFIED, "W2")


def test_delay_window_then_everything_must_be_assigned() -> None:
    c, _ = worker_leaving()
    group = c.coord.connect_groups["g"]
    assert group.delayed_until == -1  # the epoch-37 install assigned everything
    c2 = Cluster(configs={"group.connect.scheduled.rebalance.max.delay.ms": 10000})
    c2.load(epoch_35(), 0)
    c2.at(30000)
    c2.hb("W1", 35, ct("AC0", "AT1"))
    c2.hb("W3", 35, ct("AT2"))
    c2.at(46000)
    c2.hb("W3", 35, ct("AT2"))
    c2.prepare("W3", 35)
    assert c2.install("W3", 35, 36, {"W1": ["AC0", "AT1"], "W3": ["AT2"]})["errorCode"] == 0
    assert c2.coord.connect_groups["g"].delayed_until == 56000
    c2.hb("W1", 35, ct("AC0", "AT1"))
    c2.hb("W3", 35, ct("AT2"))
    c2.at(56000)  # the delay ends: the coordinator bumps the group epoch itself
    assert c2.view()["group"] == (37, ["W1", "W3"])
    assert c2.events[-1]["record"] == {"key": {"type": 1000, "data": {"groupId": "g"}},
                                       "value": {"version": 0, "data": {"epoch": 37}}}
    assert c2.hb("W3", 36, ct("AT2"))["errorCode"] == COMPUTE_ASSIGNMENT
    c2.prepare("W3", 36)
    response = c2.install("W3", 36, 37, {"W1": ["AC0", "AT1"], "W3": ["AT2"]})
    assert response["errorCode"] == INVALID_ASSIGNMENT
    # Still the chosen worker: a retry without a new COMPUTE_ASSIGNMENT is validated afresh.
    assert c2.install("W3", 36, 37, {"W1": ["AC0", "AT1", "BC0"], "W3": ["AT2", "BT1"]})["errorCode"] == 0


def test_phases_follow_the_spec_table() -> None:
    c = Cluster()
    c.hb("W1", 0)
    assert _phase(c) == (NOTIFIED, "W1")
    c.prepare("W1", 0)
    assert _phase(c) == (PREPARED, "W1")
    c.install("W1", 0, 1, {"W1": []})
    assert _phase(c) == (IDLE, None)


def test_kafka_release_answers_prepare_unsupported() -> None:
    r = Coordinator("kafka-4.3").handle(CONNECT_GROUP_PREPARE_ASSIGNMENT, 0,
                                        {"groupId": "g", "memberId": "W1", "memberEpoch": 0}, now=0)
    assert r.response == {"errorCode": 35, "errorMessage": "CONNECT_GROUP_PREPARE_ASSIGNMENT is not an API of "
                                                           "kafka-4.3 (the Connect draft is modelled only under "
                                                           "profile kip)"}
    assert r.records == []


def test_case_study_one_is_sticky() -> None:
    _, out = empty_group_and_two_workers()
    assert out["w2 join"]["errorCode"] == 0
    assert out["w1 asked"]["errorCode"] == COMPUTE_ASSIGNMENT
