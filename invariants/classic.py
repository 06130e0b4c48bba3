"""Classic group invariants, over GroupMetadata records and over JoinGroup responses.

- ``classic-generation-monotonic``: a group's generation never goes back (records and
  successful JoinGroup responses alike);
- ``classic-one-leader``: a stored group's leader is one of its members (none when it has
  no members);
- ``classic-one-protocol``: every successful JoinGroup response of one generation names the
  same protocol (the leader may change within a generation: a replaced static leader);
- ``classic-stable-assignment``: a stored non-empty generation has a protocol and an
  assignment for every member (what the leader's SyncGroup gave, or empty).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgspec.invariants.catalogue import (
    CLASSIC_GENERATION_MONOTONIC,
    CLASSIC_ONE_LEADER,
    CLASSIC_ONE_PROTOCOL,
    CLASSIC_STABLE_ASSIGNMENT,
)


@dataclass(slots=True)
class ClassicHistory:
    """What the checks remember of one group: the highest generation, each generation's protocol."""

    generation: int | None = None
    protocols: dict[int, str | None] = field(default_factory=dict)

    def see_generation(self, generation: int, where: str) -> list[tuple[str, str]]:
        problems = []
        if self.generation is not None and generation < self.generation:
            problems.append((CLASSIC_GENERATION_MONOTONIC,
                             f"{where} has generation {generation} after generation {self.generation}"))
        self.generation = generation if self.generation is None else max(self.generation, generation)
        return problems


def record_problems(history: ClassicHistory, value: dict[str, Any] | None) -> list[tuple[str, str]]:
    """Checks of one GroupMetadata record value. A tombstone deletes the group: a group created
    later under that id starts afresh at generation 0 (an empty streams or consumer group
    replaced by a JoinGroup, KAFKA-19570), so the history restarts."""
    if value is None:
        history.generation = None
        history.protocols.clear()
        return []
    generation = value.get("generation")
    if not isinstance(generation, int):
        return []
    problems = history.see_generation(generation, "the GroupMetadata record")
    members = value.get("members") or []
    ids = [m.get("memberId") for m in members]
    leader = value.get("leader")
    if members and leader not in ids:
        problems.append((CLASSIC_ONE_LEADER, f"generation {generation}: leader {leader!r} is not a member ({ids})"))
    if not members and leader is not None:
        problems.append((CLASSIC_ONE_LEADER, f"generation {generation}: leader {leader!r} in a group with no members"))
    if members and value.get("protocol") is None:
        problems.append((CLASSIC_STABLE_ASSIGNMENT, f"generation {generation} has members but no protocol"))
    missing = [m.get("memberId") for m in members if not isinstance(m.get("assignment"), str)]
    if missing:
        problems.append((CLASSIC_STABLE_ASSIGNMENT, f"generation {generation}: members {missing} have no assignment"))
    return problems


def join_response_problems(history: ClassicHistory, response: dict[str, Any]) -> list[tuple[str, str]]:
    """Checks of one successful JoinGroup response as the implementation sent it."""
    if response.get("errorCode", 0) != 0 or not isinstance(response.get("generationId"), int):
        return []
    generation: int = response["generationId"]
    problems = history.see_generation(generation, "the JoinGroup response")
    named = response.get("protocolName") or None
    seen = history.protocols.setdefault(generation, named)
    if seen != named:
        problems.append((CLASSIC_ONE_PROTOCOL, f"generation {generation} uses protocol {seen!r}, "
                                       f"but this response names {named!r}"))
    return problems
