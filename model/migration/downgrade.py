"""Consumer -> classic: the downgrade when only classic-protocol members would remain
(GroupMetadataManager 4.3 ``consumerGroupFenceMembers``, ``validateOnlineDowngradeWithFencedMembers``,
``validateOnlineDowngradeWithReplacedMember``, ``convertToClassicGroup``;
``ClassicGroup.fromConsumerGroup`` / ``createClassicGroupRecords``).

Kafka writes these records with ``replayRecords = false`` and swaps the in-memory group itself.
The model replays them (the consumer tombstones remove the consumer group exactly as Kafka's
``removeGroup`` does; the GroupMetadata record is what a reload would see) and then installs the
classic group Kafka keeps in memory (every member with all its protocols), reschedules the
classic heartbeats and, when Kafka does, prepares a rebalance: the *install* effect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.rebalance import prepare_rebalance
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.classic.step import Step
from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import members as mm
from kgspec.model.migration.order import timeline_order
from kgspec.model.migration.policy import migration_policy
from kgspec.model.migration.protocol import SchemaError, read_version
from kgspec.model.records import Record
from kgspec.spec.classic import STABLE
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

Effects = list[Callable[[], None]]


def fence(coord: Coordinator, group: ConsumerGroup, fenced: list[ConsumerMember], effects: Effects,
          now: int, trigger: str = "fenced") -> list[Record]:
    """``consumerGroupFenceMembers``: a downgrade when valid, else tombstones and epoch + 1.

    ``trigger`` is the ``consumer-member`` transition each member takes: ``fenced`` (timers) or
    ``left`` (a leave heartbeat or LeaveGroup)."""
    if not fenced:
        return []
    for m in fenced:
        fire("consumer-member", group.lifecycle_state(m), trigger)
    if valid_with_fenced_members(coord, group, fenced):
        records: list[Record] = []
        convert(coord, group, {m.member_id for m in fenced}, None, True,
                f"Downgrade group {group.group_id} from consumer to classic for member leaving.",
                records, effects, now)
        return records
    return consumer_ops.fence_records(coord, group, fenced)


def valid_with_fenced_members(coord: Coordinator, group: ConsumerGroup, fenced: Iterable[ConsumerMember]) -> bool:
    fenced_ids = {m.member_id for m in fenced}
    remaining = [m for mid, m in group.members.items() if mid not in fenced_ids]
    if not all(mm.uses_classic(m) for m in remaining):
        return False
    if not remaining:
        return False  # an empty group stays a consumer group
    if not migration_policy(coord).downgrade_enabled:
        return False
    return len(remaining) <= coord.config.int("group.max.size")


def valid_with_replaced_member(coord: Coordinator, group: ConsumerGroup, replaced: ConsumerMember) -> bool:
    """A consumer-protocol static member replaced by a classic JoinGroup, all others classic."""
    others_classic = all(mm.uses_classic(m) for mid, m in group.members.items() if mid != replaced.member_id)
    if not others_classic or mm.uses_classic(replaced):
        return False
    if not migration_policy(coord).downgrade_enabled:
        return False
    return len(group.members) <= coord.config.int("group.max.size")


def convert(coord: Coordinator, group: ConsumerGroup, leaving: set[str], joining: ConsumerMember | None,
            rebalance: bool, reason: str, records: list[Record], effects: Effects, now: int) -> None:
    """``convertToClassicGroup``."""
    order = timeline_order(group.members)
    replaced = group.static_member(joining.instance_id) if joining is not None else None
    if joining is not None and replaced is None:
        raise ValueError("joiningMember must be a static member when not null.")
    rename = {replaced.member_id: joining.member_id} if replaced is not None and joining is not None else {}
    records.extend(tombstones(group, order, rename))
    classic = from_consumer_group(coord, group, order, leaving, joining, replaced, now)
    record = group_metadata_record(classic, classic.group_assignment())
    records.append(record)
    effects.append(lambda: install(coord, classic, rebalance, reason, now))


def tombstones(group: ConsumerGroup, order: list[str], rename: dict[str, str]) -> list[Record]:
    """``createGroupTombstoneRecords`` (``...WithReplacedMember``: the replaced id becomes the joining one)."""
    gid = group.group_id
    ids = [rename.get(mid, mid) for mid in order]
    out = [rec.current_assignment_tombstone(gid, mid) for mid in ids]
    out += [rec.target_member_tombstone(gid, mid) for mid in ids]
    out.append(rec.target_metadata_tombstone(gid))
    out += [rec.member_metadata_tombstone(gid, mid) for mid in ids]
    out += [rec.regex_tombstone(gid, regex) for regex in timeline_order(group.resolved_regexes)]
    out.append(rec.partition_metadata_tombstone(gid))
    out.append(rec.group_epoch_tombstone(gid))
    return out


def from_consumer_group(coord: Coordinator, group: ConsumerGroup, order: list[str], leaving: set[str],
                        joining: ConsumerMember | None, replaced: ConsumerMember | None, now: int) -> ClassicGroup:
    """``ClassicGroup.fromConsumerGroup``: STABLE at generation = group epoch, leader = first member
    added, protocol by vote, each assignment = the member's target at its protocol's version."""
    classic = ClassicGroup(group.group_id, now, state=STABLE, generation_id=group.group_epoch,
                           protocol_type=mm.CONSUMER_PROTOCOL_TYPE)
    for mid in order:
        m = group.members[mid]
        if mid in leaving or (joining is not None and joining.instance_id is not None
                              and joining.instance_id == m.instance_id):
            continue
        classic.add(_classic_member(m))
    if joining is not None:
        classic.add(_classic_member(joining))
    classic.protocol_name = classic.select_protocol()
    for cm in classic.members.values():
        source = replaced.member_id if joining is not None and replaced is not None \
            and cm.member_id == joining.member_id else cm.member_id
        try:
            version = read_version(cm.metadata(classic.protocol_name))
        except SchemaError as exc:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND,
                                   f"Cannot downgrade the classic group {group.group_id}: {exc}.") from None
        cm.assignment = mm.serialize(coord, dict(group.target.get(source, {})), version)
    return classic


def _classic_member(m: ConsumerMember) -> ClassicMember:
    return ClassicMember(m.member_id, m.instance_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
                         mm.session_timeout(m), mm.CONSUMER_PROTOCOL_TYPE, mm.protocols(m))


def install(coord: Coordinator, classic: ClassicGroup, rebalance: bool, reason: str, now: int) -> None:
    """Swap in the in-memory classic group, reschedule heartbeats, maybe ``prepareRebalance``
    (also the end of a streams downgrade under kip, ``streams_downgrade.py``)."""
    gid = classic.group_id
    coord.groups.pop(gid, None)
    coord.streams_groups.pop(gid, None)
    consumer_ops.forget(coord, gid)
    coord.classic_groups[gid] = classic
    step = Step(coord, now)
    for member in classic.members.values():
        step.schedule_heartbeat(classic, member.member_id, member.session_timeout_ms)
    if rebalance:
        prepare_rebalance(step, classic, reason)
