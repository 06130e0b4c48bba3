"""ProcessId exclusivity over plain streams assignments (usable without a streams group model)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from kgspec.invariants.exclusivity import ACTIVE_TWICE, HeldTask, task_conflicts

Tasks = Mapping[str, AbstractSet[int]]  # subtopology id -> partitions


@dataclass(frozen=True, slots=True)
class StreamsHolding:
    """One member's tasks, by role (assigned plus pending revocation).

    ``demoted``: active tasks pending revocation that the member keeps as a standby or warm-up
    (trunk's in-place demotion, KAFKA-20665; see ``invariants/streams.py``): still active for
    the single-owner rule, but held once on its process.
    """

    process_id: str
    active: Tasks = field(default_factory=dict)
    standby: Tasks = field(default_factory=dict)
    warmup: Tasks = field(default_factory=dict)
    demoted: Tasks = field(default_factory=dict)


def processid_exclusivity(members: Mapping[str, StreamsHolding]) -> list[str]:
    """ProcessId exclusivity (:func:`kgspec.invariants.exclusivity.task_conflicts`).

    Every task has at most one active owner, and no process holds the same task twice, in
    any roles, across its members (KAFKA-20899: no standby on the active's process). A
    member's demoted active task (``StreamsHolding.demoted``) is not held twice on its process.
    """
    held: list[HeldTask] = [
        (mid, h.process_id, role, sub, p, not (role == "active" and p in h.demoted.get(sub, ())))
        for mid in sorted(members) for h in (members[mid],)
        for role, tasks in (("active", h.active), ("standby", h.standby), ("warmup", h.warmup))
        for sub, parts in tasks.items() for p in parts]
    return [f"task {c.subtopology}_{c.partition} is active on both {c.first[0]} and {c.then[0]}"
            if c.kind == ACTIVE_TWICE else
            f"process {c.process} holds task {c.subtopology}_{c.partition} twice: "
            f"{c.first[0]} ({c.first[1]}) and {c.then[0]} ({c.then[1]})"
            for c in task_conflicts(held)]
