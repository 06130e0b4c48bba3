"""Compiled transition tables: the hot path's ``(state, trigger) -> dest`` lookup.

Each declaration is built once into its ``transitions.Machine`` and the machine
is walked (``machine.events[t].transitions[src]``) into a frozen dict, so the
table is derived from the same object tests use as the reference interpreter.
Tables are cached at module level; never build a Machine per group or member.

:func:`fire` is the one helper every protocol's model uses to change a member, group or
topology state: ``fire(machine, state, trigger)`` returns the declared destination or raises
:class:`InvalidTransition` naming the machine, the state and the trigger. A test can watch
every transition the model takes with :func:`recording`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

from kgspec.spec.declarations import Declaration, build_machine
from kgspec.spec.registry import MACHINES


class InvalidTransition(ValueError):
    """``trigger`` is not allowed in ``state`` of ``machine``."""

    def __init__(self, machine: str, state: str, trigger: str, allowed: tuple[str, ...]) -> None:
        self.machine, self.state, self.trigger, self.allowed = machine, state, trigger, allowed
        listed = ", ".join(allowed) if allowed else "none (terminal state)"
        super().__init__(f"{machine}: cannot fire {trigger!r} in state {state}; allowed: {listed}")


class Table:
    """Immutable compiled lifecycle; ``fire`` is one dict lookup."""

    __slots__ = ("_by_state", "_edges", "initial", "name", "states")

    def __init__(self, name: str, initial: str, states: tuple[str, ...],
                 edges: Mapping[tuple[str, str], str]) -> None:
        self.name, self.initial, self.states = name, initial, states
        self._edges: Mapping[tuple[str, str], str] = MappingProxyType(dict(edges))
        by_state: dict[str, list[str]] = {s: [] for s in states}
        for src, trig in self._edges:
            by_state[src].append(trig)
        self._by_state = MappingProxyType({s: tuple(t) for s, t in by_state.items()})

    @property
    def edges(self) -> Mapping[tuple[str, str], str]:
        """The read-only ``(state, trigger) -> dest`` mapping."""
        return self._edges

    def triggers_for(self, state: str) -> tuple[str, ...]:
        """Triggers allowed in ``state`` (empty for terminal or unknown states)."""
        return self._by_state.get(state, ())

    def fire(self, state: str, trigger: str) -> str:
        """The state after ``trigger`` in ``state``; raises InvalidTransition."""
        try:
            return self._edges[(state, trigger)]
        except KeyError:
            raise InvalidTransition(self.name, state, trigger, self.triggers_for(state)) from None


def compile_machine(name: str, machine: Any) -> Table:
    """Walk a ``transitions.Machine`` into a Table (the Any is confined to this walk)."""
    edges: dict[tuple[str, str], str] = {}
    for trigger, event in machine.events.items():
        for src, transitions in event.transitions.items():
            dests = {str(t.dest) for t in transitions}
            if len(dests) != 1:  # conditions are not used in declarations
                raise ValueError(f"{name}: ({src}, {trigger}) has dests {sorted(dests)}")
            edges[(str(src), str(trigger))] = dests.pop()
    return Table(name, str(machine.initial), tuple(str(s) for s in machine.states), edges)


def compile_declaration(decl: Declaration) -> Table:
    """Build the reference Machine for ``decl`` and compile it."""
    return compile_machine(decl.name, build_machine(decl))


def _all_tables() -> Mapping[str, Table]:
    return MappingProxyType({name: compile_declaration(d) for name, d in MACHINES.items()})


#: name -> compiled Table, built once at import.
TABLES: Mapping[str, Table] = _all_tables()


def table(name: str) -> Table:
    """The compiled table of a registered machine (KeyError if unknown)."""
    return TABLES[name]


#: A hook called as ``hook(machine, state, trigger, dest)`` after each :func:`fire` (tests only).
FireHook = Callable[[str, str, str, str], None]
_hook: FireHook | None = None


def fire(machine: str, state: str, trigger: str) -> str:
    """The state after ``trigger`` in ``state`` of ``machine``: one dict lookup, or
    :class:`InvalidTransition` (a ``ValueError`` naming machine, state and trigger)."""
    dest = TABLES[machine].fire(state, trigger)
    if _hook is not None:
        _hook(machine, state, trigger, dest)
    return dest


@contextmanager
def recording(hook: FireHook) -> Iterator[None]:
    """Call ``hook`` for every transition fired inside the block (nesting restores the outer hook)."""
    global _hook
    outer, _hook = _hook, hook
    try:
        yield
    finally:
        _hook = outer
