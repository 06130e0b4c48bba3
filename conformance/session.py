"""One group's checking session: its model, the trace's view of it, and what is pending.

The router (``checker.py``) keeps one :class:`GroupSession` per group id; each protocol's
checks (``consumer.py``, ``streams.py``, ``classic.py``, ``connect.py``, ``describes.py``,
``records.py``) read and update it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from kgspec.conformance.events import Event
from kgspec.conformance.findings import GroupSummary
from kgspec.conformance.invariant_hooks import ObservedTarget
from kgspec.invariants.client import ClientLedger
from kgspec.invariants.record_epochs import RecordEpochs
from kgspec.invariants.streams import ReplayedStateProblems
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import Coordinator
from kgspec.model.records import Record
from kgspec.model.timers import Timer

MAX_FINDINGS_PER_GROUP = 200
# The largest group the checker follows (docs/checking.md, "Limits"): the model's cost per
# event grows with the group's size, so a trace must not be able to grow one without bound.
MAX_MEMBERS_PER_GROUP = 50_000


@dataclass(slots=True)
class GroupSession:
    coord: Coordinator
    summary: GroupSummary
    last_ts: float | None = None
    # The time of its last call the model answered (its clock, last_ts, moves at cluster events
    # too): a broker's groups are those it answered before another group left it (moves.py).
    last_call: float | None = None
    expected_records: deque[tuple[int, Record]] = field(default_factory=deque)
    saw_calls: bool = False
    saw_records: bool = False
    findings: int = 0
    # member id -> assignment epoch at which its response was observed (its target is fixed)
    pinned: dict[str, int] = field(default_factory=dict)
    # --clients: what each client was given and has reported (invariants/client.py)
    clients: ClientLedger = field(default_factory=ClientLedger)
    # calls and records: the target the trace's own records build (checked as replay checks it)
    observed_target: ObservedTarget = field(default_factory=ObservedTarget)
    saw_target_metadata: bool = False  # record replay: the coordinator's assignment epoch is known
    # Bumped whenever the group's model may have changed (records applied, timers fired,
    # topics, failover): steady answers cached at an older generation are stale.
    generation: int = 0
    # The part of ``generation`` that consumer heartbeats' own records made: a steady answer
    # outlives those unless its member or the group's epochs changed (SteadyAnswer.member).
    member_scoped: int = 0
    steady: dict[str, SteadyAnswer] = field(default_factory=dict)  # member id -> cached steady heartbeat
    streams_state: ReplayedStateProblems = field(default_factory=ReplayedStateProblems)  # record replay
    record_epochs: RecordEpochs = field(default_factory=RecordEpochs)  # record replay: the epochs shown
    # Typed by a describe only (an admin call names any type's group): the group's first call
    # or record of its own gives it its type.
    typed_by_describe: bool = False
    # The router's bookkeeping (checker.py): the group's creation order, the earliest deadline it
    # is queued under in the router's wake-up heap (None: not queued), and the count of cluster
    # events (topics, ticks) its clock has caught up with.
    order: int = 0
    wake: float | None = None
    clock_seq: int = 0
    # The model could not follow the group (a timer storm, ``TimerStorm``): its later events are
    # counted but not checked.
    retired: bool = False

    def retire(self) -> None:
        self.retired = True
        self.summary.incomplete = True
        self.generation += 1
        self.steady.clear()
        self.expected_records.clear()


@dataclass(slots=True)
class SteadyAnswer:
    """A steady heartbeat the model answered on its fast path with no records (see ConsumerChecks.steady_hit)."""

    request: dict[str, Any]
    response: dict[str, Any]
    version: int | None
    client_id: str | None
    connection: str | None
    generation: int  # GroupSession.generation - member_scoped when answered
    session_timer: Timer  # what the fast path re-armed, ``delay`` after the call
    delay: int
    # The rest of what the fast path read (ConsumerHeartbeat._steady): records replace a member
    # object rather than change it, so the same objects and epochs mean the same answer.
    group: ConsumerGroup
    member: ConsumerMember
    group_epoch: int
    assignment_epoch: int


def ts_of(event: Event) -> float:
    return float(event.ts_ms) if event.ts_ms is not None else 0.0


def num(x: float) -> Any:
    """A time as the trace wrote it: an int when it is one."""
    return int(x) if float(x).is_integer() else x
