"""Helpers for the group-config tests: IncrementalAlterConfigs and DescribeConfigs calls."""

from __future__ import annotations

from typing import Any

from kgspec.model.coordinator import Coordinator
from kgspec.model.group_configs.alter import SET

GROUP = 32


def op(name: str, value: str | None, operation: int = SET) -> dict[str, Any]:
    return {"name": name, "configOperation": operation, "value": value}


def alter(c: Coordinator, group: str, *configs: dict[str, Any], validate_only: bool = False,
          now: int = 0) -> list[dict[str, Any]]:
    """IncrementalAlterConfigs v1 of one GROUP resource, committed; the response entries."""
    request = {"resources": [{"resourceType": GROUP, "resourceName": group, "configs": list(configs)}],
               "validateOnly": validate_only}
    decision = c.handle(44, 1, request, now=now)
    assert decision.response is not None
    return list(decision.response["responses"])


def alter_error(c: Coordinator, group: str, *configs: dict[str, Any]) -> tuple[int, str | None]:
    (result,) = alter(c, group, *configs)
    return result["errorCode"], result["errorMessage"]


def describe(c: Coordinator, group: str, *, keys: list[str] | None = None, synonyms: bool = False,
             version: int = 4) -> dict[str, Any]:
    """DescribeConfigs of one GROUP resource: its result."""
    request = {"resources": [{"resourceType": GROUP, "resourceName": group, "configurationKeys": keys}],
               "includeSynonyms": synonyms, "includeDocumentation": False}
    decision = c.handle(32, version, request, now=0)
    assert decision.response is not None
    (result,) = decision.response["results"]
    return dict(result)


def entries(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in result["configs"]}
