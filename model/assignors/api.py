"""The server-side consumer assignor interface (Kafka's ``ConsumerGroupPartitionAssignor``).

Topic ids are Kafka UUIDs in their printed form (22-character URL-safe base64).
An assignment maps topic id -> frozenset of partition indexes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

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


class TopicDescriber(Protocol):
    def num_partitions(self, topic_id: str) -> int:
        """Partition count of the topic, or -1 when the topic is unknown."""
        ...


class PartitionAssignor(Protocol):
    name: str

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        """Return every member's new target; raise PartitionAssignorError when impossible."""
        ...
