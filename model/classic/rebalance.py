"""The join and sync phases (GroupMetadataManager 4.3): ``prepareRebalance``,
``maybeCompleteJoinPhase``, ``completeClassicGroupJoin``, the initial rebalance delay,
assignment propagation, and the heartbeat / pending-sync expirations."""

from __future__ import annotations

from collections.abc import Mapping

from kgspec.model.classic import seed_choices
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import EMPTY_ASSIGNMENT, ClassicMember
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.classic.step import INITIAL_JOIN_TIMER, Step
from kgspec.model.errors import Errors
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE


def maybe_prepare_rebalance_or_complete_join(step: Step, group: ClassicGroup, reason: str) -> None:
    if group.can_rebalance():
        prepare_rebalance(step, group, reason)
    else:
        maybe_complete_join_phase(step, group)


def prepare_rebalance(step: Step, group: ClassicGroup, reason: str) -> None:
    if group.state == COMPLETING_REBALANCE:
        # Members awaiting sync get REBALANCE_IN_PROGRESS and must rejoin.
        reset_and_propagate_with_error(step, group, Errors.REBALANCE_IN_PROGRESS)
    group.pending_sync.clear()
    step.cancel_sync(group)
    initial = group.state == EMPTY
    if initial:
        # A new group waits group.initial.rebalance.delay.ms for more members.
        delay = step.config_int("group.initial.rebalance.delay.ms")
        group.initial_delay = (delay, max(group.rebalance_timeout_ms() - delay, 0))
        step.schedule_join(group, delay, INITIAL_JOIN_TIMER)
    group.transition("prepare_rebalance", step.now)
    step.why(f"group {group.group_id} prepares a rebalance (generation {group.generation_id}): {reason}")
    if not initial:
        maybe_complete_join_else_schedule(step, group)


def maybe_complete_join_else_schedule(step: Step, group: ClassicGroup) -> None:
    if group.has_all_members_joined():
        complete_join(step, group)
    else:
        step.schedule_join(group, group.rebalance_timeout_ms())


def maybe_complete_join_phase(step: Step, group: ClassicGroup) -> None:
    # Not during the initial rebalance: its delay timer completes it.
    if group.state == PREPARING_REBALANCE and group.previous_state != EMPTY and group.has_all_members_joined():
        complete_join(step, group)


def try_complete_initial_rebalance(step: Step, group: ClassicGroup) -> None:
    """``tryCompleteInitialRebalanceElseSchedule``: extend while new members keep arriving."""
    delay, remaining = group.initial_delay
    if group.new_member_added and remaining != 0:
        group.new_member_added = False
        new_delay = min(step.config_int("group.initial.rebalance.delay.ms"), remaining)
        group.initial_delay = (new_delay, max(remaining - delay, 0))
        step.schedule_join(group, new_delay, INITIAL_JOIN_TIMER)
        step.why(f"a member joined during the initial delay: extended by {new_delay} ms")
    else:
        complete_join(step, group)


def complete_join(step: Step, group: ClassicGroup) -> None:
    """``completeClassicGroupJoin``."""
    step.cancel_join(group)
    for member in [m for m in group.not_yet_rejoined() if not m.is_static]:
        group.remove(member.member_id)
        step.cancel_heartbeat(group, member.member_id)
        step.why(f"member {member.member_id} did not rejoin in time: removed")
    if group.state == DEAD:
        return
    if not group.maybe_elect_new_joined_leader() and len(group.members):
        # Nobody rejoined: wait another rebalance timeout for the session timeouts to act.
        step.schedule_join(group, group.rebalance_timeout_ms())
        return
    kip = step.coord.profile.classic_kip_choices
    if kip and (chosen := seed_choices.leader_choice(group)) is not None:
        group.leader_id = chosen  # seed 004: "the coordinator randomly selects a leader"
    group.init_next_generation(step.now)
    if kip and len(group.members) and (protocol := seed_choices.protocol_choice(group)) is not None:
        group.protocol_name = protocol  # seed 004: "one is chosen randomly" among the undominated
    if group.state == EMPTY:
        step.why(f"group {group.group_id} is empty at generation {group.generation_id}")
        step.records.append(group_metadata_record(group, {}))
        return
    step.why(f"group {group.group_id} stabilized generation {group.generation_id} with leader "
             f"{group.leader_id} and protocol {group.protocol_name}")
    for member in group.members.values():
        leader = group.is_leader(member.member_id)
        step.complete_join(group, member, member_id=member.member_id, generation_id=group.generation_id,
                           protocol_type=group.protocol_type, protocol_name=group.protocol_name,
                           leader=group.leader_id, members=group.current_members() if leader else [])
        step.schedule_heartbeat(group, member.member_id, member.session_timeout_ms)
        member.is_new = False
        group.pending_sync.add(member.member_id)
    step.schedule_sync(group, group.rebalance_timeout_ms())


def reset_and_propagate_with_error(step: Step, group: ClassicGroup, error: Errors) -> None:
    assert group.state == COMPLETING_REBALANCE, group.state
    for member in group.members.values():
        member.assignment = EMPTY_ASSIGNMENT
    propagate_assignment(step, group, error)


def set_and_propagate_assignment(step: Step, group: ClassicGroup, assignment: Mapping[str, str]) -> None:
    assert group.state == COMPLETING_REBALANCE, group.state
    for member in group.members.values():
        member.assignment = assignment.get(member.member_id, EMPTY_ASSIGNMENT)
    propagate_assignment(step, group, Errors.NONE)


def propagate_assignment(step: Step, group: ClassicGroup, error: Errors) -> None:
    ok = error == Errors.NONE
    for member in group.members.values():
        if step.complete_sync(member, int(error), protocol_type=group.protocol_type if ok else None,
                              protocol_name=group.protocol_name if ok else None, assignment=member.assignment):
            # A session that expired while the member waited was ignored: start a fresh one.
            step.schedule_heartbeat(group, member.member_id, member.session_timeout_ms)


def expire_heartbeat(step: Step, group: ClassicGroup, member_id: str) -> None:
    """``expireClassicGroupMemberHeartbeat``."""
    if group.state == DEAD:
        return
    if member_id in group.pending_join:
        step.why(f"pending member {member_id} removed: its session expired")
        remove_pending_member_and_update(step, group, member_id)
        return
    member = group.members.get(member_id)
    if member is None or member.has_satisfied_heartbeat():
        return
    step.why(f"member {member_id} removed: its session expired")
    remove_member_and_update(step, group, member, f"removing member {member_id} on heartbeat expiration.")


def remove_member_and_update(step: Step, group: ClassicGroup, member: ClassicMember, reason: str) -> None:
    # A new member may still wait for its JoinGroup: it gets UNKNOWN_MEMBER_ID and retries.
    step.complete_join(group, member, int(Errors.UNKNOWN_MEMBER_ID))
    group.remove(member.member_id)
    if group.state in (STABLE, COMPLETING_REBALANCE):
        maybe_prepare_rebalance_or_complete_join(step, group, reason)
    elif group.state == PREPARING_REBALANCE and group.has_all_members_joined():
        complete_join(step, group)


def remove_pending_member_and_update(step: Step, group: ClassicGroup, member_id: str) -> None:
    group.remove(member_id)
    if group.state == PREPARING_REBALANCE and group.has_all_members_joined():
        complete_join(step, group)


def expire_pending_sync(step: Step, group: ClassicGroup, generation_id: int) -> None:
    """``expirePendingSync``: members that did not sync in time are removed; rebalance."""
    if generation_id != group.generation_id or group.state not in (COMPLETING_REBALANCE, STABLE):
        return
    if not group.pending_sync:
        return
    late = list(group.pending_sync)
    for member_id in late:
        group.remove(member_id)
        step.cancel_heartbeat(group, member_id)
    step.why(f"members {sorted(late)} did not send SyncGroup within the rebalance timeout: removed")
    prepare_rebalance(step, group, f"Removing {sorted(late)} on pending sync request expiration")
