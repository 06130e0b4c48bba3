"""Connectors and tasks as resources of the shared reconciliation engine.

Two roles: ``connectors`` (container = connector name, index 0: the connector instance) and
``tasks`` (container = connector name, index = task number), so a ``ConnectorTaskId``
(connector, task) is one engine resource. The draft gives no per-resource assignment epoch,
so holdings store 0.

JSON shape (draft ``ConnectorsAndTasks``, a list of ``{connectors, tasks}`` entries; a task is
``{"connector": name, "task": n}`` as Connect's ``ConnectorTaskId``): parsed as the union of the
entries, written as one entry with sorted lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kgspec.model.reconcile import Holdings

CONNECTORS = "connectors"
TASKS = "tasks"
ROLES: tuple[str, str] = (CONNECTORS, TASKS)

# role -> connector -> indexes (0 for the connector itself)
Resources = dict[str, dict[str, frozenset[int]]]


def empty() -> Resources:
    return {CONNECTORS: {}, TASKS: {}}


def from_items(items: Iterable[tuple[str, str, int]]) -> Resources:
    out: dict[str, dict[str, set[int]]] = {CONNECTORS: {}, TASKS: {}}
    for role, connector, index in items:
        out[role].setdefault(connector, set()).add(index)
    return {role: {c: frozenset(i) for c, i in by.items()} for role, by in out.items()}


def items(res: Mapping[str, Mapping[str, Iterable[int]]]) -> set[tuple[str, str, int]]:
    return {(role, c, i) for role in ROLES for c, idx in res.get(role, {}).items() for i in idx}


def label(item: tuple[str, str, int]) -> str:
    """The draft's case-study notation: ``AC0`` connector A, ``AT1`` task 1 of A."""
    role, connector, index = item
    return f"{connector}C0" if role == CONNECTORS else f"{connector}T{index}"


def labels(res: Mapping[str, Mapping[str, Iterable[int]]]) -> list[str]:
    return sorted(label(x) for x in items(res))


def parse(value: Any) -> Resources:
    """A request's ``connectorsAndTasks`` list (not null); ValueError names what is wrong."""
    if not isinstance(value, list):
        raise ValueError("connectorsAndTasks must be a list")
    found: set[tuple[str, str, int]] = set()
    for entry in value:
        if not isinstance(entry, dict):
            raise ValueError("connectorsAndTasks entries must be objects")
        for name in entry.get("connectors") or []:
            if not isinstance(name, str) or not name:
                raise ValueError("connector names must be non-empty strings")
            found.add((CONNECTORS, name, 0))
        for task in entry.get("tasks") or []:
            if not isinstance(task, dict) or not isinstance(task.get("connector"), str) \
                    or not isinstance(task.get("task"), int) or isinstance(task.get("task"), bool):
                raise ValueError("tasks must be {connector: string, task: int}")
            found.add((TASKS, task["connector"], task["task"]))
    return from_items(found)


def to_json(res: Mapping[str, Mapping[str, Iterable[int]]]) -> list[dict[str, Any]]:
    connectors = sorted(res.get(CONNECTORS, {}))
    connectors = [c for c in connectors if res[CONNECTORS][c]]
    tasks = sorted((c, i) for c, idx in res.get(TASKS, {}).items() for i in idx)
    return [{"connectors": connectors, "tasks": [{"connector": c, "task": i} for c, i in tasks]}]


def to_holdings(res: Mapping[str, Mapping[str, Iterable[int]]]) -> Holdings:
    return {role: {c: dict.fromkeys(idx, 0) for c, idx in res.get(role, {}).items() if idx} for role in ROLES}


def from_holdings(h: Holdings) -> Resources:
    return {role: {c: frozenset(idx) for c, idx in h.get(role, {}).items() if idx} for role in ROLES}


def normalize(h: Holdings) -> Holdings:
    """No per-resource epochs in the draft: every index maps to 0; empty containers dropped."""
    return to_holdings(h)


def config_resources(connectors: Mapping[str, Iterable[int]]) -> Resources:
    """The configured connectors (name -> task numbers) as resources."""
    return from_items([(CONNECTORS, c, 0) for c in connectors]
                      + [(TASKS, c, t) for c, ts in connectors.items() for t in ts])
