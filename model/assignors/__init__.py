"""kgspec.model.assignors: Kafka's server-side consumer assignors ("uniform", "range")."""

from __future__ import annotations

from .api import (
    ConsumerGroupPartitionAssignor,
    GroupAssignment,
    GroupSpec,
    MemberSpec,
    PartitionAssignor,
    PartitionAssignorError,
    SubscriptionType,
    TopicDescriber,
)
from .range import RangeAssignor
from .uniform import UniformAssignor

ASSIGNORS: dict[str, PartitionAssignor] = {
    UniformAssignor.name: UniformAssignor(),
    RangeAssignor.name: RangeAssignor(),
}

# Kafka's group.consumer.assignors default list is [uniform, range]; the first is the default.
DEFAULT_ASSIGNOR = "uniform"


def builtin_assignors() -> dict[str, PartitionAssignor]:
    """A fresh registry of the built-in assignors (callers own the dict: add theirs to it)."""
    return dict(ASSIGNORS)


def get_assignor(name: str) -> PartitionAssignor:
    """The built-in assignor called `name`; unknown names raise PartitionAssignorError."""
    try:
        return ASSIGNORS[name]
    except KeyError:
        raise PartitionAssignorError(f"unknown server assignor {name!r}") from None


__all__ = [
    "ASSIGNORS",
    "DEFAULT_ASSIGNOR",
    "ConsumerGroupPartitionAssignor",
    "GroupAssignment",
    "GroupSpec",
    "MemberSpec",
    "PartitionAssignor",
    "PartitionAssignorError",
    "RangeAssignor",
    "SubscriptionType",
    "TopicDescriber",
    "UniformAssignor",
    "builtin_assignors",
    "get_assignor",
]
