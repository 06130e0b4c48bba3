"""The derived-group machines agree with Kafka's maybeUpdateGroupState rule.

An abstract counter model (members n, unreconciled u, group epoch g, assignment
epoch a; streams adds topology/validated epochs) gives each trigger a
precondition and an effect, as documented on the declarations. After every step
the machine's state must equal the derivation from the counters.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from hypothesis import given, settings
from hypothesis import strategies as st
from kgspec.spec import derive_consumer_group_state, derive_streams_group_state
from kgspec.spec.groups import DEAD
from kgspec.spec.tables import TABLES, Table


@dataclass(frozen=True)
class Counters:
    n: int = 0
    u: int = 0
    g: int = 0
    a: int = 0
    topology: int | None = None  # streams: topology epoch, None = no topology record
    validated: int = -1  # streams: validatedTopologyEpoch

    @property
    def ready(self) -> bool:
        return self.topology is not None and self.topology == self.validated


def consumer_state(c: Counters) -> str:
    return derive_consumer_group_state(c.n, c.g, c.a, c.u == 0)


def streams_state(c: Counters) -> str:
    return derive_streams_group_state(c.n, c.topology, c.validated, c.g, c.a, c.u == 0)


Step = Callable[[Counters], Counters | None]


def _left(c: Counters, unreconciled: bool) -> Counters | None:
    if c.n < 2 or (unreconciled and c.u == 0) or (not unreconciled and c.u == c.n):
        return None
    return replace(c, n=c.n - 1, u=c.u - unreconciled, g=c.g + 1)


COMMON: dict[str, Step] = {
    "member_left#unreconciled": lambda c: _left(c, True),
    "member_left#reconciled": lambda c: _left(c, False),
    "member_left_last": lambda c: replace(c, n=0, u=0, g=c.g + 1, a=c.g + 1) if c.n == 1 else None,
    "group_epoch_bumped": lambda c: replace(c, g=c.g + 1) if c.n >= 1 else None,
    "target_assignment_computed": lambda c: replace(c, a=c.g, u=c.n) if c.n >= 1 and c.g > c.a else None,
    "member_reconciled": lambda c: replace(c, u=c.u - 1) if c.u >= 2 else None,
    "all_members_reconciled": lambda c: replace(c, u=0) if c.u == 1 else None,
    "member_unreconciled": lambda c: replace(c, u=c.u + 1) if c.n >= 1 and c.u < c.n else None,
}

CONSUMER: dict[str, Step] = {
    **COMMON,
    "member_joined": lambda c: replace(c, n=c.n + 1, u=c.u + 1, g=c.g + 1),
}

STREAMS: dict[str, Step] = {
    **COMMON,
    "member_joined": lambda c: (replace(c, n=c.n + 1, u=c.u + 1, g=c.g + 1) if c.ready else None),
    "member_joined_topology_not_ready": lambda c: (
        None if c.ready else replace(c, n=c.n + 1, u=c.u + 1, g=c.g + 1,
                                     topology=0 if c.topology is None else c.topology)),
    "topology_validated": lambda c: (
        replace(c, validated=c.topology, g=c.g + 1) if c.n >= 1 and not c.ready else None),
    "topology_invalidated": lambda c: (
        replace(c, validated=-1, g=c.g + 1) if c.n >= 1 and c.ready else None),
}

CASES = {
    "consumer-group": (CONSUMER, consumer_state),
    "streams-group": (STREAMS, streams_state),
}


def trigger_of(step_name: str) -> str:
    return step_name.split("#")[0]


def explore(steps: dict[str, Step], derive: Callable[[Counters], str], table: Table,
            max_members: int = 3, max_epoch: int = 6) -> set[tuple[str, str]]:
    """BFS over bounded counters; check every step; return the (state, trigger) pairs used."""
    covered: set[tuple[str, str]] = set()
    start = Counters()
    seen = {start}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        state = derive(c)
        assert c.a <= c.g
        covered.add((state, "unloaded"))
        assert table.fire(state, "unloaded") == DEAD
        for name, step in steps.items():
            nxt = step(c)
            if nxt is None:
                continue
            trig = trigger_of(name)
            assert table.fire(state, trig) == derive(nxt), (c, name)
            covered.add((state, trig))
            if nxt.n <= max_members and nxt.g <= max_epoch and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return covered


def test_consumer_group_machine_matches_derivation_exhaustively() -> None:
    table = TABLES["consumer-group"]
    covered = explore(CONSUMER, consumer_state, table)
    # Every declared edge is realised by some counter change, and no other is needed.
    assert covered == set(table.edges)


def test_streams_group_machine_matches_derivation_exhaustively() -> None:
    table = TABLES["streams-group"]
    covered = explore(STREAMS, streams_state, table)
    assert covered == set(table.edges)


@settings(max_examples=150, deadline=None)
@given(case=st.sampled_from(sorted(CASES)), data=st.data())
def test_random_sequences_keep_machine_and_derivation_in_step(case: str, data: st.DataObject) -> None:
    steps, derive = CASES[case]
    table = TABLES[case]
    counters, state = Counters(), table.initial
    assert state == derive(counters)
    for _ in range(data.draw(st.integers(0, 40))):
        options = sorted(name for name, step in steps.items() if step(counters) is not None)
        name = data.draw(st.sampled_from(options))
        nxt = steps[name](counters)
        assert nxt is not None
        counters, state = nxt, table.fire(state, trigger_of(name))
        assert state == derive(counters), (name, counters)


def test_derivations_follow_kafka_precedence() -> None:
    assert derive_consumer_group_state(0, 5, 3, False) == "EMPTY"
    assert derive_consumer_group_state(2, 5, 3, True) == "ASSIGNING"
    assert derive_consumer_group_state(2, 5, 5, False) == "RECONCILING"
    assert derive_consumer_group_state(2, 5, 5, True) == "STABLE"
    assert derive_streams_group_state(0, None, -1, 1, 0, False) == "EMPTY"
    assert derive_streams_group_state(1, None, -1, 1, 0, False) == "NOT_READY"
    assert derive_streams_group_state(1, 2, 1, 1, 1, True) == "NOT_READY"
    assert derive_streams_group_state(1, 2, 2, 3, 1, True) == "ASSIGNING"
    assert derive_streams_group_state(1, 2, 2, 3, 3, False) == "RECONCILING"
    assert derive_streams_group_state(1, 2, 2, 3, 3, True) == "STABLE"
