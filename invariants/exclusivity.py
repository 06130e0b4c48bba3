"""The one rule behind every ownership check: an item has at most one holder.

``no-double-ownership`` (partitions, active tasks, Connect work; coordinator and clients), the
overlap half of ``target-validity`` (consumer, streams, Connect) and ``processid-exclusivity``
(a task held at most once per process) are this rule over different items and holders. Each
check feeds :class:`Exclusive` (or :func:`shared`) with its (holder, item) pairs and words the
conflicts in its own message; none re-implements the rule. One check has a fast path beside it:
``target.target_overlaps`` first asks ``target._disjoint`` (set arithmetic, no per-partition
claims) whether the record-replay's common case, no overlap at all, holds, and only otherwise
finds the conflicts with :class:`Exclusive`.

The rule itself (:class:`Exclusive`, :func:`shared`) is defined in ``model/exclusivity.py``,
below the invariants, because the assignor guarantees in ``model/`` use it too; this module
re-exports it and adds the streams task conflicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from kgspec.model.exclusivity import Exclusive, shared

__all__ = ["ACTIVE_TWICE", "PROCESS_TWICE", "Exclusive", "HeldTask", "TaskConflict", "shared", "task_conflicts"]

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
