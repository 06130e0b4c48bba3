"""kgspec.model.assignors: Kafka's server-side consumer assignors ("uniform", "range")."""

from __future__ import annotations

from .api import PartitionAssignor, PartitionAssignorError
from .range import RangeAssignor
from .uniform import UniformAssignor

ASSIGNORS: dict[str, PartitionAssignor] = {
    UniformAssignor.name: UniformAssignor(),
    RangeAssignor.name: RangeAssignor(),
}

# Kafka's group.consumer.assignors default list is [uniform, range]; the first is the default.
DEFAULT_ASSIGNOR = "uniform"


def get_assignor(name: str) -> PartitionAssignor:
    """The built-in assignor called `name`; unknown names raise PartitionAssignorError."""
    try:
        return ASSIGNORS[name]
    except KeyError:
        raise PartitionAssignorError(f"unknown server assignor {name!r}") from None


__all__ = [
    "ASSIGNORS",
    "DEFAULT_ASSIGNOR",
    "PartitionAssignorError",
    "RangeAssignor",
    "UniformAssignor",
    "get_assignor",
]
