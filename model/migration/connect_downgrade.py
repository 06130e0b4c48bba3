"""The draft's Connect group -> classic Connect group (profile ``kip`` only).

Seed 001, "Migration To the New Protocol": "Similarly when the last worker supporting the new
protocol leaves, the group switches back to the old protocol." Every removal of a worker goes
through ``model/connect/ops.fence_records`` (epoch -1, a fenced epoch, session / revocation /
computation timeouts, a classic LeaveGroup); it asks :func:`downgrade_records` first. The group
switches back when at least one worker remains, every remaining worker uses the classic protocol,
and at most ``group.max.size`` remain (the checks of Kafka's
``validateOnlineDowngradeWithFencedMembers``; the draft names no migration policy, so none
applies). The conversion mirrors Kafka's ``convertToClassicGroup`` (``model/migration/downgrade.py``):

- the draft's tombstones (1004 and 1002 per worker, member id order, the leaving ones included;
  1003; 1001; 1000), then a GroupMetadata record: STABLE, generation = the group epoch, protocol
  type ``connect``, the remaining workers (the first is the leader), the protocol by vote, each
  worker's assignment = its *target* connectors and tasks as a full Connect Assignment at its
  chosen protocol's version (nothing revoked, no delay, leader "");
- then the in-memory classic group is installed with heartbeats and PREPARING_REBALANCE: the
  workers rejoin and a classic leader assigns again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.connect import ops as connect_ops
from kgspec.model.connect import records as crec
from kgspec.model.connect.group import ConnectGroup
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import downgrade
from kgspec.model.migration import members as mm
from kgspec.model.migration.connect_protocol import (
    CONNECT_PROTOCOL_TYPE,
    ConnectAssignment,
    decode_worker_state,
    encode_connect_assignment,
    protocol_version,
)
from kgspec.model.migration.downgrade import Effects
from kgspec.model.migration.protocol import SchemaError
from kgspec.model.records import Record
from kgspec.spec.classic import STABLE

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


def downgrade_records(coord: Coordinator, group: ConnectGroup, leaving: list[str], effects: Effects) -> list[Record] | None:
    """The records that turn ``group`` back into a classic group as ``leaving`` go, or None when
    it stays a Connect group."""
    remaining = [m for mid, m in sorted(group.members.items()) if mid not in leaving]
    if not remaining or any(m.classic_member_metadata is None for m in remaining) \
            or len(remaining) > coord.config.int("group.max.size"):
        return None
    gid = group.group_id
    classic = from_connect_group(group, set(leaving), coord.now)
    order = sorted(group.members)
    records = [crec.current_assignment_tombstone(gid, mid) for mid in order]
    records += [crec.member_metadata_tombstone(gid, mid) for mid in order]
    records += connect_ops.delete_group_records(coord, gid)  # 1003, 1001, 1000; group timers cancelled
    records.append(group_metadata_record(classic, classic.group_assignment()))
    for mid in order:
        connect_ops.cancel_member_timers(coord, gid, mid)
    now = coord.now
    reason = f"Downgrade group {gid} from connect to classic for member leaving."
    effects.append(lambda: downgrade.install(coord, classic, True, reason, now))
    return records


def from_connect_group(group: ConnectGroup, leaving: set[str], now: int) -> ClassicGroup:
    classic = ClassicGroup(group.group_id, now, state=STABLE, generation_id=group.group_epoch,
                           protocol_type=CONNECT_PROTOCOL_TYPE)
    for mid, m in sorted(group.members.items()):
        if mid in leaving:
            continue
        classic.add(ClassicMember(mid, m.instance_id, m.client_id, m.client_host, m.rebalance_timeout_ms,
                                  mm.session_timeout(m), CONNECT_PROTOCOL_TYPE, mm.protocols(m)))
    classic.protocol_name = classic.select_protocol()
    offsets = [decode_worker_state(cm.metadata(cm.protocols[0][0])).config_offset for cm in classic.members.values()]
    offset = max(offsets, default=0)  # a Connect leader's maxOffset
    for cm in classic.members.values():
        try:
            version = protocol_version(classic.protocol_name)
        except SchemaError as exc:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND,
                                   f"Cannot downgrade the connect group {group.group_id}: {exc}.") from None
        target = group.target_of(cm.member_id).resources
        cm.assignment = encode_connect_assignment(ConnectAssignment(version, config_offset=offset, assigned=target))
    return classic


def delete_empty_group(coord: Coordinator, group: ConnectGroup) -> list[Record]:
    """A classic JoinGroup to an empty Connect group (kgspec's reading, as Kafka's
    ``maybeDeleteEmptyConsumerGroup``): removed in memory at once, its group timers cancelled;
    its tombstones go out with the new classic group's empty GroupMetadata record."""
    coord.connect_groups.pop(group.group_id, None)
    return connect_ops.delete_group_records(coord, group.group_id)
