"""A Connect worker as the coordinator stores it (draft 'Worker Group and Worker', records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgspec.model.connect.resources import Resources, from_holdings, normalize, to_holdings
from kgspec.model.reconcile import Holdings

# Member states (byte values as the consumer's MemberState; the draft defines none).
STABLE = 1
UNREVOKED = 2
UNRELEASED = 3
STATE_NAMES = {STABLE: "STABLE", UNREVOKED: "UNREVOKED", UNRELEASED: "UNRELEASED"}

LEAVE_GROUP_MEMBER_EPOCH = -1


@dataclass(frozen=True, slots=True)
class Assignor:
    """One client-side assignor a worker supports (draft 'Assignor')."""

    name: str
    minimum_version: int
    maximum_version: int
    reason: int = 0
    version: int = 0
    metadata: str | None = None  # bytes, as Kafka's JSON converters print them (base64)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "minimumVersion": self.minimum_version, "maximumVersion": self.maximum_version,
                "reason": self.reason, "version": self.version, "metadata": self.metadata}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Assignor:
        return Assignor(obj["name"], int(obj["minimumVersion"]), int(obj["maximumVersion"]),
                        int(obj.get("reason", 0)), int(obj.get("version", 0)), obj.get("metadata"))

    def overlaps(self, other: Assignor) -> bool:
        return self.minimum_version <= other.maximum_version and other.minimum_version <= self.maximum_version


@dataclass(slots=True)
class ConnectMember:
    member_id: str
    joined_epoch: int = 0  # the group epoch its join produced (record field GroupEpoch)
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: int = STABLE
    instance_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    assignors: tuple[Assignor, ...] = ()
    assigned: Holdings = field(default_factory=lambda: to_holdings({}))
    pending_revocation: Holdings = field(default_factory=lambda: to_holdings({}))
    # The target entry's error, version and metadata this assignment came with (draft record).
    error: int = 0
    version: int = 0
    metadata: str | None = None
    # A worker still on the classic protocol (online migration, model/migration/connect_*.py):
    # its JoinGroup's session timeout and protocols, as a consumer member's record 5 carries them.
    classic_member_metadata: dict[str, Any] | None = None

    def copy(self) -> ConnectMember:
        return ConnectMember(self.member_id, self.joined_epoch, self.member_epoch, self.previous_member_epoch,
                             self.state, self.instance_id, self.client_id, self.client_host,
                             self.rebalance_timeout_ms, self.assignors, normalize(self.assigned),
                             normalize(self.pending_revocation), self.error, self.version, self.metadata,
                             self.classic_member_metadata)

    def assignor(self, name: str) -> Assignor | None:
        return next((a for a in self.assignors if a.name == name), None)

    def is_reconciled_to(self, epoch: int) -> bool:
        return self.state == STABLE and self.member_epoch == epoch

    def metadata_equals(self, other: ConnectMember) -> bool:
        return (self.instance_id == other.instance_id and self.client_id == other.client_id
                and self.client_host == other.client_host and self.rebalance_timeout_ms == other.rebalance_timeout_ms
                and self.assignors == other.assignors
                and self.classic_member_metadata == other.classic_member_metadata)

    def assignment_equals(self, other: ConnectMember) -> bool:
        return (self.member_epoch == other.member_epoch and self.previous_member_epoch == other.previous_member_epoch
                and self.state == other.state and normalize(self.assigned) == normalize(other.assigned)
                and normalize(self.pending_revocation) == normalize(other.pending_revocation)
                and (self.error, self.version, self.metadata) == (other.error, other.version, other.metadata))

    def assigned_resources(self) -> Resources:
        return from_holdings(self.assigned)

    def snapshot(self) -> dict[str, Any]:
        return {"joinedEpoch": self.joined_epoch, "memberEpoch": self.member_epoch,
                "previousMemberEpoch": self.previous_member_epoch, "state": STATE_NAMES[self.state],
                "instanceId": self.instance_id, "clientId": self.client_id, "clientHost": self.client_host,
                "rebalanceTimeoutMs": self.rebalance_timeout_ms, "assignors": [a.to_json() for a in self.assignors],
                "assigned": normalize(self.assigned), "pendingRevocation": normalize(self.pending_revocation),
                "error": self.error, "version": self.version, "metadata": self.metadata,
                "classicMemberMetadata": self.classic_member_metadata}
