"""How good an assignment is: validity, balance, stickiness and rack locality.

* validity: consumer — ``validate_assignment`` (each subscribed partition exactly once, only to a
  subscriber); streams — every active task exactly once, no process holding a task twice,
  standbys only of stateful subtopologies (the "processId rules"). A standby count below
  ``min(replicas, processes - 1)`` is reported as ``standbyShortfall``, not as invalid.
* balance: max - min assigned partitions (streams: active tasks, and all tasks) per member.
* stickiness (INCREMENTAL): partitions / active tasks whose owner before still exists but that
  moved to another member.
* rack locality (consumer, racks on): the share of assigned partitions that have a replica in the
  member's rack. Kafka's JMH image registers no broker racks; kgspec's convention follows its
  replica layout (partition p on brokers p % 4 and (p + 1) % 4) with broker b in ``rack{b % 3}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgspec.model.assignors.guarantees import validate_assignment
from kgspec.model.streams.assignor import TaskAssignment
from kgspec.model.streams.guarantees import sticky_guarantee_problems

from .scenarios import RACKS, ConsumerInput, StreamsInput

BROKERS = 4  # AssignorBenchmarkUtils.addTopic: 2 replicas over 4 brokers


@dataclass(slots=True)
class Quality:
    valid: bool
    problems: list[str] = field(default_factory=list)  # the first few, for the report
    problem_count: int = 0
    balance: int = 0  # max - min per member (partitions, or active tasks)
    balance_all: int | None = None  # streams: active + standby
    moved: int | None = None  # INCREMENTAL only
    rack_local: float | None = None  # racks on only
    standby_shortfall: int | None = None  # streams only

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"valid": self.valid, "problemCount": self.problem_count,
                               "problems": self.problems, "balance": self.balance}
        for key, value in (("balanceAll", self.balance_all), ("moved", self.moved),
                           ("rackLocal", self.rack_local), ("standbyShortfall", self.standby_shortfall)):
            if value is not None:
                out[key] = value
        return out


def _keep(problems: list[str]) -> list[str]:
    return problems[:5]


def partition_racks(partition: int) -> frozenset[str]:
    return frozenset(f"rack{b % RACKS}" for b in (partition % BROKERS, (partition + 1) % BROKERS))


def _spread(sizes: list[int]) -> int:
    return max(sizes) - min(sizes) if sizes else 0


def consumer_quality(data: ConsumerInput, result: Mapping[str, Mapping[str, frozenset[int]]],
                     incremental: bool, racks: bool) -> Quality:
    problems = validate_assignment(data.spec, data.topics, result)
    sizes = [sum(len(p) for p in result.get(m, {}).values()) for m in data.spec.members]
    quality = Quality(not problems, _keep(problems), len(problems), _spread(sizes))
    if incremental:
        before = {(t, p): m for m, a in data.previous.items() if m in data.spec.members
                  for t, ps in a.items() for p in ps}
        after = {(t, p): m for m, a in result.items() for t, ps in a.items() for p in ps}
        quality.moved = sum(1 for tp, m in before.items() if after.get(tp, m) != m)
    if racks:
        local = total = 0
        for member_id, member in data.spec.members.items():
            if member.rack_id is None:
                continue
            for parts in result.get(member_id, {}).values():
                total += len(parts)
                local += sum(1 for p in parts if member.rack_id in partition_racks(p))
        quality.rack_local = round(local / total, 4) if total else None
    return quality


def streams_quality(data: StreamsInput, result: TaskAssignment, incremental: bool) -> Quality:
    spec = data.spec
    problems = sticky_guarantee_problems(spec.members, spec.subtopologies, spec.num_standby_replicas, result)
    shortfall = [p for p in problems if " standbys, expected " in p]
    problems = [p for p in problems if " standbys, expected " not in p]
    ids = [m.member_id for m in spec.members]
    actives = [sum(len(p) for p in result.active.get(m, {}).values()) for m in ids]
    totals = [a + sum(len(p) for p in result.standby.get(m, {}).values()) for a, m in zip(actives, ids, strict=True)]
    quality = Quality(not problems, _keep(problems), len(problems), _spread(actives), _spread(totals),
                      standby_shortfall=len(shortfall))
    if incremental and data.previous is not None:
        before = {(s, p): m for m, a in data.previous.active.items() for s, ps in a.items() for p in ps}
        after = {(s, p): m for m, a in result.active.items() for s, ps in a.items() for p in ps}
        quality.moved = sum(1 for task, m in before.items() if after.get(task, m) != m)
    return quality
