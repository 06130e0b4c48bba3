"""A consumer group member as the coordinator stores it (``ConsumerGroupMember``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgspec.model.reconcile import (
    LEAVE_GROUP_STATIC_MEMBER_EPOCH as LEAVE_GROUP_STATIC_MEMBER_EPOCH,  # re-exported
)
from kgspec.model.reconcile import Holding

# modern/MemberState.java
STABLE = 0
UNREVOKED_PARTITIONS = 1
UNRELEASED_PARTITIONS = 2
UNKNOWN = 127

#: The one table between the MemberState byte the model keeps (as Kafka's records and its
#: invariants do) and the ``consumer-member`` machine's state names (spec/members.py).
STATE_NAMES = {
    STABLE: "STABLE",
    UNREVOKED_PARTITIONS: "UNREVOKED_PARTITIONS",
    UNRELEASED_PARTITIONS: "UNRELEASED_PARTITIONS",
    UNKNOWN: "UNKNOWN",
}
STATE_CODES = {name: code for code, name in STATE_NAMES.items()}

# ConsumerGroupHeartbeatRequest constants.
JOIN_GROUP_MEMBER_EPOCH = 0
LEAVE_GROUP_MEMBER_EPOCH = -1


def state_from_code(code: int) -> int:
    """An unknown state byte decodes to UNKNOWN, as Kafka's ``MemberState.fromValue`` does."""
    return code if code in STATE_NAMES else UNKNOWN


@dataclass(slots=True)
class ConsumerMember:
    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    # Kept sorted: Kafka holds a Set; ordering only matters for printing.
    subscribed_topic_names: tuple[str, ...] = ()
    # ConsumerGroupMember.Builder defaults the regex to "" (not null), so a member that never
    # sent one writes "subscribedTopicRegex": "" in its record 5 and describes as "".
    subscribed_topic_regex: str | None = ""
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = None
    classic_member_metadata: dict[str, Any] | None = None
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: int = STABLE
    assigned: Holding = field(default_factory=dict)
    pending_revocation: Holding = field(default_factory=dict)

    def is_reconciled_to(self, epoch: int) -> bool:
        return self.state == STABLE and self.member_epoch == epoch

    def copy(self) -> ConsumerMember:
        return ConsumerMember(
            self.member_id, self.instance_id, self.rack_id, self.client_id, self.client_host,
            self.subscribed_topic_names, self.subscribed_topic_regex, self.rebalance_timeout_ms,
            self.server_assignor, self.classic_member_metadata, self.member_epoch,
            self.previous_member_epoch, self.state,
            {t: dict(p) for t, p in self.assigned.items()},
            {t: dict(p) for t, p in self.pending_revocation.items()},
        )

    def with_assignment(self, member_epoch: int, previous_member_epoch: int, state: int, assigned: Holding,
                        pending_revocation: Holding) -> ConsumerMember:
        """A copy with another assignment (what a current-assignment record carries)."""
        return ConsumerMember(
            self.member_id, self.instance_id, self.rack_id, self.client_id, self.client_host,
            self.subscribed_topic_names, self.subscribed_topic_regex, self.rebalance_timeout_ms,
            self.server_assignor, self.classic_member_metadata, member_epoch, previous_member_epoch, state,
            assigned, pending_revocation,
        )

    def metadata_equals(self, other: ConsumerMember) -> bool:
        """Whether the fields persisted in ConsumerGroupMemberMetadata are equal."""
        return (
            self.instance_id == other.instance_id
            and self.rack_id == other.rack_id
            and self.client_id == other.client_id
            and self.client_host == other.client_host
            and self.subscribed_topic_names == other.subscribed_topic_names
            and self.subscribed_topic_regex == other.subscribed_topic_regex
            and self.rebalance_timeout_ms == other.rebalance_timeout_ms
            and self.server_assignor == other.server_assignor
            and self.classic_member_metadata == other.classic_member_metadata
        )

    def assignment_equals(self, other: ConsumerMember) -> bool:
        """Whether the fields persisted in ConsumerGroupCurrentMemberAssignment are equal."""
        return (
            self.member_epoch == other.member_epoch
            and self.previous_member_epoch == other.previous_member_epoch
            and self.state == other.state
            and self.assigned == other.assigned
            and self.pending_revocation == other.pending_revocation
        )

    def assigned_sets(self) -> dict[str, frozenset[int]]:
        return {t: frozenset(p) for t, p in self.assigned.items() if p}
