"""A streams group's checks of offset calls (``StreamsGroup.validateOffsetCommit`` /
``validateOffsetFetch``), its deletion (``validateDeleteGroup``, ``createGroupTombstoneRecords``)
and its offsets' expiry, asked by the offsets component through ``model/protocol.py``.

4.1: the epoch must equal the member's (``validateMemberEpoch``). 4.2 and later
(KAFKA-19779, ``createAssignmentEpochValidator`` 4.3 l.1257-1297): an older epoch is accepted
per partition when the topic is a source topic of the topology (``sourceTopicMap``: source and
repartition source topics) and the member holds that active task, assigned or pending
revocation, at an assignment epoch not above it. Every error is STALE_MEMBER_EPOCH.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.streams import records as srec
from kgspec.model.streams import seed_records
from kgspec.model.streams.member import ACTIVE, StreamsMember
from kgspec.model.streams.ops import initial_rebalance_key
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import CommitValidator, ExpiryBase
    from kgspec.model.records import Record
    from kgspec.model.streams.topology import Topology


def _strict(member: StreamsMember, epoch: int) -> None:
    if epoch != member.member_epoch:
        raise CoordinatorError(Errors.STALE_MEMBER_EPOCH, f"The received member epoch {epoch} does not match the "
                                                          f"expected member epoch {member.member_epoch}.")


def source_topic_map(topology: Topology) -> dict[str, str]:
    """``StreamsTopology.sourceTopicMap``: each source and repartition source topic's subtopology id."""
    source: dict[str, str] = {}
    for sub in topology.subtopologies:
        for name in sub.source_topics:
            source[name] = sub.subtopology_id
        for info in sub.repartition_source_topics:
            source[info.name] = sub.subtopology_id
    return source


def validate_offset_commit(coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                           epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
    group = coord.streams_groups[group_id]
    if epoch < 0 and not group.members:
        return None
    if transactional and epoch == -1 and member_id == "" and instance_id is None:
        return None  # TxnOffsetCommit checks the member only when one of its fields is given
    member = group.member_or_throw(member_id)
    if not transactional and api_version < 9:
        raise CoordinatorError(Errors.UNSUPPORTED_VERSION, "OffsetCommit version 9 or above must be used by members "
                                                           "using the streams group protocol")
    if not coord.profile.streams_commit_task_epochs:  # 4.1: strict
        _strict(member, epoch)
        return None
    if epoch == member.member_epoch:
        return None
    if epoch > member.member_epoch:
        raise CoordinatorError(Errors.STALE_MEMBER_EPOCH, f"Received member epoch {epoch} is newer than current "
                                                          f"member epoch {member.member_epoch}.")
    topology = group.topology
    if topology is None:
        raise CoordinatorError(Errors.STALE_MEMBER_EPOCH, "Topology is not available for offset commit validation.")
    source = source_topic_map(topology)

    def validate(topic_name: str, topic_id: str, partition: int) -> None:
        sid = source.get(topic_name)
        if sid is None:
            raise CoordinatorError(Errors.STALE_MEMBER_EPOCH, f"Topic {topic_name} is not in the topology.")
        assignment_epoch = member.assigned.get(ACTIVE, {}).get(sid, {}).get(partition)
        if assignment_epoch is None:
            assignment_epoch = member.pending_revocation.get(ACTIVE, {}).get(sid, {}).get(partition)
        if assignment_epoch is None:
            raise CoordinatorError(Errors.STALE_MEMBER_EPOCH, f"Task {sid}-{partition} is not assigned or pending "
                                                              "revocation for member.")
        if epoch < assignment_epoch:
            raise CoordinatorError(Errors.STALE_MEMBER_EPOCH, f"Received member epoch {epoch} is older than "
                                                              f"assignment epoch {assignment_epoch} for task "
                                                              f"{sid}-{partition}.")

    return validate


def validate_offset_fetch(coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
    if member_id is None and epoch < 0:
        return
    _strict(coord.streams_groups[group_id].member_or_throw(member_id or ""), epoch)


def is_subscribed_to_topic(coord: Coordinator, group_id: str, topic: str) -> bool:
    """``StreamsGroup.isSubscribedToTopic`` (4.3 l.814): not when EMPTY (no members) or without a
    topology; else whether the topic is a source or repartition source topic."""
    group = coord.streams_groups[group_id]
    if not group.members or group.topology is None:
        return False
    return topic in source_topic_map(group.topology)


# --- DeleteGroups and offset expiry ------------------------------------------------------------


def validate_delete_group(coord: Coordinator, group_id: str) -> None:
    """``StreamsGroup.validateDeleteGroup`` (the same on 4.1-trunk)."""
    if coord.streams_groups[group_id].members:  # state() != EMPTY
        raise CoordinatorError(Errors.NON_EMPTY_GROUP)


def delete_group_records(coord: Coordinator, group_id: str) -> list[Record]:
    """``StreamsGroup.createGroupTombstoneRecords`` (4.3 l.833) then ``cancelTimers`` (the
    initial-rebalance timer; 4.1 has none to cancel). The topology goes with the group (the
    ``streams-topology`` machine's ``deleted``)."""
    group = coord.streams_groups[group_id]
    if group.topology is not None:
        fire("streams-topology", group.topology_state(), "deleted")
    members = list(group.members)
    out = [srec.current_assignment_tombstone(group_id, mid) for mid in members]
    out += [srec.target_member_tombstone(group_id, mid) for mid in members]
    out.append(srec.target_metadata_tombstone(group_id))
    out += [srec.member_metadata_tombstone(group_id, mid) for mid in members]
    if group.partition_metadata is not None:  # kip: the seed's record 18 (Kafka 4.0's order)
        out.append(seed_records.partition_metadata_tombstone(group_id))
    out.append(srec.group_metadata_tombstone(group_id))
    out.append(srec.topology_tombstone(group_id))
    coord.timers.cancel(initial_rebalance_key(group_id))
    return out


def is_empty_group(coord: Coordinator, group_id: str) -> bool:
    return coord.streams_groups[group_id].is_empty()


def offset_expiry(coord: Coordinator, group_id: str) -> ExpiryBase | None:
    """``StreamsGroup.offsetExpirationCondition``: retention counts from each commit."""
    return _from_commit


def _from_commit(commit_timestamp: int) -> int:
    return commit_timestamp
