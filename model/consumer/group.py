"""Consumer group state (Kafka's ``ConsumerGroup``), with the indexes Kafka derives.

Hard state is what the records carry: epochs, metadata hash, members, targets,
assignment metadata, resolved regular expressions. Derived state (partition epochs,
static-member map, subscription counts, the group state) is maintained by
:meth:`ConsumerGroup.put_member` / :meth:`ConsumerGroup.remove_member`, exactly where
Kafka maintains it, so the live model and a replay rebuild the same thing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from kgspec.model.consumer.member import (
    STABLE,
    STATE_NAMES,
    ConsumerMember,
)
from kgspec.model.errors import member_or_throw
from kgspec.model.javaorder import timeline_order
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.reconcile import Holding, member_lifecycle_state
from kgspec.spec import groups as groups_spec

# The ``consumer-group`` machine's state names (spec/groups.py); Kafka's wire names ("Stable")
# appear only in describe and list responses (spec.groups.DESCRIBED_NAMES).
EMPTY, ASSIGNING, RECONCILING, STABLE_STATE, DEAD = (
    groups_spec.EMPTY, groups_spec.ASSIGNING, groups_spec.RECONCILING, groups_spec.STABLE, groups_spec.DEAD)


class OwnershipConflict(Exception):
    """Kafka's IllegalStateException in ``addPartitionEpochs``: a partition got two owners."""


@dataclass(frozen=True, slots=True)
class ResolvedRegex:
    topics: frozenset[str]
    version: int
    timestamp: int


class ConsumerGroup:
    __slots__ = (
        "assignment_epoch",
        "assignment_timestamp",
        "group_epoch",
        "group_id",
        "has_partition_metadata_record",
        "lost_partition_epoch",
        "members",
        "members_room",
        "metadata_hash",
        "mutants",
        "partition_epochs",
        "resolved_regexes",
        "static_members",
        "subscribed_names",
        "subscribed_regexes",
        "target",
        "unreconciled",
    )

    def __init__(self, group_id: str, initial_epoch: int, mutants: Mutants = NONE) -> None:
        self.group_id = group_id
        self.group_epoch = initial_epoch
        self.metadata_hash = 0
        self.assignment_epoch = initial_epoch
        self.assignment_timestamp = 0
        self.members: dict[str, ConsumerMember] = {}
        # members is Kafka's TimelineHashMap: its order follows the largest size + 1 any put saw.
        self.members_room = 0
        self.target: dict[str, dict[str, frozenset[int]]] = {}
        self.static_members: dict[str, str] = {}
        # topic id -> partition -> member epoch of its owner (Kafka's currentPartitionEpoch)
        self.partition_epochs: dict[str, dict[int, int]] = {}
        self.subscribed_names: Counter[str] = Counter()
        self.subscribed_regexes: Counter[str] = Counter()
        self.resolved_regexes: dict[str, ResolvedRegex] = {}
        self.has_partition_metadata_record = False
        # Members not reconciled to the assignment epoch, for an O(1) state derivation.
        self.unreconciled: set[str] = set()
        self.mutants = mutants
        self.lost_partition_epoch = mutants.active("lost-partition-epoch")  # looked up at every update

    # --- derived state -------------------------------------------------------------

    @property
    def state(self) -> str:
        """``ConsumerGroup.maybeUpdateGroupState``: the spec's derivation of the ``consumer-group``
        state (``spec.groups.derive_consumer_group_state``), in O(1) from the ``unreconciled`` index."""
        return groups_spec.derive_consumer_group_state(
            len(self.members), self.group_epoch, self.assignment_epoch, not self.unreconciled)

    def _refresh_reconciled(self, member: ConsumerMember) -> None:
        if member.state == STABLE and member.member_epoch == self.assignment_epoch:
            self.unreconciled.discard(member.member_id)
        else:
            self.unreconciled.add(member.member_id)

    def set_assignment_metadata(self, epoch: int, timestamp: int) -> None:
        self.assignment_epoch = epoch
        self.assignment_timestamp = timestamp
        self.unreconciled = {  # not m.is_reconciled_to(epoch), inline as in _refresh_reconciled
            m.member_id for m in self.members.values() if not (m.state == STABLE and m.member_epoch == epoch)
        }

    def current_partition_epoch(self, topic_id: str, partition: int) -> int:
        return self.partition_epochs.get(topic_id, {}).get(partition, -1)

    def _add_partition_epochs(self, holding: Holding, epoch: int, member_id: str) -> None:
        for topic_id, parts in holding.items():
            slot = self.partition_epochs.setdefault(topic_id, {})
            for p in parts:
                prev = slot.get(p)
                if prev is not None and prev >= epoch:
                    raise OwnershipConflict(
                        f"partition {topic_id}-{p} is already owned at epoch {prev}; "
                        f"member {member_id} cannot take it at epoch {epoch}"
                    )
                slot[p] = epoch

    def _remove_partition_epochs(self, holding: Holding, epoch: int) -> None:
        for topic_id, parts in holding.items():
            slot = self.partition_epochs.get(topic_id)
            if slot is None:
                continue
            for p in parts:
                if slot.get(p) == epoch:
                    del slot[p]
            if not slot:
                del self.partition_epochs[topic_id]

    def member_order(self) -> list[str]:
        """``members()`` as Kafka iterates its ``TimelineHashMap``."""
        return timeline_order(self.members, self.members_room)

    def put_member(self, member: ConsumerMember) -> None:
        """``updateMember``: store the member and maintain every derived index."""
        old = self.members.get(member.member_id)
        # An unchanged subscription (most updates) would be taken out of the counters and put
        # back: the counts come out the same, so leave them.
        resubscribe = old is None or old.subscribed_topic_names != member.subscribed_topic_names \
            or old.subscribed_topic_regex != member.subscribed_topic_regex
        if old is not None:
            self._remove_partition_epochs(old.assigned, old.member_epoch)
            if old.pending_revocation:  # mostly empty: no call for nothing
                self._remove_partition_epochs(old.pending_revocation, old.member_epoch)
            if resubscribe:
                self._unsubscribe(old)
        if self.lost_partition_epoch and old is not None:
            # KAFKA-16147: a partition moving from pending revocation back to assigned
            # for the same member lost its epoch, so it looked free to others.
            back = {
                t: {p: e for p, e in parts.items() if p in old.pending_revocation.get(t, {})}
                for t, parts in member.assigned.items()
            }
            visible = {
                t: {p: e for p, e in parts.items() if p not in back.get(t, {})}
                for t, parts in member.assigned.items()
            }
            self._add_partition_epochs(visible, member.member_epoch, member.member_id)
        else:
            self._add_partition_epochs(member.assigned, member.member_epoch, member.member_id)
        if member.pending_revocation:
            self._add_partition_epochs(member.pending_revocation, member.member_epoch, member.member_id)
        self.members_room = max(self.members_room, len(self.members) + 1)
        self.members[member.member_id] = member
        if resubscribe:
            self._subscribe(member)
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        self._refresh_reconciled(member)

    def remove_member(self, member_id: str) -> ConsumerMember | None:
        old = self.members.pop(member_id, None)
        if old is None:
            return None
        self._remove_partition_epochs(old.assigned, old.member_epoch)
        self._remove_partition_epochs(old.pending_revocation, old.member_epoch)
        self._unsubscribe(old)
        if old.instance_id is not None and self.static_members.get(old.instance_id) == member_id:
            del self.static_members[old.instance_id]
        self.unreconciled.discard(member_id)
        return old

    def _subscribe(self, member: ConsumerMember) -> None:
        self.subscribed_names.update(member.subscribed_topic_names)
        if member.subscribed_topic_regex:
            self.subscribed_regexes[member.subscribed_topic_regex] += 1

    def _unsubscribe(self, member: ConsumerMember) -> None:
        self.subscribed_names.subtract(member.subscribed_topic_names)
        for name in member.subscribed_topic_names:
            if self.subscribed_names[name] <= 0:
                del self.subscribed_names[name]
        regex = member.subscribed_topic_regex
        if regex:
            self.subscribed_regexes[regex] -= 1
            if self.subscribed_regexes[regex] <= 0:
                del self.subscribed_regexes[regex]

    # --- lookups ---------------------------------------------------------------------

    def member_or_throw(self, member_id: str) -> ConsumerMember:
        """The member, or Kafka's UNKNOWN_MEMBER_ID ("Member … is not a member of group …")."""
        return member_or_throw(self.members, member_id, self.group_id)

    def lifecycle_state(self, member: ConsumerMember) -> str:
        """``member``'s state in the ``consumer-member`` machine (``reconcile.member_lifecycle_state``)."""
        return member_lifecycle_state(member, self.members, self.static_member, STATE_NAMES)

    def static_member(self, instance_id: str | None) -> ConsumerMember | None:
        if instance_id is None:
            return None
        member_id = self.static_members.get(instance_id)
        return self.members.get(member_id) if member_id is not None else None

    def target_of(self, member_id: str, instance_id: str | None = None) -> dict[str, frozenset[int]]:
        """``targetAssignment(memberId, instanceId)``: a replaced static member inherits its target."""
        found = self.target.get(member_id)
        if found is not None:
            return found
        if instance_id is not None:
            previous = self.static_members.get(instance_id)
            if previous is not None:
                return self.target.get(previous, {})
        return {}

    def snapshot(self) -> dict[str, Any]:
        """Everything the records determine, for replay-equivalence comparison."""
        return {
            "groupId": self.group_id,
            "groupEpoch": self.group_epoch,
            "metadataHash": self.metadata_hash,
            "assignmentEpoch": self.assignment_epoch,
            "assignmentTimestamp": self.assignment_timestamp,
            "state": self.state,
            "members": {mid: _member_snapshot(m) for mid, m in sorted(self.members.items())},
            "target": {mid: {t: sorted(p) for t, p in sorted(a.items())}
                       for mid, a in sorted(self.target.items())},
            "staticMembers": dict(sorted(self.static_members.items())),
            "partitionEpochs": {t: dict(sorted(p.items())) for t, p in sorted(self.partition_epochs.items())},
            "resolvedRegexes": {r: sorted(v.topics) for r, v in sorted(self.resolved_regexes.items())},
        }


def _member_snapshot(m: ConsumerMember) -> dict[str, Any]:
    return {
        "instanceId": m.instance_id, "rackId": m.rack_id, "clientId": m.client_id,
        "clientHost": m.client_host, "subscribedTopicNames": list(m.subscribed_topic_names),
        "subscribedTopicRegex": m.subscribed_topic_regex, "rebalanceTimeoutMs": m.rebalance_timeout_ms,
        "serverAssignor": m.server_assignor, "memberEpoch": m.member_epoch,
        "previousMemberEpoch": m.previous_member_epoch, "state": m.state,
        "assigned": {t: dict(sorted(p.items())) for t, p in sorted(m.assigned.items())},
        "pendingRevocation": {t: dict(sorted(p.items())) for t, p in sorted(m.pending_revocation.items())},
    }
