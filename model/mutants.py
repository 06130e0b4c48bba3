"""The catalogue of seeded protocol bugs (mutants), switchable at run time.

Each mutant is modelled on a real failure. Model code asks ``mutants.active(name)``;
the fuzzer, the Z3 encodings and the simulator switch them on by name. The
unmutated model has none active. Names are stable: tests and CLI flags use them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Mutant:
    name: str
    protocol: str  # "consumer", "streams" or "any"
    summary: str
    origin: str


CATALOGUE: dict[str, Mutant] = {
    m.name: m
    for m in (
        Mutant("lost-partition-epoch", "consumer",
               "A revoked partition assigned back to the same member loses its partition epoch, "
               "so another member can be granted it while it is still owned.",
               "KAFKA-16147"),
        Mutant("no-withholding", "consumer",
               "The coordinator sends each member its full target, with no withholding of "
               "partitions other members still own.",
               "crabka #521"),
        Mutant("grant-before-ack", "any",
               "A partition or task is granted before its previous owner acknowledged revocation "
               "(the unreleased check ignores pending revocations).",
               "KIP-848 reconciliation rule"),
        Mutant("bump-while-revoking", "any",
               "A member's epoch moves to the target epoch while it still has revocations pending.",
               "KIP-848 epoch rule"),
        Mutant("no-session-fencing", "any",
               "Session expiry does not fence the member: it keeps its partitions forever.",
               "KIP-848 session timeout"),
        Mutant("accept-stale-epoch", "any",
               "Any member epoch lower than the current one is accepted as a heartbeat.",
               "throwIfConsumerGroupMemberEpochIsInvalid"),
        Mutant("lost-response-no-subset", "any",
               "The lost-response rule accepts the previous epoch without checking that the "
               "owned partitions are a subset of the assigned ones.",
               "throwIfConsumerGroupMemberEpochIsInvalid"),
        Mutant("standby-on-active-process", "streams",
               "The sticky task assignor places a standby on the process that holds the active task.",
               "KAFKA-20899"),
        Mutant("replay-drops-tombstone", "any",
               "Replay ignores member tombstones, so a fenced member comes back after failover.",
               "coordinator load (GroupMetadataManager.replay)"),
        Mutant("assignor-double-assign", "any",
               "The assignor assigns one partition (or active task) to two members.",
               "assignor validity"),
        Mutant("commit-accepts-stale-epoch", "consumer",
               "An OffsetCommit at an older member epoch is accepted without checking that the member "
               "still holds the partitions (a zombie's commit overwrites the new owner's offsets).",
               "KIP-1251 createAssignmentEpochValidator"),
    )
}


class Mutants:
    """The set of active mutants; immutable so one instance can be shared."""

    __slots__ = ("_active",)

    def __init__(self, names: frozenset[str] | set[str] | tuple[str, ...] = frozenset()) -> None:
        unknown = set(names) - set(CATALOGUE)
        if unknown:
            raise ValueError(f"unknown mutant(s): {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(sorted(CATALOGUE))}")
        self._active = frozenset(names)

    def active(self, name: str) -> bool:
        return name in self._active

    @property
    def names(self) -> frozenset[str]:
        return self._active

    def __bool__(self) -> bool:
        return bool(self._active)


NONE = Mutants()
