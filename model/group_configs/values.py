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
from kgspec.model.group_configs.catalogue import GroupConfigKey, by_broker_name, extracted
from kgspec.model.group_configs.validate import InvalidGroupConfig, parse_value
from kgspec.model.profiles import Profile


def group_int(props: Mapping[str, str] | None, broker_name: str, config: Config, profile: Profile) -> int:
    """The group's value of the broker config ``broker_name`` (e.g.
    ``group.consumer.session.timeout.ms``).

    A group without configs uses the broker's. A group with some (``GroupConfigManager`` holds a
    ``GroupConfig`` for it) uses that ``GroupConfig``'s: its own value, else the default the
    ``GroupConfig`` was built with — the broker's where ``extractGroupConfigMap`` copies it (and
    for 4.3's optional assignment intervals), else GroupConfig's static default (4.1/4.2's streams
    configs: a streams group given any config runs with a 45000 ms session whatever the broker's).
    """
    if props:
        key = by_broker_name(profile).get(broker_name)
        if key is not None:
            if key.name in props:
                value = _parsed(key, props[key.name])
                if value is not None:
                    return value
            elif not key.optional and not extracted(key, profile):
                return int(key.default)
    return config.int(broker_name)


@lru_cache(maxsize=1024)  # each heartbeat reads two or three values: parse a stored string once
def _parsed(key: GroupConfigKey, raw: str) -> int | None:
    try:
        return int(parse_value(key, raw))
    except InvalidGroupConfig:  # never stored: the controller validated it
        return None


def group_str(props: Mapping[str, str] | None, broker_name: str, config: Config, profile: Profile) -> str:
    """The group's value of the string broker config ``broker_name`` (kip's
    ``group.streams.assignor.name``): its own when set and non-empty, else the broker's."""
    if props:
        key = by_broker_name(profile).get(broker_name)
        if key is not None and props.get(key.name, "").strip():
            return props[key.name].strip()
    return str(config[broker_name] or "")
