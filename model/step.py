"""One step of the coordinator as a value: the choices that go in, the decision that comes out.

``Coordinator.decide(call, choices, now)`` computes a :class:`Decision` without changing
anything; ``Coordinator.commit(decision)`` is the one mutation. This is Kafka's
``CoordinatorResult`` (response + records) made complete: the timer operations, the soft
(non-record) state changes and the explanation are data too, so a caller can decide twice,
compare, and commit only the decision it keeps.

:class:`Choices` carries the protocol's legal freedoms: where Kafka may pick one of several
answers (a generated member id, a different target that still meets the assignor's
guarantees), the caller says which; the default is the model's own pick.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgspec.model.assignors.api import GroupAssignment, GroupSpec
    from kgspec.model.errors import CoordinatorError
    from kgspec.model.records import Record
    from kgspec.model.timers import Timer

# (spec, assignor name, computed target) -> the target to use instead (consumer groups)
TargetChoice = Callable[["GroupSpec", str, "GroupAssignment"], "GroupAssignment"]
# (member specs, subtopology tasks, standby replicas, computed assignment) -> assignment (streams)
TaskTargetChoice = Callable[[Any, Any, int, Any], Any]


@dataclass(frozen=True, slots=True)
class Choices:
    """The legal freedoms of one step, as inputs (never one-shot fields on the model).

    - ``member_id``: the id a coordinator generates for a joining member (Kafka draws a random
      UUID; a trace shows which one it drew). None: the coordinator's deterministic source.
    - ``target``: replaces a consumer group's newly computed target (an alternative legal
      ``uniform`` target, a peer's assignor).
    - ``current_target``: a consumer group's standing target for these members, when the step
      does not compute a new one (the other legal choice the checker adopts); the step writes
      the target records for it.
    - ``task_target``: replaces a streams group's newly computed task assignment.
    - ``task_current_target``: a streams group's standing target for these members, when the step
      does not compute a new one (kip: the seed's "something like this" assignments the checker
      adopts); the step writes the target records for it.
    """

    member_id: str | None = None
    target: TargetChoice | None = None
    current_target: Mapping[str, Mapping[str, frozenset[int]]] | None = None
    task_target: TaskTargetChoice | None = None
    task_current_target: Mapping[str, Any] | None = None


NO_CHOICES = Choices()


@dataclass(frozen=True, slots=True)
class SoftSet:
    """One soft-state change (state Kafka keeps beside the records, lost on failover).

    ``owner`` says where it lives: ``"consumer-refresh"`` (a consumer group's metadata-refresh
    deadline, ``value`` = (deadline, epoch)), ``"streams-group"`` (a field ``name`` of a
    registered streams group), ``"coordinator"`` (a coordinator-wide field ``name``).
    """

    owner: str
    group_id: str
    name: str
    value: Any


@dataclass(slots=True)
class Decision:
    """What one step decided; nothing of it has happened until ``Coordinator.commit``."""

    response: dict[str, Any] | None
    records: list[Record] = field(default_factory=list)
    explain: list[str] = field(default_factory=list)  # why, in words, for findings
    error: CoordinatorError | None = None
    timer_ops: list[tuple[str, Timer | str]] = field(default_factory=list)
    soft: list[SoftSet] = field(default_factory=list)
    # A classic JoinGroup/SyncGroup that waits: its call id (see model/classic/parked.py).
    pending: int | None = None
    # Online migration: in-memory changes Kafka makes beside the records (parked calls failed on
    # an upgrade, the classic group installed on a downgrade); run after the records.
    effects: list[Callable[[], None]] = field(default_factory=list)
    # How many ids the step drew from the coordinator's member-id source (commit advances it).
    member_ids_drawn: int = 0
    # Set by commit: a decision is committed at most once.
    committed: bool = False
    # A consumer heartbeat answered on its steady fast path (ConsumerHeartbeat._steady): no
    # records, no soft state, the member's session timer re-armed and nothing else.
    fast_path: bool = False



@dataclass(slots=True)
class Firing:
    """One timer that fired and what it wrote."""

    timer: Timer
    records: list[Record]
    explain: str
