"""Classic -> streams: a joining StreamsGroupHeartbeat (epoch 0) that finds a classic group.

Kafka (``GroupMetadataManager.getOrCreateStreamsGroup``):

- 4.2, 4.3, trunk (KAFKA-19570, "offline migration"): an EMPTY classic group is deleted —
  ``maybeDeleteEmptyClassicGroup`` writes its GroupMetadata tombstone first — and a new streams
  group is created as for an unknown id; any other classic group: ``castToStreamsGroup`` →
  GROUP_ID_NOT_FOUND "Group g is not a streams group.";
- 4.1: no deletion; every classic group gets that error.

Profile ``kip`` adds the seed's online migration (KIP-1071, "Online Migration from a Classic
Consumer Group to a Streams Group"; Kafka never implemented it): a non-empty classic group of
the consumer protocol type is converted, its members translated through kgspec's Streams user
data (:mod:`kgspec.model.migration.streams_protocol`). Mirroring ``convertToConsumerGroup``
(``model/migration/upgrade.py``), the conversion

1. answers parked JoinGroup / SyncGroup calls REBALANCE_IN_PROGRESS;
2. writes the GroupMetadata tombstone; 19 per member (process id, topology epoch, endpoint and
   tags from the user data, ``classicMemberMetadata``); 23, the joining member's topology (the
   seed: it "initializes the group with the topology metadata"; the classic members carry only
   its epoch); 17 (epoch = the generation, metadata hash 0, the topology's epoch as validated when
   its configuration is ready, else -1; the current assignment configs); 21 per member (its last
   classic assignment, or nothing while NotReady: no task in a target then, as everywhere); 20
   (the generation, timestamp 0); 22 per member (STABLE at the generation, its classic tasks);
3. arms each member's session timeout with its classic session timeout;

then the heartbeat continues on the converted group: the group epoch becomes generation + 1 (the
seed's example: generation 23, group epoch 24) and the target is computed for everyone.
Failures are GROUP_ID_NOT_FOUND with kgspec's messages (the seed gives none), worded as Kafka's
consumer-group upgrade messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import EMPTY_ASSIGNMENT
from kgspec.model.classic.records import group_metadata_tombstone
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import members as mm
from kgspec.model.migration.order import timeline_order
from kgspec.model.migration.protocol import SchemaError
from kgspec.model.migration.streams_protocol import (
    decode_streams_assignment,
    decode_streams_subscription,
)
from kgspec.model.migration.upgrade import Effects, fail_parked_calls
from kgspec.model.records import Record
from kgspec.model.streams import ops, seed_records
from kgspec.model.streams import records as srec
from kgspec.model.streams.configure import configure_topology
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import ACTIVE, STABLE, STANDBY, WARMUP, StreamsMember
from kgspec.model.streams.topology import Topology
from kgspec.spec.classic import EMPTY
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator


def group_for_join(coord: Coordinator, classic: ClassicGroup, records: list[Record], effects: Effects,
                   now: int, topology: Topology | None = None) -> StreamsGroup:
    """The classic branch of ``getOrCreateStreamsGroup`` (and, under kip, the online upgrade)."""
    gid = classic.group_id
    if coord.profile.streams_offline_migration and classic.state == EMPTY:
        # maybeDeleteEmptyClassicGroup: the tombstone's replay removes the classic group.
        records.append(group_metadata_tombstone(gid))
        return ops.new_group(coord, gid)
    if coord.profile.streams_online_migration and classic.state != EMPTY:
        validate_upgrade(coord, classic)
        return convert(coord, classic, records, effects, now, topology)
    raise ops.not_a_streams_group(gid)


def _cannot(gid: str, why: str) -> CoordinatorError:
    return CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to streams group "
                            f"because {why}.")


def validate_upgrade(coord: Coordinator, classic: ClassicGroup) -> None:
    gid = classic.group_id
    if classic.protocol_type != mm.CONSUMER_PROTOCOL_TYPE:
        raise _cannot(gid, "the group does not use the consumer embedded protocol")
    if len(classic.members) > coord.config.int("group.streams.max.size"):
        raise _cannot(gid, "the group size exceeds the streams group maximum size")


def convert(coord: Coordinator, classic: ClassicGroup, records: list[Record], effects: Effects,
            now: int, topology: Topology | None) -> StreamsGroup:
    """The streams group the conversion records build (not registered: it is replayed)."""
    gid = classic.group_id
    group = from_classic_group(coord, classic)
    order = timeline_order(group.members)
    records.append(group_metadata_tombstone(gid))
    for mid in order:
        records.append(srec.member_metadata_record(gid, group.members[mid]))
    if topology is not None:  # the joining member's: "initializes the group with the topology metadata"
        records.append(srec.topology_record(gid, topology))
        fire("streams-topology", group.topology_state(), "initialized")
        group.topology = topology
        group.configured_topology = configure_topology(topology, ops.topic_partition_counts(coord))
        ops.fire_configured(group, group.configured_topology)
        if group.configured_topology.is_ready:
            group.validated_topology_epoch = topology.epoch
        if group.seed_records:  # kip: "both records are created" (model/streams/seed_records.py)
            group.partition_metadata = seed_records.compute(coord, topology.required_topics())
            records.append(seed_records.partition_metadata_record(gid, group.partition_metadata))
    if group.validated_topology_epoch == -1:  # NotReady: no member is given tasks (TargetAssignmentBuilder)
        group.target = {mid: {ACTIVE: {}, STANDBY: {}, WARMUP: {}} for mid in group.members}
    records.append(srec.group_metadata_record(gid, group.group_epoch, 0, group.validated_topology_epoch,
                                              group.last_assignment_configs, seed=group.seed_records))
    for mid in order:
        records.append(srec.target_member_record(gid, mid, group.target[mid]))
    records.append(srec.target_metadata_record(gid, group.assignment_epoch, 0))
    for mid in order:
        member = group.members[mid]
        records.append(srec.current_assignment_record(gid, member, coord.profile))
        ops.schedule_session_timeout(coord, gid, mid, now, mm.session_timeout(member))
    members = list(classic.members.values())  # HashMap order: the order the futures complete in
    effects.append(lambda: fail_parked_calls(coord, classic, members, now))
    return group


def from_classic_group(coord: Coordinator, classic: ClassicGroup) -> StreamsGroup:
    """Every classic member becomes a STABLE streams member at the generation, holding (and
    targeted with) its last classic assignment."""
    gid = classic.group_id
    generation = classic.generation_id
    group = StreamsGroup(gid, generation)
    group.assignment_epoch = generation
    group.validated_topology_epoch = -1
    group.last_assignment_configs = ops.assignment_configs(coord, gid)
    group.seed_records = coord.profile.streams_kip_seed_records
    for cm in classic.members.values():
        try:
            sub = decode_streams_subscription(cm.metadata(classic.protocol_name))
            active, standby = ({}, {}) if cm.assignment == EMPTY_ASSIGNMENT else decode_streams_assignment(cm.assignment)
        except (SchemaError, ValueError):
            raise _cannot(gid, "the embedded streams protocol is malformed") from None
        member = StreamsMember(
            cm.member_id, generation, generation, STABLE, cm.instance_id, sub.rack_id, cm.client_id,
            cm.client_host, cm.rebalance_timeout_ms, sub.topology_epoch, sub.process_id, sub.user_endpoint,
            dict(sub.client_tags),
            {ACTIVE: {s: dict.fromkeys(p, generation) for s, p in active.items()},
             STANDBY: {s: dict.fromkeys(p, 0) for s, p in standby.items()}, WARMUP: {}},
            classic_member_metadata=mm.classic_metadata(cm.session_timeout_ms, cm.protocols))
        group.target[cm.member_id] = {ACTIVE: dict(active), STANDBY: dict(standby), WARMUP: {}}
        group.put_member(member)
    return group
