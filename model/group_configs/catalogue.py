"""The group configs Kafka defines, per release (``GroupConfig.CONFIG_DEF``), with their types,
lower bounds (``atLeast``), static defaults and broker-level synonyms.

Facts (docs/kafka-facts.md, "Group configs"): ``group-coordinator/.../GroupConfig.java`` on 4.1,
4.2 and 4.3. 4.1 defines ten names; 4.2 adds ``streams.initial.rebalance.delay.ms``; 4.3 adds the
three ``*.assignment.interval.ms``, ``share.delivery.count.limit``,
``share.partition.max.record.locks`` and ``share.renew.acknowledge.enable``, and maps each name to
its broker synonym (``ALL_GROUP_CONFIG_SYNONYMS``), which DescribeConfigs lists. Share groups are
not modelled, but their names are group configs: a GROUP resource is validated and described with
them (at Kafka's defaults).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from kgspec.model.profiles import Profile

ConfigType = Literal["INT", "STRING", "BOOLEAN"]
# DescribeConfigsResponse.ConfigType ids
CONFIG_TYPE_IDS: dict[str, int] = {"BOOLEAN": 1, "STRING": 2, "INT": 3}


@dataclass(frozen=True, slots=True)
class GroupConfigKey:
    name: str
    type: ConfigType
    default: int | str | bool  # GroupConfig's own default (a GroupCoordinatorConfig constant)
    at_least: int | None  # ConfigDef.Range.atLeast
    broker: str | None  # the broker config of the same meaning
    # The first release whose ``extractGroupConfigMap`` copies the broker's value as this config's
    # default (None: never; GroupConfig's static ``default`` then stands, even where the broker
    # sets its synonym — 4.1/4.2's streams configs, 4.3's assignment intervals, the share strings).
    extracted: str | None
    release: str  # the first release that defines it: "4.1", "4.2" or "4.3"
    one_of: tuple[str, ...] = ()  # ConfigDef.ValidString.in
    # 4.3's assignment intervals are ``Optional`` in GroupConfig (KAFKA-20337): a group that does
    # not set one uses the broker's value, whatever GroupConfig's default.
    optional: bool = False
    # kip's streams.assignor.name: null by default, shown as null (not "") when neither the group
    # nor the broker sets it
    nullable: bool = False
    # kip-only (the seed's): unset, the group's value is the broker's, and DescribeConfigs shows it
    # ("override the default broker configurations dynamically for specific groups")
    seed: bool = False


def _key(name: str, kind: ConfigType, default: int | str | bool, at_least: int | None, broker: str | None,
         release: str, *, extracted: str | None = "4.1", one_of: tuple[str, ...] = ()) -> GroupConfigKey:
    return GroupConfigKey(name, kind, default, at_least, broker, extracted if broker else None, release, one_of,
                          optional=broker is not None and extracted is None)


# CONFIG_DEF's define order (ConfigDef.parse validates in this order; 4.3's order).
KEYS: tuple[GroupConfigKey, ...] = (
    _key("consumer.session.timeout.ms", "INT", 45000, 1, "group.consumer.session.timeout.ms", "4.1"),
    _key("consumer.heartbeat.interval.ms", "INT", 5000, 1, "group.consumer.heartbeat.interval.ms", "4.1"),
    _key("consumer.assignment.interval.ms", "INT", 1000, 0, "group.consumer.assignment.interval.ms", "4.3",
         extracted=None),
    _key("share.session.timeout.ms", "INT", 45000, 1, "group.share.session.timeout.ms", "4.1"),
    _key("share.heartbeat.interval.ms", "INT", 5000, 1, "group.share.heartbeat.interval.ms", "4.1"),
    _key("share.record.lock.duration.ms", "INT", 30000, 1000, "group.share.record.lock.duration.ms", "4.1"),
    _key("share.delivery.count.limit", "INT", 5, 2, "group.share.delivery.count.limit", "4.3", extracted="4.3"),
    _key("share.partition.max.record.locks", "INT", 2000, 100, "group.share.partition.max.record.locks", "4.3",
         extracted="4.3"),
    _key("share.auto.offset.reset", "STRING", "latest", None, None, "4.1"),  # its own validator (validate.py)
    _key("share.isolation.level", "STRING", "read_uncommitted", None, None, "4.1",
         one_of=("read_committed", "read_uncommitted")),
    _key("share.renew.acknowledge.enable", "BOOLEAN", True, None, None, "4.3"),
    _key("share.assignment.interval.ms", "INT", 1000, 0, "group.share.assignment.interval.ms", "4.3",
         extracted=None),
    # extractStreamsGroupConfigMap is 4.3's: on 4.1/4.2 a group with any config gets GroupConfig's
    # static streams defaults (45000, 5000, 0, 3000), not the broker's
    _key("streams.session.timeout.ms", "INT", 45000, 1, "group.streams.session.timeout.ms", "4.1", extracted="4.3"),
    _key("streams.heartbeat.interval.ms", "INT", 5000, 1, "group.streams.heartbeat.interval.ms", "4.1",
         extracted="4.3"),
    _key("streams.num.standby.replicas", "INT", 0, 0, "group.streams.num.standby.replicas", "4.1", extracted="4.3"),
    _key("streams.initial.rebalance.delay.ms", "INT", 3000, 0, "group.streams.initial.rebalance.delay.ms", "4.2",
         extracted="4.3"),
    _key("streams.assignment.interval.ms", "INT", 1000, 0, "group.streams.assignment.interval.ms", "4.3",
         extracted=None),
)

# kip only (seed 002, "Assignment"): "The task assignor is configured on the broker side both
# through a global static configuration that defined the default assignor for all groups, and a
# dynamic group-level configuration that sets the assignor for a specific group." Named as
# GroupConfig names its configs (Kafka's master branch later added the same name, KAFKA-20790);
# unset, the broker's ``group.streams.assignor.name`` stands.
# "Global & Dynamic Group Configuration": "The three core assignment options ...
# acceptable.recovery.lag, num.warmup.replicas and num.standby.replicas. They can be configured both
# globally on the broker, and dynamically for specific streams groups through the
# IncrementalAlterConfigs and DescribeConfigs RPCs"; the "Group Configurations" table adds
# task.offset.interval.ms (num.standby.replicas is already Kafka's). Unset, the broker's value.
KIP_KEYS: tuple[GroupConfigKey, ...] = (
    GroupConfigKey("streams.acceptable.recovery.lag", "INT", 10000, 0, "group.streams.acceptable.recovery.lag",
                   None, "4.3", optional=True, seed=True),
    GroupConfigKey("streams.num.warmup.replicas", "INT", 2, 0, "group.streams.num.warmup.replicas", None, "4.3",
                   optional=True, seed=True),
    GroupConfigKey("streams.task.offset.interval.ms", "INT", 60000, 0, "group.streams.task.offset.interval.ms",
                   None, "4.3", optional=True, seed=True),
    GroupConfigKey("streams.assignor.name", "STRING", "", None, "group.streams.assignor.name", None, "4.3",
                   optional=True, nullable=True, seed=True),
)

_RELEASES = {"4.1": 1, "4.2": 2, "4.3": 3}


def release_of(profile: Profile) -> str | None:
    """The release whose group configs ``profile`` follows; None: not modelled (trunk rewrote
    GroupConfig after 4.3 — new names, LIST and LONG types — docs/group-configs.md)."""
    if profile.name == "kafka-trunk":
        return None
    if profile.assignment_batching:  # 4.3 and the KIP text
        return "4.3"
    return "4.2" if profile.streams_initial_rebalance_delay else "4.1"


def keys_for(profile: Profile) -> dict[str, GroupConfigKey]:
    """The group configs ``profile``'s release defines, by name, in define order (do not change it:
    one dict per release, shared). ``kip`` adds the seed's group-level assignor (``KIP_KEYS``)."""
    return _keys_of(release_of(profile), profile.streams_kip_assignor_selection)


@cache
def _keys_of(release: str | None, kip: bool = False) -> dict[str, GroupConfigKey]:
    if release is None:
        return {}
    level = _RELEASES[release]
    return {k.name: k for k in KEYS + (KIP_KEYS if kip else ()) if _RELEASES[k.release] <= level}


def extracted(key: GroupConfigKey, profile: Profile) -> bool:
    """Whether ``extractGroupConfigMap`` of ``profile``'s release copies the broker's value for ``key``."""
    release = release_of(profile)
    return key.extracted is not None and release is not None and _RELEASES[key.extracted] <= _RELEASES[release]


def by_broker_name(profile: Profile) -> dict[str, GroupConfigKey]:
    """The group configs of ``profile``'s release by the broker config they override."""
    return _by_broker(release_of(profile), profile.streams_kip_assignor_selection)


@cache
def _by_broker(release: str | None, kip: bool = False) -> dict[str, GroupConfigKey]:
    return {k.broker: k for k in _keys_of(release, kip).values() if k.broker is not None}


def has_broker_synonyms(profile: Profile) -> bool:
    """4.3 (``GroupConfig.ALL_GROUP_CONFIG_SYNONYMS``): DescribeConfigs lists the broker synonym of
    each name, and validation merges the broker's values (``GroupConfig.validate``); 4.1/4.2 parse
    the group's props alone, over GroupConfig's static defaults."""
    return release_of(profile) == "4.3"
