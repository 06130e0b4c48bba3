"""Streams -> classic: fences that may downgrade, and the tombstones of a streams group.

- Every fence of a streams member (leave -1, session / rebalance timeout, a classic member's join /
  sync timeout, classic LeaveGroup) goes through :func:`fence`. Under ``kip`` (the seed: "When the
  last consumer of a Streams client using the new Streams rebalance protocol leaves the group, the
  group is converted back to a classic group") the group is converted back when every remaining
  member uses the classic protocol, at least one remains and at most ``group.max.size`` do —
  the checks of ``validateOnlineDowngradeWithFencedMembers``; the seed names no migration policy,
  so none applies (kgspec's reading). Otherwise: ``streamsGroupFenceMember``.
- The conversion mirrors ``convertToClassicGroup`` (``model/migration/downgrade.py``): streams
  tombstones (``StreamsGroup.createGroupTombstoneRecords``: 22*, 21*, 20, 19*, 17, 23, members in
  ``TimelineHashMap`` order, the leaving members included), then a GroupMetadata record: STABLE,
  generation = the group epoch, protocol type ``consumer``, the remaining members (the first is
  the leader), protocol by vote, each member's assignment = its *target* tasks (active; standby)
  in kgspec's Streams assignment at its chosen protocol's version; then the in-memory classic group
  is installed with heartbeats and PREPARING_REBALANCE ("The records of the Streams protocol are
  deleted from the __consumer_offsets topic", seed).
- :func:`tombstones` is also what a JoinGroup to an EMPTY streams group writes (KAFKA-19570, 4.2+).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import downgrade
from kgspec.model.migration import members as mm
from kgspec.model.migration.downgrade import Effects
from kgspec.model.migration.order import timeline_order
from kgspec.model.migration.protocol import SchemaError, read_version
from kgspec.model.migration.streams_protocol import encode_role_assignment
from kgspec.model.records import Record
from kgspec.model.streams import ops, seed_records
from kgspec.model.streams import records as srec
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import StreamsMember
from kgspec.spec.classic import STABLE
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


def fence(coord: Coordinator, group: StreamsGroup, fenced: list[StreamsMember], effects: Effects,
          now: int, trigger: str = "fenced") -> list[Record]:
    """Tombstones and epoch + 1, or a downgrade when valid; each member takes the ``streams-member``
    transition ``trigger``: ``fenced`` (timers) or ``left`` (a leave heartbeat or LeaveGroup)."""
    if not fenced:
        return []
    for m in fenced:
        fire("streams-member", group.lifecycle_state(m), trigger)
    if coord.profile.streams_online_migration and valid_with_fenced_members(coord, group, fenced):
        records: list[Record] = []
        convert(coord, group, {m.member_id for m in fenced}, records, effects, now)
        return records
    return ops.fence_members_records(coord, group, fenced)


def valid_with_fenced_members(coord: Coordinator, group: StreamsGroup, fenced: Iterable[StreamsMember]) -> bool:
    fenced_ids = {m.member_id for m in fenced}
    remaining = [m for mid, m in group.members.items() if mid not in fenced_ids]
    return (bool(remaining) and all(m.uses_classic() for m in remaining)
            and len(remaining) <= coord.config.int("group.max.size"))


def tombstones(group: StreamsGroup, order: list[str]) -> list[Record]:
    """``StreamsGroup.createGroupTombstoneRecords``."""
    gid = group.group_id
    if group.topology is not None:
        fire("streams-topology", group.topology_state(), "deleted")
    out = [srec.current_assignment_tombstone(gid, mid) for mid in order]
    out += [srec.target_member_tombstone(gid, mid) for mid in order]
    out.append(srec.target_metadata_tombstone(gid))
    out += [srec.member_metadata_tombstone(gid, mid) for mid in order]
    if group.partition_metadata is not None:  # kip: the seed's record 18 (Kafka 4.0's order)
        out.append(seed_records.partition_metadata_tombstone(gid))
    out.append(srec.group_metadata_tombstone(gid))
    out.append(srec.topology_tombstone(gid))
    return out


def delete_empty_group(coord: Coordinator, group: StreamsGroup) -> list[Record]:
    """``maybeDeleteEmptyStreamsGroup``: removed in memory at once, its initial-rebalance timer
    cancelled (``StreamsGroup.cancelTimers``); the tombstones go out only with the new classic
    group's empty GroupMetadata record (Kafka's quirk, as for consumer groups)."""
    coord.streams_groups.pop(group.group_id, None)
    coord.timers.cancel(ops.initial_rebalance_key(group.group_id))
    return tombstones(group, timeline_order(group.members))


def convert(coord: Coordinator, group: StreamsGroup, leaving: set[str], records: list[Record], effects: Effects,
            now: int) -> None:
    gid = group.group_id
    order = timeline_order(group.members)
    classic = from_streams_group(coord, group, order, leaving, now)
    records.extend(tombstones(group, order))
    records.append(group_metadata_record(classic, classic.group_assignment()))
    for mid in order:
        ops.cancel_member_timers(coord, gid, mid)
    coord.timers.cancel(ops.initial_rebalance_key(gid))
    reason = f"Downgrade group {gid} from streams to classic for member leaving."
    effects.append(lambda: downgrade.install(coord, classic, True, reason, now))


def from_streams_group(coord: Coordinator, group: StreamsGroup, order: list[str], leaving: set[str],
                       now: int) -> ClassicGroup:
    classic = ClassicGroup(group.group_id, now, state=STABLE, generation_id=group.group_epoch,
                           protocol_type=mm.CONSUMER_PROTOCOL_TYPE)
    for mid in order:
        if mid in leaving:
            continue
        m = group.members[mid]
        classic.add(ClassicMember(m.member_id, m.instance_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
                                  mm.session_timeout(m), mm.CONSUMER_PROTOCOL_TYPE, mm.protocols(m)))
    classic.protocol_name = classic.select_protocol()
    for cm in classic.members.values():
        try:
            version = read_version(cm.metadata(classic.protocol_name))
        except SchemaError as exc:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND,
                                   f"Cannot downgrade the streams group {group.group_id}: {exc}.") from None
        cm.assignment = encode_role_assignment(group.target.get(cm.member_id, {}), version)
    return classic
