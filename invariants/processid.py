"""ProcessId exclusivity over plain streams assignments (usable without a streams group model)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

PROCESSID_EXCLUSIVITY = "processid-exclusivity"

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
    """ProcessId exclusivity.

    Every task has at most one active owner, and no process holds the same task twice, in
    any roles, across its members (KAFKA-20899: no standby on the active's process). A
    member's demoted active task (``StreamsHolding.demoted``) is not held twice on its process.
    """
    problems: list[str] = []
    active_owner: dict[tuple[str, int], str] = {}
    held: dict[tuple[str, tuple[str, int]], str] = {}
    for mid in sorted(members):
        h = members[mid]
        for role, tasks in (("active", h.active), ("standby", h.standby), ("warmup", h.warmup)):
            for sub, parts in tasks.items():
                for p in parts:
                    task = (sub, p)
                    if role == "active":
                        first = active_owner.setdefault(task, mid)
                        if first != mid:
                            problems.append(f"task {sub}_{p} is active on both {first} and {mid}")
                        if p in h.demoted.get(sub, ()):
                            continue
                    where = f"{mid} ({role})"
                    prior = held.setdefault((h.process_id, task), where)
                    if prior != where:
                        problems.append(f"process {h.process_id} holds task {sub}_{p} twice: "
                                        f"{prior} and {where}")
    return problems
