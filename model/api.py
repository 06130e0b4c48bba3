"""How a protocol declares one of its APIs: key, names, and versions per profile.

Each protocol folder lists its APIs in its own ``apis.py``; ``model/apis.py`` assembles them into
the one version table the model, the checker, the Spark replay and the simulator read.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgspec.model.profiles import Profile


@dataclass(frozen=True, slots=True)
class Api:
    key: int
    name: str  # Kafka's ApiKeys name, as request logs print it
    label: str  # the message's name, for findings
    protocol: str  # the protocol that answers it: consumer, streams, classic or admin
    versions: tuple[int, int]  # on every profile
    since: tuple[tuple[int, str], ...] = ()  # (version, profile flag): newer versions per profile

    def range(self, profile: Profile) -> tuple[int, int]:
        low, high = self.versions
        for version, flag in self.since:
            if getattr(profile, flag):
                high = max(high, version)
        return low, high

    def supports(self, profile: Profile, version: int) -> bool:
        low, high = self.range(profile)
        return low <= version <= high
