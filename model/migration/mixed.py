"""Classic calls to a consumer group: classic-protocol members of a mixed group
(GroupMetadataManager 4.3 ``classicGroupJoinToConsumerGroup``, ``classicGroupSyncToConsumerGroup``,
``classicGroupHeartbeatToConsumerGroup``, ``classicGroupLeaveToConsumerGroup``).

The member is a consumer group member whose record 5 carries ``classicMemberMetadata``; its
subscription and owned partitions come from the JoinGroup's embedded protocol, its generation is
its member epoch, and the SyncGroup hands it its *current* assigned partitions serialized at its
protocol's version. Its timers are consumer timers keyed ``session-timeout-{g}-{m}`` (with the
classic session timeout), ``join-{g}-{m}`` and ``sync-{g}-{m}``; all three fence it.

Responses are never parked: Kafka completes them when the append succeeds, which in the model
is at once. Errors thrown by these paths reach the client as the service builds them:
``JoinGroupResponseData().setErrorCode(e)`` (member id ""), ``SyncGroupResponseData()...``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgspec.model.classic.join import JoinRequest
from kgspec.model.classic.responses import (
    heartbeat_response,
    join_response,
    leave_response,
    sync_response,
)
from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.heartbeat import (
    ConsumerHeartbeat,
    static_member_or_throw,
)
from kgspec.model.consumer.member import UNRELEASED_PARTITIONS, UNREVOKED_PARTITIONS, ConsumerMember
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import downgrade
from kgspec.model.migration import members as mm
from kgspec.model.migration.policy import MigrationPolicy, migration_policy
from kgspec.model.migration.protocol import SchemaError, decode_subscription, read_version
from kgspec.model.records import Record
from kgspec.model.timers import classic_key

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

Effects = list[Callable[[], None]]


class Outcome:
    """A mixed-group call's response, records and after-replay effects."""

    __slots__ = ("effects", "explain", "records", "response")

    def __init__(self, response: dict[str, Any], records: list[Record] | None = None,
                 effects: Effects | None = None, explain: list[str] | None = None) -> None:
        self.response = response
        self.records = records or []
        self.effects = effects or []
        self.explain = explain or []


# --- JoinGroup ---------------------------------------------------------------------------


def join(coord: Coordinator, group: ConsumerGroup, req: JoinRequest, now: int) -> Outcome:
    try:
        return _join(coord, group, req, now)
    except CoordinatorError as exc:
        return Outcome(join_response(req.version, int(exc.error)), explain=[exc.message or exc.error.name])


def _join(coord: Coordinator, group: ConsumerGroup, req: JoinRequest, now: int) -> Outcome:
    gid = group.group_id
    if migration_policy(coord) == MigrationPolicy.DISABLED:
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"Cannot join the consumer group {gid} with "
                               "the classic protocol because the group migration is disabled.")
    unknown = req.member_id == ""
    member_id = (req.chosen_member_id or coord.new_member_id()) if unknown else req.member_id  # no prefix
    step = ConsumerHeartbeat(coord, {}, req.client_id, req.client_host, now)
    step.throw_if_full(group, member_id, req.instance_id)
    if not mm.supports_protocols(group.members.values(), req.protocol_type, req.names()):
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"Member {member_id}'s protocols are not supported.")
    if req.version >= 4 and unknown and req.instance_id is None:
        return Outcome(join_response(req.version, int(Errors.MEMBER_ID_REQUIRED), member_id=member_id),
                       explain=[f"new dynamic classic member: pending as {member_id} until it rejoins with that id"])
    member = _member(step, group, member_id, req, unknown)
    existing_static = group.static_member(req.instance_id)
    downgrading = existing_static is not None and downgrade.valid_with_replaced_member(coord, group, existing_static)
    try:
        subscription = decode_subscription(req.protocols[0][1])
    except SchemaError:
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL,
                               "Malformed embedded consumer protocol in subscription deserialization.") from None
    updated = member.copy()
    if req.instance_id is not None:
        updated.instance_id = req.instance_id
    if subscription.rack_id:
        updated.rack_id = subscription.rack_id
    if req.rebalance_timeout_ms != -1:
        updated.rebalance_timeout_ms = req.rebalance_timeout_ms
    updated.subscribed_topic_names = tuple(sorted(set(subscription.topics)))
    updated.subscribed_topic_regex = ""  # classic members cannot subscribe by regex
    updated.client_id, updated.client_host = req.client_id, req.client_host
    updated.classic_member_metadata = mm.classic_metadata(req.session_timeout_ms, req.protocols)
    owned = mm.topic_ids(coord, subscription.owned_partitions)

    records = step.records
    names_changed = False
    if not updated.metadata_equals(member):
        records.append(rec.member_metadata_record(gid, updated))
        names_changed = updated.subscribed_topic_names != member.subscribed_topic_names
    bump = names_changed or step.update_regex(group, member, updated) != "NO_CHANGE"
    group_epoch = group.group_epoch
    if bump or consumer_ops.metadata_expired(coord, group):
        group_epoch = step.update_subscription_metadata(group, bump, member, updated)
    effects: Effects = []
    if downgrading:
        stale = coord.profile.downgrade_rebalances_on_stale_assignment
        rebalance = group.assignment_epoch < group_epoch if stale else bump
        if not rebalance:
            updated = step.maybe_reconcile(group, updated, group.assignment_epoch,
                                           group.target_of(updated.member_id, updated.instance_id), bump, owned)
        reason = "with stale assignment" if stale else "for static member replacement with different subscription"
        downgrade.convert(coord, group, set(), updated, rebalance,
                          f"Downgrade group {gid} from consumer to classic {reason}.",
                          records, effects, now)
    else:
        target_epoch, target = consumer_ops.maybe_update_target(coord, group, group_epoch, member, updated, records, now)
        updated = step.maybe_reconcile(group, updated, target_epoch, target, bump, owned)
    response = join_response(req.version, member_id=updated.member_id, generation_id=updated.member_epoch,
                             protocol_type=mm.CONSUMER_PROTOCOL_TYPE, protocol_name=mm.first_protocol(updated)[0])
    coord.timers.cancel(join_key(gid, updated.member_id))
    if not downgrading:
        consumer_ops.schedule_session_timeout(coord, gid, updated.member_id, now, req.session_timeout_ms)
        consumer_ops.schedule_classic_timer(coord, gid, updated.member_id, "sync", now + req.rebalance_timeout_ms)
    step.explain.append(f"classic member {updated.member_id} joined consumer group {gid} at epoch "
                        f"{updated.member_epoch}" + ("; the group is downgraded to a classic group" if downgrading else ""))
    return Outcome(response, records, effects, step.explain)


def _member(step: ConsumerHeartbeat, group: ConsumerGroup, member_id: str, req: JoinRequest,
            unknown: bool) -> ConsumerMember:
    """``getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember`` with ``useClassicProtocol``."""
    if req.instance_id is None:
        return group.members.get(member_id) or ConsumerMember(member_id)
    existing = group.static_member(req.instance_id)
    if unknown:
        if existing is None:
            return group.members.get(member_id) or ConsumerMember(member_id)
        # A classic replacement skips the UNRELEASED_INSTANCE_ID check.
        replacement = step.replace_static_member(group, existing, member_id)
        step.explain.append(f"static member {req.instance_id}: {existing.member_id} replaced by {member_id}")
        return replacement
    return static_member_or_throw(group, member_id, req.instance_id)


# --- SyncGroup / Heartbeat -------------------------------------------------------------------


def sync(coord: Coordinator, group: ConsumerGroup, req: dict[str, Any], version: int, now: int) -> Outcome:
    if not group.members:
        return Outcome(sync_response(version, int(Errors.UNKNOWN_MEMBER_ID)))
    protocol_type = req.get("protocolType") if version >= 5 else None
    protocol_name = req.get("protocolName") if version >= 5 else None
    member_id = req.get("memberId") or ""
    gid = group.group_id
    try:
        member = mm.calling_member_or_throw(group, req, version)
        mm.check_sync_protocol(member_id, protocol_type, protocol_name, mm.first_protocol(member)[0])
        if group.assignment_epoch > member.member_epoch and member.state != UNREVOKED_PARTITIONS:
            _schedule_join_if_absent(coord, group.group_id, member, now)
            raise mm.rebalance_in_progress(group.group_id, member.member_id)
    except CoordinatorError as exc:
        return Outcome(sync_response(version, int(exc.error)), explain=[exc.message or exc.error.name])
    coord.timers.cancel(sync_key(gid, member_id))
    consumer_ops.schedule_session_timeout(coord, gid, member_id, now, mm.session_timeout(member))
    version_of = _protocol_version(member)
    assignment = mm.serialize(coord, {t: frozenset(p) for t, p in member.assigned.items()}, version_of)
    return Outcome(sync_response(version, protocol_type=protocol_type, protocol_name=protocol_name,
                                 assignment=assignment),
                   explain=[f"classic member {member_id} gets its assigned partitions at epoch {member.member_epoch}"])


def _protocol_version(member: ConsumerMember) -> int:
    try:
        return read_version(mm.first_protocol(member)[1])
    except SchemaError:
        raise CoordinatorError(Errors.UNKNOWN_SERVER_ERROR,
                               "Malformed embedded consumer protocol in version deserialization.") from None


def heartbeat(coord: Coordinator, group: ConsumerGroup, req: dict[str, Any], version: int, now: int) -> Outcome:
    member_id = req.get("memberId") or ""
    try:
        member = mm.calling_member_or_throw(group, req, version)
    except CoordinatorError as exc:
        return Outcome(heartbeat_response(version, int(exc.error)), explain=[exc.message or exc.error.name])
    consumer_ops.schedule_session_timeout(coord, group.group_id, member_id, now, mm.session_timeout(member))
    behind = group.assignment_epoch if coord.profile.mixed_rejoin_on_assignment_epoch else group.group_epoch
    if (member.member_epoch < behind or member.state == UNREVOKED_PARTITIONS
            or (member.state == UNRELEASED_PARTITIONS and not waiting_on_unreleased_partition(group, member))):
        _schedule_join_if_absent(coord, group.group_id, member, now)
        return Outcome(heartbeat_response(version, int(Errors.REBALANCE_IN_PROGRESS)),
                       explain=[f"classic member {member_id} must rejoin (epoch {member.member_epoch}, assignment "
                                f"epoch {group.assignment_epoch})"])
    return Outcome(heartbeat_response(version))


def waiting_on_unreleased_partition(group: ConsumerGroup, member: ConsumerMember) -> bool:
    """``ConsumerGroup.waitingOnUnreleasedPartition``: a target partition still held by another member."""
    if member.state != UNRELEASED_PARTITIONS:
        return False
    for topic_id, parts in group.target.get(member.member_id, {}).items():
        held = member.assigned.get(topic_id, {})
        for p in parts:
            if p not in held and group.current_partition_epoch(topic_id, p) != -1:
                return True
    return False


# --- LeaveGroup --------------------------------------------------------------------------------


def leave(coord: Coordinator, group: ConsumerGroup, identities: list[tuple[str, str | None, str | None]],
          version: int, now: int) -> Outcome:
    answers, leaving = mm.leaving_members(group, identities)
    effects: Effects = []
    records = downgrade.fence(coord, group, leaving, effects, now, "left")
    explain = [f"members {sorted(m.member_id for m in leaving)} left through LeaveGroup"] if leaving else []
    return Outcome(leave_response(version, 0, answers), records, effects, explain)


# --- timers ---------------------------------------------------------------------------------------


def join_key(group_id: str, member_id: str) -> str:
    return classic_key("join", group_id, member_id)


def sync_key(group_id: str, member_id: str) -> str:
    return classic_key("sync", group_id, member_id)


def _schedule_join_if_absent(coord: Coordinator, group_id: str, member: ConsumerMember, now: int) -> None:
    consumer_ops.schedule_classic_timer(coord, group_id, member.member_id, "join", now + member.rebalance_timeout_ms,
                                          if_absent=True)


# --- a JoinGroup to an empty consumer group -------------------------------------------------------


def delete_empty_consumer_group(coord: Coordinator, group: ConsumerGroup) -> list[Record]:
    """``maybeDeleteEmptyConsumerGroup``: removed in memory at once; returns its tombstones, which
    Kafka writes only with the new classic group's empty GroupMetadata record."""
    coord.groups.pop(group.group_id, None)
    consumer_ops.forget(coord, group.group_id)
    return downgrade.tombstones(group, [], {})
