"""Kafka error codes (``org.apache.kafka.common.protocol.Errors``) used by the group coordinator."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Protocol, TypeVar


class Errors(IntEnum):
    NONE = 0
    UNKNOWN_SERVER_ERROR = -1
    UNKNOWN_TOPIC_OR_PARTITION = 3
    OFFSET_METADATA_TOO_LARGE = 12
    COORDINATOR_LOAD_IN_PROGRESS = 14
    COORDINATOR_NOT_AVAILABLE = 15
    NOT_COORDINATOR = 16
    ILLEGAL_GENERATION = 22
    INCONSISTENT_GROUP_PROTOCOL = 23
    INVALID_GROUP_ID = 24
    UNKNOWN_MEMBER_ID = 25
    INVALID_SESSION_TIMEOUT = 26
    REBALANCE_IN_PROGRESS = 27
    TOPIC_AUTHORIZATION_FAILED = 29
    GROUP_AUTHORIZATION_FAILED = 30
    CLUSTER_AUTHORIZATION_FAILED = 31
    UNSUPPORTED_VERSION = 35
    INVALID_CONFIG = 40
    INVALID_REQUEST = 42
    NON_EMPTY_GROUP = 68
    GROUP_ID_NOT_FOUND = 69
    MEMBER_ID_REQUIRED = 79
    GROUP_MAX_SIZE_REACHED = 81
    GROUP_SUBSCRIBED_TO_TOPIC = 86
    UNSTABLE_OFFSET_COMMIT = 88
    FENCED_INSTANCE_ID = 82
    UNKNOWN_TOPIC_ID = 100
    FENCED_MEMBER_EPOCH = 110
    UNRELEASED_INSTANCE_ID = 111
    UNSUPPORTED_ASSIGNOR = 112
    STALE_MEMBER_EPOCH = 113
    INVALID_REGULAR_EXPRESSION = 128
    STREAMS_INVALID_TOPOLOGY = 130
    STREAMS_INVALID_TOPOLOGY_EPOCH = 131
    STREAMS_TOPOLOGY_FENCED = 132
    STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED = 135
    # The Connect draft's new errors have no Kafka code: kgspec's own (docs/connect.md).
    COMPUTE_ASSIGNMENT = 1000
    INVALID_ASSIGNMENT = 1001


def error_name(code: int) -> str:
    try:
        return Errors(code).name
    except ValueError:
        return f"UNKNOWN_ERROR_{code}"


class CoordinatorError(Exception):
    """A request failed with a Kafka error code; the model answers it as an error response."""

    def __init__(self, error: Errors, message: str | None = None) -> None:
        super().__init__(message or error.name)
        self.error = error
        self.message = message


class _Member(Protocol):
    @property
    def member_id(self) -> str: ...


def throw_if_instance_id_is_fenced(found: _Member, member_id: str, instance_id: str) -> None:
    """``throwIfInstanceIdIsFenced``: ``instance_id`` is held by another member (any group type)."""
    if found.member_id != member_id:
        raise CoordinatorError(Errors.FENCED_INSTANCE_ID, f"Static member {member_id} with instance id "
                               f"{instance_id} was fenced by member {found.member_id}.")


_M = TypeVar("_M")


def member_or_throw(members: Mapping[str, _M], member_id: str, group_id: str) -> _M:
    """A group's member, or UNKNOWN_MEMBER_ID as Kafka words it (consumer and streams groups)."""
    member = members.get(member_id)
    if member is None:
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group {group_id}.")
    return member


def require_version(api_key: int, version: int, versions: tuple[int, int]) -> None:
    """ValueError when ``version`` of API ``api_key`` is outside the modelled ``versions``
    (a broker answers such a request UNSUPPORTED_VERSION before the coordinator sees it)."""
    low, high = versions
    if not low <= version <= high:
        raise ValueError(f"API {api_key} v{version} is not supported (v{low}-v{high})")
