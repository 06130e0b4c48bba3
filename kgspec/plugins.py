"""Finding assignors: built-in names, entry points, ``module:Class`` and external processes.

This is the I/O side of the assignor API (docs/assignors.md): imports, entry-point discovery and
process spawning happen here, never in ``model/``. What it yields is plain objects that the
coordinator takes as an input (``Coordinator(assignors=..., task_assignors=...)``):

* ``uniform``, ``range`` (consumer) and ``sticky`` (streams): the built-ins;
* a name registered under the entry-point group ``kgspec.assignors`` (consumer) or
  ``kgspec.task_assignors`` (streams) by an installed package;
* ``module:Class`` (instantiated without arguments) or ``module:object`` (used as is), imported
  from ``sys.path`` and the current directory;
* ``exec:COMMAND`` or ``NAME=exec:COMMAND``: a process in any language speaking the JSON-lines
  protocol of ``kgspec.external`` (the name defaults to ``exec``).

An object with ``assign(spec, topics)`` is a consumer assignor, one with ``assign_tasks(spec)``
a streams task assignor; an object with both (the external ones) is both.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, TypeGuard

from kgspec.model.assignors import PartitionAssignor, builtin_assignors
from kgspec.model.streams.task_api import TaskAssignor, builtin_task_assignors

CONSUMER_GROUP = "kgspec.assignors"
TASK_GROUP = "kgspec.task_assignors"
_NAMED_EXEC = re.compile(r"^([A-Za-z_][\w.-]*)=(exec:.*)$", re.DOTALL)


class AssignorLoadError(ValueError):
    """An ``--assignor`` reference that names nothing usable; the message says why."""


@dataclass(slots=True)
class AssignorRegistry:
    """Assignors by name, ready for the coordinator; ``chosen`` lists the loaded references'
    names in the order they were given (the first is what ``--assignor`` asks groups to use)."""

    consumer: dict[str, PartitionAssignor] = field(default_factory=builtin_assignors)
    tasks: dict[str, TaskAssignor] = field(default_factory=builtin_task_assignors)
    chosen: list[str] = field(default_factory=list)

    def add(self, assignor: object, ref: str) -> str:
        name = assignor_name(assignor, ref)
        if not is_consumer_assignor(assignor) and not is_task_assignor(assignor):
            raise AssignorLoadError(
                f"--assignor {ref}: {type(assignor).__name__} has neither assign(spec, topics) "
                "(a consumer assignor) nor assign_tasks(spec) (a streams task assignor)")
        if is_consumer_assignor(assignor):
            self.consumer[name] = assignor
        if is_task_assignor(assignor):
            self.tasks[name] = assignor
        if name not in self.chosen:
            self.chosen.append(name)
        return name

    def coordinator_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``Coordinator(...)``."""
        return {"assignors": dict(self.consumer), "task_assignors": dict(self.tasks)}


def is_consumer_assignor(obj: object) -> TypeGuard[PartitionAssignor]:
    return callable(getattr(obj, "assign", None))


def is_task_assignor(obj: object) -> TypeGuard[TaskAssignor]:
    return callable(getattr(obj, "assign_tasks", None))


def assignor_name(assignor: object, ref: str) -> str:
    name = getattr(assignor, "name", None)
    if not isinstance(name, str) or not name:
        raise AssignorLoadError(f"--assignor {ref}: {type(assignor).__name__} has no `name` (a non-empty string)")
    return name


def load_assignor(ref: str) -> object:
    """The assignor object ``ref`` names (see the module docstring); AssignorLoadError if none."""
    ref = ref.strip()
    named = _NAMED_EXEC.match(ref)
    if named is not None or ref.startswith("exec:"):
        from kgspec.external import ExecAssignor

        name, command = (named.group(1), named.group(2)) if named else ("exec", ref)
        command = command.removeprefix("exec:").strip()
        if not command:
            raise AssignorLoadError(f"--assignor {ref}: no command after exec:")
        return ExecAssignor(command, name=name)
    builtin: dict[str, object] = {**builtin_assignors(), **builtin_task_assignors()}
    if ref in builtin:
        return builtin[ref]
    for group in (CONSUMER_GROUP, TASK_GROUP):
        for point in entry_points(group=group, name=ref):
            return _instance(_load(point, group), ref)
    if ":" in ref:
        return _instance(_import(ref), ref)
    known = sorted({*builtin, *(p.name for g in (CONSUMER_GROUP, TASK_GROUP) for p in entry_points(group=g))})
    raise AssignorLoadError(f"--assignor {ref}: unknown assignor; known names: {', '.join(known)} "
                            "(or give module:Class, or exec:COMMAND)")


def _import(ref: str) -> object:
    """Import from ``sys.path`` and, as ``python -m`` would, the current directory."""
    module_name, _, attr = ref.partition(":")
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AssignorLoadError(f"--assignor {ref}: cannot import module {module_name!r}: {exc}") from None
    target: object = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AssignorLoadError(f"--assignor {ref}: module {module_name!r} has no {attr!r}") from None
    return target


def _instance(target: object, ref: str) -> object:
    if isinstance(target, type):
        try:
            return target()
        except TypeError as exc:
            raise AssignorLoadError(f"--assignor {ref}: {target.__name__}() needs no arguments to be "
                                    f"loaded by reference: {exc}") from None
    return target


def discovered() -> Iterable[tuple[str, object]]:
    """Every installed entry-point assignor, as (reference, object)."""
    for group in (CONSUMER_GROUP, TASK_GROUP):
        for point in entry_points(group=group):
            yield point.name, _instance(_load(point, group), point.name)


def _load(point: Any, group: str) -> object:
    """An entry point's object; a broken installed plugin is named, not a traceback."""
    try:
        return point.load()
    except Exception as exc:
        raise AssignorLoadError(f"entry point {point.name!r} of group {group} ({point.value}) "
                                f"cannot be loaded: {type(exc).__name__}: {exc}") from None


def assignor_registry(refs: Sequence[str] = (), *, discover: bool = True) -> AssignorRegistry:
    """The built-ins, every installed entry-point assignor (``discover``) and ``refs`` (later wins).

    The function ``kgspec serve`` and other front ends call to honour ``--assignor``:
    ``Coordinator(profile, configs, **assignor_registry(refs).coordinator_kwargs())``.
    """
    registry = AssignorRegistry()
    if discover:
        for ref, assignor in discovered():
            registry.add(assignor, ref)
        registry.chosen.clear()  # discovered ones are selectable, not chosen
    for ref in refs:
        registry.add(load_assignor(ref), ref)
    return registry


def prefer(configs: dict[str, Any], registry: AssignorRegistry) -> dict[str, Any]:
    """``configs`` with the chosen consumer assignors first in ``group.consumer.assignors``
    (the first is the group's default), so that ``--assignor X`` makes groups use X."""
    chosen = [n for n in registry.chosen if n in registry.consumer]
    if not chosen:
        return configs
    raw = configs.get("group.consumer.assignors", "uniform,range")
    rest = raw if isinstance(raw, list) else str(raw).split(",")
    names = list(dict.fromkeys([*chosen, *(n.strip() for n in rest if n.strip())]))
    return {**configs, "group.consumer.assignors": ",".join(names)}
