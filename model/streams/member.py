"""A streams group member as the coordinator stores it (``streams/StreamsGroupMember.java``, 4.3).

Tasks are *holdings* of the shared engine (:mod:`kgspec.model.reconcile`): role -> subtopology
id -> partition -> assignment epoch. Only active tasks carry assignment epochs in Kafka
(``TasksTupleWithEpochs``); standby and warm-up tasks are plain sets, stored here with epoch 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgspec.model.reconcile import (
    LEAVE_GROUP_STATIC_MEMBER_EPOCH as LEAVE_GROUP_STATIC_MEMBER_EPOCH,  # re-exported
)
from kgspec.model.reconcile import Holdings

ACTIVE = "active"
STANDBY = "standby"
WARMUP = "warmup"
ROLES: tuple[str, str, str] = (ACTIVE, STANDBY, WARMUP)
# The heartbeat, describe and record field that lists a role's tasks.
ROLE_FIELDS: dict[str, str] = {ACTIVE: "activeTasks", STANDBY: "standbyTasks", WARMUP: "warmupTasks"}

# streams/MemberState.java: the byte values differ from the consumer's.
STABLE = 1
UNREVOKED_TASKS = 2
UNRELEASED_TASKS = 3
UNKNOWN = 127

#: The one table between the MemberState byte and the ``streams-member`` machine's state names.
STATE_NAMES = {STABLE: "STABLE", UNREVOKED_TASKS: "UNREVOKED_TASKS",
               UNRELEASED_TASKS: "UNRELEASED_TASKS", UNKNOWN: "UNKNOWN"}
STATE_CODES = {name: code for code, name in STATE_NAMES.items()}

LEAVE_GROUP_MEMBER_EPOCH = -1

TaskSets = dict[str, dict[str, frozenset[int]]]  # role -> subtopology -> partitions


def state_from_code(code: int) -> int:
    """``MemberState.fromValue``: an unknown byte decodes to UNKNOWN."""
    return code if code in STATE_NAMES else UNKNOWN


def empty_holdings() -> Holdings:
    return {role: {} for role in ROLES}


def holdings_sets(h: Holdings) -> TaskSets:
    return {role: {s: frozenset(p) for s, p in h.get(role, {}).items() if p} for role in ROLES}


def normalize(h: Holdings) -> Holdings:
    """Drop empty subtopologies; standby/warm-up tasks carry no epoch (stored as 0)."""
    out: Holdings = {}
    for role in ROLES:
        src = h.get(role)
        if not src:  # most members hold no standby or warm-up tasks
            out[role] = {}
        elif role == ACTIVE:
            out[role] = {s: dict(p) for s, p in src.items() if p}
        else:
            out[role] = {s: dict.fromkeys(p, 0) for s, p in src.items() if p}
    return out


@dataclass(slots=True)
class StreamsMember:
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: int = STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    topology_epoch: int = -1
    process_id: str = ""
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    assigned: Holdings = field(default_factory=empty_holdings)
    pending_revocation: Holdings = field(default_factory=empty_holdings)
    # kip only (seed online migration): a member on the classic protocol, as consumer groups mark
    # theirs (session timeout, JoinGroup protocols). kgspec's tagged field of record 19.
    classic_member_metadata: dict[str, Any] | None = None

    def copy(self) -> StreamsMember:
        return StreamsMember(
            self.member_id, self.member_epoch, self.previous_member_epoch, self.state,
            self.instance_id, self.rack_id, self.client_id, self.client_host,
            self.rebalance_timeout_ms, self.topology_epoch, self.process_id, self.user_endpoint,
            dict(self.client_tags), normalize(self.assigned), normalize(self.pending_revocation),
            self.classic_member_metadata)

    def uses_classic(self) -> bool:
        return self.classic_member_metadata is not None

    def is_reconciled_to(self, epoch: int) -> bool:
        return self.state == STABLE and self.member_epoch == epoch

    def metadata_equals(self, other: StreamsMember, *, ignore_classic: bool = False) -> bool:
        """Whether the fields persisted in StreamsGroupMemberMetadata (record 19) are equal
        (``ignore_classic``: all but the kip migration's ``classicMemberMetadata``)."""
        return (
            (ignore_classic or self.classic_member_metadata == other.classic_member_metadata)
            and self.instance_id == other.instance_id and self.rack_id == other.rack_id
            and self.client_id == other.client_id and self.client_host == other.client_host
            and self.rebalance_timeout_ms == other.rebalance_timeout_ms
            and self.topology_epoch == other.topology_epoch and self.process_id == other.process_id
            and self.user_endpoint == other.user_endpoint and self.client_tags == other.client_tags
        )

    def assignment_equals(self, other: StreamsMember) -> bool:
        """Whether the fields persisted in StreamsGroupCurrentMemberAssignment (record 22) are equal."""
        return (
            self.member_epoch == other.member_epoch
            and self.previous_member_epoch == other.previous_member_epoch
            and self.state == other.state
            and normalize(self.assigned) == normalize(other.assigned)
            and normalize(self.pending_revocation) == normalize(other.pending_revocation)
        )

    def assigned_sets(self) -> TaskSets:
        return holdings_sets(self.assigned)
