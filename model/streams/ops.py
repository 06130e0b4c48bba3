"""The streams side of the coordinator: group lookup, fencing, target assignment, timers.

:class:`kgspec.model.coordinator.Coordinator` keeps streams groups in ``coord.streams_groups``
(one namespace with ``coord.groups``: a group id names one group of one type) and delegates
here for API 88/89, record types 17/19-23 and the streams timers, so its own edits stay small.
Kafka sources: ``GroupMetadataManager`` (4.3) ``streamsGroupFenceMember``,
``maybeUpdateStreamsTargetAssignment``, ``computeDelayedTargetAssignment``,
``scheduleStreamsGroup{Session,Rebalance}Timeout``, ``onLoaded``, ``onMetadataUpdate``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.records import Record
from kgspec.model.streams import records as srec
from kgspec.model.streams.configure import ConfiguredTopology, Status
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import ACTIVE, STANDBY, UNREVOKED_TASKS, StreamsMember, TaskSets
from kgspec.model.timers import Timer

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

STREAMS_GROUP_HEARTBEAT = 88
STREAMS_GROUP_DESCRIBE = 89
STREAMS_TIMER_KINDS = frozenset({"streams-session", "streams-rebalance", "streams-initial-rebalance"})


def new_group(coord: Coordinator, group_id: str) -> StreamsGroup:
    return StreamsGroup(group_id, coord.profile.new_group_initial_epoch)


def group_for_join(coord: Coordinator, group_id: str) -> StreamsGroup:
    """``getOrCreateStreamsGroup``: a new group is transient until its records are replayed."""
    if group_id in coord.groups:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a streams group.")
    return coord.streams_groups.get(group_id) or new_group(coord, group_id)


def group_or_throw(coord: Coordinator, group_id: str, *, leave: bool = False) -> StreamsGroup:
    """``getStreamsGroupOrThrow`` (heartbeat) / ``streamsGroup`` (leave)."""
    if group_id in coord.groups:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a streams group.")
    group = coord.streams_groups.get(group_id)
    if group is None:
        text = f"Group {group_id} not found." if leave else f"Streams group {group_id} not found."
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, text)
    return group


def assignment_configs(coord: Coordinator) -> dict[str, str]:
    """``streamsGroupAssignmentConfigs``: a TreeMap with ``num.standby.replicas``."""
    return {"num.standby.replicas": str(coord.config.int("group.streams.num.standby.replicas"))}


def topic_partition_counts(coord: Coordinator) -> dict[str, int]:
    out: dict[str, int] = {}
    for name in coord.topics.names():
        info = coord.topics.by_name(name)
        if info is not None:
            out[name] = info.partitions
    return out


def fence_records(coord: Coordinator, group: StreamsGroup, member: StreamsMember) -> list[Record]:
    """``streamsGroupFenceMember``: tombstones 22, 21, 19, then 17 with group epoch + 1."""
    gid = group.group_id
    records = [srec.current_assignment_tombstone(gid, member.member_id),
               srec.target_member_tombstone(gid, member.member_id),
               srec.member_metadata_tombstone(gid, member.member_id),
               srec.group_metadata_record(gid, group.group_epoch + 1, group.metadata_hash,
                                          group.validated_topology_epoch, group.last_assignment_configs)]
    cancel_member_timers(coord, gid, member.member_id)
    return records


def can_compute(coord: Coordinator, group: StreamsGroup, now: int) -> bool:
    """``canComputeNextTargetAssignment`` (4.3+, KAFKA-20291)."""
    if not coord.profile.assignment_batching:
        return True
    interval = coord.config.int("group.streams.assignment.interval.ms")
    last = group.assignment_timestamp
    return last == 0 or interval == 0 or now >= last + interval


def maybe_update_target(coord: Coordinator, group: StreamsGroup, group_epoch: int,
                        updated: StreamsMember | None, configured: ConfiguredTopology,
                        records: list[Record], statuses: list[dict[str, Any]] | None,
                        configs: Mapping[str, str], now: int) -> tuple[int, TaskSets]:
    """``maybeUpdateStreamsTargetAssignment``: (target epoch, the member's target)."""
    from kgspec.model.streams.heartbeat import compute_target

    empty: TaskSets = {}
    if initial_rebalance_key(group.group_id) in coord.timers:
        if statuses is not None:
            statuses.append({"statusCode": int(Status.ASSIGNMENT_DELAYED),
                             "statusDetail": "Assignment delayed due to the configured initial rebalance delay."})
        return group.assignment_epoch, empty
    last = group.target_of(updated.member_id) if updated is not None else empty
    if group.assignment_epoch >= group_epoch:
        return group.assignment_epoch, last
    if not can_compute(coord, group, now):
        if statuses is not None:
            statuses.append({"statusCode": int(Status.ASSIGNMENT_DELAYED),
                             "statusDetail": "Assignment delayed due to the configured assignment interval."})
        return group.assignment_epoch, last
    new_records, result = compute_target(coord, group, group_epoch, updated, configured, configs, now)
    records.extend(new_records)
    return group_epoch, result.get(updated.member_id, empty) if updated is not None else empty


def endpoint_to_partitions(coord: Coordinator, group: StreamsGroup, updated: StreamsMember) -> list[dict[str, Any]]:
    """``buildEndpointToPartitions``: other members first (HashMap order), the updated member last."""
    from kgspec.model.streams.javaorder import java_hashmap_order

    members = [group.members[m] for m in java_hashmap_order(group.members) if m != updated.member_id]
    out = []
    for m in [*members, updated]:
        if m.user_endpoint is None:
            continue
        subs = (group.configured_topology.subtopologies if group.configured_topology else None) or {}
        entry: dict[str, Any] = {"userEndpoint": {"host": m.user_endpoint[0], "port": m.user_endpoint[1]}}
        for role, name in ((ACTIVE, "activePartitions"), (STANDBY, "standbyPartitions")):
            tps: list[dict[str, Any]] = []
            for sid, parts in sorted(m.assigned.get(role, {}).items()):
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


# --- timers ----------------------------------------------------------------------------------


def initial_rebalance_key(group_id: str) -> str:
    return f"initial-rebalance-timeout-{group_id}"


def schedule_initial_rebalance(coord: Coordinator, group_id: str, deadline: int) -> None:
    coord.timers.schedule_if_absent(Timer(initial_rebalance_key(group_id), deadline,
                                          "streams-initial-rebalance", group_id))


def schedule_session_timeout(coord: Coordinator, group_id: str, member_id: str, now: int) -> None:
    timeout = coord.config.int("group.streams.session.timeout.ms")
    coord.timers.schedule(Timer(f"session-timeout-{group_id}-{member_id}", now + timeout,
                                "streams-session", group_id, member_id))


def schedule_rebalance_timeout(coord: Coordinator, group_id: str, member: StreamsMember, now: int) -> None:
    coord.timers.schedule(Timer(f"rebalance-timeout-{group_id}-{member.member_id}",
                                now + member.rebalance_timeout_ms, "streams-rebalance",
                                group_id, member.member_id, member.member_epoch))


def cancel_rebalance_timeout(coord: Coordinator, group_id: str, member_id: str) -> None:
    coord.timers.cancel(f"rebalance-timeout-{group_id}-{member_id}")


def cancel_member_timers(coord: Coordinator, group_id: str, member_id: str) -> None:
    coord.timers.cancel(f"session-timeout-{group_id}-{member_id}")
    coord.timers.cancel(f"rebalance-timeout-{group_id}-{member_id}")


def fire(coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
    group = coord.streams_groups.get(timer.group_id)
    if group is None:
        return [], f"{timer.key}: group is gone"
    if timer.kind == "streams-initial-rebalance":
        return _delayed_target(coord, group)
    member = group.members.get(timer.member_id or "")
    if member is None:
        return [], f"{timer.key}: member is gone"
    if timer.kind == "streams-session":
        if coord.mutants.active("no-session-fencing"):
            return [], f"member {member.member_id}'s session expired (mutant: not fenced)"
        return fence_records(coord, group, member), f"member {member.member_id} fenced: its session expired"
    if member.member_epoch != timer.epoch:
        return [], f"member {member.member_id} left epoch {timer.epoch} in time"
    return (fence_records(coord, group, member),
            f"member {member.member_id} fenced: it did not revoke within its rebalance timeout")


def _delayed_target(coord: Coordinator, group: StreamsGroup) -> tuple[list[Record], str]:
    """``computeDelayedTargetAssignment``."""
    if group.is_empty():
        return [], "initial rebalance delay over: the group is empty"
    if group.group_epoch <= group.assignment_epoch:
        return [], "initial rebalance delay over: IllegalStateException (group epoch not ahead)"
    if group.configured_topology is None:
        return [], "initial rebalance delay over: no configured topology (it was set on a transient group)"
    records: list[Record] = []
    maybe_update_target(coord, group, group.group_epoch, None, group.configured_topology, records, None,
                        group.last_assignment_configs, coord.now)
    return records, "initial rebalance delay over: target assignment computed"


def on_loaded(coord: Coordinator, now: int) -> None:
    for gid, group in coord.streams_groups.items():
        for member in group.members.values():
            schedule_session_timeout(coord, gid, member.member_id, now)
            if member.state == UNREVOKED_TASKS:
                schedule_rebalance_timeout(coord, gid, member, now)


def metadata_changed(coord: Coordinator, names: Iterable[str]) -> None:
    """``onMetadataUpdate``: groups whose topology requires a changed topic refresh on their next heartbeat."""
    changed = set(names)
    for group in coord.streams_groups.values():
        if group.topology is not None and group.topology.required_topics() & changed:
            group.refresh_deadline = (0, 0)


def handle(coord: Coordinator, api_key: int, request: dict[str, Any], now: int, client_id: str,
           client_host: str, apply: bool) -> Any:
    """API 88/89 for :meth:`Coordinator.handle`; returns a coordinator ``Result``."""
    from kgspec.model.coordinator import Result
    from kgspec.model.streams.describe import describe_streams_groups
    from kgspec.model.streams.heartbeat import StreamsHeartbeat, parse_topology, validate

    if api_key == STREAMS_GROUP_DESCRIBE:
        return Result(describe_streams_groups(coord, request))
    topology = parse_topology(request)
    step = StreamsHeartbeat(coord, request, topology, client_id, client_host, now)
    try:
        validate(request, topology)
        response = step.run()
    except CoordinatorError as exc:
        return Result(error_response(exc), [], [*step.explain, exc.message or ""], exc)
    if apply:
        coord.apply(step.records)
    result = Result(response, step.records, step.explain)
    coord.last_streams_topics_to_create = step.internal_topics_to_create
    return result


def error_response(error: CoordinatorError) -> dict[str, Any]:
    return {"errorCode": int(error.error), "errorMessage": error.message, "memberId": "", "memberEpoch": 0,
            "heartbeatIntervalMs": 0, "acceptableRecoveryLag": 0, "taskOffsetIntervalMs": 0, "status": None,
            "activeTasks": None, "standbyTasks": None, "warmupTasks": None, "endpointInformationEpoch": 0,
            "partitionsByUserEndpoint": None}
