"""The streams protocol (KIP-1071) behind the one protocol interface (``model/protocol.py``).

Kafka sources: ``GroupMetadataManager`` (4.3) ``streamsGroupHeartbeat``,
``computeDelayedTargetAssignment``, ``onLoaded``, ``onMetadataUpdate``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgspec.model import timers
from kgspec.model.protocol import OwnsGroups
from kgspec.model.records import STREAMS_GROUP_PARTITION_METADATA, Record, ReplayError
from kgspec.model.step import Decision, SoftSet
from kgspec.model.streams import commits, ops, seed_records, source_regex, target
from kgspec.model.streams import records as srec
from kgspec.model.streams.apis import STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT
from kgspec.model.streams.describe import describe_streams_groups
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.heartbeat import StreamsHeartbeat, parse_topology, validate
from kgspec.model.streams.member import UNREVOKED_TASKS

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call
    from kgspec.model.timers import Timer


class StreamsProtocol(OwnsGroups):
    name = "streams"
    rules = commits
    apis: frozenset[int | str] = frozenset({STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE})
    record_types = frozenset(srec.STREAMS_RECORD_TYPES)
    timer_kinds = ops.STREAMS_TIMER_KINDS

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        request, version = call.request, call.version
        if call.api_key == STREAMS_GROUP_DESCRIBE:
            return Decision(describe_streams_groups(coord, request, version))
        topology = parse_topology(request)
        step = StreamsHeartbeat(coord, request, topology, call.client_id, call.client_host, call.now, version)
        lag = ops.recovery_lag_fields(coord.profile, version)
        decision = coord.run_step(step, lambda: validate(request, topology, coord.profile),
                                  lambda exc: ops.error_response(exc, lag))
        if decision.error is not None:
            decision.records.extend(step.error_records)  # kip: the fenced member is removed
        else:
            decision.soft.append(SoftSet("coordinator", "", "last_streams_topics_to_create",
                                         step.internal_topics_to_create))
        return decision

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        return fire(coord, timer)

    def replay(self, coord: Coordinator, record: Record) -> None:
        # getOrMaybeCreatePersistedStreamsGroup: a group of another type is an IllegalStateException.
        gid = record.key.get("groupId")
        if gid in coord.groups or (record.value is not None and gid in coord.classic_groups):
            raise ReplayError(f"Group {gid} is not a streams group.")
        seed = coord.profile.streams_kip_seed_records
        if record.type == STREAMS_GROUP_PARTITION_METADATA and not seed:  # gone since KAFKA-17747 (4.1)
            raise ReplayError(f"Unknown record type {record.type} ({record.name}): Kafka 4.1+ does not write it")
        srec.replay(coord.streams_groups, record, lambda group_id: ops.new_group(coord, group_id))
        if seed:  # kip: what the seed's records 17 and 18 do not carry (model/streams/seed_records.py)
            seed_records.after_replay(coord, record, lambda group_id: ops.assignment_configs(coord, group_id))

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        on_loaded(coord, now)

    def metadata_changed(self, coord: Coordinator, names: Iterable[str], new_topic: bool) -> None:
        metadata_changed(coord, names)

    def followed_topics(self, coord: Coordinator) -> tuple[set[str], bool]:
        return followed_topics(coord)


def fire(coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
    group = coord.streams_groups.get(timer.group_id)
    if group is None:
        return [], f"{timer.key}: group is gone"
    if timer.kind == "streams-initial-rebalance":
        return _delayed_target(coord, group)
    member = group.members.get(timer.member_id or "")
    if member is None:
        return [], f"{timer.key}: member is gone"
    return timers.fire_member_timer(  # a fence may downgrade (kip)
        timer, member.member_id, member.member_epoch, coord.mutants.active("no-session-fencing"),
        lambda: coord.migration.fence_streams_members(coord, group, [member], coord.timer_effects, timer.deadline_ms))


def _delayed_target(coord: Coordinator, group: StreamsGroup) -> tuple[list[Record], str]:
    """``computeDelayedTargetAssignment``."""
    if group.is_empty():
        return [], "initial rebalance delay over: the group is empty"
    if group.group_epoch <= group.assignment_epoch:
        return [], "initial rebalance delay over: IllegalStateException (group epoch not ahead)"
    if group.configured_topology is None:
        return [], "initial rebalance delay over: no configured topology (it was set on a transient group)"
    records: list[Record] = []
    target.maybe_update_target(coord, group, group.group_epoch, None, group.configured_topology, records, None,
                        group.last_assignment_configs, coord.now)
    return records, "initial rebalance delay over: target assignment computed"


def on_loaded(coord: Coordinator, now: int) -> None:
    for gid, group in coord.streams_groups.items():
        for member in group.members.values():
            ops.schedule_session_timeout(coord, gid, member.member_id, now)
            if member.state == UNREVOKED_TASKS:
                ops.schedule_rebalance_timeout(coord, gid, member, now)


def metadata_changed(coord: Coordinator, names: Iterable[str]) -> None:
    """``onMetadataUpdate``: groups whose topology requires a changed topic refresh on their next heartbeat."""
    changed = set(names)
    regexes = coord.profile.streams_kip_source_regexes  # kip: a new topic may match a source regex
    for group in coord.streams_groups.values():
        if group.topology is not None and (group.topology.required_topics() & changed
                                           or (regexes and changed and source_regex.has_regexes(group.topology))):
            group.refresh_deadline = (0, 0)


PROTOCOL = StreamsProtocol()


def followed_topics(coord: Coordinator) -> tuple[set[str], bool]:
    """What ``metadata_changed`` looks at: the topics the groups' topologies require."""
    names: set[str] = set()
    every = False
    for group in coord.streams_groups.values():
        if group.topology is not None:
            names |= group.topology.required_topics()
            every = every or (coord.profile.streams_kip_source_regexes and source_regex.has_regexes(group.topology))
    return names, every
