"""ConsumerGroupHeartbeat request validation, in Kafka's order, with Kafka's error codes and messages.

Oracle: GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid (4.3:438) and
GroupCoordinatorServiceTest.testConsumerHeartbeatRequestValidation; GMM checks
(group lookup, throwIfConsumerGroupIsFull, member lookup) from GroupMetadataManagerTest.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.consumer.helpers import Harness, code, tps

INVALID_REQUEST = 42
UNKNOWN_MEMBER_ID = 25
GROUP_ID_NOT_FOUND = 69
GROUP_MAX_SIZE_REACHED = 81
UNSUPPORTED_ASSIGNOR = 112

JOIN: dict[str, Any] = {"rebalanceTimeoutMs": 5000, "topicPartitions": [], "subscribedTopicNames": ["foo"]}


def error_response(error: int, message: str | None) -> dict[str, Any]:
    """Kafka's error response: ``new ConsumerGroupHeartbeatResponseData().setErrorCode().setErrorMessage()``,
    so every other field keeps its schema default (memberId null, epoch 0, interval 0, assignment null)."""
    return {"errorCode": error, "errorMessage": message, "memberId": None, "memberEpoch": 0,
            "heartbeatIntervalMs": 0, "assignment": None}


@pytest.fixture
def h() -> Harness:
    return Harness({"foo": 6, "bar": 3})


CASES: list[tuple[str, int, dict[str, Any], int, str]] = [
    # (name, api version, request, error, message) -- in Kafka's check order
    ("v1 empty memberId", 1, {"groupId": "grp", "memberId": "", "memberEpoch": 0, **JOIN},
     INVALID_REQUEST, "MemberId can't be empty."),
    ("v1 blank memberId", 1, {"groupId": "grp", "memberId": "   ", "memberEpoch": 0, **JOIN},
     INVALID_REQUEST, "MemberId can't be empty."),
    ("v0 empty memberId, epoch 1", 0, {"groupId": "grp", "memberId": "", "memberEpoch": 1},
     INVALID_REQUEST, "MemberId can't be empty."),
    ("v0 empty memberId, epoch -1", 0, {"groupId": "grp", "memberId": "", "memberEpoch": -1},
     INVALID_REQUEST, "MemberId can't be empty."),
    ("memberId checked before groupId", 1, {"groupId": "", "memberId": "", "memberEpoch": 0},
     INVALID_REQUEST, "MemberId can't be empty."),
    ("empty groupId", 1, {"groupId": "", "memberId": "m", "memberEpoch": 0, **JOIN},
     INVALID_REQUEST, "GroupId can't be empty."),
    ("blank groupId", 1, {"groupId": "   ", "memberId": "m", "memberEpoch": 0, **JOIN},
     INVALID_REQUEST, "GroupId can't be empty."),
    ("empty instanceId", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": 1, "instanceId": ""},
     INVALID_REQUEST, "InstanceId can't be empty."),
    ("empty rackId", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": 1, "rackId": ""},
     INVALID_REQUEST, "RackId can't be empty."),
    ("instanceId before rackId", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": 1, "instanceId": " ",
                                     "rackId": ""},
     INVALID_REQUEST, "InstanceId can't be empty."),
    ("join without rebalanceTimeoutMs", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": 0},
     INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request."),
    ("join with null topicPartitions", 1,
     {"groupId": "grp", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000,
      "subscribedTopicNames": ["foo"]},
     INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining."),
    ("join with owned partitions", 1,
     {"groupId": "grp", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000,
      "subscribedTopicNames": ["foo"], "topicPartitions": tps({"foo": [0]})},
     INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining."),
    ("join without subscription", 1,
     {"groupId": "grp", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000, "topicPartitions": []},
     INVALID_REQUEST,
     "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."),
    ("static leave without instanceId", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": -2},
     INVALID_REQUEST, "InstanceId can't be null."),
    ("epoch -3", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": -3},
     INVALID_REQUEST, "MemberEpoch is invalid."),
    ("invalid request beats unsupported assignor", 1,
     {"groupId": "grp", "memberId": "m", "memberEpoch": 0, "serverAssignor": "bar"},
     INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request."),
    ("unsupported assignor", 1, {"groupId": "grp", "memberId": "m", "memberEpoch": 1, "serverAssignor": "bar"},
     UNSUPPORTED_ASSIGNOR, "ServerAssignor bar is not supported. Supported assignors: uniform, range."),
]


@pytest.mark.parametrize(("version", "request_", "error", "message"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_request_validation(h: Harness, version: int, request_: dict[str, Any], error: int, message: str) -> None:
    result = h.coord.handle(68, version, request_, now=0)
    assert result.response == error_response(error, message)
    assert result.records == []
    assert h.coord.groups == {}


def test_unsupported_assignor_lists_the_configured_assignors() -> None:
    h = Harness({"foo": 1}, configs={"group.consumer.assignors": "range"})
    result = h.hb("m", 1, serverAssignor="bar")
    assert result.response == error_response(
        UNSUPPORTED_ASSIGNOR, "ServerAssignor bar is not supported. Supported assignors: range.")


@pytest.mark.parametrize("subscription", [{"subscribedTopicNames": []}, {"subscribedTopicRegex": ""}],
                         ids=["empty names", "empty regex"])
def test_join_with_an_empty_subscription_is_valid(h: Harness, subscription: dict[str, Any]) -> None:
    result = h.hb("m", 0, rebalanceTimeoutMs=5000, topicPartitions=[], **subscription)
    assert code(result) == 0
    assert result.response is not None
    assert result.response["memberEpoch"] == 1  # 4.3: new group at 1, no bump for an empty subscription
    assert result.response["assignment"] == {"topicPartitions": []}


def test_v0_empty_member_id_gets_a_generated_id(h: Harness) -> None:
    result = h.join("", ["foo"], version=0)
    assert code(result) == 0
    assert result.response is not None
    assert result.response["memberId"] == "gen-1"
    assert list(h.group.members) == ["gen-1"]


def test_v0_static_leave_with_empty_member_id_passes_validation(h: Harness) -> None:
    # Validation lets it through (epoch -2, v0); the group lookup then fails.
    result = h.hb("", -2, version=0, instanceId="i")
    assert result.response == error_response(GROUP_ID_NOT_FOUND, "Consumer group grp not found.")


@pytest.mark.parametrize("epoch", [1, 5, -1, -2])
def test_unknown_group(h: Harness, epoch: int) -> None:
    result = h.hb("m", epoch, instanceId="i" if epoch == -2 else None)
    assert result.response == error_response(GROUP_ID_NOT_FOUND, "Consumer group grp not found.")
    assert result.records == []


def test_unknown_member(h: Harness) -> None:
    h.join("m1", ["foo"])
    result = h.hb("m2", 1)
    assert result.response == error_response(UNKNOWN_MEMBER_ID, "Member m2 is not a member of group grp.")
    result = h.leave("m2")
    assert result.response == error_response(UNKNOWN_MEMBER_ID, "Member m2 is not a member of group grp.")


def test_group_max_size() -> None:
    h = Harness({"foo": 6}, configs={"group.consumer.max.size": 1})
    assert code(h.join("m1", ["foo"])) == 0
    result = h.join("m2", ["foo"])
    assert result.response == error_response(
        GROUP_MAX_SIZE_REACHED, "The consumer group has reached its maximum capacity of 1 members.")
    assert result.records == []
    # An existing member is not new: it may heartbeat, and rejoin with epoch 0.
    assert code(h.heartbeat("m1")) == 0
    assert code(h.join("m1", ["foo"])) == 0
    # v0 with an empty member id is always new.
    assert code(h.join("", ["foo"], version=0)) == GROUP_MAX_SIZE_REACHED


@pytest.mark.parametrize(("profile", "expected"), [("kafka-4.3", 0), ("kafka-4.1", GROUP_MAX_SIZE_REACHED)])
def test_group_max_size_static_member_exemption(profile: str, expected: int) -> None:
    # 4.3 GMM.throwIfConsumerGroupIsFull skips the check when the instance id is known (4.3:1580);
    # 4.1 has no such exemption (4.1:1503).
    h = Harness({"foo": 6}, profile=profile, configs={"group.consumer.max.size": 1})
    assert code(h.join("m1", ["foo"], instance="i1")) == 0
    assert code(h.leave("m1", -2, instance="i1")) == 0
    assert code(h.join("m1b", ["foo"], instance="i1")) == expected


def test_max_size_checked_before_unknown_member() -> None:
    h = Harness({"foo": 6}, configs={"group.consumer.max.size": 1})
    h.join("m1", ["foo"])
    assert code(h.hb("m2", 3)) == GROUP_MAX_SIZE_REACHED
