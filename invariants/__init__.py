"""kgspec.invariants: protocol invariants, each defined once, by name.

Every invariant is a predicate over model state that returns violation messages (empty
when it holds). The same functions serve the Hypothesis machines and the simulator
(``kgspec.sim``), the trace checker and, by name, the Z3 encodings
(``invariants/symbolic``). State invariants take a group; step invariants take
(previous, current) snapshots; call invariants take (member before, request, response).

:data:`CONSUMER_INVARIANTS` adapts each to one :class:`Observation`, skipping the checks
whose inputs the caller did not supply; :func:`check_all` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kgspec.invariants.catalogue import (
    CATALOGUE,
    CLIENT_NO_DOUBLE_OWNERSHIP,
    CONVERGENCE,
    EPOCH_FENCING,
    EPOCH_MONOTONICITY,
    NO_DOUBLE_OWNERSHIP,
    NO_TASKS_WHILE_NOT_READY,
    PARTITION_EPOCH_INDEX,
    PROCESSID_EXCLUSIVITY,
    REPLAY_EQUIVALENCE,
    SESSION_EXPIRY,
    STATE_DERIVATION,
    TARGET_VALIDITY,
)
from kgspec.invariants.derivation import state_derivation
from kgspec.invariants.epochs import (
    EpochSnapshot,
    epoch_fencing,
    epoch_monotonicity,
    snapshot_epochs,
)
from kgspec.invariants.liveness import (
    ClientView,
    convergence,
    convergence_bound_ms,
    session_expiry,
)
from kgspec.invariants.ownership import (
    client_no_double_ownership,
    no_double_ownership,
    partition_epoch_index,
)
from kgspec.invariants.processid import StreamsHolding, processid_exclusivity
from kgspec.invariants.replay import replay_equivalence, replay_records
from kgspec.invariants.streams_group import (
    STREAMS_GROUP_INVARIANTS,
    StreamsObservation,
    lost_assignments,
    snapshot_streams_epochs,
    streams_convergence,
    streams_convergence_bound_ms,
    streams_epoch_fencing,
    streams_target_validity,
)
from kgspec.invariants.target import target_is_current, target_validity
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.topics import TopicsImage


@dataclass(slots=True)
class Observation:
    """One group at one point, with whatever context the caller has.

    ``group`` None means the group does not exist (yet). Optional context:
    ``previous`` (epoch snapshot before this step), ``topics`` (metadata image),
    ``replayed`` + ``check_replay`` (the same group rebuilt from records), ``now`` +
    ``session_deadlines``, ``call`` (member before, request, response) for a heartbeat,
    ``client_beliefs`` (good-standing clients' owned partitions) and ``converged_clients``
    (set only when the harness asserts convergence).
    """

    group_id: str
    group: ConsumerGroup | None
    previous: EpochSnapshot | None = None
    topics: TopicsImage | None = None
    replayed: ConsumerGroup | None = None
    check_replay: bool = False
    now: int | None = None
    session_deadlines: Mapping[str, int] | None = None
    call: tuple[ConsumerMember | None, Mapping[str, Any], Mapping[str, Any]] | None = None
    client_beliefs: Mapping[str, Mapping[str, Any]] | None = None
    converged_clients: Mapping[str, ClientView] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Violation:
    invariant: str
    group_id: str
    message: str

    def __str__(self) -> str:
        return f"[{self.invariant}] group {self.group_id}: {self.message}"


Check = Callable[[Observation], list[str]]


def _on_group(fn: Callable[[ConsumerGroup], list[str]]) -> Check:
    return lambda o: fn(o.group) if o.group is not None else []


def _epochs(o: Observation) -> list[str]:
    current = snapshot_epochs(o.group)
    return epoch_monotonicity(o.previous, current) if current is not None else []


def _target(o: Observation) -> list[str]:
    return target_validity(o.group, o.topics) if o.group is not None else []


def _replay(o: Observation) -> list[str]:
    return replay_equivalence(o.group, o.replayed) if o.check_replay else []


def _session(o: Observation) -> list[str]:
    if o.group is None or o.now is None or o.session_deadlines is None:
        return []
    return session_expiry(o.group, o.now, o.session_deadlines)


def _fencing(o: Observation) -> list[str]:
    return epoch_fencing(*o.call) if o.call is not None else []


def _clients(o: Observation) -> list[str]:
    return client_no_double_ownership(o.client_beliefs) if o.client_beliefs is not None else []


def _convergence(o: Observation) -> list[str]:
    return convergence(o.group, o.converged_clients) if o.converged_clients is not None else []


#: name -> check over an Observation; the names are the catalogue's (invariants/catalogue.py).
CONSUMER_INVARIANTS: dict[str, Check] = {
    NO_DOUBLE_OWNERSHIP: _on_group(no_double_ownership),
    PARTITION_EPOCH_INDEX: _on_group(partition_epoch_index),
    CLIENT_NO_DOUBLE_OWNERSHIP: _clients,
    EPOCH_MONOTONICITY: _epochs,
    EPOCH_FENCING: _fencing,
    TARGET_VALIDITY: _target,
    STATE_DERIVATION: _on_group(state_derivation),
    REPLAY_EQUIVALENCE: _replay,
    SESSION_EXPIRY: _session,
    CONVERGENCE: _convergence,
}

#: Invariants defined for streams groups over plain assignments (the Z3 encodings' view).
STREAMS_INVARIANTS: dict[str, Callable[..., list[str]]] = {
    PROCESSID_EXCLUSIVITY: processid_exclusivity,
}

ALL_NAMES: tuple[str, ...] = tuple(dict.fromkeys((*CONSUMER_INVARIANTS, *STREAMS_INVARIANTS,
                                                  *STREAMS_GROUP_INVARIANTS)))


Obs = TypeVar("Obs", Observation, StreamsObservation)


def _run(checks: Mapping[str, Callable[[Obs], list[str]]], observation: Obs,
         names: tuple[str, ...] | None) -> list[Violation]:
    return [Violation(name, observation.group_id, msg) for name, check in checks.items()
            if names is None or name in names for msg in check(observation)]


def check_all(observation: Observation, names: tuple[str, ...] | None = None) -> list[Violation]:
    """Run every consumer invariant (or those in ``names``) over one observation."""
    return _run(CONSUMER_INVARIANTS, observation, names)


def check_streams(observation: StreamsObservation, names: tuple[str, ...] | None = None) -> list[Violation]:
    """Run every streams-group invariant (or those in ``names``) over one observation."""
    return _run(STREAMS_GROUP_INVARIANTS, observation, names)


def check_consumer_group(group: ConsumerGroup, *, topics: TopicsImage | None = None,
                         previous: EpochSnapshot | None = None,
                         replayed: ConsumerGroup | None = None, check_replay: bool = False,
                         now: int | None = None, session_deadlines: Mapping[str, int] | None = None,
                         names: tuple[str, ...] | None = None) -> list[Violation]:
    """The state and step invariants of one consumer group (what a trace checker needs)."""
    obs = Observation(group.group_id, group, previous, topics, replayed, check_replay, now,
                      session_deadlines)
    return check_all(obs, names)


__all__ = [
    "ALL_NAMES",
    "CATALOGUE",
    "CLIENT_NO_DOUBLE_OWNERSHIP",
    "CONSUMER_INVARIANTS",
    "CONVERGENCE",
    "EPOCH_FENCING",
    "EPOCH_MONOTONICITY",
    "NO_DOUBLE_OWNERSHIP",
    "NO_TASKS_WHILE_NOT_READY",
    "PARTITION_EPOCH_INDEX",
    "PROCESSID_EXCLUSIVITY",
    "REPLAY_EQUIVALENCE",
    "SESSION_EXPIRY",
    "STATE_DERIVATION",
    "STREAMS_GROUP_INVARIANTS",
    "STREAMS_INVARIANTS",
    "TARGET_VALIDITY",
    "ClientView",
    "EpochSnapshot",
    "Observation",
    "StreamsHolding",
    "StreamsObservation",
    "Violation",
    "check_all",
    "check_consumer_group",
    "check_streams",
    "client_no_double_ownership",
    "convergence",
    "convergence_bound_ms",
    "epoch_fencing",
    "epoch_monotonicity",
    "lost_assignments",
    "no_double_ownership",
    "partition_epoch_index",
    "processid_exclusivity",
    "replay_equivalence",
    "replay_records",
    "session_expiry",
    "snapshot_epochs",
    "snapshot_streams_epochs",
    "state_derivation",
    "streams_convergence",
    "streams_convergence_bound_ms",
    "streams_epoch_fencing",
    "streams_target_validity",
    "target_is_current",
    "target_validity",
]
