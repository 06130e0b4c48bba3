"""StreamsStickyAssignorBenchmark points (jmh-benchmarks/.../assignor/), run with --benchmark-only.

One member per process, one source topic per subtopology, every second subtopology stateful,
num.standby.replicas = 1. FULL: nobody owns anything. INCREMENTAL: M-1 members hold the
result of a FULL run over themselves, then one new member joins.
Kafka (Java, measured on this machine, assignor-perf.md §2): 100x1k FULL 0.411 ms / INCR
0.261 ms; 1000x10k FULL 5.12 ms / INCR 4.93 ms.
"""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.streams import SubtopologyTasks, TaskMemberSpec, assign_tasks


def _subtopologies(count: int, partitions: int) -> list[SubtopologyTasks]:
    return [SubtopologyTasks(f"subtopology-{i}", partitions, i % 2 == 0) for i in range(count)]


def _members(count: int) -> list[TaskMemberSpec]:
    return [TaskMemberSpec(f"member-{i}", f"process-{i}") for i in range(count)]


def _incremental(count: int, subs: list[SubtopologyTasks]) -> list[TaskMemberSpec]:
    old = _members(count - 1)
    prev = assign_tasks(old, subs, 1)
    kept = [TaskMemberSpec(m.member_id, m.process_id, prev.active[m.member_id], prev.standby[m.member_id])
            for m in old]
    return [*kept, TaskMemberSpec(f"member-{count - 1}", f"process-{count - 1}")]


CASES = [
    pytest.param(100, 10, 100, "FULL", id="100m-10x100-full"),
    pytest.param(100, 10, 100, "INCREMENTAL", id="100m-10x100-incr"),
    pytest.param(1000, 100, 100, "FULL", id="1000m-100x100-full"),
    pytest.param(1000, 100, 100, "INCREMENTAL", id="1000m-100x100-incr"),
]


@pytest.mark.parametrize(("members", "subtopologies", "partitions", "kind"), CASES)
def test_bench_sticky_task_assignor(benchmark: Any, members: int, subtopologies: int,
                                    partitions: int, kind: str) -> None:
    benchmark.group = "streams-sticky"
    subs = _subtopologies(subtopologies, partitions)
    specs = _members(members) if kind == "FULL" else _incremental(members, subs)
    result = benchmark(assign_tasks, specs, subs, 1)
    total = subtopologies * partitions
    assert sum(len(p) for m in result.active.values() for p in m.values()) == total
    assert sum(len(p) for m in result.standby.values() for p in m.values()) == total // 2
