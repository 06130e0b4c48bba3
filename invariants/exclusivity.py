"""The one rule behind every ownership check: an item has at most one holder.

``no-double-ownership`` (partitions, active tasks, Connect work; coordinator and clients), the
overlap half of ``target-validity`` (consumer, streams, Connect) and ``processid-exclusivity``
(a task held at most once per process) are this rule over different items and holders. Each
check feeds :class:`Exclusive` (or :func:`shared`) with its (holder, item) pairs and words the
conflicts in its own message; none re-implements the rule.

Plain Python, no model imports: the assignor guarantees in ``model/`` use it too.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Generic, NamedTuple, TypeVar

H = TypeVar("H", bound=Hashable)
I = TypeVar("I", bound=Hashable)  # noqa: E741 - an item


class Exclusive(Generic[H, I]):
    """Items claimed one holder at a time: :meth:`claim` returns the item's first holder when
    another holder claims it (a conflict), else None."""

    __slots__ = ("first",)

    def __init__(self) -> None:
        self.first: dict[I, H] = {}

    def claim(self, holder: H, item: I) -> H | None:
        first = self.first.setdefault(item, holder)
        return None if first == holder else first


def shared(pairs: Iterable[tuple[H, I]]) -> dict[I, list[H]]:
    """The items of ``pairs`` (holder, item) held by two or more distinct holders: item -> its
    holders, first holder first, in the order the conflicts appear."""
    rule: Exclusive[H, I] = Exclusive()
    out: dict[I, list[H]] = {}
    for holder, item in pairs:
        first = rule.claim(holder, item)
        if first is None:
            continue
        holders = out.get(item)
        if holders is None:
            out[item] = [first, holder]
        elif holder not in holders:
            holders.append(holder)
    return out


# One task a streams member holds: (member, process, role, subtopology, partition, counts), where
# ``counts`` is False for an active task pending revocation that the member keeps as a replica
# (trunk's in-place demotion, KAFKA-20665): still active for the single-owner rule, but held
# once on its process.
HeldTask = tuple[str, str, str, str, int, bool]

ACTIVE_TWICE = "active"
PROCESS_TWICE = "process"


class TaskConflict(NamedTuple):
    """``kind`` ACTIVE_TWICE: task ``(subtopology, partition)`` is active on ``first`` and
    ``then`` (member, role); PROCESS_TWICE: ``process`` holds it as ``first`` and as ``then``."""

    kind: str
    process: str
    subtopology: str
    partition: int
    first: tuple[str, str]
    then: tuple[str, str]


def task_conflicts(held: Iterable[HeldTask]) -> list[TaskConflict]:
    """``processid-exclusivity`` over streams tasks: an active task has one member, and a process
    holds a task once, in any roles. The conflicts in the order ``held`` shows them (an active
    conflict of a task before its process conflict)."""
    active: Exclusive[str, tuple[str, int]] = Exclusive()
    process: Exclusive[tuple[str, str], tuple[str, str, int]] = Exclusive()
    out: list[TaskConflict] = []
    for mid, pid, role, sid, p, counts in held:
        if role == "active":
            first = active.claim(mid, (sid, p))
            if first is not None:
                out.append(TaskConflict(ACTIVE_TWICE, pid, sid, p, (first, role), (mid, role)))
        if counts:
            where = (mid, role)
            prior = process.claim(where, (pid, sid, p))
            if prior is not None:
                out.append(TaskConflict(PROCESS_TWICE, pid, sid, p, prior, where))
    return out
