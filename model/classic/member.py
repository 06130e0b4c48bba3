"""A classic group member (``classic/ClassicGroupMember.java``).

``protocols`` is the JoinGroup request's protocol list, in request order, as
``(name, metadata)`` with the metadata as Kafka's JSON converters print bytes (base64).
``join_call`` / ``sync_call`` are the parked JoinGroup / SyncGroup calls awaiting their
response (Kafka's ``awaitingJoinFuture`` / ``awaitingSyncFuture``), or None.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgspec.model.classic.parked import ParkedCall

Protocols = tuple[tuple[str, str], ...]
EMPTY_ASSIGNMENT = ""  # Bytes.EMPTY, base64-printed


@dataclass(slots=True)
class ClassicMember:
    member_id: str
    instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: Protocols
    assignment: str = EMPTY_ASSIGNMENT
    join_call: ParkedCall | None = None
    sync_call: ParkedCall | None = None
    is_new: bool = False

    @property
    def is_static(self) -> bool:
        return self.instance_id is not None

    @property
    def awaiting_join(self) -> bool:
        return self.join_call is not None

    @property
    def awaiting_sync(self) -> bool:
        return self.sync_call is not None

    def metadata(self, protocol_name: str | None) -> str:
        for name, metadata in self.protocols:
            if name == protocol_name:
                return metadata
        raise ValueError(f"Member does not support protocol {protocol_name}")

    def has_satisfied_heartbeat(self) -> bool:
        """New members can expire while awaiting join; others awaiting join/sync cannot."""
        if self.is_new:
            return False
        return self.awaiting_join or self.awaiting_sync

    def matches(self, protocols: Protocols) -> bool:
        return self.protocols == protocols  # JoinGroupRequestProtocolCollection.equals: ordered

    def vote(self, candidates: set[str]) -> str:
        for name, _ in self.protocols:
            if name in candidates:
                return name
        raise ValueError("Member does not support any of the candidate protocols")

    def plain_protocols(self) -> set[str]:
        return {name for name, _ in self.protocols}
