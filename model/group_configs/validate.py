"""``GroupConfig.validate``: a GROUP resource's configs as the controller checks them.

Facts: ``GroupConfig.validate`` / ``validateNames`` / ``validateValues`` (4.1, 4.2, 4.3),
``ConfigDef.parse`` and ``ConfigException`` (the "Invalid value V for configuration N: ..." text),
``ControllerConfigurationValidator.validate`` (GROUP: "Default group resources are not allowed."
for an empty name). Every failure is an ``INVALID_CONFIG`` with Kafka's message, except the empty
name (``INVALID_REQUEST``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kgspec.model.config import Config
from kgspec.model.group_configs.catalogue import (
    GroupConfigKey,
    extracted,
    has_broker_synonyms,
    keys_for,
)
from kgspec.model.profiles import Profile

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_JAVA_INT = re.compile(r"[+-]?[0-9]+")  # Integer.parseInt accepts this and nothing else (ASCII)
# java.time.Duration.parse's ISO-8601 PnDTnHnMn.nS, non-negative (AutoOffsetResetStrategy refuses a
# negative duration): at least one part, and a T only before a time part.
_DURATION = re.compile(r"\+?P(?=\d|T\d)(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:[.,]\d{0,9})?S)?)?",
                       re.IGNORECASE | re.ASCII)


class InvalidGroupConfig(Exception):
    """A GROUP resource Kafka refuses: ``error`` is INVALID_CONFIG or INVALID_REQUEST."""

    def __init__(self, message: str, error: str = "INVALID_CONFIG") -> None:
        super().__init__(message)
        self.message = message
        self.error = error


@dataclass(frozen=True, slots=True)
class Bound:
    """One check of ``validateValues``: the group config against a broker min or max."""

    name: str
    broker: str
    upper: bool  # True: "must be less than or equal to", False: "greater than or equal to"
    release: str = "4.1"
    only_if_set: bool = False  # 4.3's assignment intervals: checked only when the group sets them


def _pair(name: str, low: str | None, high: str | None, release: str = "4.1",
          only_if_set: bool = False) -> tuple[Bound, ...]:
    out: list[Bound] = []
    if low is not None:
        out.append(Bound(name, low, False, release, only_if_set))
    if high is not None:
        out.append(Bound(name, high, True, release, only_if_set))
    return tuple(out)


# validateValues' order (4.3; 4.1/4.2 have the 4.1 rows in the same order).
BOUNDS: tuple[Bound, ...] = (
    *_pair("consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms",
           "group.consumer.max.heartbeat.interval.ms"),
    *_pair("consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
           "group.consumer.max.session.timeout.ms"),
    *_pair("consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms",
           "group.consumer.max.assignment.interval.ms", "4.3", True),
    *_pair("share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms",
           "group.share.max.heartbeat.interval.ms"),
    *_pair("share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"),
    *_pair("share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms",
           "group.share.max.record.lock.duration.ms"),
    *_pair("share.delivery.count.limit", "group.share.min.delivery.count.limit",
           "group.share.max.delivery.count.limit", "4.3"),
    *_pair("share.partition.max.record.locks", "group.share.min.partition.max.record.locks",
           "group.share.max.partition.max.record.locks", "4.3"),
    *_pair("share.assignment.interval.ms", "group.share.min.assignment.interval.ms",
           "group.share.max.assignment.interval.ms", "4.3", True),
    *_pair("streams.heartbeat.interval.ms", "group.streams.min.heartbeat.interval.ms",
           "group.streams.max.heartbeat.interval.ms"),
    *_pair("streams.session.timeout.ms", "group.streams.min.session.timeout.ms",
           "group.streams.max.session.timeout.ms"),
    *_pair("streams.num.standby.replicas", None, "group.streams.max.standby.replicas"),
    *_pair("streams.assignment.interval.ms", "group.streams.min.assignment.interval.ms",
           "group.streams.max.assignment.interval.ms", "4.3", True),
    # kip only (the keys exist only there): the seed's "New properties" bounds
    *_pair("streams.num.warmup.replicas", None, "group.streams.max.warmup.replicas", "4.3", True),
    *_pair("streams.task.offset.interval.ms", "group.streams.min.task.offset.interval.ms", None, "4.3", True),
)
# session timeout > heartbeat interval, last (validateValues' final checks)
SESSION_OVER_HEARTBEAT = (
    ("consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"),
    ("share.session.timeout.ms", "share.heartbeat.interval.ms"),
    ("streams.session.timeout.ms", "streams.heartbeat.interval.ms"),
)


def parse_value(key: GroupConfigKey, raw: object) -> int | str | bool:
    """``ConfigDef.parseType`` then the key's validator, with ConfigException's message."""
    text = str(raw).strip() if raw is not None else ""
    if key.type == "INT":
        if isinstance(raw, bool) or (not isinstance(raw, int) and not _JAVA_INT.fullmatch(text)):
            raise InvalidGroupConfig(f"Invalid value {raw} for configuration {key.name}: Not a number of type INT")
        value = raw if isinstance(raw, int) else int(text)
        if not INT32_MIN <= value <= INT32_MAX:
            raise InvalidGroupConfig(f"Invalid value {raw} for configuration {key.name}: Not a number of type INT")
        if key.at_least is not None and value < key.at_least:
            raise InvalidGroupConfig(f"Invalid value {value} for configuration {key.name}: "
                                     f"Value must be at least {key.at_least}")
        return value
    if key.type == "BOOLEAN":
        if isinstance(raw, bool):
            return raw
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise InvalidGroupConfig(f"Invalid value {raw} for configuration {key.name}: "
                                 "Expected value to be either true or false")
    if key.name == "share.auto.offset.reset":  # ShareGroupAutoOffsetResetStrategy.Validator
        # case-sensitive words and prefix; the duration's letters are not (Duration.parse)
        if text in ("earliest", "latest") or (text.startswith("by_duration:")
                                              and _DURATION.fullmatch(text[len("by_duration:"):])):
            return text
        raise InvalidGroupConfig(f"Invalid value {text} for configuration {key.name}: Invalid value `{text}` for "
                                 f"configuration {key.name}. The value must be either 'earliest', 'latest' or of "
                                 "the format 'by_duration:<PnDTnHnMn.nS>'.")
    if key.one_of and text not in key.one_of:
        raise InvalidGroupConfig(f"Invalid value {text} for configuration {key.name}: "
                                 f"String must be one of: {', '.join(key.one_of)}")
    return text


def broker_values(config: Config, profile: Profile) -> dict[str, int]:
    """``GroupCoordinatorConfig.extractGroupConfigMap``: each group config whose default is the
    broker's value, at that value."""
    return {name: config.int(k.broker) for name, k in keys_for(profile).items()
            if k.broker is not None and extracted(k, profile)}


def validate(group: str, props: Mapping[str, str], config: Config, profile: Profile) -> None:
    """``ControllerConfigurationValidator.validate`` for GROUP ``group`` with its new props (all
    of them, after the alteration): raises :class:`InvalidGroupConfig` with Kafka's message."""
    if group == "":
        raise InvalidGroupConfig("Default group resources are not allowed.", "INVALID_REQUEST")
    keys = keys_for(profile)
    combined: dict[str, object] = dict(broker_values(config, profile)) if has_broker_synonyms(profile) else {}
    combined.update(props)
    for name in combined:  # validateNames
        if name not in keys:
            raise InvalidGroupConfig(f"Unknown group config name: {name}")
    parsed: dict[str, int | str | bool] = {}
    for name, key in keys.items():  # ConfigDef.parse, in define order
        parsed[name] = parse_value(key, combined[name]) if name in combined else key.default
    release = "4.3" if has_broker_synonyms(profile) else "4.1"
    for bound in BOUNDS:
        if bound.name not in keys or (bound.release == "4.3" and release != "4.3"):
            continue
        if bound.only_if_set and bound.name not in combined:
            continue
        value, limit = int(parsed[bound.name]), config.int(bound.broker)
        if bound.upper and value > limit:
            raise InvalidGroupConfig(f"{bound.name} must be less than or equal to {bound.broker}")
        if not bound.upper and value < limit:
            raise InvalidGroupConfig(f"{bound.name} must be greater than or equal to {bound.broker}")
    for session, heartbeat in SESSION_OVER_HEARTBEAT:
        if int(parsed[session]) <= int(parsed[heartbeat]):
            raise InvalidGroupConfig(f"{session} must be greater than {heartbeat}")
