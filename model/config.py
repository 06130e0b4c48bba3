"""Coordinator configs by their Kafka names, with Kafka's defaults (GroupCoordinatorConfig).

A trace header's ``configs`` override these. Unknown names are reported by
:func:`unknown_config_names` (the checker turns them into findings) rather than
silently ignored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeGuard

INT_MAX = 2**31 - 1

DEFAULTS: dict[str, Any] = {
    # KIP-848 consumer groups
    "group.consumer.session.timeout.ms": 45000,
    "group.consumer.heartbeat.interval.ms": 5000,
    "group.consumer.max.size": INT_MAX,
    "group.consumer.assignors": "uniform,range",
    "group.consumer.assignment.interval.ms": 1000,
    "group.consumer.migration.policy": "bidirectional",
    "group.consumer.min.session.timeout.ms": 45000,
    "group.consumer.max.session.timeout.ms": 60000,
    "group.consumer.min.heartbeat.interval.ms": 5000,
    "group.consumer.max.heartbeat.interval.ms": 15000,
    "group.consumer.min.assignment.interval.ms": 0,
    "group.consumer.max.assignment.interval.ms": 15000,
    # classic groups
    "group.min.session.timeout.ms": 6000,
    "group.max.session.timeout.ms": 1800000,
    "group.initial.rebalance.delay.ms": 3000,
    "group.max.size": INT_MAX,
    # KIP-1071 streams groups
    "group.streams.session.timeout.ms": 45000,
    "group.streams.heartbeat.interval.ms": 5000,
    "group.streams.max.size": INT_MAX,
    "group.streams.num.standby.replicas": 0,
    "group.streams.num.warmup.replicas": 2,
    "group.streams.acceptable.recovery.lag": 10000,
    "group.streams.assignment.interval.ms": 1000,
    "group.streams.initial.rebalance.delay.ms": 3000,
    "group.streams.task.offset.interval.ms": 60000,
    "group.streams.rack.aware.assignment.tags": "",
    "group.streams.min.session.timeout.ms": 45000,
    "group.streams.max.session.timeout.ms": 60000,
    "group.streams.min.heartbeat.interval.ms": 5000,
    "group.streams.max.heartbeat.interval.ms": 15000,
    "group.streams.max.standby.replicas": 2,
    "group.streams.min.assignment.interval.ms": 0,
    "group.streams.max.assignment.interval.ms": 15000,
    # Seed KIP-1071 (kip only): "The name of the task assignor used for all streams groups. Can be
    # sticky or highly_available in AK." Default null (here ""): the coordinator picks.
    "group.streams.assignor.name": "",
    # Seed KIP-1071 "New properties" (kip only): the bounds of the group-level
    # streams.num.warmup.replicas and streams.task.offset.interval.ms (model/group_configs/).
    "group.streams.max.warmup.replicas": 20,
    "group.streams.min.task.offset.interval.ms": 15000,
    # Share groups are not modelled, but their group configs are validated against these
    # (GroupConfig.validateValues; GroupCoordinatorConfig and ShareGroupConfig defaults, 4.3).
    "group.share.session.timeout.ms": 45000,
    "group.share.min.session.timeout.ms": 45000,
    "group.share.max.session.timeout.ms": 60000,
    "group.share.heartbeat.interval.ms": 5000,
    "group.share.min.heartbeat.interval.ms": 5000,
    "group.share.max.heartbeat.interval.ms": 15000,
    "group.share.record.lock.duration.ms": 30000,
    "group.share.min.record.lock.duration.ms": 15000,
    "group.share.max.record.lock.duration.ms": 60000,
    "group.share.delivery.count.limit": 5,
    "group.share.min.delivery.count.limit": 2,
    "group.share.max.delivery.count.limit": 10,
    "group.share.partition.max.record.locks": 2000,
    "group.share.min.partition.max.record.locks": 100,
    "group.share.max.partition.max.record.locks": 4000,
    "group.share.assignment.interval.ms": 1000,
    "group.share.min.assignment.interval.ms": 0,
    "group.share.max.assignment.interval.ms": 15000,
    # Connect on the KIP-848 protocol (the Connect draft, profile kip; docs/connect.md)
    "group.connect.session.timeout.ms": 45000,
    "group.connect.heartbeat.interval.ms": 5000,
    "group.connect.scheduled.rebalance.max.delay.ms": 300000,
    # __consumer_offsets: its partitions are the coordinator's shards; a multi-group describe
    # answers shard by shard (model/shards.py)
    "offsets.topic.num.partitions": 50,
    # OffsetCommit: longer metadata is OFFSET_METADATA_TOO_LARGE (GroupCoordinatorConfig, 4.3 l.140)
    "offset.metadata.max.bytes": 4096,
    # Offset expiry (GroupCoordinatorConfig 4.3 l.145/154): the retention, and the period of the
    # cleanup timer (model/offsets/groups.py)
    "offsets.retention.minutes": 7 * 24 * 60,
    "offsets.retention.check.interval.ms": 600000,
}

# Per-group overrides (GroupConfig) fall back to the broker config of the same suffix.
GROUP_LEVEL = {
    "consumer.session.timeout.ms": "group.consumer.session.timeout.ms",
    "consumer.heartbeat.interval.ms": "group.consumer.heartbeat.interval.ms",
    "consumer.assignment.interval.ms": "group.consumer.assignment.interval.ms",
    "streams.session.timeout.ms": "group.streams.session.timeout.ms",
    "streams.heartbeat.interval.ms": "group.streams.heartbeat.interval.ms",
    "streams.num.standby.replicas": "group.streams.num.standby.replicas",
    "streams.assignment.interval.ms": "group.streams.assignment.interval.ms",
    "streams.initial.rebalance.delay.ms": "group.streams.initial.rebalance.delay.ms",
    "streams.num.warmup.replicas": "group.streams.num.warmup.replicas",
    "streams.acceptable.recovery.lag": "group.streams.acceptable.recovery.lag",
    "streams.task.offset.interval.ms": "group.streams.task.offset.interval.ms",
    "streams.rack.aware.assignment.tags": "group.streams.rack.aware.assignment.tags",
}


class Config:
    """Resolved configs: defaults overridden by the trace header (broker- or group-level names)."""

    __slots__ = ("_set", "_values")

    def __init__(self, overrides: Mapping[str, Any] | None = None) -> None:
        values = dict(DEFAULTS)
        for name, value in (overrides or {}).items():
            values[GROUP_LEVEL.get(name, name)] = value
        self._values = values
        # The broker configs the trace sets (DescribeConfigs lists them as STATIC_BROKER_CONFIG).
        self._set = frozenset(GROUP_LEVEL.get(name, name) for name in (overrides or {}))

    def is_set(self, name: str) -> bool:
        return name in self._set

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def int(self, name: str) -> int:
        return int(self._values[name])

    def assignors(self) -> list[str]:
        raw = self._values["group.consumer.assignors"]
        if type(raw) is str:  # every consumer heartbeat asks: the split is kept per text
            names = _ASSIGNOR_LISTS.get(raw)
            if names is None:
                names = _ASSIGNOR_LISTS[raw] = _assignor_names(raw.split(","))
                if len(_ASSIGNOR_LISTS) > 64:
                    _ASSIGNOR_LISTS.clear()
            return list(names)
        return list(_assignor_names(raw if isinstance(raw, list) else str(raw).split(",")))


_ASSIGNOR_LISTS: dict[str, tuple[str, ...]] = {}


def _assignor_names(names: list[Any]) -> tuple[str, ...]:
    return tuple(n.strip() for n in names if n.strip())


# Configs whose names end so are numbers (times, sizes, counts).
NUMERIC_SUFFIXES = (".ms", ".size", ".replicas", ".bytes", ".count", ".threads", ".partitions", ".minutes")
# Kafka's validators (ConfigDef.Range.atLeast) where a smaller value would break the model.
MINIMUMS: dict[str, int] = {"offsets.topic.num.partitions": 1, "offsets.retention.minutes": 1,
                             "offsets.retention.check.interval.ms": 1}


def is_number(value: object) -> TypeGuard[int | float]:
    """A finite JSON number; booleans are not numbers here, although Python says so."""
    kind = type(value)  # exact types: json gives int/float, and bool is an int subclass
    return kind is int or (kind is float and math.isfinite(value))  # type: ignore[arg-type]


def value_problem(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be config ``name`` (not a number, or under Kafka's minimum), or None."""
    if name.endswith(NUMERIC_SUFFIXES) and not is_number(value):
        return "must be a number"
    minimum = MINIMUMS.get(name)
    if minimum is not None and is_number(value) and value < minimum:
        return f"must be at least {minimum}"
    return None


# Broker configs only the seeds define (KIP-1071's assignor and bounds, the Connect draft's):
# modelled under ``kip``; under Kafka's profiles nothing reads them, so naming one is not modelled
# (a header's ``unsupported`` finding, a usage error for ``--config``) rather than silently kept.
SEED_ONLY: frozenset[str] = frozenset({
    "group.streams.assignor.name", "group.streams.max.warmup.replicas",
    "group.streams.min.task.offset.interval.ms", "group.connect.session.timeout.ms",
    "group.connect.heartbeat.interval.ms", "group.connect.scheduled.rebalance.max.delay.ms"})


def unknown_config_names(overrides: Mapping[str, Any], profile: str | None = None) -> list[str]:
    """Names the model does not know; with a Kafka ``profile``, also the seeds' own (``SEED_ONLY``)."""
    seed_only = profile is not None and profile != "kip"
    return sorted(n for n in overrides
                  if (n not in DEFAULTS and n not in GROUP_LEVEL) or (seed_only and n in SEED_ONLY))


# ConfigDef's atLeast(n) of the group coordinator's configs (GroupCoordinatorConfig.CONFIG_DEF,
# 4.3): a smaller value and Kafka refuses to start.
AT_LEAST: dict[str, int] = {
    **dict.fromkeys((
        "group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
        "group.consumer.max.session.timeout.ms", "group.consumer.heartbeat.interval.ms",
        "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms",
        "group.consumer.max.size", "group.max.size",
        "group.streams.session.timeout.ms", "group.streams.min.session.timeout.ms",
        "group.streams.max.session.timeout.ms", "group.streams.heartbeat.interval.ms",
        "group.streams.min.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms",
        "group.streams.max.size",
        "group.share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms",
        "group.share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms",
        "group.share.max.heartbeat.interval.ms"), 1),
    **dict.fromkeys((
        "group.consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms",
        "group.consumer.max.assignment.interval.ms", "group.streams.assignment.interval.ms",
        "group.streams.min.assignment.interval.ms", "group.streams.max.assignment.interval.ms",
        "group.streams.num.standby.replicas", "group.streams.max.standby.replicas",
        "group.streams.initial.rebalance.delay.ms", "group.share.assignment.interval.ms",
        "group.share.min.assignment.interval.ms", "group.share.max.assignment.interval.ms"), 0),
}
MINIMUMS.update(AT_LEAST)


def _requires() -> list[tuple[str, str, str]]:
    """GroupCoordinatorConfig's ``require`` checks (4.3), in order: (a, relation, b) for
    "a must be <relation> b"; relation ``>=``, ``<=`` or ``<``."""
    out: list[tuple[str, str, str]] = []
    for kind in ("consumer", "share", "streams"):
        p = f"group.{kind}"
        out += [(f"{p}.max.heartbeat.interval.ms", ">=", f"{p}.min.heartbeat.interval.ms"),
                (f"{p}.heartbeat.interval.ms", ">=", f"{p}.min.heartbeat.interval.ms"),
                (f"{p}.heartbeat.interval.ms", "<=", f"{p}.max.heartbeat.interval.ms"),
                (f"{p}.max.session.timeout.ms", ">=", f"{p}.min.session.timeout.ms"),
                (f"{p}.session.timeout.ms", ">=", f"{p}.min.session.timeout.ms"),
                (f"{p}.session.timeout.ms", "<=", f"{p}.max.session.timeout.ms"),
                (f"{p}.heartbeat.interval.ms", "<", f"{p}.session.timeout.ms"),
                (f"{p}.max.assignment.interval.ms", ">=", f"{p}.min.assignment.interval.ms"),
                (f"{p}.assignment.interval.ms", ">=", f"{p}.min.assignment.interval.ms"),
                (f"{p}.assignment.interval.ms", "<=", f"{p}.max.assignment.interval.ms")]
    out.append(("group.streams.num.standby.replicas", "<=", "group.streams.max.standby.replicas"))
    return out


REQUIRES = _requires()
_WORDS = {">=": "greater than or equal to", "<=": "less than or equal to", "<": "less than"}


def startup_problem(overrides: Mapping[str, Any], assignment_intervals: bool = True) -> tuple[str, str] | None:
    """(config, message) when Kafka would refuse to start with these broker configs
    (``GroupCoordinatorConfig``'s ``require`` checks, their text), else None. Only checks that
    involve a config ``overrides`` sets: the defaults pass them all. Values must already be
    numbers (``value_problem``). ``assignment_intervals`` False: a release before 4.3, which has
    no ``*.assignment.interval.ms`` configs (KAFKA-20291) and ignores them."""
    config = Config(overrides)
    named = {GROUP_LEVEL.get(n, n) for n in overrides}
    for a, relation, b in REQUIRES:
        if a not in named and b not in named:
            continue
        if not assignment_intervals and "assignment.interval" in a:
            continue
        x, y = config[a], config[b]
        if not (is_number(x) and is_number(y)):
            continue
        holds = x >= y if relation == ">=" else x <= y if relation == "<=" else x < y
        if not holds:
            return (a if a in named else b), f"{a} must be {_WORDS[relation]} {b}"
    return None
