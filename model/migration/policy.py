"""``group.consumer.migration.policy`` (``ConsumerGroupMigrationPolicy``).

BIDIRECTIONAL (the default), UPGRADE, DOWNGRADE, DISABLED; ``parse`` lower-cases the name and
maps anything unknown (or null) to DISABLED. A broker config: Kafka has no per-group override.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class MigrationPolicy(Enum):
    BIDIRECTIONAL = ("bidirectional", True, True)
    UPGRADE = ("upgrade", True, False)
    DOWNGRADE = ("downgrade", False, True)
    DISABLED = ("disabled", False, False)

    def __init__(self, config_name: str, upgrade: bool, downgrade: bool) -> None:
        self.config_name = config_name
        self.upgrade_enabled = upgrade
        self.downgrade_enabled = downgrade

    @classmethod
    def parse(cls, value: Any) -> MigrationPolicy:
        if value is None:
            return cls.DISABLED
        name = str(value).lower()
        for policy in cls:
            if policy.config_name == name:
                return policy
        return cls.DISABLED


def migration_policy(coord: Any) -> MigrationPolicy:
    return MigrationPolicy.parse(coord.config["group.consumer.migration.policy"])
