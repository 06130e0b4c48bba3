"""Static streams group members (trunk, KAFKA-20169 #22245; ``profile.streams_static_membership``).

``GroupMetadataManager`` on trunk: ``getOrMaybeCreateStaticStreamsGroupMember``,
``replaceStreamsMember``, ``streamsGroupLeave`` / ``streamsGroupStaticMemberGroupLeave``,
``throwIfInstanceIdIs{Unreleased,Fenced}``, ``throwIfStaticMemberIsUnknown``,
``hasEpochRelevantMemberConfigChanged``.

* A join (epoch 0) with a new instance id creates the member; with an instance id whose
  member left temporarily (epoch -2) it *replaces* it: records 22, 21, 19 tombstones of the
  old id, then 19, 21 (the old target) and 22 (epoch 0, previous epoch 0, the old tasks) of the
  new id, and the member reconciles from there; any other epoch -> UNRELEASED_INSTANCE_ID.
* Other heartbeats: unknown instance id -> UNKNOWN_MEMBER_ID, another member id ->
  FENCED_INSTANCE_ID, then the usual epoch check.
* Leave with -2 writes only record 22 with epoch -2, no pending revocation and active task
  epochs reset to 0 (the group epoch stays); -1 fences like a dynamic member.
* Record 19 bumps the group epoch only when topology epoch, rack, client tags or process id
  changed (KIP-1071's list), not for client id/host or a new member id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors, throw_if_instance_id_is_fenced
from kgspec.model.profiles import Profile
from kgspec.model.records import Record
from kgspec.model.streams import records as srec
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import (
    ACTIVE,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    StreamsMember,
    empty_holdings,
)
from kgspec.spec.tables import fire

if TYPE_CHECKING:
    from kgspec.model.streams.heartbeat import StreamsHeartbeat


def epoch_relevant_change(old: StreamsMember, new: StreamsMember) -> bool:
    """``hasEpochRelevantMemberConfigChanged``."""
    return (old.topology_epoch != new.topology_epoch or old.rack_id != new.rack_id
            or old.client_tags != new.client_tags or old.process_id != new.process_id)


def unknown(instance_id: str) -> CoordinatorError:
    return CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")


def member_or_throw(group: StreamsGroup, member_id: str, instance_id: str) -> StreamsMember:
    """``throwIfStaticMemberIsUnknown`` then ``throwIfInstanceIdIsFenced``."""
    found = group.static_member(instance_id)
    if found is None:
        raise unknown(instance_id)
    throw_if_instance_id_is_fenced(found, member_id, instance_id)
    return found


def get_or_create_member(step: StreamsHeartbeat, group: StreamsGroup, member_id: str, epoch: int,
                         instance_id: str, joining: bool, owned_raw: list[Any]) -> tuple[StreamsMember, bool]:
    """(the member the heartbeat updates, whether it is brand new); may queue replacement records."""
    if joining:
        existing = group.static_member(instance_id)
        if existing is None:
            step.explain.append(f"static member {member_id} with instance id {instance_id} joins")
            member = group.members.get(member_id)
            return (member, False) if member is not None else (StreamsMember(member_id), True)
        if existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            raise CoordinatorError(Errors.UNRELEASED_INSTANCE_ID, f"Static member {member_id} with instance id "
                                   f"{instance_id} cannot join the group because the instance id is owned by "
                                   f"{existing.member_id} member.")
        new = existing.copy()
        new.member_id = member_id
        new.member_epoch = 0
        new.previous_member_epoch = 0
        step.records.extend(replacement_records(group, existing, new, step.coord.profile))
        step.explain.append(f"static member {member_id} replaces {existing.member_id} (instance id {instance_id})")
        return new, False
    member = member_or_throw(group, member_id, instance_id)
    step.validate_epoch(member, epoch, owned_raw)
    return member, False


def replacement_records(group: StreamsGroup, old: StreamsMember, new: StreamsMember, profile: Profile) -> list[Record]:
    """``replaceStreamsMember``: the old id's tombstones, then the new id's 19, 21, 22."""
    gid = group.group_id
    return [srec.current_assignment_tombstone(gid, old.member_id),
            srec.target_member_tombstone(gid, old.member_id),
            srec.member_metadata_tombstone(gid, old.member_id),
            srec.member_metadata_record(gid, new),
            srec.target_member_record(gid, new.member_id, group.target_of(old.member_id)),
            srec.current_assignment_record(gid, new, profile)]


def temporary_leave_record(group: StreamsGroup, member: StreamsMember, profile: Profile) -> Record:
    """``streamsGroupStaticMemberGroupLeave``: epoch -2, nothing pending, active epochs reset to 0."""
    fire("streams-member", group.lifecycle_state(member), "static_temporary_leave")
    leaving = member.copy()
    leaving.member_epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH
    leaving.pending_revocation = empty_holdings()
    leaving.assigned = {**leaving.assigned,
                        ACTIVE: {s: dict.fromkeys(p, 0) for s, p in leaving.assigned.get(ACTIVE, {}).items()}}
    return srec.current_assignment_record(group.group_id, leaving, profile)
