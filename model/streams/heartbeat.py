"""StreamsGroupHeartbeat (API 88, v0), as Kafka 4.3 handles it.

Order of work:

1. ``KafkaApis.handleStreamsGroupHeartbeat``: internal / invalid topic names in the topology
   (STREAMS_INVALID_TOPOLOGY);
2. ``GroupCoordinatorService``: ``throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures``
   (instanceId, taskOffsets, taskEndOffsets, non-empty warmupTasks, source-topic regexes ->
   INVALID_REQUEST), then ``throwIfStreamsGroupHeartbeatRequestIsInvalid``;
3. ``GroupMetadataManager.streamsGroupHeartbeat`` / ``streamsGroupLeave``.

Handlers return records; the coordinator applies them through replay. A group created by
this heartbeat is a transient object until its records are replayed, so soft state set on
it (configured topology, metadata refresh deadline, shutdown request, endpoint epoch) is lost,
exactly as in Kafka (``getOrCreateStreamsGroup`` does not add to the groups map).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.profiles import Profile
from kgspec.model.reconcile import check_member_epoch
from kgspec.model.records import Record
from kgspec.model.streams import ops, refiner, seed_records, seed_validation, source_regex, static
from kgspec.model.streams import records as srec
from kgspec.model.streams import target as streams_target
from kgspec.model.streams.configure import (
    ConfiguredTopology,
    CreatableTopic,
    Status,
    StreamsInvalidTopology,
    UnexpectedServerError,
    check_topology_topic_names,
    configure_topology,
    throw_if_invalid_topology,
)
from kgspec.model.streams.group import STABLE_STATE, StreamsGroup
from kgspec.model.streams.member import (
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    ROLE_FIELDS,
    ROLES,
    UNREVOKED_TASKS,
    StreamsMember,
    TaskSets,
)
from kgspec.model.streams.reconcile import OwnedTasks, build_current_assignment
from kgspec.model.streams.records import tasks_json
from kgspec.model.streams.topology import Topology, TopologyParseError, parse_request_topology
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

METADATA_REFRESH_INTERVAL_MS = 2**31 - 1
# kip: the status list last sent to each member of a group (soft state, lost on failover).
LAST_STATUS = "kip-streams-status"


def _empty(value: Any) -> bool:
    return isinstance(value, str) and value.strip() == ""


def _invalid(message: str) -> CoordinatorError:
    return CoordinatorError(Errors.INVALID_REQUEST, message)


def parse_topology(request: Mapping[str, Any]) -> Topology | None:
    """The request's topology; a shape error is a malformed request (ValueError)."""
    try:
        return parse_request_topology(request.get("topology"))
    except TopologyParseError as exc:
        raise ValueError(f"request.topology: {exc}") from None


def validate(request: Mapping[str, Any], topology: Topology | None, profile: Profile | None = None) -> None:
    """KafkaApis topic-name checks, then the GroupCoordinatorService checks, in Kafka's order.

    Trunk's ``throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures`` keeps only the
    source-topic regex check; each feature it accepts is behind its own profile flag.
    """
    if profile is not None and profile.streams_kip_seed_validation:
        seed_validation.validate_request(request, topology)
        if topology is not None:
            seed_validation.validate_topology(topology)
            check_topology_topic_names(topology)  # seed silent: Kafka's KafkaApis check
            if profile.streams_kip_source_regexes:
                bad = source_regex.invalid_regex(topology)
                if bad is not None:  # seed silent on an invalid regex: the topology is invalid
                    raise StreamsInvalidTopology(f"Source topic regular expression {bad} is not valid.")
            else:
                seed_validation.reject_source_regexes(topology)
        return
    if topology is not None:
        check_topology_topic_names(topology)
    # throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures
    if request.get("instanceId") is not None and not (profile and profile.streams_static_membership):
        raise _invalid("Static membership is not yet supported.")
    if not (profile and profile.streams_task_offsets):
        if request.get("taskOffsets") is not None:
            raise _invalid("TaskOffsets are not supported yet.")
        if request.get("taskEndOffsets") is not None:
            raise _invalid("TaskEndOffsets are not supported yet.")
    if request.get("warmupTasks") and not (profile and profile.streams_assignment_refiner):
        raise _invalid("WarmupTasks are not supported yet.")
    if topology is not None:
        for s in topology.subtopologies:
            if s.source_topic_regex:
                raise _invalid("Regular expressions for source topics are not supported yet.")
    # throwIfStreamsGroupHeartbeatRequestIsInvalid
    epoch = request.get("memberEpoch", 0)
    if _empty(request.get("memberId")):
        raise _invalid("MemberId can't be empty.")
    if _empty(request.get("groupId")):
        raise _invalid("GroupId can't be empty.")
    if _empty(request.get("instanceId")):
        raise _invalid("InstanceId can't be empty.")
    if _empty(request.get("rackId")):
        raise _invalid("RackId can't be empty.")
    if epoch == 0:
        if request.get("rebalanceTimeoutMs", -1) == -1:
            raise _invalid("RebalanceTimeoutMs must be provided in first request.")
        for name, label in (("activeTasks", "ActiveTasks"), ("standbyTasks", "StandbyTasks"),
                            ("warmupTasks", "WarmupTasks")):
            if request.get(name):
                raise _invalid(f"{label} must be empty when (re-)joining.")
        if topology is None:
            raise _invalid("Topology must be non-null when (re-)joining.")
        throw_if_invalid_topology(topology)
    elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if request.get("instanceId") is None:
            raise _invalid("InstanceId can't be null.")
    elif epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        raise _invalid(f"MemberEpoch is {epoch}, but must be greater than or equal to -2.")
    tasks = [request.get(n) for n in ROLE_FIELDS.values()]
    if any(t is not None for t in tasks) and any(t is None for t in tasks):
        raise _invalid("If one task-type is non-null, all must be non-null.")
    if epoch != 0 and topology is not None:
        raise _invalid("Topology can only be provided when (re-)joining.")


def _task_list(entries: Any) -> dict[str, frozenset[int]]:
    """``TasksTuple.fromHeartbeatRequest`` for one role (Collectors.toMap: a duplicate id throws)."""
    out: dict[str, frozenset[int]] = {}
    for e in entries or []:
        sid = e["subtopologyId"]
        if sid in out:
            raise UnexpectedServerError("IllegalStateException", f"Duplicate key {sid}")
        out[sid] = frozenset(int(p) for p in e["partitions"])
    return out


def owned_tasks(request: Mapping[str, Any]) -> OwnedTasks | None:
    if any(request.get(ROLE_FIELDS[r]) is None for r in ROLES):
        return None
    return {r: _task_list(request.get(ROLE_FIELDS[r])) for r in ROLES}


def _status(code: Status, detail: str) -> dict[str, Any]:
    return {"statusCode": int(code), "statusDetail": detail}


@dataclass(slots=True)
class StreamsHeartbeat:
    coord: Coordinator
    req: Mapping[str, Any]
    topology: Topology | None
    client_id: str
    client_host: str
    now: int
    api_version: int = 0
    records: list[Record] = field(default_factory=list)
    explain: list[str] = field(default_factory=list)
    internal_topics_to_create: dict[str, CreatableTopic] = field(default_factory=dict)
    # Online migration: in-memory changes beside the records (parked classic calls failed), run
    # after the records are applied (``Decision.effects``).
    effects: list[Callable[[], None]] = field(default_factory=list)
    # kip online migration: a classic JoinGroup translated into this heartbeat
    # (model/migration/streams_mixed.py): the member's classic metadata and the topology epoch
    # its Streams user data carries (the request has no topology).
    classic_metadata: dict[str, Any] | None = None
    classic_topology_epoch: int | None = None
    # kip: records written although the call fails (a fenced member is removed, seed 002).
    error_records: list[Record] = field(default_factory=list)

    def run(self) -> dict[str, Any]:
        epoch = self.req["memberEpoch"]
        if epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            return self._leave(epoch)
        return self._heartbeat()

    # --- leave --------------------------------------------------------------------------------

    def _leave(self, epoch: int) -> dict[str, Any]:
        coord, gid = self.coord, self.req["groupId"]
        member_id: str = self.req.get("memberId") or ""
        instance_id: str | None = self.req.get("instanceId")
        group = coord.shadow_streams_group(ops.group_or_throw(coord, gid, leave=True))
        if self.req.get("shutdownApplication"):
            group.shutdown_request_member_id = group.shutdown_request_member_id or member_id
        response: dict[str, Any] = {"errorCode": 0, "errorMessage": None, "memberId": member_id, "memberEpoch": epoch,
                    "heartbeatIntervalMs": 0, **ops.recovery_lag_fields(coord.profile, self.api_version),
                    "taskOffsetIntervalMs": 0, "status": [], "activeTasks": None, "standbyTasks": None,
                    "warmupTasks": None, "endpointInformationEpoch": 0, "partitionsByUserEndpoint": None}
        if instance_id is None:
            member = group.member_or_throw(member_id)
        else:
            member = static.member_or_throw(group, member_id, instance_id)
            if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                self.records.append(static.temporary_leave_record(group, member, coord.profile))
                self.explain.append(f"static member {member_id} left temporarily (epoch -2); group epoch kept")
                response["memberId"] = member.member_id
                return response
        self.records.extend(coord.migration.fence_streams_members(coord, group, [member], self.effects, self.now,
                                                                  "left"))
        self.explain.append(f"member {member_id} left the streams group; group epoch bumped")
        return response

    # --- the regular heartbeat ----------------------------------------------------------------

    def _heartbeat(self) -> dict[str, Any]:
        coord, req, records = self.coord, self.req, self.records
        profile = coord.profile
        gid: str = req["groupId"]
        member_id: str = req.get("memberId") or ""
        epoch: int = req["memberEpoch"]
        joining = epoch == 0
        statuses: list[dict[str, Any]] = []
        owned_raw = [req.get(ROLE_FIELDS[r]) for r in ROLES]

        instance_id: str | None = req.get("instanceId")
        if joining:
            group = ops.group_for_join(coord, gid, records, self.effects, self.now, self.topology)
            self._throw_if_full(group, instance_id, member_id)
        else:
            group = ops.group_or_throw(coord, gid)
        group = coord.shadow_streams_group(group)  # the step changes soft state on its own copy

        try:
            member, is_new, replaced = self._member(group, member_id, instance_id, epoch, joining, owned_raw)
        except CoordinatorError as exc:
            self._remove_fenced(group, exc, member_id)
            raise

        # 1. Create or update the member.
        updated = member.copy()
        if instance_id is not None:
            updated.instance_id = instance_id
        if req.get("rackId") is not None:
            updated.rack_id = req["rackId"]
        if req.get("rebalanceTimeoutMs", -1) != -1:
            updated.rebalance_timeout_ms = req["rebalanceTimeoutMs"]
        if self.topology is not None:
            updated.topology_epoch = self.topology.epoch
        elif self.classic_topology_epoch is not None:
            updated.topology_epoch = self.classic_topology_epoch
        if profile.streams_online_migration:
            updated.classic_member_metadata = self.classic_metadata  # a streams heartbeat clears it
        updated.client_id = self.client_id
        updated.client_host = self.client_host
        if req.get("processId") is not None:
            updated.process_id = req["processId"]
        if req.get("clientTags") is not None:
            updated.client_tags = {t["key"]: t["value"] for t in req["clientTags"]}
        if req.get("userEndpoint") is not None:
            ep = req["userEndpoint"]
            updated.user_endpoint = (ep["host"], int(ep["port"]))
        elif joining and profile.streams_endpoint_change_bumps_endpoint_epoch:
            updated.user_endpoint = None  # trunk: a join sets the endpoint as sent, null included
        bump = False
        if not updated.metadata_equals(member) or is_new:
            records.append(srec.member_metadata_record(gid, updated))
            # KAFKA-20169: a static member's record bumps the epoch only for epoch-relevant changes.
            bump = instance_id is None or static.epoch_relevant_change(member, updated)
            # kip: a classic member's JoinGroup metadata (its owned tasks) alone does not bump, as a
            # consumer group's classic member bumps only for a new subscription (kgspec's choice).
            if is_new is False and updated.metadata_equals(member, ignore_classic=True):
                bump = False
            self.explain.append(f"member {member_id}'s metadata changed (record 19)")

        # 2. Initialize or check the topology.
        topology = self._maybe_update_topology(group, member_id)
        if group.topology is not None and updated.topology_epoch < group.topology.epoch:
            statuses.append(_status(Status.STALE_TOPOLOGY,
                                    f"The member's topology epoch {updated.topology_epoch} is behind the "
                                    f"group's topology epoch {group.topology.epoch}."))

        # 3. Configure the topology (internal topics) when needed.
        reconfigure = group.topology is None or topology is not group.topology  # kip: an updated topology
        metadata_hash = group.metadata_hash
        configured: ConfiguredTopology
        if reconfigure or group.configured_topology is None or group.has_metadata_expired(self.now):
            resolved, unmatched = topology, list[str]()
            if profile.streams_kip_source_regexes:  # kip: regex sources resolve against the topics
                resolved, unmatched = source_regex.resolve(topology, ops.topic_partition_counts(coord).keys())
            if group.seed_records:  # kip: the seed's partition metadata record instead of the hash
                partitions = seed_records.compute(coord, resolved.required_topics())
                if partitions != group.partition_metadata or topology is not group.topology:
                    records.append(seed_records.partition_metadata_record(gid, partitions))
                if partitions != group.partition_metadata:
                    bump = reconfigure = True
                    self.explain.append("the topology's partition metadata changed (record 18)")
            else:
                metadata_hash = coord.metadata_hash(resolved.required_topics())
                if metadata_hash != group.metadata_hash:
                    bump = True
                    reconfigure = True
                    self.explain.append("the topology's topics' metadata hash changed")
            if reconfigure or group.configured_topology is None:
                counts = ops.topic_partition_counts(coord)
                configured = (source_regex.configure(resolved, unmatched, counts)
                              if profile.streams_kip_source_regexes else configure_topology(topology, counts))
                ops.fire_configured(group, configured)
                group.configured_topology = configured
            else:
                configured = group.configured_topology
        else:
            configured = group.configured_topology

        validated = -1
        if configured.is_ready:
            validated = topology.epoch
            subs = configured.subtopologies or {}
            for raw in owned_raw:
                _throw_if_invalid_tasks(subs, raw)
        if validated != group.validated_topology_epoch:
            bump = True
            self.explain.append(f"validated topology epoch is now {validated}")

        # trunk (KAFKA-20116): store the reported offsets after the task validation above.
        if profile.streams_task_offsets and (req.get("taskOffsets") is not None
                                             or req.get("taskEndOffsets") is not None):
            group.task_offsets[member_id] = group.offsets_of(member_id).update(req.get("taskOffsets"),
                                                                              req.get("taskEndOffsets"))

        configs = ops.assignment_configs(coord, gid)
        if not bump and configs != group.last_assignment_configs:
            bump = True
            self.explain.append("assignment configs changed")

        refined_all: dict[str, TaskSets] | None = None
        refine_only = False
        in_target = profile.streams_kip_warmups_in_target  # kip: warm-ups are the target's (record 21)
        if in_target and not bump:
            caught_up = refiner.caught_up_warmups(updated, group.target_of(member_id), group.task_offsets,
                                                  self._warmup_configs()[1])
            if caught_up:
                bump = True
                self.explain.append(f"warm-up {caught_up[0][0]}_{caught_up[0][1]} reached acceptable.recovery.lag")
        elif profile.streams_assignment_refiner and not bump and group.state == STABLE_STATE:
            # AssignmentUpdate.REFINED: no new target, but the intermediate assignment moved on.
            refined_all = refiner.refine(group.members, group.target, group.task_offsets, configured,
                                         *self._warmup_configs())
            if not refiner.same_tasks(refined_all.get(member_id, {}), updated):
                bump = refine_only = True
                self.explain.append("refinement step: the intermediate assignment moved on")

        group_epoch = group.group_epoch
        if bump:
            group_epoch += 1
            records.append(srec.group_metadata_record(gid, group_epoch, metadata_hash, validated, configs,
                                                      seed=group.seed_records))
            group.refresh_deadline = (self.now + METADATA_REFRESH_INTERVAL_MS, group_epoch)
            self.explain.append(f"group epoch bumped to {group_epoch}")

        if group.is_empty() and profile.streams_initial_rebalance_delay:
            delay = coord.group_config_int(gid, "group.streams.initial.rebalance.delay.ms")
            if delay > 0:
                ops.schedule_initial_rebalance(coord, gid, self.now + delay)

        # 4. Target assignment (4b on trunk: the intermediate assignment of that epoch).
        target_epoch, target_all = streams_target.maybe_update_target(coord, group, group_epoch, updated, configured, records,
                                                           statuses, configs, self.now, refine_only=refine_only)
        if profile.streams_assignment_refiner and not in_target:
            num_warmups = self._warmup_configs()[0]
            if refined_all is None:
                # an adopted standing target (kip) is refined afresh, not taken from the cache
                refined_all = None if coord.choices.task_current_target is not None else group.refined_for(
                    target_epoch)
                if refined_all is None:
                    refined_all = refiner.refine(group.members, target_all, group.task_offsets, configured,
                                                 *self._warmup_configs())
                    if num_warmups > 0:
                        group.refined = (target_epoch, refined_all)
            elif num_warmups > 0:
                group.refined = (target_epoch, refined_all)
            target_all = refined_all
        target: TaskSets = target_all.get(member_id, {})

        # 5. Reconcile.
        reconciled = updated
        if not updated.is_reconciled_to(target_epoch):
            owned = owned_tasks(req)
            reconciled = build_current_assignment(group, updated, target_epoch, target, owned, coord.mutants,
                                                  in_place=profile.streams_in_place_role_changes,
                                                  seed=profile.streams_kip_seed_reconciliation)
            if not reconciled.assignment_equals(updated):
                records.append(srec.current_assignment_record(gid, reconciled, profile))
                # Classic members are timed by their join / sync timeouts instead (kip migration).
                if reconciled.state == UNREVOKED_TASKS and self.classic_metadata is None:
                    ops.schedule_rebalance_timeout(coord, gid, reconciled, self.now)
                else:
                    ops.cancel_rebalance_timeout(coord, gid, member_id)

        session = None if self.classic_metadata is None else int(self.classic_metadata["sessionTimeoutMs"])
        ops.schedule_session_timeout(coord, gid, member_id, self.now, session)
        if req.get("shutdownApplication"):
            group.shutdown_request_member_id = group.shutdown_request_member_id or member_id

        response: dict[str, Any] = {
            "errorCode": 0, "errorMessage": None, "memberId": reconciled.member_id,
            "memberEpoch": reconciled.member_epoch,
            "heartbeatIntervalMs": coord.group_config_int(gid, "group.streams.heartbeat.interval.ms"),
            **ops.recovery_lag_fields(profile, self.api_version,
                                      coord.group_config_int(gid, "group.streams.acceptable.recovery.lag")),
            "taskOffsetIntervalMs": 0, "status": statuses,
            "activeTasks": None, "standbyTasks": None, "warmupTasks": None,
            "endpointInformationEpoch": 0, "partitionsByUserEndpoint": None,
        }
        if profile.streams_recovery_lag_in_response or profile.streams_kip_response_configs:
            # KAFKA-18652: the task-offset interval from the group's config (4.3 sends 0).
            response["taskOffsetIntervalMs"] = coord.group_config_int(gid, "group.streams.task.offset.interval.ms")
        changed = joining or reconciled.assigned != member.assigned
        if changed:
            sets = reconciled.assigned_sets()
            for role in ROLES:
                response[ROLE_FIELDS[role]] = tasks_json(sets[role])
        if profile.streams_endpoint_change_bumps_endpoint_epoch:
            if member.user_endpoint != reconciled.user_endpoint or (changed and reconciled.user_endpoint is not None):
                group.endpoint_information_epoch += 1
        elif not profile.streams_endpoint_partitions_filtered:
            # 4.1: any change of tasks but a join with none bumps, endpoint or not.
            if changed and (epoch != 0 or any(reconciled.assigned.get(r) for r in ROLES)):
                group.endpoint_information_epoch += 1
        elif changed and reconciled.user_endpoint is not None:
            group.endpoint_information_epoch += 1
        if group.endpoint_information_epoch != req.get("endpointInformationEpoch", 0):
            response["partitionsByUserEndpoint"] = ops.endpoint_to_partitions(coord, group, reconciled, replaced) \
                if profile.streams_endpoint_partitions_filtered else ops.endpoint_to_partitions_41(coord, group, reconciled)
        if coord.is_registered_streams_group(group) or not profile.streams_endpoint_partitions_filtered:
            response["endpointInformationEpoch"] = group.endpoint_information_epoch  # 4.1: always

        if configured.status is not None:
            self.internal_topics_to_create = dict(configured.internal_topics_to_create)
            statuses.append(_status(configured.status.status, configured.status.detail))
        if group.shutdown_request_member_id is not None:
            statuses.append(_status(
                Status.SHUTDOWN_APPLICATION,
                f"Streams group member {group.shutdown_request_member_id} encountered a fatal error and "
                "requested a shutdown for the entire application."))
        tags = configs.get("rack.aware.assignment.tags", "").strip()
        if profile.streams_rack_aware_tags and self.api_version >= 1 and tags:
            missing = [t for t in tags.split(",") if t.strip() not in reconciled.client_tags]
            if missing:
                statuses.append(_status(
                    Status.MISSING_CLIENT_TAGS,
                    f"Missing required client tags for rack-aware standby assignment: [{', '.join(missing)}]. "
                    "Configure them via 'client.tag.<tagKey>' in your Streams config."))
        if profile.streams_kip_null_unchanged_status:
            # Soft state of the coordinator, not of the group: a group a join creates is transient.
            last: dict[str, Any] = coord.soft_get(LAST_STATUS, gid, {})
            sent = tuple((int(x["statusCode"]), str(x["statusDetail"])) for x in statuses)
            if not joining and last.get(reconciled.member_id) == sent:
                response["status"] = None  # seed 002: "Null if unchanged since last heartbeat."
            elif last.get(reconciled.member_id) != sent:
                coord.soft_set(LAST_STATUS, gid, {**last, reconciled.member_id: sent})
        return response

    def _member(self, group: StreamsGroup, member_id: str, instance_id: str | None, epoch: int, joining: bool,
                owned_raw: list[Any]) -> tuple[StreamsMember, bool, StreamsMember | None]:
        """The member the heartbeat is for (created on a join), whether it is new, and the static
        member it replaces; epoch validation included."""
        gid = group.group_id
        replaced: StreamsMember | None = None
        if instance_id is None:
            member = group.members.get(member_id)
            is_new = member is None
            if member is None:
                if not joining:
                    raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID,
                                           f"Member {member_id} is not a member of group {gid}.")
                member = StreamsMember(member_id)
                self.explain.append(f"member {member_id} joins")
            self.validate_epoch(member, epoch, owned_raw)
        else:
            old = group.static_member(instance_id)
            if old is not None and old.member_id != member_id:
                replaced = old
                group.relabel_refined(old.member_id, member_id)
            member, is_new = static.get_or_create_member(self, group, member_id, epoch, instance_id, joining,
                                                          owned_raw)
        return member, is_new, replaced

    def _remove_fenced(self, group: StreamsGroup, exc: CoordinatorError, member_id: str) -> None:
        """kip, seed 002 "Request Handling" 3.4: "FENCED_MEMBER_EPOCH is returned otherwise. The
        member is also removed from the group." (as the Connect draft's worker; docs/kip.md)."""
        member = group.members.get(member_id)
        if (exc.error != Errors.FENCED_MEMBER_EPOCH or member is None
                or not self.coord.profile.streams_kip_fenced_member_removed):
            return
        self.error_records = self.coord.migration.fence_streams_members(
            self.coord, group, [member], self.effects, self.now, "fenced")
        self.explain.append(f"member {member_id} sent a fenced epoch: removed from the group (seed 002)")

    def _throw_if_full(self, group: StreamsGroup, instance_id: str | None, member_id: str) -> None:
        """``throwIfStreamsGroupIsFull``; trunk exempts an existing static member and a known member id."""
        max_size = self.coord.config.int("group.streams.max.size")
        if self.coord.profile.streams_static_membership:
            if group.static_member(instance_id) is not None:
                return
            full = len(group.members) >= max_size and (not member_id or member_id not in group.members)
        else:
            full = len(group.members) >= max_size
        if full:
            raise CoordinatorError(Errors.GROUP_MAX_SIZE_REACHED,
                                   f"The streams group has reached its maximum capacity of {max_size} members.")

    def _warmup_configs(self) -> tuple[int, int, bool]:
        """(num.warmup.replicas, acceptable.recovery.lag, whether warm-ups are really inserted (kip))."""
        coord, gid = self.coord, self.req["groupId"]  # kip: the group's own values when it sets them
        return (coord.group_config_int(gid, "group.streams.num.warmup.replicas"),
                coord.group_config_int(gid, "group.streams.acceptable.recovery.lag"),
                coord.profile.streams_kip_warmup_promotion)

    def validate_epoch(self, member: StreamsMember, received: int, owned_raw: list[Any]) -> None:
        """``throwIfStreamsGroupMemberEpochIsInvalid`` (epoch 0 returns first)."""
        if received == 0:
            return
        accepted = check_member_epoch(
            "streams", received, member.member_epoch, member.previous_member_epoch,
            lambda: all(_contained(raw, member.assigned.get(role, {})) for raw, role in zip(owned_raw, ROLES, strict=True)),
            self.coord.mutants)
        if accepted is not None:
            self.explain.append(accepted)

    def _maybe_update_topology(self, group: StreamsGroup, member_id: str) -> Topology:
        topology = self.topology
        if topology is not None:
            if group.topology is None:
                fire("streams-topology", group.topology_state(), "initialized")
                self.records.append(srec.topology_record(group.group_id, topology))
                self.explain.append(f"member {member_id} initialized the topology (epoch {topology.epoch})")
                return topology
            if self.coord.profile.streams_kip_topology_epochs:
                return self._kip_topology_epoch(group, topology, member_id)
            if group.topology.epoch > topology.epoch:
                self.explain.append(f"member {member_id} joined with stale topology epoch {topology.epoch}")
                return group.topology
            if not same_topology(group.topology, topology):
                raise _invalid("Topology updates are not supported yet.")
            return group.topology
        if group.topology is not None:
            return group.topology
        raise UnexpectedServerError("IllegalStateException", "The topology is null and the group topology is also null.")


    def _kip_topology_epoch(self, group: StreamsGroup, topology: Topology, member_id: str) -> Topology:
        """Seed KIP-1071 "Request Handling" 2.3 (kip profile; Kafka never returns 131/132).

        ER = the request's topology epoch, EG = the group's. The messages are kgspec's (the seed
        gives none); the codes are Kafka's ``Errors`` STREAMS_INVALID_TOPOLOGY_EPOCH (131) and
        STREAMS_TOPOLOGY_FENCED (132).
        """
        assert group.topology is not None
        er, eg = topology.epoch, group.topology.epoch
        if er < eg:
            raise CoordinatorError(Errors.STREAMS_TOPOLOGY_FENCED,
                                   f"Topology epoch {er} is behind the group's topology epoch {eg}.")
        if er == eg:
            if not same_topology(group.topology, topology):
                raise CoordinatorError(Errors.STREAMS_INVALID_TOPOLOGY_EPOCH,
                                       f"Topology epoch {er} is the group's, but the topology differs.")
            return group.topology
        if er > eg + 1:
            raise CoordinatorError(Errors.STREAMS_INVALID_TOPOLOGY_EPOCH,
                                   f"Topology epoch {er} skips ahead of the group's topology epoch {eg}.")
        self.records.append(srec.topology_record(group.group_id, topology))
        self.explain.append(f"member {member_id} updated the topology to epoch {er}")
        return topology


def same_topology(a: Topology, b: Topology) -> bool:
    """``StreamsTopology.equals``: the epoch and the subtopologies as a map by id."""
    return a.epoch == b.epoch and {s.subtopology_id: s for s in a.subtopologies} == {
        s.subtopology_id: s for s in b.subtopologies}


def _contained(raw: Any, assigned: Mapping[str, Mapping[int, int]]) -> bool:
    """``areOwnedTasksContainedInAssignedTasks``: null owned tasks are never contained."""
    if raw is None:
        return False
    for e in raw:
        held = assigned.get(e["subtopologyId"])
        if held is None or any(int(p) not in held for p in e["partitions"]):
            return False
    return True


def _throw_if_invalid_tasks(subs: Mapping[str, Any], raw: Any) -> None:
    """``throwIfRequestContainsInvalidTasks``."""
    for e in raw or []:
        sid = e["subtopologyId"]
        sub = subs.get(sid)
        if sub is None:
            raise _invalid(f"Subtopology {sid} does not exist in the topology.")
        for p in e["partitions"]:
            if p < 0 or p >= sub.num_tasks:
                raise _invalid(f"Task {p} for subtopology {sid} is invalid. Number of tasks for this "
                               f"subtopology: {sub.num_tasks}")
