"""The streams task assignor interface (Kafka's ``streams.assignor.TaskAssignor``).

A task assignor is any object with a ``name`` and ``assign_tasks(spec)`` (``TaskAssignor``):

* ``spec`` (``TaskGroupSpec``): the topology as its subtopologies (task count, stateful or
  not), the members in the order to walk them (each with its process id and current active
  and standby target), ``num_standby_replicas`` and the group's assignment configs;
* the result (``TaskAssignment``): member id -> subtopology id -> partitions, for the active
  and the standby role (warm-ups are not the assignor's: Kafka's refiner adds them later).
  Raise ``TaskAssignorError`` when no assignment is possible (``UNKNOWN_SERVER_ERROR``).

Kafka 4.3 has one streams assignor and always asks for it by name
(``GroupMetadataManager.streamsGroupAssignor``: ``streamsGroupAssignors.get("sticky")``), so the
coordinator runs the task assignor registered as ``"sticky"``; registering another under that
name (``Coordinator(task_assignors=...)``) replaces Kafka's. ``kip`` also registers the seed's
``highly_available`` and asks for it by ``group.streams.assignor.name`` or the topology
(``target.seed_assignor_name``); it may return warm-ups (``TaskAssignment.warmup``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from kgspec.model.streams.assignor import (
    SubtopologyTasks,
    TaskAssignment,
    TaskMemberSpec,
    assign_tasks,
)
from kgspec.model.streams.highly_available import HighlyAvailableTaskAssignor

# The name Kafka asks for (GroupMetadataManager.streamsGroupAssignor, 4.1-trunk).
STREAMS_ASSIGNOR_NAME = "sticky"


@dataclass(frozen=True, slots=True)
class TaskGroupSpec:
    members: Sequence[TaskMemberSpec]
    subtopologies: Sequence[SubtopologyTasks]
    num_standby_replicas: int = 0
    # The group's assignment configs as strings (Kafka's GroupSpec.assignmentConfigs).
    configs: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class TaskAssignor(Protocol):
    """Kafka's ``TaskAssignor``: pure, deterministic for equal inputs."""

    name: str

    def assign_tasks(self, spec: TaskGroupSpec) -> TaskAssignment:
        """Every member's new active and standby target; raise TaskAssignorError when impossible."""
        ...


class StickyTaskAssignor:
    """Kafka's ``StickyTaskAssignor`` behind the interface (model/streams/assignor.py)."""

    name = STREAMS_ASSIGNOR_NAME

    def assign_tasks(self, spec: TaskGroupSpec) -> TaskAssignment:
        return assign_tasks(spec.members, spec.subtopologies, spec.num_standby_replicas)


def builtin_task_assignors() -> dict[str, TaskAssignor]:
    """A fresh registry of the built-in task assignors (callers own the dict): Kafka's ``sticky``
    and the seed's ``highly_available``, which only ``kip`` asks for (``seed_assignor_name``)."""
    return {STREAMS_ASSIGNOR_NAME: StickyTaskAssignor(), "highly_available": HighlyAvailableTaskAssignor()}
