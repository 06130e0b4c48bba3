"""JoinGroup (API 11, v0-9) to a classic group: GroupMetadataManager 4.3
``classicGroupJoinToClassicGroup`` and the ``classicGroupJoin{New,Existing}Member`` paths.

The request's ``reason`` (v8+, KIP-800) only reaches Kafka's log messages; it never changes
the outcome (the seed's JoinReason enum was not implemented), so it goes to ``explain``.

Under ``kip`` (``profile.classic_kip_join_reason``) seed 003's ``JoinReason`` enum decides a known
member's rejoin: "If there is no member protocol change and JoinReason is `Blind`, then we shall
not rebalance on known member rejoin" (the leader included); TOPIC_METADATA_CHANGE rebalances; a
protocol change always does ("JoinReason takes lower priority than the protocol change
monitoring"); no reason (below v6, or null) is "unknown": Kafka's rules. On the wire the
request's ``joinReason`` carries the enum's names from the seed, "blind" or
"topic_metadata_change" (docs/kip.md).
"""

from __future__ import annotations

from typing import Any

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember, Protocols
from kgspec.model.classic.parked import ParkedCall
from kgspec.model.classic.rebalance import (
    maybe_complete_join_phase,
    maybe_prepare_rebalance_or_complete_join,
    prepare_rebalance,
)
from kgspec.model.classic.records import empty_group_metadata_record, group_metadata_record
from kgspec.model.classic.responses import join_response
from kgspec.model.classic.step import NEW_MEMBER_JOIN_TIMEOUT_MS, Step
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.records import Record
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE


class JoinRequest:
    """The fields of a JoinGroupRequest the coordinator reads, with the version's defaults."""

    __slots__ = ("chosen_member_id", "client_host", "client_id", "group_id", "instance_id", "join_reason",
                 "member_id", "protocol_type", "protocols", "reason", "rebalance_timeout_ms", "session_timeout_ms",
                 "version")

    def __init__(self, req: dict[str, Any], version: int, client_id: str, client_host: str,
                 chosen_member_id: str | None = None) -> None:
        self.version = version
        self.group_id: str = req.get("groupId") or ""
        self.session_timeout_ms = int(req["sessionTimeoutMs"])
        # JoinGroupRequest.maybeOverrideRebalanceTimeout: v0 has none, the session timeout stands in.
        self.rebalance_timeout_ms = self.session_timeout_ms if version == 0 else int(req.get("rebalanceTimeoutMs", -1))
        self.member_id: str = req.get("memberId") or ""
        self.instance_id: str | None = req.get("groupInstanceId") if version >= 5 else None
        self.protocol_type: str = req.get("protocolType") or ""
        self.protocols: Protocols = tuple((p["name"], p.get("metadata") or "") for p in req.get("protocols") or [])
        self.reason: str = (req.get("reason") if version >= 8 else None) or "not provided"
        # Seed 003's JoinReason (v6+); read only under kip (``join_reason_of``).
        self.join_reason: Any = req.get("joinReason") if version >= 6 else None
        self.client_id, self.client_host = client_id, client_host
        # Choices.member_id: the id the coordinator generates, if the caller chose it (a trace's).
        self.chosen_member_id = chosen_member_id

    def names(self) -> set[str]:
        return {name for name, _ in self.protocols}


BLIND, TOPIC_METADATA_CHANGE = "blind", "topic_metadata_change"  # seed 003 JoinReason


def join_reason_of(step: Step, req: JoinRequest) -> str | None:
    """The seed's JoinReason under kip; None ("unknown") otherwise or when absent."""
    if not step.coord.profile.classic_kip_join_reason or req.join_reason is None:
        return None
    if req.join_reason not in (BLIND, TOPIC_METADATA_CHANGE):
        raise ValueError(f"request.joinReason: {req.join_reason!r} is not a JoinReason "
                         f"({BLIND!r} or {TOPIC_METADATA_CHANGE!r}, seed 003)")
    return str(req.join_reason)


def join(step: Step, call: ParkedCall, req: JoinRequest) -> None:
    """Answers ``call`` through the outbox, now or later."""
    if not req.group_id:
        step.answer(call, join_response(req.version, int(Errors.INVALID_GROUP_ID), member_id=req.member_id))
        return
    low, high = step.config_int("group.min.session.timeout.ms"), step.config_int("group.max.session.timeout.ms")
    if not low <= req.session_timeout_ms <= high:
        step.answer(call, join_response(req.version, int(Errors.INVALID_SESSION_TIMEOUT), member_id=req.member_id))
        return
    coord = step.coord
    consumer = coord.groups.get(req.group_id)
    tombstones: list[Record] = []
    migration = coord.migration  # online migration: the routing rule between protocols
    if consumer is not None:
        if consumer.members:  # a classic-protocol member joins a consumer group
            outcome = migration.classic_join_to_consumer_group(coord, consumer, req, step.now)
            step.take(outcome)
            step.answer(call, outcome.response)
            return
        # An empty consumer group makes way for a classic group.
        tombstones = migration.delete_empty_consumer_group(coord, consumer)
        step.why(f"empty consumer group {req.group_id} deleted: a classic group takes its id")
    connect = coord.connect_groups.get(req.group_id)
    if connect is not None and coord.profile.connect_online_migration:  # kip: seed 001's migration
        if connect.members:
            outcome = migration.classic_join_to_connect_group(coord, connect, req, step.now)
            step.take(outcome)
            step.answer(call, outcome.response)
            return
        tombstones = migration.delete_empty_connect_group(coord, connect)
        step.why(f"empty connect group {req.group_id} deleted: a classic group takes its id")
    streams = coord.streams_groups.get(req.group_id)
    if streams is not None:
        if streams.members and coord.profile.streams_online_migration:  # kip: a classic Streams member
            outcome = migration.classic_join_to_streams_group(coord, streams, req, step.now)
            step.take(outcome)
            step.answer(call, outcome.response)
            return
        if streams.members or not coord.profile.streams_offline_migration:
            step.why(f"group {req.group_id} is a streams group")
            step.answer(call, join_response(req.version, int(Errors.INCONSISTENT_GROUP_PROTOCOL)))
            return
        # KAFKA-19570 (4.2+): an empty streams group makes way for a classic group.
        tombstones = migration.delete_empty_streams_group(coord, streams)
        step.why(f"empty streams group {req.group_id} deleted: a classic group takes its id")
    unknown = req.member_id == ""
    group = step.groups.get(req.group_id)
    is_new_group = group is None
    if group is None:
        if not unknown:
            step.answer(call, join_response(req.version, int(Errors.UNKNOWN_MEMBER_ID), member_id=req.member_id))
            return
        group = ClassicGroup(req.group_id, step.now)
        step.groups[req.group_id] = group
    records_before = len(step.records)
    if not accept_joining_member(step, group, req.member_id):
        group.remove(req.member_id)
        step.why(f"group {group.group_id} is full (group.max.size {step.config_int('group.max.size')})")
        step.answer(call, join_response(req.version, int(Errors.GROUP_MAX_SIZE_REACHED)))
    elif unknown:
        _join_new_member(step, call, req, group)
    else:
        _join_existing_member(step, call, req, group)
    if is_new_group and len(step.records) == records_before:
        # Kafka commits a new group to its timeline with an empty GroupMetadata record. A deleted
        # empty consumer or streams group's tombstones go with it (otherwise Kafka drops them).
        step.records.extend(tombstones)
        step.records.append(empty_group_metadata_record(group))


def accept_joining_member(step: Step, group: ClassicGroup, member_id: str) -> bool:
    max_size = step.config_int("group.max.size")
    if group.state in (EMPTY, DEAD):
        return True
    member = group.members.get(member_id)
    if group.state == PREPARING_REBALANCE:
        # Awaiting members, not the group size: it may already exceed a lowered maximum.
        return (member is not None and member.awaiting_join) or group.num_awaiting_join < max_size
    return member is not None or len(group.members) < max_size


def new_member_id(step: Step, req: JoinRequest) -> str:
    """``generateMemberId``: ``<group.instance.id or client.id>-<UUID>``; a chosen id is adopted."""
    if req.chosen_member_id is not None:
        return req.chosen_member_id
    prefix = req.instance_id if req.instance_id is not None else req.client_id
    return f"{prefix}-{step.coord.new_member_id()}"


def _join_new_member(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup) -> None:
    if group.state == DEAD:
        step.answer(call, join_response(req.version, int(Errors.COORDINATOR_NOT_AVAILABLE)))
        return
    if not group.supports_protocols(req.protocol_type, req.names()):
        step.why(f"protocol type {req.protocol_type!r} / protocols {sorted(req.names())} not supported by the group")
        step.answer(call, join_response(req.version, int(Errors.INCONSISTENT_GROUP_PROTOCOL)))
        return
    new_id = new_member_id(step, req)
    if req.instance_id is not None:
        existing = group.static_members.get(req.instance_id)
        if existing is not None:
            _replace_static_member(step, call, req, group, existing, new_id)
        else:
            add_member_then_rebalance(step, call, req, group, new_id)
    elif req.version >= 4:
        # JoinGroupRequest.requiresKnownMemberId: the client must rejoin with this id.
        group.pending_join.add(new_id)
        step.schedule_heartbeat(group, new_id, req.session_timeout_ms)
        step.why(f"new dynamic member: pending as {new_id} until it rejoins with that id")
        step.answer(call, join_response(req.version, int(Errors.MEMBER_ID_REQUIRED), member_id=new_id))
    else:
        add_member_then_rebalance(step, call, req, group, new_id)


def _join_existing_member(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup) -> None:
    member_id = req.member_id
    if group.state == DEAD:
        step.answer(call, join_response(req.version, int(Errors.COORDINATOR_NOT_AVAILABLE), member_id=member_id))
        return
    if not group.supports_protocols(req.protocol_type, req.names()):
        step.answer(call, join_response(req.version, int(Errors.INCONSISTENT_GROUP_PROTOCOL), member_id=member_id))
        return
    if member_id in group.pending_join:
        if req.instance_id is not None:
            raise CoordinatorError(Errors.UNKNOWN_SERVER_ERROR,
                                   f"JoinGroup with groupInstanceId={req.instance_id} for pending member {member_id}")
        add_member_then_rebalance(step, call, req, group, member_id)
        return
    try:
        group.validate_member(member_id, req.instance_id)
    except CoordinatorError as exc:
        step.why(exc.message or exc.error.name)
        step.answer(call, join_response(req.version, int(exc.error), member_id=member_id, protocol_name=None))
        return
    member = group.members[member_id]
    reason = f"client reason: {req.reason}"
    join_reason = join_reason_of(step, req)
    if join_reason is not None and group.state in (COMPLETING_REBALANCE, STABLE):
        _kip_rejoin(step, call, req, group, member, join_reason)
        return
    if group.state == PREPARING_REBALANCE:
        _update_member_then_rebalance(step, call, req, group, member, f"member {member_id} rejoins; {reason}")
    elif group.state == COMPLETING_REBALANCE:
        if member.matches(req.protocols):
            # A lost JoinGroup response: answer with the current generation.
            _answer_current_generation(step, call, req, group, member_id, group.is_leader(member_id))
        else:
            _update_member_then_rebalance(step, call, req, group, member, f"member {member_id} changed metadata; {reason}")
    elif group.state == STABLE:
        if group.is_leader(member_id):
            # The leader's rejoin always rebalances (e.g. topic metadata it alone watches changed).
            _update_member_then_rebalance(step, call, req, group, member, f"leader {member_id} rejoins; {reason}")
        elif not member.matches(req.protocols):
            _update_member_then_rebalance(step, call, req, group, member, f"member {member_id} changed metadata; {reason}")
        else:
            _answer_current_generation(step, call, req, group, member_id, False)
    else:
        step.why(f"member {member_id} rejoins group {group.group_id} in unexpected state {group.state}")
        step.answer(call, join_response(req.version, int(Errors.UNKNOWN_MEMBER_ID), member_id=member_id))


def _kip_rejoin(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup, member: ClassicMember,
                join_reason: str) -> None:
    """Seed 003: a known member's rejoin with a JoinReason, in COMPLETING_REBALANCE or STABLE."""
    member_id = member.member_id
    if not member.matches(req.protocols):
        _update_member_then_rebalance(step, call, req, group, member,
                                      f"member {member_id} changed metadata (JoinReason {join_reason})")
    elif join_reason == TOPIC_METADATA_CHANGE:
        _update_member_then_rebalance(step, call, req, group, member,
                                      f"member {member_id} rejoins: JoinReason topic_metadata_change")
    else:
        # BLIND, protocols unchanged: no rebalance, the leader included; the leader gets the
        # members as after a lost response (kgspec's reading, docs/kip.md).
        step.why(f"member {member_id} rejoins blind with unchanged protocols: no rebalance (seed 003)")
        _answer_current_generation(step, call, req, group, member_id, group.is_leader(member_id))


def _answer_current_generation(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup,
                               member_id: str, with_members: bool) -> None:
    step.answer(call, join_response(
        req.version, member_id=member_id, generation_id=group.generation_id, protocol_type=group.protocol_type,
        protocol_name=group.protocol_name, leader=group.leader_id,
        members=group.current_members() if with_members else []))


def _update_member_then_rebalance(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup,
                                  member: ClassicMember, reason: str) -> None:
    group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, call)
    maybe_prepare_rebalance_or_complete_join(step, group, reason)


def add_member_then_rebalance(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup,
                              member_id: str) -> None:
    member = ClassicMember(member_id, req.instance_id, req.client_id, req.client_host, req.rebalance_timeout_ms,
                           req.session_timeout_ms, req.protocol_type, req.protocols, is_new=True, join_call=call)
    if group.state == PREPARING_REBALANCE and group.previous_state == EMPTY:
        group.new_member_added = True  # lets the initial rebalance extend its delay
    group.add(member)
    # Parked new members cannot heartbeat: time their JoinGroup out after 5 minutes instead.
    step.schedule_heartbeat(group, member_id, NEW_MEMBER_JOIN_TIMEOUT_MS)
    step.why(f"member {member_id} added (instance id {req.instance_id}); client reason: {req.reason}")
    maybe_prepare_rebalance_or_complete_join(step, group, f"adding new member {member_id}")


def _replace_static_member(step: Step, call: ParkedCall, req: JoinRequest, group: ClassicGroup,
                           old_id: str, new_id: str) -> None:
    """``updateStaticMemberThenRebalanceOrCompleteJoin``."""
    assert req.instance_id is not None
    current_leader = group.leader_id
    old, new = group.replace_static_member(req.instance_id, old_id, new_id)
    # The replaced member's parked calls are fenced at once.
    step.complete_join(group, old, int(Errors.FENCED_INSTANCE_ID), member_id=old_id, protocol_name=None,
                       leader="")
    step.complete_sync(old, int(Errors.FENCED_INSTANCE_ID))
    step.schedule_heartbeat(group, new_id, new.session_timeout_ms)  # the replaced member's timeout
    group.update_member(new, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, call)
    step.why(f"static member {req.instance_id}: {old_id} replaced by {new_id}")
    if group.state == STABLE:
        if (group.protocol_name or "") == group.select_protocol():
            # Same protocol: persist the new member id, no rebalance.
            step.records.append(group_metadata_record(group, group.group_assignment()))
            if req.version >= 9:
                leader = group.is_leader(new_id)
                step.complete_join(group, new, member_id=new_id, generation_id=group.generation_id,
                                   protocol_type=group.protocol_type, protocol_name=group.protocol_name,
                                   leader=group.leader_id, skip_assignment=leader,
                                   members=group.current_members() if leader else [])
            else:
                # Before v9 the old leader id is returned, so a replaced leader does not reassign.
                step.complete_join(group, new, member_id=new_id, generation_id=group.generation_id,
                                   protocol_type=group.protocol_type, protocol_name=group.protocol_name,
                                   leader=current_leader)
        else:
            maybe_prepare_rebalance_or_complete_join(
                step, group, f"static member {new_id} with instance id {req.instance_id} changed protocol")
    elif group.state == COMPLETING_REBALANCE:
        # The leader may already hold the old member id in its assignment: rebalance.
        prepare_rebalance(step, group, f"updating metadata for static member {new_id}")
    elif group.state in (EMPTY, DEAD):
        raise CoordinatorError(Errors.UNKNOWN_SERVER_ERROR,
                               f"group {group.group_id} in state {group.state} when static member {req.instance_id} rejoins")
    else:
        maybe_complete_join_phase(step, group)
