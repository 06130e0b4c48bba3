"""Classic -> consumer: a ConsumerGroupHeartbeat that finds a classic group (GroupMetadataManager 4.3
``getOrMaybeCreateConsumerGroup``, ``validateOnlineUpgrade``, ``convertToConsumerGroup``;
``ConsumerGroup.fromClassicGroup`` / ``createConsumerGroupRecords``).

- An EMPTY classic group is tombstoned and replaced by a new consumer group, whatever the policy.
- Any other classic group is converted when the heartbeat joins (epoch 0) and the upgrade is
  valid; every failure is GROUP_ID_NOT_FOUND with Kafka's message.
- Conversion: parked JoinGroup/SyncGroup calls are answered REBALANCE_IN_PROGRESS; the records
  are the GroupMetadata tombstone, then 5 per member, 3 (epoch = generation), 7 per member, 6
  (generation, timestamp 0), 8 per member; each member is STABLE at the generation with its last
  classic assignment as assigned and target; session timers use the classic session timeouts.
  The heartbeat then continues on the converted group.

Kafka reverts to the classic group when the write fails; the model's writes always succeed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import EMPTY_ASSIGNMENT, ClassicMember
from kgspec.model.classic.records import group_metadata_tombstone
from kgspec.model.classic.step import Step
from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.group import ConsumerGroup, OwnershipConflict
from kgspec.model.consumer.member import STABLE, ConsumerMember
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import members as mm
from kgspec.model.migration.order import timeline_order
from kgspec.model.migration.policy import migration_policy
from kgspec.model.migration.protocol import SchemaError, decode_assignment, decode_subscription
from kgspec.model.records import Record
from kgspec.spec.classic import EMPTY

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

Effects = list[Callable[[], None]]


def group_for_heartbeat(coord: Coordinator, classic: ClassicGroup, create: bool, records: list[Record],
                        effects: Effects, now: int) -> ConsumerGroup:
    """The classic branch of ``getOrMaybeCreateConsumerGroup``."""
    gid = classic.group_id
    if create and classic.state == EMPTY:
        # maybeDeleteEmptyClassicGroup: the tombstone's replay removes the group.
        records.append(group_metadata_tombstone(gid))
        return consumer_ops.new_group(coord, gid)
    if not create:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {gid} is not a consumer group.")
    validate_upgrade(coord, classic)
    return convert(coord, classic, records, effects, now)


def validate_upgrade(coord: Coordinator, classic: ClassicGroup) -> None:
    gid = classic.group_id
    if not migration_policy(coord).upgrade_enabled:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to consumer "
                               "group because online upgrade is disabled.")
    if classic.protocol_type != mm.CONSUMER_PROTOCOL_TYPE:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to consumer "
                               "group because the group does not use the consumer embedded protocol.")
    if len(classic.members) > coord.config.int("group.consumer.max.size"):
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to consumer "
                               "group because the group size exceeds the consumer group maximum size.")


def convert(coord: Coordinator, classic: ClassicGroup, records: list[Record], effects: Effects,
            now: int) -> ConsumerGroup:
    """``convertToConsumerGroup``: the consumer group the records build, not yet registered."""
    gid = classic.group_id
    members = classic.members.values()  # HashMap order: the order Kafka completes the futures in
    effects.append(lambda: fail_parked_calls(coord, classic, members, now))
    records.append(group_metadata_tombstone(gid))
    group = from_classic_group(coord, classic)
    order = timeline_order(group.members)
    for mid in order:
        records.append(rec.member_metadata_record(gid, group.members[mid]))
    records.append(rec.group_epoch_record(gid, group.group_epoch, group.metadata_hash))
    for mid in order:
        records.append(rec.target_member_record(gid, mid, group.target[mid]))
    records.append(rec.target_metadata_record(gid, group.assignment_epoch, 0))
    for mid in order:
        records.append(rec.current_assignment_record(gid, group.members[mid], coord.profile))
        consumer_ops.schedule_session_timeout(coord, gid, mid, now, mm.session_timeout(group.members[mid]))
    return group


def from_classic_group(coord: Coordinator, classic: ClassicGroup) -> ConsumerGroup:
    """``ConsumerGroup.fromClassicGroup``."""
    gid = classic.group_id
    generation = classic.generation_id
    group = ConsumerGroup(gid, generation, coord.mutants)
    group.set_assignment_metadata(generation, 0)
    for cm in classic.members.values():
        try:
            if cm.assignment == EMPTY_ASSIGNMENT:
                assigned: dict[str, frozenset[int]] = {}  # never synced: an empty assignment is accepted
            else:
                assignment = decode_assignment(cm.assignment)
                if assignment.user_data:
                    raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to "
                                           "consumer group because an unsupported custom assignor is in use. Please "
                                           "refer to the documentation or switch to a default assignor before "
                                           "re-attempting the upgrade.")
                assigned = mm.topic_ids(coord, assignment.partitions)
            subscription = decode_subscription(cm.metadata(classic.protocol_name))
        except (SchemaError, ValueError) as exc:
            if isinstance(exc, CoordinatorError):
                raise
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to consumer "
                                   "group because the embedded consumer protocol is malformed.") from None
        member = ConsumerMember(
            cm.member_id, cm.instance_id, subscription.rack_id or None, cm.client_id, cm.client_host,
            tuple(sorted(set(subscription.topics))), "", cm.rebalance_timeout_ms, None,
            mm.classic_metadata(cm.session_timeout_ms, cm.protocols), generation, generation, STABLE,
            {t: dict.fromkeys(p, generation) for t, p in assigned.items()}, {})
        group.target[cm.member_id] = assigned
        try:
            group.put_member(member)
        except OwnershipConflict as exc:  # two classic members were given one partition
            raise CoordinatorError(Errors.UNKNOWN_SERVER_ERROR, str(exc)) from None
    group.metadata_hash = coord.metadata_hash(group.subscribed_names)
    return group


def fail_parked_calls(coord: Coordinator, classic: ClassicGroup, members: Iterable[ClassicMember], now: int) -> None:
    """``completeAllJoinFutures`` / ``completeAllSyncFutures`` with REBALANCE_IN_PROGRESS."""
    step = Step(coord, now)
    for member in members:
        step.complete_join(classic, member, int(Errors.REBALANCE_IN_PROGRESS), member_id=member.member_id)
    for member in members:
        step.complete_sync(member, int(Errors.REBALANCE_IN_PROGRESS))
