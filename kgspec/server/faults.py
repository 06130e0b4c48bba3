"""Fault rules: what the server does instead of (or besides) answering a matching call.

A rules file (``kgspec serve --faults FILE``) is JSON::

    {"rules": [
      {"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c2", "group": "g", "nth": 3},
       "action": "error", "error": "NOT_COORDINATOR", "times": 1}
    ]}

``match`` (every key optional; a rule with none matches every call): ``api`` (Kafka's name,
``ConsumerGroupHeartbeat`` or ``CONSUMER_GROUP_HEARTBEAT``, or the key, 68), ``clientId``,
``group`` (the request's group id), ``nth`` (the first matching call acted on, 1-based; default
1). ``times``: how many matching calls from the ``nth`` on (default 1; ``null``: all of them).

Actions:

- ``drop``: the coordinator handles the call (it is in the trace) but the response is never sent;
- ``delay``: the response leaves ``delayMs`` later;
- ``error``: the call never reaches the coordinator; it is answered with ``error`` (a name such as
  ``NOT_COORDINATOR`` or ``COORDINATOR_LOAD_IN_PROGRESS``, or a code) and is not in the trace,
  which is the coordinator's;
- ``close``: the call never reaches the coordinator; the connection is closed;
- ``clock``: the server's clock jumps ``advanceMs`` forward before the call is handled (timers
  due by then fire first: sessions expire);
- ``failover``: the coordinator fails over before the call is handled: it reloads its groups from
  their records and loses its soft state and parked calls, as ``tick.coordinatorFailover`` says.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from kio.schema.errors import ErrorCode
from kio.schema.index import api_key_map

ACTIONS: Final = ("drop", "delay", "error", "close", "clock", "failover")
_MATCH_KEYS: Final = frozenset({"api", "clientId", "group", "nth"})
_RULE_KEYS: Final = frozenset({"match", "action", "times", "delayMs", "error", "advanceMs"})


class FaultError(ValueError):
    """A rules file or rule that is not valid; the message names the field at fault."""


@dataclass(frozen=True, slots=True)
class Rule:
    action: str
    api: int | None = None
    client_id: str | None = None
    group: str | None = None
    nth: int = 1
    times: int | None = 1
    delay_ms: int = 0
    error: int = 0
    advance_ms: int = 0

    def matches(self, api: int, client_id: str, group: str | None) -> bool:
        return ((self.api is None or self.api == api) and (self.client_id is None or self.client_id == client_id)
                and (self.group is None or self.group == group))


def _api_key(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in api_key_map:
            raise FaultError(f"{where}: no Kafka API has key {value}")
        return value
    if isinstance(value, str):
        wanted = value.replace("_", "").lower()
        for key, name in api_key_map.items():
            if str(name).replace("_", "").lower() == wanted:
                return int(key)
        raise FaultError(f"{where}: {value!r} names no Kafka API (e.g. ConsumerGroupHeartbeat, JoinGroup)")
    raise FaultError(f"{where}: must be an API name or key, not {type(value).__name__}")


def _error_code(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return int(ErrorCode(value))
        except ValueError:
            raise FaultError(f"{where}: {value} is no Kafka error code") from None
    if isinstance(value, str):
        try:
            return int(ErrorCode[value.lower()])
        except KeyError:
            raise FaultError(f"{where}: {value!r} is no Kafka error name (e.g. NOT_COORDINATOR)") from None
    raise FaultError(f"{where}: must be an error name or code, not {type(value).__name__}")


def _count(value: Any, where: str, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise FaultError(f"{where}: must be an integer >= {low}, not {value!r}")
    return value


def parse_rule(obj: Any, where: str = "rule") -> Rule:
    """One rule from its JSON object; FaultError names the field at fault."""
    if not isinstance(obj, dict):
        raise FaultError(f"{where}: must be an object, not {type(obj).__name__}")
    unknown = sorted(set(obj) - _RULE_KEYS)
    if unknown:
        raise FaultError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_RULE_KEYS))})")
    action = obj.get("action")
    if action not in ACTIONS:
        raise FaultError(f"{where}.action: must be one of {', '.join(ACTIONS)}, not {action!r}")
    match = obj.get("match", {})
    if not isinstance(match, dict):
        raise FaultError(f"{where}.match: must be an object")
    unknown = sorted(set(match) - _MATCH_KEYS)
    if unknown:
        raise FaultError(f"{where}.match: unknown key(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(_MATCH_KEYS))})")
    for key in ("clientId", "group"):
        if key in match and not isinstance(match[key], str):
            raise FaultError(f"{where}.match.{key}: must be a string")
    times = obj.get("times", 1)
    needs = {"delay": "delayMs", "error": "error", "clock": "advanceMs"}.get(action)
    if needs is not None and needs not in obj:
        raise FaultError(f"{where}.{needs}: required by action {action!r}")
    return Rule(
        action=action,
        api=_api_key(match["api"], f"{where}.match.api") if "api" in match else None,
        client_id=match.get("clientId"),
        group=match.get("group"),
        nth=_count(match.get("nth", 1), f"{where}.match.nth", 1),
        times=None if times is None else _count(times, f"{where}.times", 1),
        delay_ms=_count(obj.get("delayMs", 0), f"{where}.delayMs", 0),
        error=_error_code(obj["error"], f"{where}.error") if "error" in obj else 0,
        advance_ms=_count(obj.get("advanceMs", 0), f"{where}.advanceMs", 0),
    )


def parse_rules(obj: Any, where: str = "faults") -> list[Rule]:
    if not isinstance(obj, dict) or not isinstance(obj.get("rules"), list):
        raise FaultError(f"{where}: must be an object with a list `rules`")
    return [parse_rule(r, f"{where}.rules[{i}]") for i, r in enumerate(obj["rules"])]


def load_rules(path: str | Path) -> list[Rule]:
    """The rules of a file; FaultError names the file and the field at fault."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise FaultError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise FaultError(f"{path}: not valid JSON: {exc}") from None
    return parse_rules(obj, str(path))


class Faults:
    """The live rules: each counts its matching calls; :meth:`take` gives the rule that acts on
    this call (the first in order whose turn it is), if any. Rules may be added at run time."""

    def __init__(self, rules: list[Rule] | None = None) -> None:
        self._lock = threading.Lock()  # added from a test's thread while the server runs
        self._rules: list[tuple[Rule, list[int]]] = [(r, [0]) for r in rules or []]
        self.fired: list[tuple[Rule, int, str, str | None]] = []  # (rule, api, client id, group)

    def add(self, rule: Rule | dict[str, Any]) -> Rule:
        parsed = rule if isinstance(rule, Rule) else parse_rule(rule)
        with self._lock:
            self._rules.append((parsed, [0]))
        return parsed

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def replace(self, rules: list[Rule]) -> None:
        """These rules from now on, each counting its matching calls afresh (``kill -HUP``)."""
        with self._lock:
            self._rules = [(r, [0]) for r in rules]

    def take(self, api: int, client_id: str, group: str | None) -> Rule | None:
        with self._lock:
            chosen = None
            for rule, seen in self._rules:
                if not rule.matches(api, client_id, group):
                    continue
                seen[0] += 1
                n = seen[0] - rule.nth
                if chosen is None and n >= 0 and (rule.times is None or n < rule.times):
                    chosen = rule
            if chosen is not None:
                self.fired.append((chosen, api, client_id, group))
            return chosen
