"""ConsumerGroupHeartbeat (API 68, v0-v1), as Kafka's group coordinator handles it.

Order of work (GroupCoordinatorService + GroupMetadataManager.consumerGroupHeartbeat):
request validation; leave (-1/-2); group lookup or creation; group size; member
lookup, creation or static replacement with epoch validation; member update and
subscription/regex changes; group epoch bump with the metadata hash; target
assignment (with assignment-interval batching); reconciliation; session timeout.

Handlers never change hard state themselves: they return records, and the
coordinator applies them through replay, as Kafka's runtime does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import (
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    STABLE,
    STATE_CODES,
    UNRELEASED_PARTITIONS,
    UNREVOKED_PARTITIONS,
    ConsumerMember,
)
from kgspec.model.errors import CoordinatorError, Errors, throw_if_instance_id_is_fenced
from kgspec.model.javaorder import topic_order
from kgspec.model.reconcile import (
    PHASE_TRIGGERS,
    Holding,
    Phase,
    check_member_epoch,
    decide,
    owns_any_of,
    split_towards_target,
)
from kgspec.model.records import Record
from kgspec.model.timers import Timer
from kgspec.model.topic_regex import InvalidTopicRegex, compile_topic_regex
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

ROLE = "partitions"  # the consumer protocol has one role of resource
MACHINE = "consumer-member"  # every member state change goes through its table (spec/members.py)

OwnedPartitions = dict[str, frozenset[int]]


def _empty(value: str | None) -> bool:
    return value is not None and value.strip() == ""


def validate(request: dict[str, Any], api_version: int, assignors: list[str]) -> None:
    """``throwIfConsumerGroupHeartbeatRequestIsInvalid``, in Kafka's order."""
    epoch = request.get("memberEpoch", 0)
    member_id = request.get("memberId")
    if (api_version >= 1 or epoch > 0 or epoch == LEAVE_GROUP_MEMBER_EPOCH) and (
        member_id is None or member_id.strip() == ""
    ):
        raise CoordinatorError(Errors.INVALID_REQUEST, "MemberId can't be empty.")
    if request.get("groupId") is None or _empty(request.get("groupId")):
        raise CoordinatorError(Errors.INVALID_REQUEST, "GroupId can't be empty.")
    if _empty(request.get("instanceId")):
        raise CoordinatorError(Errors.INVALID_REQUEST, "InstanceId can't be empty.")
    if _empty(request.get("rackId")):
        raise CoordinatorError(Errors.INVALID_REQUEST, "RackId can't be empty.")
    if epoch == 0:
        if request.get("rebalanceTimeoutMs", -1) == -1:
            raise CoordinatorError(Errors.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.")
        if request.get("topicPartitions") is None or request["topicPartitions"]:
            raise CoordinatorError(Errors.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.")
        if request.get("subscribedTopicNames") is None and request.get("subscribedTopicRegex") is None:
            raise CoordinatorError(
                Errors.INVALID_REQUEST,
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
    elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if request.get("instanceId") is None:
            raise CoordinatorError(Errors.INVALID_REQUEST, "InstanceId can't be null.")
    elif epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        raise CoordinatorError(Errors.INVALID_REQUEST, "MemberEpoch is invalid.")
    assignor = request.get("serverAssignor")
    if assignor is not None and assignor not in assignors:
        raise CoordinatorError(
            Errors.UNSUPPORTED_ASSIGNOR,
            f"ServerAssignor {assignor} is not supported. Supported assignors: {', '.join(assignors)}.")


def parse_owned(request: Mapping[str, Any]) -> OwnedPartitions | None:
    raw = request.get("topicPartitions")
    if raw is None:
        return None
    owned: dict[str, set[int]] = {}
    for entry in raw:
        owned.setdefault(entry["topicId"], set()).update(entry["partitions"])
    return {t: frozenset(p) for t, p in owned.items()}


def assignment_json(holding: Holding) -> dict[str, Any]:
    """``ConsumerGroupHeartbeatResponse.createAssignment``."""
    return {"topicPartitions": [{"topicId": t, "partitions": sorted(holding[t])} for t in topic_order(holding)
                                if holding[t]]}


def steady_timer_ops(coord: Coordinator, request: dict[str, Any], client_id: str, client_host: str,
                     now: int) -> list[tuple[str, Timer | str]] | None:
    """The timer changes of a valid heartbeat that takes the fast path now; None if it does not.

    Side-effect free (decided in a step scope, never committed). The fast path writes no
    records and changes nothing but these timers, which is what lets the trace checker
    cache its answer and replay the changes, shifted in time, for a repeat of the call.
    """
    response, ops = coord.timer_ops_of(now, ConsumerHeartbeat(coord, request, client_id, client_host, now)._steady)
    return None if response is None else ops


class ConsumerHeartbeat:
    """One ConsumerGroupHeartbeat against the coordinator's current state."""

    def __init__(self, coord: Coordinator, request: dict[str, Any], client_id: str,
                 client_host: str, now: int) -> None:
        self.coord = coord
        self.req = request
        self.client_id = client_id
        self.client_host = client_host
        self.now = now
        self.records: list[Record] = []
        self.explain: list[str] = []  # why the outcome is what it is, for findings
        # Online migration: in-memory changes applied after the records (see Decision.effects).
        self.effects: list[Callable[[], None]] = []
        self.fast_path = False  # answered by _steady (Decision.fast_path)

    # --- entry points ---------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        epoch = self.req["memberEpoch"]
        if epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            return self._leave(epoch)
        return self._heartbeat()

    def _leave(self, epoch: int) -> dict[str, Any]:
        coord, gid = self.coord, self.req["groupId"]
        group = consumer_ops.group_or_throw(coord, gid)
        member_id: str = self.req["memberId"]
        instance_id = self.req.get("instanceId")
        response = {"errorCode": 0, "errorMessage": None, "memberId": member_id,
                    "memberEpoch": epoch, "heartbeatIntervalMs": 0, "assignment": None}
        if instance_id is None:
            member = group.member_or_throw(member_id)
        else:
            member = static_member_or_throw(group, member_id, instance_id)
            if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                # Temporary leave: keep the member (and its session timer), epoch -2.
                fire(MACHINE, group.lifecycle_state(member), "static_temporary_leave")
                leaving = member.copy()
                leaving.member_epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH
                leaving.pending_revocation = {}
                for parts in leaving.assigned.values():
                    for p in parts:
                        parts[p] = 0
                self.records.append(rec.current_assignment_record(gid, leaving, coord.profile))
                self.explain.append(f"static member {member_id} left temporarily (epoch -2)")
                return response
        self.records.extend(coord.migration.fence_consumer_members(coord, group, [member], self.effects, self.now,
                                                                   "left"))
        self.explain.append(f"member {member_id} left the group")
        return response

    # --- the regular heartbeat ------------------------------------------------------

    def _steady(self) -> dict[str, Any] | None:
        """The no-change heartbeat, answered without building an updated member.

        Applies only when the full path provably writes nothing: a known member at its
        current epoch, every optional field null or unchanged, the same client, no metadata
        refresh due, the target up to date and the member reconciled to it. The answer and
        the session timer are then exactly what the full path gives.
        """
        coord, req = self.coord, self.req
        group = coord.groups.get(req["groupId"])
        if group is None:
            return None
        member = group.members.get(req.get("memberId") or "")
        if member is None or member.member_epoch != req["memberEpoch"] or member.classic_member_metadata is not None:
            return None
        if req.get("instanceId") != member.instance_id:
            return None
        if member.client_id != self.client_id or member.client_host != self.client_host:
            return None
        for name, current in (("rackId", member.rack_id), ("serverAssignor", member.server_assignor),
                              ("subscribedTopicRegex", member.subscribed_topic_regex)):
            value = req.get(name)
            if value is not None and value != current:
                return None
        timeout = req.get("rebalanceTimeoutMs", -1)
        if timeout != -1 and timeout != member.rebalance_timeout_ms:
            return None
        names = req.get("subscribedTopicNames")
        if names is not None and tuple(sorted(set(names))) != member.subscribed_topic_names:
            return None
        if group.group_epoch > group.assignment_epoch or not member.is_reconciled_to(group.assignment_epoch):
            return None
        if consumer_ops.metadata_expired(coord, group):
            return None
        consumer_ops.schedule_session_timeout(coord, group.group_id, member.member_id, self.now)
        self.fast_path = True
        full_request = timeout != -1 and (names is not None or req.get("subscribedTopicRegex") is not None) \
            and req.get("topicPartitions") is not None
        return {
            "errorCode": 0,
            "errorMessage": None,
            "memberId": member.member_id,
            "memberEpoch": member.member_epoch,
            "heartbeatIntervalMs": coord.group_config_int(group.group_id, "group.consumer.heartbeat.interval.ms"),
            "assignment": assignment_json(member.assigned) if full_request else None,
        }

    def _heartbeat(self) -> dict[str, Any]:
        if self.req["memberEpoch"] > 0:
            steady = self._steady()
            if steady is not None:
                return steady
        coord, req, records = self.coord, self.req, self.records
        gid: str = req["groupId"]
        epoch: int = req["memberEpoch"]
        joining = epoch == 0
        owned = parse_owned(req)

        group = consumer_ops.group_for_heartbeat(coord, gid, joining, records, self.effects)
        instance_id = req.get("instanceId")
        member_id: str = req.get("memberId") or ""
        self.throw_if_full(group, member_id, instance_id)
        if member_id == "":
            member_id = coord.new_member_id()

        if instance_id is None:
            member = self._dynamic_member(group, member_id, epoch, owned, joining)
        else:
            member = self._static_member(group, member_id, epoch, instance_id, owned, joining)

        # 1. Update the member; write its metadata record if anything changed.
        updated = member.copy()
        if instance_id is not None:
            updated.instance_id = instance_id
        if req.get("rackId") is not None:
            updated.rack_id = req["rackId"]
        if req.get("rebalanceTimeoutMs", -1) != -1:
            updated.rebalance_timeout_ms = req["rebalanceTimeoutMs"]
        if req.get("serverAssignor") is not None:
            updated.server_assignor = req["serverAssignor"]
        if req.get("subscribedTopicNames") is not None:
            updated.subscribed_topic_names = tuple(sorted(set(req["subscribedTopicNames"])))
        if req.get("subscribedTopicRegex") is not None:
            updated.subscribed_topic_regex = req["subscribedTopicRegex"]
        updated.client_id = self.client_id
        updated.client_host = self.client_host
        updated.classic_member_metadata = None

        names_changed = False
        if not updated.metadata_equals(member):
            records.append(rec.member_metadata_record(gid, updated))
            names_changed = updated.subscribed_topic_names != member.subscribed_topic_names
        regex_status = self.update_regex(group, member, updated)
        subscription_changed = names_changed or regex_status != "NO_CHANGE"

        # 2. Bump the group epoch if the subscription or the metadata hash changed.
        group_epoch = group.group_epoch
        bump = names_changed or regex_status == "UPDATED_AND_RESOLVED"
        # Before KAFKA-20268 (4.1, 4.2) a new group at epoch 0 always bumps ("it moves away from
        # epoch 0"), so even a join with an empty subscription writes record 3 with epoch 1.
        bump = bump or (coord.profile.new_group_initial_epoch == 0 and group.group_epoch == 0)
        if bump or consumer_ops.metadata_expired(coord, group):
            group_epoch = self.update_subscription_metadata(group, bump, member, updated)

        # 3. Target assignment, then reconciliation.
        target_epoch, target = consumer_ops.maybe_update_target(coord,
            group, group_epoch, member, updated, records, self.now)
        reconciled = self.maybe_reconcile(group, updated, target_epoch, target,
                                          subscription_changed, owned)

        consumer_ops.schedule_session_timeout(coord, gid, reconciled.member_id, self.now)

        response: dict[str, Any] = {
            "errorCode": 0,
            "errorMessage": None,
            "memberId": reconciled.member_id,
            "memberEpoch": reconciled.member_epoch,
            "heartbeatIntervalMs": coord.group_config_int(gid, "group.consumer.heartbeat.interval.ms"),
            "assignment": None,
        }
        full_request = (
            req.get("rebalanceTimeoutMs", -1) != -1
            and (req.get("subscribedTopicNames") is not None or req.get("subscribedTopicRegex") is not None)
            and owned is not None
        )
        if joining or full_request or reconciled.assigned_sets() != member.assigned_sets():
            response["assignment"] = assignment_json(reconciled.assigned)
        return response

    # --- member lookup ---------------------------------------------------------------

    def throw_if_full(self, group: ConsumerGroup, member_id: str, instance_id: str | None) -> None:
        exempt = self.coord.profile.static_member_size_exemption
        if exempt and instance_id is not None and instance_id in group.static_members:
            return
        max_size = self.coord.config.int("group.consumer.max.size")
        if len(group.members) >= max_size and (member_id == "" or member_id not in group.members):
            raise CoordinatorError(
                Errors.GROUP_MAX_SIZE_REACHED,
                f"The consumer group has reached its maximum capacity of {max_size} members.")

    def _dynamic_member(self, group: ConsumerGroup, member_id: str, epoch: int,
                        owned: OwnedPartitions | None, joining: bool) -> ConsumerMember:
        member = group.members.get(member_id)
        if member is None:
            if not joining:
                raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID,
                                       f"Member {member_id} is not a member of group {group.group_id}.")
            member = ConsumerMember(member_id)
            self.explain.append(f"member {member_id} joins")
        self._validate_epoch(member, epoch, owned)
        return member

    def _static_member(self, group: ConsumerGroup, member_id: str, epoch: int, instance_id: str,
                       owned: OwnedPartitions | None, joining: bool) -> ConsumerMember:
        existing = group.static_member(instance_id)
        if joining:
            if existing is None:
                member = group.members.get(member_id) or ConsumerMember(member_id)
                return member
            if existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH and existing.classic_member_metadata is None:
                raise CoordinatorError(
                    Errors.UNRELEASED_INSTANCE_ID,
                    f"Static member {member_id} with instance id {instance_id} cannot join the group "
                    f"because the instance id is owned by {existing.member_id} member.")
            replacement = self.replace_static_member(group, existing, member_id)
            self.explain.append(f"static member {instance_id} replaced {existing.member_id} by {member_id}")
            return replacement
        existing = static_member_or_throw(group, member_id, instance_id)
        self._validate_epoch(existing, epoch, owned)
        return existing

    def replace_static_member(self, group: ConsumerGroup, existing: ConsumerMember, member_id: str) -> ConsumerMember:
        """``replaceStaticMember``: the old id's tombstones, then the new id's member, target and
        assignment records (a copy of the old member at epoch 0, previous epoch 0)."""
        replacement = existing.copy()
        replacement.member_id = member_id
        replacement.member_epoch = 0
        replacement.previous_member_epoch = 0
        gid = group.group_id
        self.records.extend([
            rec.current_assignment_tombstone(gid, existing.member_id),
            rec.target_member_tombstone(gid, existing.member_id),
            rec.member_metadata_tombstone(gid, existing.member_id),
            rec.member_metadata_record(gid, replacement),
            rec.target_member_record(gid, member_id, group.target.get(existing.member_id, {})),
            rec.current_assignment_record(gid, replacement, self.coord.profile),
        ])
        # Kafka removes the old member "without canceling its timers in case the change is
        # reverted"; when they fire the member is unknown and nothing is written.
        return replacement

    def _validate_epoch(self, member: ConsumerMember, received: int, owned: OwnedPartitions | None) -> None:
        """``throwIfConsumerGroupMemberEpochIsInvalid``, with the lost-response rule."""
        coord = self.coord
        if received == 0 and coord.profile.rejoin_with_epoch_zero:
            return
        accepted = check_member_epoch("consumer", received, member.member_epoch, member.previous_member_epoch,
                                      lambda: _is_subset(owned, member.assigned), coord.mutants)
        if accepted is not None:
            self.explain.append(accepted)

    # --- subscription -----------------------------------------------------------------

    def update_regex(self, group: ConsumerGroup, member: ConsumerMember, updated: ConsumerMember) -> str:
        """``maybeUpdateRegularExpressions``; resolution itself is deferred (see Coordinator)."""
        old, new = member.subscribed_topic_regex, updated.subscribed_topic_regex
        if old == new:
            return "NO_CHANGE"
        status = "UPDATED"
        gid = group.group_id
        if old and group.subscribed_regexes.get(old, 0) == 1:
            self.records.append(rec.regex_tombstone(gid, old))
        if new:
            if group.subscribed_regexes.get(new, 0) == 0:
                try:
                    compile_topic_regex(new)  # RE2J's verdict (Utils.throwIfRegularExpressionIsInvalid)
                except InvalidTopicRegex as exc:
                    raise CoordinatorError(Errors.INVALID_REGULAR_EXPRESSION,
                                           f"SubscribedTopicRegex `{new}` is not a valid regular expression: {exc.description}.") from None
                consumer_ops.request_regex_resolution(self.coord, gid, self.now)
            elif new in group.resolved_regexes:
                status = "UPDATED_AND_RESOLVED"
        elif old:
            status = "UPDATED_AND_RESOLVED"
        return status

    def update_subscription_metadata(self, group: ConsumerGroup, bump: bool,
                                     member: ConsumerMember, updated: ConsumerMember) -> int:
        coord = self.coord
        names = consumer_ops.subscribed_topic_names(coord, group, replace=(member, updated))
        new_hash = coord.metadata_hash(names)
        if new_hash != group.metadata_hash:
            bump = True
            self.explain.append("the subscribed topics' metadata hash changed")
        epoch = group.group_epoch
        if bump:
            epoch += 1
            self.records.append(rec.group_epoch_record(group.group_id, epoch, new_hash))
            self.explain.append(f"group epoch bumped to {epoch}")
        consumer_ops.mark_metadata_refreshed(coord, group.group_id, epoch)
        if group.has_partition_metadata_record:
            self.records.append(rec.partition_metadata_tombstone(group.group_id))
        return epoch

    # --- reconciliation -------------------------------------------------------------------

    def maybe_reconcile(self, group: ConsumerGroup, member: ConsumerMember, target_epoch: int,
                        target: dict[str, frozenset[int]], subscription_changed: bool,
                        owned: OwnedPartitions | None) -> ConsumerMember:
        if not subscription_changed and member.is_reconciled_to(target_epoch):
            return member
        updated = build_current_assignment(self.coord, group, member, target_epoch, target,
                                           subscription_changed, owned)
        if not updated.assignment_equals(member):
            self.records.append(rec.current_assignment_record(group.group_id, updated, self.coord.profile))
            if updated.classic_member_metadata is not None:
                pass  # classic-protocol members have join and sync timeouts instead
            elif updated.state == UNREVOKED_PARTITIONS:
                consumer_ops.schedule_rebalance_timeout(self.coord, group.group_id, updated, self.now)
            else:
                consumer_ops.cancel_rebalance_timeout(self.coord, group.group_id, updated.member_id)
        return updated


def static_member_or_throw(group: ConsumerGroup, member_id: str, instance_id: str) -> ConsumerMember:
    """``throwIfStaticMemberIsUnknown`` then ``throwIfInstanceIdIsFenced``."""
    found = group.static_member(instance_id)
    if found is None:
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
    throw_if_instance_id_is_fenced(found, member_id, instance_id)
    return found


def _is_subset(owned: OwnedPartitions | None, assigned: Holding) -> bool:
    if owned is None:
        return False
    for topic_id, parts in owned.items():
        held = assigned.get(topic_id)
        if held is None:
            return False
        if any(p not in held for p in parts):
            return False
    return True


def build_current_assignment(coord: Coordinator, group: ConsumerGroup, member: ConsumerMember,
                             target_epoch: int, target: dict[str, frozenset[int]],
                             subscription_changed: bool, owned: OwnedPartitions | None) -> ConsumerMember:
    """Kafka's consumer ``CurrentAssignmentBuilder.build()`` on the shared engine."""
    owned_roles = None if owned is None else {ROLE: owned}
    owns = owns_any_of(owned_roles)
    state = member.state
    epoch = member.member_epoch
    if state == STABLE:
        if epoch != target_epoch:
            return _next(coord, group, member, epoch, target_epoch, target, owns)
        if subscription_changed:
            return _shrink_to_subscription(coord, group, member, owns)
        return member
    if state == UNREVOKED_PARTITIONS:
        if owns({ROLE: member.pending_revocation}):
            return _shrink_to_subscription(coord, group, member, owns) if subscription_changed else member
        next_epoch = epoch + 1 if coord.profile.consumer_unrevoked_exit_bumps_epoch else epoch
        return _next(coord, group, member, next_epoch, target_epoch, target, owns)
    if state == UNRELEASED_PARTITIONS:
        return _next(coord, group, member, epoch, target_epoch, target, owns)
    # UNKNOWN: fence unless the member reported owning nothing.
    if owned is None or any(owned.values()):
        raise CoordinatorError(Errors.FENCED_MEMBER_EPOCH,
                               "The consumer group member is in a unknown state. "
                               "The member must abandon all its partitions and rejoin.")
    return _next(coord, group, member, target_epoch, target_epoch, target, owns)


def _with(group: ConsumerGroup, member: ConsumerMember, phase: Phase, epoch: int, assigned: Holding,
          pending: Holding) -> ConsumerMember:
    """The builder's outcome, its state through the ``consumer-member`` table."""
    updated = member.copy()
    updated.state = STATE_CODES[fire(MACHINE, group.lifecycle_state(member), PHASE_TRIGGERS[phase])]
    updated.previous_member_epoch = member.member_epoch
    updated.member_epoch = epoch
    updated.assigned = {t: p for t, p in assigned.items() if p}
    updated.pending_revocation = {t: p for t, p in pending.items() if p}
    return updated


def _next(coord: Coordinator, group: ConsumerGroup, member: ConsumerMember, member_epoch: int,
          target_epoch: int, target: dict[str, frozenset[int]], owns: Any) -> ConsumerMember:
    subscribed = consumer_ops.subscribed_topic_ids(coord, group, member)
    mutants = coord.mutants
    own_pending = member.pending_revocation
    no_withholding = mutants.active("no-withholding")
    ignore_pending = mutants.active("grant-before-ack")
    epochs = group.partition_epochs

    def is_unreleased(_role: str, topic_id: str, partition: int) -> bool:
        if no_withholding:
            return False
        owner_epoch = epochs.get(topic_id, {}).get(partition, -1)
        if owner_epoch == -1:
            return False
        if ignore_pending:
            # Mutant: a partition only pending revocation elsewhere looks free; what another
            # member holds as assigned still counts (as in the streams model and the Z3 encoding).
            return any(partition in m.assigned.get(topic_id, {})
                       for mid, m in group.members.items() if mid != member.member_id)
        # A partition this member is itself revoking is not "someone else's" (KAFKA-19449).
        return partition not in own_pending.get(topic_id, {})

    split = split_towards_target(
        (ROLE,), {ROLE: member.assigned}, {ROLE: target},
        in_scope=lambda _role, topic_id: topic_id in subscribed,
        is_unreleased=is_unreleased,
    )
    outcome = decide(split, member_epoch, target_epoch, owns,
                     epoch_while_revoking=target_epoch if mutants.active("bump-while-revoking") else None)
    return _with(group, member, outcome.phase, outcome.member_epoch,
                 outcome.assigned.get(ROLE, {}), outcome.pending_revocation.get(ROLE, {}))


def _shrink_to_subscription(coord: Coordinator, group: ConsumerGroup, member: ConsumerMember,
                            owns: Any) -> ConsumerMember:
    """``updateCurrentAssignment``: drop unsubscribed topics, revoking them if still owned."""
    subscribed = consumer_ops.subscribed_topic_ids(coord, group, member)
    assigned = member.assigned
    if not subscribed and not member.pending_revocation:
        new_assigned: Holding = {}
        new_pending: Holding = {t: dict(p) for t, p in assigned.items()}
    else:
        dropped = [t for t in assigned if t not in subscribed]
        if not dropped:
            return member
        new_assigned = {t: dict(p) for t, p in assigned.items() if t in subscribed}
        new_pending = {t: dict(p) for t, p in member.pending_revocation.items()}
        for t in dropped:
            new_pending.setdefault(t, {}).update(assigned[t])
    if new_assigned == assigned:
        return member
    if new_pending and owns({ROLE: new_pending}):
        return _with(group, member, Phase.UNREVOKED, member.member_epoch, new_assigned, new_pending)
    updated = member.copy()
    updated.previous_member_epoch = member.member_epoch
    updated.assigned = new_assigned
    return updated
