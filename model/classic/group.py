"""A classic group (``classic/ClassicGroup.java``): members, leader, protocol vote, generation.

State changes go through the compiled ``classic-group`` table (``spec/classic.py``), so a
transition Kafka's ``ClassicGroupState.validPreviousStates`` forbids raises here too.
"""

from __future__ import annotations

from typing import Any

from kgspec.model.classic.javamap import JavaHashMap
from kgspec.model.classic.member import ClassicMember, Protocols
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.javaorder import java_hashmap_order
from kgspec.spec.classic import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE
from kgspec.spec.tables import fire

MACHINE = "classic-group"
NO_LEADER = ""


class ClassicGroup:
    def __init__(self, group_id: str, state_timestamp: int | None, *, state: str = EMPTY,
                 generation_id: int = 0, protocol_type: str | None = None,
                 protocol_name: str | None = None, leader_id: str | None = None) -> None:
        self.group_id = group_id
        self.state = state
        self.previous_state = DEAD
        self.state_timestamp = state_timestamp  # currentStateTimestamp (None: unknown, -1 in records)
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.generation_id = generation_id
        self.leader_id = leader_id
        self.members: JavaHashMap[ClassicMember] = JavaHashMap()
        self.static_members: dict[str, str] = {}  # instance id -> member id
        self.pending_join: set[str] = set()
        self.pending_sync: set[str] = set()
        self.num_awaiting_join = 0
        self.supported_protocols: dict[str, int] = {}
        self.new_member_added = False
        # (delayMs, remainingMs) of the scheduled tryCompleteInitialRebalanceElseSchedule.
        self.initial_delay = (0, 0)
        # kip (seed 004): (generation, leader, protocol) a trace shows; an input, see seed_choices.py.
        self.seed_choice: tuple[int, str, str] | None = None

    # --- state -------------------------------------------------------------------------

    def transition(self, trigger: str, now: int) -> None:
        """``transitionTo``: the destination comes from the compiled table."""
        dest = fire(MACHINE, self.state, trigger)
        self.previous_state, self.state = self.state, dest
        self.state_timestamp = now

    def can_rebalance(self) -> bool:
        return self.state in (STABLE, COMPLETING_REBALANCE, EMPTY)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id is not None and self.leader_id == member_id

    @property
    def is_empty(self) -> bool:
        return self.state == EMPTY

    # --- membership ----------------------------------------------------------------------

    def add(self, member: ClassicMember) -> None:
        if member.instance_id is not None:
            if member.instance_id in self.static_members:
                raise ValueError(f"Static member with groupInstanceId={member.instance_id} is already a member")
            self.static_members[member.instance_id] = member.member_id
        if not len(self.members):
            self.protocol_type = member.protocol_type
        if self.protocol_type != member.protocol_type:
            raise ValueError("The group and member's protocol type must be the same.")
        if not self.supports_protocols(member.protocol_type, member.plain_protocols()):
            raise ValueError("None of the member's protocols can be supported.")
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self._count_protocols(member, +1)
        if member.awaiting_join:
            self.num_awaiting_join += 1
        self.pending_join.discard(member.member_id)

    def remove(self, member_id: str) -> None:
        removed = self.members.pop(member_id)
        if removed is not None:
            self._count_protocols(removed, -1)
            if removed.awaiting_join:
                self.num_awaiting_join -= 1
            if removed.instance_id is not None:
                self.static_members.pop(removed.instance_id, None)
        if self.is_leader(member_id):
            # Kafka: the first key of the members HashMap, or none.
            keys = self.members.keys()
            self.leader_id = keys[0] if keys else None
        self.pending_join.discard(member_id)
        self.pending_sync.discard(member_id)

    def update_member(self, member: ClassicMember, protocols: Protocols, rebalance_timeout_ms: int,
                      session_timeout_ms: int, join_call: Any) -> None:
        self._count_protocols(member, -1)
        member.protocols = protocols
        self._count_protocols(member, +1)
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if join_call is not None and not member.awaiting_join:
            self.num_awaiting_join += 1
        elif join_call is None and member.awaiting_join:
            self.num_awaiting_join -= 1
        member.join_call = join_call

    def replace_static_member(self, instance_id: str, old_id: str, new_id: str) -> tuple[ClassicMember, ClassicMember]:
        """The new member copies the old one (assignment included) and takes over the leadership.

        Returns (old, new); the caller fences the old member's parked calls.
        """
        old = self.members.pop(old_id)
        if old is None:
            raise ValueError(f"Cannot replace non-existing member id {old_id}")
        new = ClassicMember(new_id, old.instance_id, old.client_id, old.client_host, old.rebalance_timeout_ms,
                            old.session_timeout_ms, old.protocol_type, old.protocols, old.assignment)
        self.members[new_id] = new
        if self.is_leader(old_id):
            self.leader_id = new_id
        self.static_members[instance_id] = new_id
        return old, new

    def _count_protocols(self, member: ClassicMember, delta: int) -> None:
        for name, _ in member.protocols:
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + delta

    def validate_member(self, member_id: str, instance_id: str | None) -> None:
        if instance_id is not None:
            existing = self.static_members.get(instance_id)
            if existing is None:
                raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID)
            if existing != member_id:
                raise CoordinatorError(Errors.FENCED_INSTANCE_ID,
                                       f"instance {instance_id} belongs to member {existing}")
        if member_id not in self.members:
            raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID)

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_awaiting_join and not self.pending_join

    def not_yet_rejoined(self) -> list[ClassicMember]:
        return [m for m in self.members.values() if not m.awaiting_join]

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def maybe_elect_new_joined_leader(self) -> bool:
        """Keep the leader if it rejoined, else the first member (map order) that did."""
        if self.leader_id is None:
            return False
        leader = self.members.get(self.leader_id)
        if leader is not None and leader.awaiting_join:
            return True
        for member in self.members.values():
            if member.awaiting_join:
                self.leader_id = member.member_id
                return True
        return False

    # --- protocols -----------------------------------------------------------------------

    def supports_protocols(self, protocol_type: str, names: set[str]) -> bool:
        if self.state == EMPTY:
            return protocol_type != "" and bool(names)
        n = len(self.members)
        return self.protocol_type == protocol_type and any(self.supported_protocols.get(p, 0) == n for p in names)

    def select_protocol(self) -> str:
        """``selectProtocol``: each member votes for its first candidate; most votes wins,
        ties going to the first in the votes ``HashMap``'s order (``Stream.max`` keeps the first)."""
        if not len(self.members):
            raise ValueError("Cannot select protocol for empty group")
        n = len(self.members)
        candidates = {p for p, c in self.supported_protocols.items() if c == n}
        votes: dict[str, int] = {}
        for member in self.members.values():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        best: str | None = None
        for name in java_hashmap_order(votes):
            if best is None or votes[name] > votes[best]:
                best = name
        assert best is not None
        return best

    def init_next_generation(self, now: int) -> None:
        self.generation_id += 1
        if len(self.members):
            self.protocol_name = self.select_protocol()
            self.transition("join_completed", now)
        else:
            self.protocol_name = None
            self.transition("join_completed_empty", now)
        self.pending_sync.clear()

    def current_members(self) -> list[dict[str, Any]]:
        """``currentClassicGroupMembers``: what the leader's JoinGroup response lists."""
        if self.state in (DEAD, PREPARING_REBALANCE):
            raise ValueError(f"Cannot obtain classic member metadata for group {self.group_id} in state {self.state}")
        return [{"memberId": m.member_id, "groupInstanceId": m.instance_id, "metadata": m.metadata(self.protocol_name)}
                for m in self.members.values()]

    def group_assignment(self) -> dict[str, str]:
        return {m.member_id: m.assignment for m in self.members.values()}

    # --- comparison ----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Hard state: what a GroupMetadata record carries (replay rebuilds exactly this)."""
        return {
            "state": self.state, "generationId": self.generation_id, "protocolType": self.protocol_type,
            "protocolName": self.protocol_name, "leader": self.leader_id, "stateTimestamp": self.state_timestamp,
            "members": [{"memberId": m.member_id, "groupInstanceId": m.instance_id, "clientId": m.client_id,
                         "clientHost": m.client_host, "rebalanceTimeoutMs": m.rebalance_timeout_ms,
                         "sessionTimeoutMs": m.session_timeout_ms, "assignment": m.assignment,
                         "metadata": m.metadata(self.protocol_name) if self.protocol_name else None}
                        for m in self.members.values()],
        }
