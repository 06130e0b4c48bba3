"""The Connect draft's 'Case Studies' with the draft's exact epochs and assignments.

Listings are ``view()``: (group epoch, workers), (target epoch, target), worker -> (epoch, owned).
Where kgspec differs from a listing the test says why (docs/connect.md, 'Case studies').
"""

from __future__ import annotations

from tests.connect.harness import COMPUTE_ASSIGNMENT, names
from tests.connect.scenarios import empty_group_and_two_workers, worker_bounces, worker_leaving

ALL = ["AC0", "AT1", "AT2", "BC0", "BT1"]


def test_w1_joins_the_empty_group_and_is_chosen() -> None:
    _, out = empty_group_and_two_workers()
    # 'The coordinator bumps the group epoch to 1, adds W1 ... W1 epoch=0, partitions=[]'
    assert out["after w1 join"] == {"group": (1, ["W1"]), "target": (0, {}), "members": {"W1": (0, [])}}
    assert out["w1 join"]["errorCode"] == COMPUTE_ASSIGNMENT
    assert out["w1 join"]["memberEpoch"] == 0
    assert names(out["w1 join"]["assignment"]) == []
    assert out["w1 prepare"]["groupEpoch"] == 1
    assert out["w1 prepare"]["assignorName"] == "incremental"
    assert [m["memberId"] for m in out["w1 prepare"]["members"]] == ["W1"]
    assert out["w1 install"] == {"errorCode": 0, "errorMessage": None}
    # 'installed as target assignment': target epoch 1, W1 still at 0 with nothing
    assert out["target 1"] == {"group": (1, ["W1"]), "target": (1, {"W1": ALL}), "members": {"W1": (0, [])}}


def test_w1_heartbeat_moves_it_to_epoch_1_with_everything() -> None:
    _, out = empty_group_and_two_workers()
    assert out["w1 hb"]["errorCode"] == 0
    assert out["w1 hb"]["memberEpoch"] == 1
    assert names(out["w1 hb"]["assignment"]) == ALL
    assert out["w1 at 1"]["members"] == {"W1": (1, ALL)}


def test_w2_joins_and_sticky_w1_computes() -> None:
    _, out = empty_group_and_two_workers()
    # The draft lists 'W2 epoch=0' right after the join; kgspec reconciles W2 in the same heartbeat
    # (as KIP-848 does) to the target epoch 1 with an empty assignment, the draft's next listing.
    assert out["after w2 join"] == {"group": (2, ["W1", "W2"]), "target": (1, {"W1": ALL}),
                                    "members": {"W1": (1, ALL), "W2": (1, [])}}
    assert out["w2 join"]["errorCode"] == 0
    assert out["w1 asked"]["errorCode"] == COMPUTE_ASSIGNMENT  # 'W1 is chosen' (the previous computing worker)
    assert out["w1 asked"]["assignment"] is None
    assert out["w1 prepare 2"]["groupEpoch"] == 2
    assert [(m["memberId"], m["memberEpoch"], names(m["connectorsAndTasks"]))
            for m in out["w1 prepare 2"]["members"]] == [("W1", 1, ALL), ("W2", 1, [])]
    assert out["target 2"]["target"] == (2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]})
    # 'W2 epoch=1, connectorsAndTasks=[]' while W1 still owns BC0, BT1
    assert out["target 2"]["members"] == {"W1": (1, ALL), "W2": (1, [])}


def test_w1_revokes_then_moves_to_epoch_2() -> None:
    _, out = empty_group_and_two_workers()
    # 'it would be asked to revoke them': current ∩ target, epoch stays 1
    assert (out["w1 revoke"]["memberEpoch"], names(out["w1 revoke"]["assignment"])) == (1, ["AC0", "AT1", "AT2"])
    # 'When it acknowledges the revocation, the coordinator would transition it to epoch 2'
    assert (out["w1 ack"]["memberEpoch"], names(out["w1 ack"]["assignment"])) == (2, ["AC0", "AT1", "AT2"])
    assert out["w1 at 2"]["members"] == {"W1": (2, ["AC0", "AT1", "AT2"]), "W2": (1, [])}


def test_w2_gets_its_assignment_at_epoch_2() -> None:
    _, out = empty_group_and_two_workers()
    assert (out["w2 hb"]["memberEpoch"], names(out["w2 hb"]["assignment"])) == (2, ["BC0", "BT1"])
    assert out["final"] == {"group": (2, ["W1", "W2"]),
                            "target": (2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]}),
                            "members": {"W1": (2, ["AC0", "AT1", "AT2"]), "W2": (2, ["BC0", "BT1"])}}


def test_worker_leaving_session_expiry_bumps_to_36() -> None:
    _, out = worker_leaving()
    assert out["w2 kicked"] == {"group": (36, ["W1", "W3"]),
                                "target": (35, {"W1": ["AC0", "AT1"], "W2": ["BC0", "BT1"], "W3": ["AT2"]}),
                                "members": {"W1": (35, ["AC0", "AT1"]), "W3": (35, ["AT2"])}}


def test_worker_leaving_w3_keeps_assignments_during_the_delay() -> None:
    _c, out = worker_leaving()
    assert out["w3 asked"]["errorCode"] == COMPUTE_ASSIGNMENT
    assert out["w3 prepare"]["groupEpoch"] == 36
    assert out["w3 install 36"]["errorCode"] == 0  # BC0, BT1 left out: the delay allows it
    assert out["target 36"]["target"] == (36, {"W1": ["AC0", "AT1"], "W3": ["AT2"]})
    assert out["at 36"]["members"] == {"W1": (36, ["AC0", "AT1"]), "W3": (36, ["AT2"])}
    assert out["w1 hb 36"]["memberEpoch"] == 36
    assert out["w3 hb 36"]["memberEpoch"] == 36


def test_worker_leaving_reason_update_reassigns_lost_work_at_37() -> None:
    _, out = worker_leaving()
    assert out["w3 reason"]["errorCode"] == COMPUTE_ASSIGNMENT  # W3 bumped the reason and is asked again
    assert out["epoch 37"]["group"] == (37, ["W1", "W3"])
    assert out["epoch 37"]["target"][0] == 36
    assert out["w3 install 37"]["errorCode"] == 0
    # The draft's 'W3- connectorsAndTasks=[BC1, AT2]' is BT1 (B has one task and the connector is BC0).
    assert out["final"] == {"group": (37, ["W1", "W3"]),
                            "target": (37, {"W1": ["AC0", "AT1", "BC0"], "W3": ["AT2", "BT1"]}),
                            "members": {"W1": (37, ["AC0", "AT1", "BC0"]), "W3": (37, ["AT2", "BT1"])}}


def test_worker_bounces_back_and_gets_its_work_at_37() -> None:
    _, out = worker_bounces()
    assert out["at 36"]["members"] == {"W1": (36, ["AC0", "AT1"]), "W3": (36, ["AT2"])}
    # 'Let's say it joins with epoch 35': it was removed, so Request Handling 2 answers
    # UNKNOWN_MEMBER_ID and the worker rejoins with epoch 0 ('Response Handling').
    assert out["w2 back with 35"]["errorCode"] == 25
    assert out["w2 rejoins"]["errorCode"] == 0
    assert out["w2 rejoins"]["memberEpoch"] == 36
    assert out["epoch 37"]["group"] == (37, ["W1", "W2", "W3"])
    assert out["w3 asked"]["errorCode"] == COMPUTE_ASSIGNMENT
    assert out["w3 install 37"]["errorCode"] == 0
    assert names(out["w2 hb"]["assignment"]) == ["BC0", "BT1"]
    assert out["final"] == {
        "group": (37, ["W1", "W2", "W3"]),
        "target": (37, {"W1": ["AC0", "AT1"], "W2": ["BC0", "BT1"], "W3": ["AT2"]}),
        "members": {"W1": (37, ["AC0", "AT1"]), "W2": (37, ["BC0", "BT1"]), "W3": (37, ["AT2"])}}
