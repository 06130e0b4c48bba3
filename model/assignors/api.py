"""The server-side consumer assignor interface (Kafka's ``ConsumerGroupPartitionAssignor``).

An assignor is any object with a ``name`` and ``assign(spec, topics)`` (``PartitionAssignor``):

* ``spec`` (``GroupSpec``, Kafka's ``GroupSpec``): the members in the order to walk them, each
  with its instance id, rack, subscribed topic ids and *current target* assignment (what a
  sticky assignor keeps), and whether every member subscribes to the same topics;
* ``topics`` (``TopicDescriber``, Kafka's ``SubscribedTopicDescriber``): partition counts;
* the result (``GroupAssignment``): member id -> topic id -> partitions, the new target.
  Members left out get an empty target. Raise ``PartitionAssignorError`` when no assignment is
  possible: the coordinator answers ``UNKNOWN_SERVER_ERROR`` as Kafka does.

Assignors are registered with the coordinator as an input (``Coordinator(assignors=...)``);
``group.consumer.assignors`` and a member's ``serverAssignor`` pick among them by ``name``.
Loading user assignors (entry points, ``module:Class``, external processes) happens outside the
model, in ``kgspec.plugins``. docs/assignors.md is the user's guide.

Topic ids are Kafka UUIDs in their printed form (22-character URL-safe base64).
An assignment maps topic id -> frozenset of partition indexes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, runtime_checkable

TopicAssignment = Mapping[str, frozenset[int]]
# member id -> topic id -> partitions
GroupAssignment = dict[str, dict[str, frozenset[int]]]


class SubscriptionType(Enum):
    HOMOGENEOUS = "HOMOGENEOUS"
    HETEROGENEOUS = "HETEROGENEOUS"


class PartitionAssignorError(Exception):
    """Kafka's PartitionAssignorException: the coordinator answers UNKNOWN_SERVER_ERROR."""


@dataclass(frozen=True, slots=True)
class MemberSpec:
    member_id: str
    instance_id: str | None
    rack_id: str | None
    subscribed_topic_ids: frozenset[str]
    # The member's current *target* assignment (input to sticky assignors).
    assignment: TopicAssignment = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GroupSpec:
    # Iteration order of `members` is the order the assignor walks members in
    # (Kafka walks its members map; the model uses join order).
    members: Mapping[str, MemberSpec]
    subscription_type: SubscriptionType


@runtime_checkable
class TopicDescriber(Protocol):
    def num_partitions(self, topic_id: str) -> int:
        """Partition count of the topic, or -1 when the topic is unknown."""
        ...


@runtime_checkable
class PartitionAssignor(Protocol):
    """Kafka's ``ConsumerGroupPartitionAssignor``: pure, deterministic for equal inputs."""

    name: str

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        """Return every member's new target; raise PartitionAssignorError when impossible."""
        ...


# Kafka's name for the interface.
ConsumerGroupPartitionAssignor = PartitionAssignor
