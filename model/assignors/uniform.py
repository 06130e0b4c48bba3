"""Kafka's ``UniformAssignor`` ("uniform", the default server-side assignor)."""

from __future__ import annotations

from .api import GroupAssignment, GroupSpec, SubscriptionType, TopicDescriber
from .uniform_heterogeneous import assign_heterogeneous
from .uniform_homogeneous import assign_homogeneous


class UniformAssignor:
    name = "uniform"

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        if not spec.members:
            return {}
        if spec.subscription_type is SubscriptionType.HOMOGENEOUS:
            return assign_homogeneous(spec, topics)
        return assign_heterogeneous(spec, topics)
