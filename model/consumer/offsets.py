"""A consumer group's checks of offset calls (``ConsumerGroup.validateOffsetCommit`` /
``validateOffsetFetch``), its deletion (``validateDeleteGroup``, ``createGroupTombstoneRecords``)
and its offsets' expiry, asked by the offsets component through ``model/protocol.py``.

4.1 and 4.2 (``validateMemberEpoch``): the epoch must equal the member's. 4.3 and trunk
(KIP-1251, ``createAssignmentEpochValidator``): an older epoch is accepted per partition when the
member holds the partition (assigned or pending revocation) at an assignment epoch not above it.
A member on the classic protocol gets ILLEGAL_GENERATION where a consumer member gets
STALE_MEMBER_EPOCH. The instance id is not checked (consumer groups ignore it on commits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.consumer import records as rec
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.errors import CoordinatorError, Errors

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import CommitValidator, ExpiryBase
    from kgspec.model.records import Record


def _epoch_error(member: ConsumerMember, message: str) -> CoordinatorError:
    error = Errors.ILLEGAL_GENERATION if member.classic_member_metadata is not None else Errors.STALE_MEMBER_EPOCH
    return CoordinatorError(error, message)


def _what(member: ConsumerMember) -> str:
    """What Kafka's messages call the received epoch: a classic-protocol member sends a generation id."""
    return "generation id" if member.classic_member_metadata is not None else "member epoch"


def _strict(member: ConsumerMember, epoch: int) -> None:
    """``validateMemberEpoch``."""
    if epoch != member.member_epoch:
        raise _epoch_error(member, f"The received {_what(member)} {epoch} does not match the expected member "
                                   f"epoch {member.member_epoch}.")


def validate_offset_commit(coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                           epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
    group = coord.groups[group_id]
    if epoch < 0 and not group.members:
        return None  # the admin client, or a consumer without group management
    if transactional and epoch == -1 and member_id == "" and instance_id is None:
        return None  # TxnOffsetCommit checks the member only when one of its fields is given
    member = group.member_or_throw(member_id)
    if not transactional and member.classic_member_metadata is None and api_version < 9:
        raise CoordinatorError(Errors.UNSUPPORTED_VERSION, "OffsetCommit version 9 or above must be used by members "
                                                           "using the consumer group protocol")
    if epoch < member.member_epoch and coord.mutants.active("commit-accepts-stale-epoch"):
        return None  # the seeded bug: a zombie's older epoch passes for every partition
    if not coord.profile.per_partition_assignment_epochs:  # 4.1, 4.2: strict
        _strict(member, epoch)
        return None
    if epoch == member.member_epoch:
        return None
    if epoch > member.member_epoch:
        raise _epoch_error(member, f"Received {_what(member)} {epoch} is newer than current member epoch "
                                   f"{member.member_epoch}.")
    return assignment_epoch_validator(member, epoch)


def assignment_epoch_validator(member: ConsumerMember, received: int) -> CommitValidator:
    """``createAssignmentEpochValidator`` (KIP-1251, 4.3 l.865-902)."""

    def validate(topic_name: str, topic_id: str, partition: int) -> None:
        assignment_epoch = member.assigned.get(topic_id, {}).get(partition)
        if assignment_epoch is None:
            assignment_epoch = member.pending_revocation.get(topic_id, {}).get(partition)
        if assignment_epoch is None:
            raise _epoch_error(member, f"Partition {topic_name}-{partition} is not assigned or pending revocation "
                                       "for member.")
        if received < assignment_epoch:
            raise _epoch_error(member, f"Received {_what(member)} {received} is older than assignment epoch "
                                       f"{assignment_epoch} for partition {topic_name}-{partition}.")

    return validate


def validate_offset_fetch(coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
    if member_id is None and epoch < 0:
        return
    _strict(coord.groups[group_id].member_or_throw(member_id or ""), epoch)  # fetch stays strict on every release


def is_subscribed_to_topic(coord: Coordinator, group_id: str, topic: str) -> bool:
    """``ModernGroup.isSubscribedToTopic``: the members' topic names and resolved regexes."""
    group = coord.groups[group_id]
    return group.subscribed_names.get(topic, 0) > 0 or any(
        topic in r.topics for r in group.resolved_regexes.values())


# --- DeleteGroups and offset expiry ------------------------------------------------------------


def validate_delete_group(coord: Coordinator, group_id: str) -> None:
    """``ConsumerGroup.validateDeleteGroup`` (the same on 4.1-trunk)."""
    if coord.groups[group_id].members:  # state() != EMPTY
        raise CoordinatorError(Errors.NON_EMPTY_GROUP)


def delete_group_records(coord: Coordinator, group_id: str) -> list[Record]:
    """``ConsumerGroup.createGroupTombstoneRecords`` (4.3 l.751; 4.1 names the target-metadata
    tombstone ``...TargetAssignmentEpochTombstoneRecord``, the same record). Members walk the
    group's member order, regexes sorted (a run of one record type: the checker matches it
    whole). A consumer group arms no group timer (``Group.cancelTimers`` is a no-op)."""
    group = coord.groups[group_id]
    members = list(group.members)
    out = [rec.current_assignment_tombstone(group_id, mid) for mid in members]
    out += [rec.target_member_tombstone(group_id, mid) for mid in members]
    out.append(rec.target_metadata_tombstone(group_id))
    out += [rec.member_metadata_tombstone(group_id, mid) for mid in members]
    out += [rec.regex_tombstone(group_id, regex) for regex in sorted(group.resolved_regexes)]
    out.append(rec.partition_metadata_tombstone(group_id))
    out.append(rec.group_epoch_tombstone(group_id))
    return out


def is_empty_group(coord: Coordinator, group_id: str) -> bool:
    return not coord.groups[group_id].members


def offset_expiry(coord: Coordinator, group_id: str) -> ExpiryBase | None:
    """``ConsumerGroup.offsetExpirationCondition``: retention counts from each commit."""
    return _from_commit


def _from_commit(commit_timestamp: int) -> int:
    return commit_timestamp
