"""DescribeConfigs (API 32) for GROUP resources, as ``ConfigHelper.describeConfigs`` answers.

Facts: ``ConfigHelper.createGroupConfigEntry`` and ``ConfigHelperUtils.createResponseConfig``
(4.3; 4.1/4.2 differ in the synonyms, below), ``DescribeConfigsResponse.ConfigSource`` ids.
Each entry: the group's value when it sets the config, else its default (the broker's value for
the names ``extractGroupConfigMap`` copies, GroupConfig's own default for the others — 4.3's
assignment intervals among them, whatever the broker's value), ``readOnly`` false, ``isSensitive``
false, the config source and type, and the synonyms:

- 4.3: the group's own value (GROUP_CONFIG, 8) when set, then the broker synonym's sources
  (``configSynonyms``: STATIC_BROKER_CONFIG, 4, when the broker sets it — a trace header's
  ``configs`` are the broker's static configs — then DEFAULT_CONFIG, 5, at Kafka's default); a
  name without a broker synonym lists its GroupConfig default (DEFAULT_CONFIG);
- 4.1/4.2: one synonym, the name itself at the entry's value, GROUP_CONFIG when set, else
  DEFAULT_CONFIG.

The entry's source is its first synonym's. Entries come in the order of the parsed values' Java
``HashMap``; ``configurationKeys`` (when not null or empty) keeps only the names it lists.
``documentation`` (v3+, when asked) is Kafka's doc text, which the model does not carry (None).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgspec.model.config import DEFAULTS, Config
from kgspec.model.errors import Errors
from kgspec.model.group_configs.apis import GROUP_RESOURCE
from kgspec.model.group_configs.catalogue import (
    CONFIG_TYPE_IDS,
    GroupConfigKey,
    extracted,
    has_broker_synonyms,
    keys_for,
)
from kgspec.model.group_configs.validate import InvalidGroupConfig, parse_value
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.profiles import Profile

STATIC_BROKER_CONFIG, DEFAULT_CONFIG, GROUP_CONFIG = 4, 5, 8


def to_string(value: int | str | bool) -> str:
    """``ConfigDef.convertToString``: booleans as ``true``/``false``, ints in decimal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def group_value(key: GroupConfigKey, props: Mapping[str, str], config: Config, profile: Profile) -> str | None:
    """The value DescribeConfigs shows (``GroupConfig.fromProps(extractGroupConfigMap, props)``);
    kip's seed configs: the group's, else the broker's (the assignor: null when neither sets one)."""
    if key.seed and key.broker is not None and key.name not in props:
        broker = to_string(config[key.broker])
        return None if key.nullable and not broker else broker
    if key.nullable and not props.get(key.name):
        return None
    if key.name in props:
        try:
            return to_string(parse_value(key, props[key.name]))
        except InvalidGroupConfig:  # never stored: the controller validated it
            return str(props[key.name])
    if key.broker is not None and extracted(key, profile):
        return to_string(config.int(key.broker))
    return to_string(key.default)


def _synonyms(key: GroupConfigKey, value: str | None, is_set: bool, config: Config, profile: Profile) -> list[dict[str, Any]]:
    if not has_broker_synonyms(profile):
        return [{"name": key.name, "value": value, "source": GROUP_CONFIG if is_set else DEFAULT_CONFIG}]
    out: list[dict[str, Any]] = []
    if is_set:
        out.append({"name": key.name, "value": value, "source": GROUP_CONFIG})
    if key.broker is None:
        out.append({"name": key.name, "value": to_string(key.default), "source": DEFAULT_CONFIG})
        return out
    if config.is_set(key.broker) and not (key.nullable and not config[key.broker]):
        out.append({"name": key.broker, "value": to_string(config[key.broker]), "source": STATIC_BROKER_CONFIG})
    default = to_string(DEFAULTS[key.broker])
    out.append({"name": key.broker, "value": None if key.nullable and not default else default,
                "source": DEFAULT_CONFIG})
    return out


def describe_group(name: str, props: Mapping[str, str], resource: Mapping[str, Any], include_synonyms: bool,
                   version: int, config: Config, profile: Profile) -> dict[str, Any]:
    """One GROUP resource's ``DescribeConfigsResult``."""
    result: dict[str, Any] = {"errorCode": 0, "errorMessage": None, "resourceType": GROUP_RESOURCE,
                              "resourceName": name, "configs": []}
    if name == "":
        result.update(errorCode=int(Errors.INVALID_REQUEST), errorMessage="Group name must not be empty")
        return result
    keys = keys_for(profile)
    wanted = resource.get("configurationKeys")
    for config_name in java_hashmap_order(keys):
        if wanted and config_name not in wanted:
            continue
        key = keys[config_name]
        value = group_value(key, props, config, profile)
        synonyms = _synonyms(key, value, config_name in props, config, profile)
        entry: dict[str, Any] = {"name": config_name, "value": value, "readOnly": False, "isSensitive": False}
        entry["configSource"] = synonyms[0]["source"]
        entry["synonyms"] = synonyms if include_synonyms else []
        if version >= 3:
            entry["configType"] = CONFIG_TYPE_IDS[key.type]
            entry["documentation"] = None
        result["configs"].append(entry)
    return result


def describe_configs(stored: Mapping[str, Mapping[str, str]], request: Mapping[str, Any], version: int,
                     config: Config, profile: Profile) -> list[dict[str, Any]]:
    """The results for the request's GROUP resources, in request order."""
    include_synonyms = bool(request.get("includeSynonyms"))
    return [describe_group(r["resourceName"], stored.get(r["resourceName"], {}), r, include_synonyms, version,
                           config, profile)
            for r in request["resources"] if r["resourceType"] == GROUP_RESOURCE]
