"""IncrementalAlterConfigs (API 44) for GROUP resources, as the broker and the controller answer it.

Facts: ``ConfigAdminManager.preprocess`` (the broker: a resource named twice, a config named twice,
a null value for an operation other than DELETE: INVALID_REQUEST), ``ControllerApis
.handleIncrementalAlterConfigs`` and ``ConfigurationControlManager.incrementalAlterConfigResource``
(the controller: SET, DELETE; APPEND/SUBTRACT on a non-LIST config — every group config —
INVALID_CONFIG "Can't APPEND to key K because its type is not LIST."; then the whole new set of the
group's configs is validated, ``validate.py``; ``validateOnly`` writes nothing). On success the
group's configs are the new set; the broker's ``GroupConfigManager`` then serves them to the group
coordinator (the metadata log's ConfigRecords, not ``__consumer_offsets``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgspec.model.config import Config
from kgspec.model.errors import Errors
from kgspec.model.group_configs.apis import GROUP_RESOURCE
from kgspec.model.group_configs.validate import InvalidGroupConfig, validate
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.profiles import Profile

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
OP_NAMES = {SET: "SET", DELETE: "DELETE", APPEND: "APPEND", SUBTRACT: "SUBTRACT"}


def _result(name: str, error: Errors, message: str | None) -> dict[str, Any]:
    return {"errorCode": int(error), "errorMessage": message, "resourceType": GROUP_RESOURCE, "resourceName": name}


def _preprocess(resource: Mapping[str, Any]) -> str | None:
    """``ConfigAdminManager.preprocess`` of one resource: the INVALID_REQUEST message, or None."""
    names = [c["name"] for c in resource["configs"]]
    if len(set(names)) != len(names):
        return "Error due to duplicate config keys"
    nulls = [c["name"] for c in resource["configs"] if c["configOperation"] != DELETE and c.get("value") is None]
    if nulls:
        return "Null value not supported for : " + ", ".join(nulls)
    return None


def altered(current: Mapping[str, str], configs: list[dict[str, Any]]) -> dict[str, str]:
    """The group's configs after the operations (``incrementalAlterConfigResource``); raises
    :class:`InvalidGroupConfig` for APPEND or SUBTRACT (no group config is a LIST)."""
    ops = {c["name"]: (c["configOperation"], c.get("value")) for c in configs}
    new = dict(current)
    for name in java_hashmap_order(ops):  # the controller walks a HashMap of the alterations
        op, value = ops[name]
        if op == SET:
            new[name] = str(value)  # never null: preprocess refused that
        elif op == DELETE:
            new.pop(name, None)
        else:
            raise InvalidGroupConfig(f"Can't {OP_NAMES[op]} to key {name} because its type is not LIST.")
    return new


def alter_configs(stored: Mapping[str, Mapping[str, str]], request: Mapping[str, Any], config: Config,
                  profile: Profile) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    """The response entries for the request's GROUP resources (request order) and, unless
    ``validateOnly``, the groups whose configs change, with their new sets."""
    groups = [r for r in request["resources"] if r["resourceType"] == GROUP_RESOURCE]
    counts: dict[str, int] = {}
    for r in groups:
        counts[r["resourceName"]] = counts.get(r["resourceName"], 0) + 1
    results: list[dict[str, Any]] = []
    changes: dict[str, dict[str, str]] = {}
    for r in groups:
        name = r["resourceName"]
        if counts[name] > 1:
            results.append(_result(name, Errors.INVALID_REQUEST, "Each resource must appear at most once."))
            continue
        problem = _preprocess(r)
        if problem is not None:
            results.append(_result(name, Errors.INVALID_REQUEST, problem))
            continue
        current = stored.get(name, {})
        try:
            new = altered(current, r["configs"])
            validate(name, new, config, profile)
        except InvalidGroupConfig as exc:
            results.append(_result(name, Errors[exc.error], exc.message))
            continue
        results.append(_result(name, Errors.NONE, None))
        if not request.get("validateOnly") and new != dict(current):
            changes[name] = new
    return results, changes
