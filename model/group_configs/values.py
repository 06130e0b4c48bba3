"""The value of a config for one group: its own (``GroupConfigManager.groupConfig``) or the
broker's — ``GroupMetadataManager.consumerGroupSessionTimeoutMs(groupId)`` and its siblings.

A group config exists only where its release defines it (``catalogue.py``), so a group-level name
another release lacks never reaches a group. 4.3's ``GroupConfig.evaluate`` clamps a stored value
into the broker's bounds; the model's broker configs never change within a trace and the
controller validated the value against the same bounds, so the clamp never changes a value here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from kgspec.model.config import Config
from kgspec.model.group_configs.catalogue import GroupConfigKey, by_broker_name
from kgspec.model.group_configs.validate import InvalidGroupConfig, parse_value
from kgspec.model.profiles import Profile


def group_int(props: Mapping[str, str] | None, broker_name: str, config: Config, profile: Profile) -> int:
    """The group's value of the broker config ``broker_name`` (e.g.
    ``group.consumer.session.timeout.ms``): the group's own when it sets the matching group config."""
    if props:
        key = by_broker_name(profile).get(broker_name)
        if key is not None and key.name in props:
            value = _parsed(key, props[key.name])
            if value is not None:
                return value
    return config.int(broker_name)


@lru_cache(maxsize=1024)  # each heartbeat reads two or three values: parse a stored string once
def _parsed(key: GroupConfigKey, raw: str) -> int | None:
    try:
        return int(parse_value(key, raw))
    except InvalidGroupConfig:  # never stored: the controller validated it
        return None
