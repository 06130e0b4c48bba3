"""Client-side rules: what one KIP-848 client may report owning (``kgspec check --clients``).

The coordinator's view is checked elsewhere; these rules judge a *client* from the calls it
makes, using only what the coordinator told it:

- ``client-owns-only-given``: a client never reports owning a partition it was not given
  (its last assignment, or nothing after it was fenced).
- ``client-revokes-before-gain``: a client acknowledges a revocation before it gains: once
  told to give partitions up, it must report owning none of them in a heartbeat of its own
  before it reports owning any partition it did not own already.

``topicPartitions: null`` and ``assignment: null`` mean "unchanged" and update nothing.
Only fencing errors make a client drop what it owns (it rejoins with nothing); after a
retriable error (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, ...) it keeps its partitions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgspec.invariants.catalogue import CLIENT_OWNS_ONLY_GIVEN, CLIENT_REVOKES_BEFORE_GAIN
from kgspec.model.errors import Errors

# Errors after which a KIP-848 client releases everything and rejoins (or stops).
FENCING_ERRORS = frozenset({Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_MEMBER_EPOCH,
                            Errors.FENCED_INSTANCE_ID, Errors.UNRELEASED_INSTANCE_ID})

Partitions = frozenset[tuple[str, int]]


def partition_set(topic_partitions: Any) -> Partitions | None:
    """``[{topicId, partitions}]`` as a set; None for null."""
    if topic_partitions is None:
        return None
    return frozenset((tp["topicId"], int(p)) for tp in topic_partitions for p in tp.get("partitions") or [])


@dataclass(frozen=True, slots=True)
class ClientProblem:
    rule: str
    member_id: str
    message: str
    given: Partitions
    reported: Partitions


@dataclass(slots=True)
class _Client:
    given: Partitions = frozenset()
    reported: Partitions = frozenset()
    revoking: Partitions = frozenset()  # told to give up, not yet reported given up


@dataclass(slots=True)
class ClientLedger:
    """What each client (by member id) was given and has reported; one per group."""

    clients: dict[str, _Client] = field(default_factory=dict)

    def observe(self, request: Mapping[str, Any], response: Mapping[str, Any]) -> list[ClientProblem]:
        """Check one heartbeat's request, then learn from its response."""
        member_id = request.get("memberId") or response.get("memberId")
        if not isinstance(member_id, str) or not member_id:
            return []
        epoch = request.get("memberEpoch", 0)
        client = self.clients.setdefault(member_id, _Client())
        problems: list[ClientProblem] = []
        reported = partition_set(request.get("topicPartitions"))
        if epoch < 0:
            self.clients.pop(member_id, None)  # left: it owns nothing from now on
            return []
        if reported is not None:
            if epoch > 0 and not reported <= client.given:
                problems.append(ClientProblem(
                    CLIENT_OWNS_ONLY_GIVEN, member_id,
                    f"client {member_id} reports owning {_fmt(reported - client.given)} that it was never given",
                    client.given, reported))
            gains = reported - client.reported
            if epoch > 0 and client.revoking and gains:
                problems.append(ClientProblem(
                    CLIENT_REVOKES_BEFORE_GAIN, member_id,
                    f"client {member_id} reports gaining {_fmt(gains)} before acknowledging the revocation "
                    f"of {_fmt(client.revoking)}", client.given, reported))
            client.reported = reported
            client.revoking = client.revoking & reported
            if epoch == 0:
                client.revoking = frozenset()
        error = response.get("errorCode", 0)
        if error in FENCING_ERRORS:
            self.clients[member_id] = _Client()
        elif error == 0:
            given = partition_set((response.get("assignment") or {}).get("topicPartitions")) \
                if response.get("assignment") is not None else None
            if given is not None:
                client.given = given
                client.revoking = client.reported - given
        return problems


def _fmt(parts: Partitions) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for topic_id, p in sorted(parts):
        out.setdefault(topic_id, []).append(p)
    return out
