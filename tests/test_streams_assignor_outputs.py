"""The streams sticky assignor's outputs pinned as digests (issue #20 item 5).

Taken from the assignor as it was before the CPython rework (object-per-process layout, heaps
with a comparison function), whose small cases were checked against Kafka's own class
(tests/test_streams_assignor.py, scripts/oracle_streams_assignor.py). A faster layout must give
the very same assignment, byte for byte: the member order of the result, the subtopology order
of each member's map and the partitions, for 4.3 (``putIfAbsent``) and trunk
(``computeIfAbsent``) process maps, with and without the standby-on-active-process mutant.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from kgspec.model.streams import SubtopologyTasks, TaskAssignment, TaskMemberSpec, assign_tasks
from kgspec.model.streams.assignor import TaskAssignorError
from kgspec.model.streams.task_api import StickyTaskAssignor

from kgspec.bench.grid import Point
from kgspec.bench.scenarios import streams_input


def canonical(result: TaskAssignment) -> list[object]:
    """Every order the result exposes: members as listed, subtopologies as listed, partitions sorted."""
    return [[[m, [[s, sorted(ps)] for s, ps in tasks.items()]] for m, tasks in by_member.items()]
            for by_member in (result.active, result.standby)]


def digest(items: list[object]) -> str:
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]


# --- JMH points (StreamsStickyAssignorBenchmark's inputs, kgspec/bench/scenarios.py) ----------

# label -> [4.3 digest, trunk digest]
JMH_DIGESTS = {
    "streams 1000m 100x100 sb0 mpp1 full": ["c5d47aded6716291", "1e5d2efac2e28728"],
    "streams 1000m 100x100 sb0 mpp1 incr": ["b139adb6970bef1f", "b139adb6970bef1f"],
    "streams 1000m 100x100 sb0 mpp50 full": ["ffbc747672e713ae", "ffbc747672e713ae"],
    "streams 1000m 100x100 sb0 mpp50 incr": ["cc2418a6b3c2781d", "cc2418a6b3c2781d"],
    "streams 1000m 100x100 sb1 mpp1 full": ["6411b973ae6f5efa", "4be97feb0b91ac91"],
    "streams 1000m 100x100 sb1 mpp1 incr": ["7659eaa5cb040d52", "7659eaa5cb040d52"],
    "streams 1000m 100x100 sb1 mpp50 full": ["54e2c4d08ff4f2b9", "54e2c4d08ff4f2b9"],
    "streams 1000m 100x100 sb1 mpp50 incr": ["4f9bed328226e10d", "4f9bed328226e10d"],
    "streams 100m 100x10 sb0 mpp1 full": ["0558172142a78d15", "30f1e3104e2b3e17"],
    "streams 100m 100x10 sb0 mpp1 incr": ["70421241d2fd262a", "70421241d2fd262a"],
    "streams 100m 100x10 sb0 mpp50 full": ["f0f831657b9fca50", "f0f831657b9fca50"],
    "streams 100m 100x10 sb0 mpp50 incr": ["7f50a6551719223f", "7f50a6551719223f"],
    "streams 100m 100x10 sb1 mpp1 full": ["06ed82c168363828", "81ead7f1ad54c173"],
    "streams 100m 100x10 sb1 mpp1 incr": ["47fba3e61fb44cc7", "47fba3e61fb44cc7"],
    "streams 100m 100x10 sb1 mpp50 full": ["fddab7e45c7a33b1", "fddab7e45c7a33b1"],
    "streams 100m 100x10 sb1 mpp50 incr": ["9cf63f2c66f36b38", "9cf63f2c66f36b38"],
    "streams 100m 100x100 sb0 mpp1 full": ["3bb987006e370c69", "736747eee7f52476"],
    "streams 100m 100x100 sb0 mpp1 incr": ["87f88bbdf922c4fd", "87f88bbdf922c4fd"],
    "streams 100m 100x100 sb0 mpp50 full": ["f6ac46bb92df047e", "f6ac46bb92df047e"],
    "streams 100m 100x100 sb0 mpp50 incr": ["283258031beca521", "283258031beca521"],
    "streams 100m 100x100 sb1 mpp1 full": ["d92d689d99dac40f", "f488ec25cd5c7638"],
    "streams 100m 100x100 sb1 mpp1 incr": ["1be148692582053e", "1be148692582053e"],
    "streams 100m 100x100 sb1 mpp50 full": ["b293a6360eeec373", "b293a6360eeec373"],
    "streams 100m 100x100 sb1 mpp50 incr": ["4b252e8ca26d5c24", "4b252e8ca26d5c24"],
    "streams 100m 10x10 sb0 mpp1 full": ["8e0a239cdc60ffb2", "c6f8879163c2b229"],
    "streams 100m 10x10 sb0 mpp1 incr": ["85b8cd917558e7ea", "85b8cd917558e7ea"],
    "streams 100m 10x10 sb0 mpp50 full": ["dd2a116ccf48908a", "dd2a116ccf48908a"],
    "streams 100m 10x10 sb0 mpp50 incr": ["e8dcb8c193ffd08c", "e8dcb8c193ffd08c"],
    "streams 100m 10x10 sb1 mpp1 full": ["415e0069eae36190", "da8481f3aa677485"],
    "streams 100m 10x10 sb1 mpp1 incr": ["3769e10c6ca7ec6c", "3769e10c6ca7ec6c"],
    "streams 100m 10x10 sb1 mpp50 full": ["0a7079e0e2604788", "0a7079e0e2604788"],
    "streams 100m 10x10 sb1 mpp50 incr": ["f5ca54dfe05707d7", "f5ca54dfe05707d7"],
    "streams 100m 10x100 sb0 mpp1 full": ["5b73112159d4d919", "2e14a900aefc4da2"],
    "streams 100m 10x100 sb0 mpp1 incr": ["c74338b4c1efd253", "c74338b4c1efd253"],
    "streams 100m 10x100 sb0 mpp50 full": ["8c4b597c134de8af", "8c4b597c134de8af"],
    "streams 100m 10x100 sb0 mpp50 incr": ["f35d662c079c3012", "f35d662c079c3012"],
    "streams 100m 10x100 sb1 mpp1 full": ["02e28b5f3e2d1874", "a447337663e6fcac"],
    "streams 100m 10x100 sb1 mpp1 incr": ["39536d38f057e1ff", "39536d38f057e1ff"],
    "streams 100m 10x100 sb1 mpp50 full": ["b91db66bbfd05103", "b91db66bbfd05103"],
    "streams 100m 10x100 sb1 mpp50 incr": ["2047d0c7b6e92376", "2047d0c7b6e92376"],
}


def _jmh_points() -> dict[str, Point]:
    points = [Point("streams", m, inc, partitions=p, subtopologies=s, standby=sb, members_per_process=pp)
              for m in (100,) for p in (10, 100) for s in (10, 100) for sb in (0, 1) for pp in (1, 50)
              for inc in (False, True)]
    points += [Point("streams", 1000, inc, partitions=100, subtopologies=100, standby=sb, members_per_process=pp)
               for sb in (0, 1) for pp in (1, 50) for inc in (False, True)]
    return {p.label: p for p in points}


JMH_POINTS = _jmh_points()


@pytest.mark.parametrize("label", sorted(JMH_POINTS))
def test_output_unchanged_at_jmh_point(label: str) -> None:
    data = streams_input(JMH_POINTS[label], StickyTaskAssignor()).spec
    got = [digest(canonical(assign_tasks(data.members, data.subtopologies, data.num_standby_replicas,
                                         compute_if_absent=trunk))) for trunk in (False, True)]
    assert got == JMH_DIGESTS[label]


# --- 2,000 random small groups (fixed seed), messy inputs included -----------------------

SUBTOPOLOGY_IDS = ("0", "1", "10", "2", "a", "B", "s\u00e9", "\U0001f600x", "\uff21")


def random_group(rng: random.Random, scale: int) -> tuple[list[TaskMemberSpec], list[SubtopologyTasks], int]:
    """Members over few processes (so members of one process compete), previous actives that may
    overlap or point past a subtopology's tasks, previous standbys anywhere, reported offsets."""
    ids = rng.sample(SUBTOPOLOGY_IDS, rng.randint(1, 4))
    subs = [SubtopologyTasks(sid, rng.randint(1, 7 * scale), rng.random() < 0.6) for sid in ids]
    n_processes = rng.randint(1, 5 * scale)
    n_members = rng.randint(0, 9 * scale)
    tasks = [(s.subtopology_id, p) for s in subs for p in range(s.num_tasks + 1)]  # +1: out of range
    members = []
    for i in range(n_members):
        active: dict[str, set[int]] = {}
        standby: dict[str, set[int]] = {}
        offsets: dict[str, dict[int, int]] = {}
        for sid, p in tasks:
            roll = rng.random()
            if roll < 0.25:
                active.setdefault(sid, set()).add(p)
            elif roll < 0.4:
                standby.setdefault(sid, set()).add(p)
            if rng.random() < 0.15:
                offsets.setdefault(sid, {})[p] = rng.choice((0, 5, 5, 50, rng.randint(0, 100)))
        members.append(TaskMemberSpec(
            f"m{rng.randint(0, 30)}-{i}", f"p{rng.randint(0, n_processes - 1)}",
            {s: frozenset(ps) for s, ps in active.items()}, {s: frozenset(ps) for s, ps in standby.items()},
            offsets))
    return members, subs, rng.choice((0, 1, 1, 2, 3))


RANDOM_DIGEST = "212ba388925b6a9e"


def test_output_unchanged_on_random_groups() -> None:
    rng = random.Random(20_05)
    outcomes: list[object] = []
    for n in range(2000):
        members, subs, replicas = random_group(rng, 5 if n % 10 == 0 else 1)
        trunk, mutant = n % 2 == 1, n % 7 == 3
        try:
            result = assign_tasks(members, subs, replicas, allow_standby_on_active_process=mutant,
                                  compute_if_absent=trunk)
        except TaskAssignorError as exc:
            outcomes.append(str(exc))
        else:
            outcomes.append(canonical(result))
    assert digest(outcomes) == RANDOM_DIGEST
