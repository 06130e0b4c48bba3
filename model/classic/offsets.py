"""A classic group's checks of offset calls (``ClassicGroup.validateOffsetCommit`` l.831 /
``validateOffsetFetch`` l.884, 4.3; the same on 4.1-trunk), its deletion and its offsets'
expiry, asked through ``model/protocol.py``.

A commit validated in STABLE or PREPARING_REBALANCE keeps the member's session alive
(``OMM.validateOffsetCommit`` → ``rescheduleClassicGroupMemberHeartbeat``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.classic.records import group_metadata_tombstone
from kgspec.model.classic.step import Step
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import CommitValidator, ExpiryBase
    from kgspec.model.records import Record


def validate_offset_commit(coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                           generation: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
    """``transactional`` (TxnOffsetCommit): no member fields is fine whatever the state, the
    state is not enforced, and the session is not re-armed (``validateTransactionalOffsetCommit``)."""
    group = coord.classic_groups[group_id]
    if group.state == DEAD:
        raise CoordinatorError(Errors.COORDINATOR_NOT_AVAILABLE)
    if generation < 0 and group.state == EMPTY:
        return None
    if generation >= 0 or member_id or instance_id is not None:
        group.validate_member(member_id, instance_id)
        if generation != group.generation_id:
            raise CoordinatorError(Errors.ILLEGAL_GENERATION, f"generation {generation} is not the group's "
                                                              f"{group.generation_id}")
    elif not transactional and group.state != EMPTY:
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, "a commit without member id and generation needs an "
                                                         "empty group")
    if transactional:
        return None
    if group.state == COMPLETING_REBALANCE:
        raise CoordinatorError(Errors.REBALANCE_IN_PROGRESS)
    if group.state in (STABLE, PREPARING_REBALANCE):
        Step(coord, coord.now).schedule_heartbeat(group, member_id, group.members[member_id].session_timeout_ms)
    return None


def validate_offset_fetch(coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
    if coord.classic_groups[group_id].state == DEAD:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is in dead state.")


def validate_offset_delete(coord: Coordinator, group_id: str) -> None:
    """``ClassicGroup.validateOffsetDelete`` (4.3 l.898-911)."""
    group = coord.classic_groups[group_id]
    if group.state == DEAD:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is in dead state.")
    if group.state in (STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE) and group.protocol_type != "consumer":
        raise CoordinatorError(Errors.NON_EMPTY_GROUP)


def is_subscribed_to_topic(coord: Coordinator, group_id: str, topic: str) -> bool:
    """``ClassicGroup.isSubscribedToTopic`` (4.3 l.1141): the members' subscribed topics when the
    protocol type is ``consumer`` and they parse, else whether the protocol type is ``consumer``.
    (Kafka computes the topics when a generation starts; here when asked, through the routing
    rule's decoder of ConsumerProtocolSubscription.)"""
    group = coord.classic_groups[group_id]
    if group.protocol_type != "consumer":
        return False
    topics = coord.migration.classic_subscribed_topics(group)
    return True if topics is None else topic in topics


# --- DeleteGroups and offset expiry ------------------------------------------------------------


def validate_delete_group(coord: Coordinator, group_id: str) -> None:
    """``ClassicGroup.validateDeleteGroup`` (4.3 l.917, the same on 4.1-trunk)."""
    group = coord.classic_groups[group_id]
    if group.state == DEAD:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is in dead state.")
    if group.state in (STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE):
        raise CoordinatorError(Errors.NON_EMPTY_GROUP)


def delete_group_records(coord: Coordinator, group_id: str) -> list[Record]:
    """``ClassicGroup.createGroupTombstoneRecords``: one GroupMetadata tombstone (no group timer)."""
    return [group_metadata_tombstone(group_id)]


def is_empty_group(coord: Coordinator, group_id: str) -> bool:
    return coord.classic_groups[group_id].state == EMPTY


def offset_expiry(coord: Coordinator, group_id: str) -> ExpiryBase | None:
    """``ClassicGroup.offsetExpirationCondition`` (4.3 l.953): with a protocol type, EMPTY counts
    from ``currentStateTimestamp`` (the commit's when unknown), a STABLE ``consumer`` group whose
    subscriptions are known from each commit, any other state never; without one (a group of
    admin commits) from each commit."""
    group = coord.classic_groups[group_id]
    if not group.protocol_type:
        return _from_commit
    if group.state == EMPTY:
        since = group.state_timestamp
        return _from_commit if since is None else (lambda _commit: since)
    if group.protocol_type == "consumer" and group.state == STABLE \
            and coord.migration.classic_subscribed_topics(group) is not None:
        return _from_commit
    return None


def _from_commit(commit_timestamp: int) -> int:
    return commit_timestamp
