"""The streams side of the coordinator: group lookup, fencing, target assignment, timers.

:class:`kgspec.model.coordinator.Coordinator` keeps streams groups in ``coord.streams_groups``
(one namespace with ``coord.groups``: a group id names one group of one type) and delegates
here for API 88/89, record types 17/19-23 and the streams timers, so its own edits stay small.
Kafka sources: ``GroupMetadataManager`` (4.3) ``streamsGroupFenceMember``,
``maybeUpdateStreamsTargetAssignment``, ``computeDelayedTargetAssignment``,
``scheduleStreamsGroup{Session,Rebalance}Timeout``, ``onLoaded``, ``onMetadataUpdate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kgspec.model import timers
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.profiles import Profile
from kgspec.model.records import Record
from kgspec.model.streams import records as srec
from kgspec.model.streams.apis import STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT
from kgspec.model.streams.configure import ConfiguredTopology, UnexpectedServerError
from kgspec.model.streams.group import StreamsGroup, configured_trigger
from kgspec.model.streams.member import (
    ACTIVE,
    STANDBY,
    WARMUP,
    StreamsMember,
    TaskSets,
)
from kgspec.model.streams.topology import Topology
from kgspec.model.timers import Timer
from kgspec.spec import tables
from kgspec.spec import topology as topology_spec

__all__ = ["STREAMS_GROUP_DESCRIBE", "STREAMS_GROUP_HEARTBEAT"]  # and the operations below

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

STREAMS_TIMER_KINDS = frozenset({"streams-session", "streams-rebalance", "streams-initial-rebalance",
                                 "streams-classic-join", "streams-classic-sync"})


def new_group(coord: Coordinator, group_id: str) -> StreamsGroup:
    group = StreamsGroup(group_id, coord.profile.new_group_initial_epoch)
    group.seed_records = coord.profile.streams_kip_seed_records
    return group


def not_a_streams_group(group_id: str) -> CoordinatorError:
    """``castToStreamsGroup``: the id names a group of another type."""
    return CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a streams group.")


def group_for_join(coord: Coordinator, group_id: str, records: list[Record],
                   effects: list[Callable[[], None]], now: int, topology: Topology | None = None) -> StreamsGroup:
    """``getOrCreateStreamsGroup``: a new group is transient until its records are replayed; a
    classic group of that id goes to ``model/migration/streams_upgrade.py`` (tombstoned when empty)."""
    if group_id in coord.groups:
        raise not_a_streams_group(group_id)
    classic = coord.classic_groups.get(group_id)
    if classic is not None:
        return coord.migration.streams_group_for_join(coord, classic, records, effects, now, topology)
    return coord.streams_groups.get(group_id) or new_group(coord, group_id)


def group_or_throw(coord: Coordinator, group_id: str, *, leave: bool = False) -> StreamsGroup:
    """``getStreamsGroupOrThrow`` (heartbeat) / ``streamsGroup`` (leave)."""
    if group_id in coord.groups or group_id in coord.classic_groups:
        raise not_a_streams_group(group_id)
    group = coord.streams_groups.get(group_id)
    if group is None:
        text = f"Group {group_id} not found." if leave else f"Streams group {group_id} not found."
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, text)
    return group


RACK_AWARE_TAGS = "group.streams.rack.aware.assignment.tags"


def assignment_configs(coord: Coordinator, group_id: str) -> dict[str, str]:
    """``streamsGroupAssignmentConfigs(groupId)``: a TreeMap with ``num.standby.replicas`` (the
    group's ``streams.num.standby.replicas`` when it sets one) and, on trunk,
    ``rack.aware.assignment.tags`` when set (KAFKA-20744); kip adds the seed's
    ``acceptable.recovery.lag`` and ``num.warmup.replicas``."""
    replicas = coord.group_config_int(group_id, "group.streams.num.standby.replicas")
    configs = {"num.standby.replicas": str(replicas)}
    if coord.profile.streams_kip_warmups_in_target:
        # kip: the seed's "three core assignment options" all bump the group epoch when the group's
        # value changes ("When an assignment configuration for the group is updated").
        configs["acceptable.recovery.lag"] = str(coord.group_config_int(group_id, "group.streams.acceptable.recovery.lag"))
        configs["num.warmup.replicas"] = str(coord.group_config_int(group_id, "group.streams.num.warmup.replicas"))
    if coord.profile.streams_rack_aware_tags:
        tags = rack_aware_tags(coord)
        if tags:
            configs["rack.aware.assignment.tags"] = ",".join(tags)
    return configs


def rack_aware_tags(coord: Coordinator) -> list[str]:
    raw = coord.config[RACK_AWARE_TAGS]
    text = ",".join(str(v) for v in raw) if isinstance(raw, list) else str(raw)
    return [t.strip() for t in text.split(",") if t.strip()]


def members_and_target_view(group: StreamsGroup, updated: StreamsMember | None
                            ) -> tuple[dict[str, StreamsMember], dict[str, TaskSets]]:
    """``UpdatedMembersAndTargetAssignmentView`` with the updated member added: a replacing static
    member takes the old member's place and target (the replacement records are not replayed yet)."""
    members = dict(group.members)
    target = dict(group.target)
    if updated is None:
        return members, target
    mid = updated.member_id
    previous = members.get(mid)
    members[mid] = updated
    statics = dict(group.static_members)
    if previous is not None and previous.instance_id is not None and previous.instance_id != updated.instance_id:
        statics.pop(previous.instance_id, None)
    if updated.instance_id is not None:
        old_id = statics.get(updated.instance_id)
        statics[updated.instance_id] = mid
        if old_id is not None and old_id != mid:
            if old_id in target:
                target[mid] = target[old_id]
            members.pop(old_id, None)
            target.pop(old_id, None)
    return members, target


def topic_partition_counts(coord: Coordinator) -> Mapping[str, int]:
    """The image's partition counts by name (a view: O(1) whatever the number of topics)."""
    return coord.topics.partition_counts()


def fire_configured(group: StreamsGroup, configured: ConfiguredTopology) -> None:
    """configureTopics ran: the ``streams-topology`` transition to its outcome. A topology whose
    record this very call writes is INITIALIZED (its ``initialized`` transition fired first)."""
    source = topology_spec.INITIALIZED if group.topology is None else group.topology_state()
    tables.fire("streams-topology", source, configured_trigger(configured))


def fence_records(coord: Coordinator, group: StreamsGroup, member: StreamsMember) -> list[Record]:
    """``streamsGroupFenceMember``: tombstones 22, 21, 19, then 17 with group epoch + 1 (and on
    trunk, KAFKA-20442 #22047, record 20 (new epoch, timestamp 0) when the last member goes)."""
    return fence_members_records(coord, group, [member])


def fence_members_records(coord: Coordinator, group: StreamsGroup, members: list[StreamsMember]) -> list[Record]:
    """Several members at once (a classic LeaveGroup naming several, kip only; kgspec's choice,
    as ``consumerGroupFenceMembers`` does it: every member's tombstones, then one epoch bump)."""
    gid = group.group_id
    records: list[Record] = []
    for member in members:
        records += [srec.current_assignment_tombstone(gid, member.member_id),
                    srec.target_member_tombstone(gid, member.member_id),
                    srec.member_metadata_tombstone(gid, member.member_id)]
    records.append(srec.group_metadata_record(gid, group.group_epoch + 1, group.metadata_hash,
                                              group.validated_topology_epoch, group.last_assignment_configs,
                                              seed=group.seed_records))
    if coord.profile.empty_group_resets_assignment_epoch and len(group.members) == len(members):
        records.append(srec.target_metadata_record(gid, group.group_epoch + 1, 0))
    for member in members:
        cancel_member_timers(coord, gid, member.member_id)
    return records


def endpoint_to_partitions(coord: Coordinator, group: StreamsGroup, updated: StreamsMember,
                           replaced: StreamsMember | None = None) -> list[dict[str, Any]]:
    """``buildEndpointToPartitions``: other members first (the group's member order), the updated member last.

    Trunk skips a static member being replaced and lists warm-up tasks with the standbys
    (KAFKA-20868, ``TasksTupleWithEpochs.standbyAndWarmupTasks``)."""
    skip = {updated.member_id} | ({replaced.member_id} if replaced is not None else set())
    members = [group.members[m] for m in group.member_order() if m not in skip]  # a TimelineHashMap
    out = []
    configured = group.configured_topology.subtopologies if group.configured_topology else None
    for m in [*members, updated]:
        if m.user_endpoint is None:
            continue
        if configured is None and coord.profile.streams_endpoint_info_fails_when_not_ready:
            # Kafka's configuredTopology().flatMap(ConfiguredTopology::subtopologies).get() on a
            # topology that is not ready: the whole heartbeat fails (docs/upstream.md, finding 3).
            raise UnexpectedServerError("NoSuchElementException", "No value present")
        subs = configured or {}
        entry: dict[str, Any] = {"userEndpoint": {"host": m.user_endpoint[0], "port": m.user_endpoint[1]}}
        for role, name in ((ACTIVE, "activePartitions"), (STANDBY, "standbyPartitions")):
            tps: list[dict[str, Any]] = []
            held = dict(m.assigned.get(role, {}))
            if role == STANDBY and coord.profile.streams_assignment_refiner:
                for sid, parts in m.assigned.get(WARMUP, {}).items():
                    held[sid] = {**held.get(sid, {}), **parts}
            for sid, parts in sorted(held.items()):
                sub = subs.get(sid)
                if sub is None:
                    continue
                for topic in sorted({*sub.source_topics, *sub.repartition_source_topics}):
                    info = coord.topics.by_name(topic)
                    n = info.partitions if info is not None else 0
                    ps = sorted(p for p in parts if p < n)
                    if ps:
                        tps.append({"topic": topic, "partitions": ps})
            entry[name] = tps
        out.append(entry)
    return out


def endpoint_to_partitions_41(coord: Coordinator, group: StreamsGroup,
                              updated: StreamsMember) -> list[dict[str, Any]] | None:
    """4.1's ``maybeBuildEndpointToPartitions``: the members as the call found them (a joining
    member is not yet one), each with the endpoint it had and the tasks of ``updated`` for the
    updated member; null when no member has an endpoint.

    ``EndpointToPartitionsManager.topicPartitionListForTask`` (4.1) gives every source topic of a
    subtopology the whole task set, or, for a topic with fewer partitions than tasks, the lowest
    task ids (``sorted(tasks)[:n]``): ids past a topic's partition count may be listed."""
    out = []
    configured = group.configured_topology.subtopologies if group.configured_topology else None
    subs = configured or {}
    for member_id in group.member_order():  # a TimelineHashMap
        stored = group.members[member_id]
        if stored.user_endpoint is None:
            continue
        if configured is None and coord.profile.streams_endpoint_info_fails_when_not_ready:
            # as in endpoint_to_partitions: Optional.get() on a topology that is not ready
            # (docs/upstream.md, finding 3); in 4.1 only for members the call found in the group
            raise UnexpectedServerError("NoSuchElementException", "No value present")
        m = updated if member_id == updated.member_id else stored
        entry: dict[str, Any] = {"userEndpoint": {"host": stored.user_endpoint[0], "port": stored.user_endpoint[1]}}
        for role, name in ((ACTIVE, "activePartitions"), (STANDBY, "standbyPartitions")):
            tps: list[dict[str, Any]] = []
            for sid, parts in sorted(m.assigned.get(role, {}).items()):
                sub = subs.get(sid)
                if sub is None:
                    continue
                tasks = sorted(parts)
                for topic in sorted({*sub.source_topics, *sub.repartition_source_topics}):
                    info = coord.topics.by_name(topic)
                    n = info.partitions if info is not None else 0
                    tps.append({"topic": topic, "partitions": tasks[:n] if n < len(tasks) else tasks})
            entry[name] = tps
        out.append(entry)
    return out or None


# --- timers ----------------------------------------------------------------------------------


def initial_rebalance_key(group_id: str) -> str:
    return f"initial-rebalance-timeout-{group_id}"


def schedule_initial_rebalance(coord: Coordinator, group_id: str, deadline: int) -> None:
    coord.timers.schedule_if_absent(Timer(initial_rebalance_key(group_id), deadline,
                                          "streams-initial-rebalance", group_id))


# The member timers (model/timers.py), as Kafka keys them; callers use these names.
MEMBER_TIMERS = timers.MemberTimers("streams", "group.streams.session.timeout.ms")
schedule_session_timeout = MEMBER_TIMERS.schedule_session
schedule_rebalance_timeout = MEMBER_TIMERS.schedule_rebalance
cancel_rebalance_timeout = MEMBER_TIMERS.cancel_rebalance
cancel_member_timers = MEMBER_TIMERS.cancel_all
schedule_classic_timer = MEMBER_TIMERS.schedule_classic


def recovery_lag_fields(profile: Profile, api_version: int, lag: int | None = None) -> dict[str, int | bool]:
    """The response's recovery-lag field as Kafka serializes it at ``api_version``.

    4.3 has one int32 ``acceptableRecoveryLag`` (v0), never set: 0. With KAFKA-18652 (trunk) v0
    carries the deprecated int32 ``acceptableRecoveryLagLegacy``, never set (0; the ignorable v1
    field is dropped, GroupMetadataManagerTest.testStreamsGroupHeartbeatResponseVersion0), and v1
    the int64 ``acceptableRecoveryLag``: ``lag`` on a heartbeat, the field's default -1 where Kafka
    builds a fresh response (leave, errors). v1 also carries ``topologyDescriptionRequired``: false,
    since no topology description plugin is configured
    (``StreamsGroupTopologyDescriptionManager.maybeSetTopologyDescriptionRequired``).
    """
    if not profile.streams_recovery_lag_in_response:
        # kip: the seed's v0 int32 field carries the configured lag on a heartbeat.
        return {"acceptableRecoveryLag": lag if profile.streams_kip_response_configs and lag is not None else 0}
    if api_version >= 1:
        return {"acceptableRecoveryLag": -1 if lag is None else lag, "topologyDescriptionRequired": False}
    return {"acceptableRecoveryLagLegacy": 0}


def error_response(error: CoordinatorError, recovery_lag: Mapping[str, int | bool]) -> dict[str, Any]:
    return {"errorCode": int(error.error), "errorMessage": error.message, "memberId": "", "memberEpoch": 0,
            "heartbeatIntervalMs": 0, **recovery_lag, "taskOffsetIntervalMs": 0, "status": None,
            "activeTasks": None, "standbyTasks": None, "warmupTasks": None, "endpointInformationEpoch": 0,
            "partitionsByUserEndpoint": None}
