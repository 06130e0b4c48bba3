"""Liveness, checked as bounded properties: session expiry and convergence."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TypeVar

from kgspec.model.config import Config
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.streams.group import StreamsGroup


def session_expiry(group: ConsumerGroup | StreamsGroup, now: int, deadlines: Mapping[str, int]) -> list[str]:
    """Session expiry.

    A member whose session deadline has passed is no longer in the group. ``deadlines``
    maps member ids to the time their session ends: the last accepted heartbeat (not a
    leave) plus ``group.consumer.session.timeout.ms``, or the coordinator load time plus it
    after a failover (``onLoaded`` re-arms every session). Timers due by ``now`` have fired.
    """
    return [f"member {mid}'s session ended at {deadlines[mid]} but it is still in the group at {now}"
            for mid in sorted(group.members) if mid in deadlines and deadlines[mid] <= now]


@dataclass(frozen=True, slots=True)
class ClientView:
    """What one live client believes: its member epoch, state and effective partitions."""

    member_epoch: int
    state: str  # the consumer-client machine's state name
    owned: Mapping[str, AbstractSet[int]]


def convergence_bound_ms(config: Config, max_delay_ms: int) -> int:
    """How long after faults stop every member must be STABLE at the assignment epoch.

    Faults stop at t0 (a fair network delivering within ``max_delay_ms`` each way, no
    joins, leaves, crashes, metadata changes or failovers). A client that crashed before t0
    is fenced by its session timeout S (or earlier by its rebalance timeout), so the last
    group epoch bump happens by t0 + S + 2d. From that bump:
      - the target is computed by the first heartbeat after the assignment interval A:
        within A + H + 2d (every live member heartbeats at least every H);
      - every member receives its new target on its next heartbeat: H + 2d;
      - a member revoking acknowledges at once (the client sends after reconciling): 2d;
      - members waiting for released partitions get them on their next heartbeat: H + 2d;
      - they acknowledge at once: 2d.
    Total: S + A + 3H + 12d, with S, A, H from the config.
    """
    s = config.int("group.consumer.session.timeout.ms")
    a = config.int("group.consumer.assignment.interval.ms")
    h = config.int("group.consumer.heartbeat.interval.ms")
    return s + a + 3 * h + 12 * max_delay_ms


G = TypeVar("G", ConsumerGroup, StreamsGroup)


def converged_problems(group: G | None, clients: Mapping[str, ClientView],
                       holding_problem: Callable[[G, str, ClientView], str | None]) -> list[str]:
    """What keeps a group from having converged, for consumer and streams groups alike.

    Members are exactly the live clients (``clients``: member id -> view), the target is
    computed (assignment epoch == group epoch), every member is STABLE at the assignment
    epoch on the coordinator and on its client, and ``holding_problem(group, member id,
    view)`` finds nothing wrong with what the member owns (None: nothing).
    """
    if group is None or not group.members:
        # An empty group is converged (Kafka 4.3 leaves its assignment epoch behind).
        return [] if not clients else [f"no members, but clients {sorted(clients)} are live"]
    problems: list[str] = []
    if group.assignment_epoch != group.group_epoch:
        problems.append(f"assignment epoch {group.assignment_epoch} never caught up with group "
                        f"epoch {group.group_epoch}")
    members, live = set(group.members), set(clients)
    if members != live:
        problems.append(f"members {sorted(members - live)} have no live client; live clients "
                        f"{sorted(live - members)} are not members")
    epoch = group.assignment_epoch
    for mid in sorted(members & live):
        m, view = group.members[mid], clients[mid]
        if not m.is_reconciled_to(epoch):
            problems.append(f"member {mid} is at epoch {m.member_epoch} state {m.state}, not STABLE at {epoch}")
        if view.state != "STABLE" or view.member_epoch != epoch:
            problems.append(f"client of {mid} is {view.state} at epoch {view.member_epoch}, not STABLE at {epoch}")
        problem = holding_problem(group, mid, view)
        if problem is not None:
            problems.append(problem)
    return problems


def convergence(group: ConsumerGroup | None, clients: Mapping[str, ClientView]) -> list[str]:
    """Convergence.

    With no further changes and a fair network, within :func:`convergence_bound_ms` the
    group's members are exactly the live clients (``clients``: member id -> view), the
    target is computed (assignment epoch == group epoch), and every member is STABLE at
    the assignment epoch on the coordinator and on its client, owning exactly its target.
    """
    return converged_problems(group, clients, _owns_target)


def _owns_target(group: ConsumerGroup, mid: str, view: ClientView) -> str | None:
    target = group.target.get(mid, {})
    assigned = group.members[mid].assigned_sets()
    owned = {t: frozenset(p) for t, p in view.owned.items() if p}
    if owned != {t: p for t, p in target.items() if p} or assigned != owned:
        return f"member {mid} owns {_fmt(owned)}, is assigned {_fmt(assigned)}, target {_fmt(target)}"
    return None


def _fmt(holding: Mapping[str, AbstractSet[int]]) -> str:
    return "{" + ", ".join(f"{t}: {sorted(p)}" for t, p in sorted(holding.items()) if p) + "}"
