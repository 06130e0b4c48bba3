"""The value of a config for one group: its own (``GroupConfigManager.groupConfig``) or the
broker's — ``GroupMetadataManager.consumerGroupSessionTimeoutMs(groupId)`` and its siblings.

A group config exists only where its release defines it (``catalogue.py``), so a group-level name
another release lacks never reaches a group. 4.3's ``GroupConfig.evaluate`` clamps a stored value
into the broker's bounds; the model's broker configs never change within a trace and the
controller validated the value against the same bounds, so the clamp never changes a value here.
"""

from __future__ import annotations

from collections.abc import Mapping

from kgspec.model.config import Config
from kgspec.model.group_configs.catalogue import keys_for
from kgspec.model.group_configs.validate import InvalidGroupConfig, parse_value
from kgspec.model.profiles import Profile


def group_int(props: Mapping[str, str] | None, broker_name: str, config: Config, profile: Profile) -> int:
    """The group's value of the broker config ``broker_name`` (e.g.
    ``group.consumer.session.timeout.ms``): the group's own when it sets the matching group config."""
    if props:
        for key in keys_for(profile).values():
            if key.broker == broker_name and key.name in props:
                try:
                    return int(parse_value(key, props[key.name]))
                except InvalidGroupConfig:  # never stored: the controller validated it
                    break
    return config.int(broker_name)
