"""The declaration format: one lifecycle = states + initial + documented transitions.

A declaration is plain frozen data. It is the single source for three things:
the authoring/reference machine (``build_machine``, a ``transitions.Machine``),
the compiled hot-path table (``kgspec.spec.tables``) and the diagrams
(``kgspec.spec.diagrams``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine


@dataclass(frozen=True, slots=True)
class Transition:
    """``trigger`` moves any of ``sources`` to ``dest``; ``doc`` says why, citing Kafka.

    ``via`` lists states Kafka passes through synchronously inside one call
    (e.g. PREPARE_LEAVING -> LEAVING -> UNSUBSCRIBED in ``transitionToFenced``);
    the machine jumps straight to ``dest`` but tests can check every hop.
    """

    trigger: str
    sources: tuple[str, ...]
    dest: str
    doc: str
    via: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Declaration:
    """One lifecycle. ``terminal`` states have no way out (drawn as ``[*]`` exits)."""

    name: str
    title: str
    states: tuple[str, ...]
    initial: str
    transitions: tuple[Transition, ...]
    doc: str = ""
    terminal: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        known = set(self.states)
        if len(known) != len(self.states):
            raise ValueError(f"{self.name}: duplicate states")
        if self.initial not in known:
            raise ValueError(f"{self.name}: initial {self.initial!r} is not a state")
        seen: dict[tuple[str, str], str] = {}
        for t in self.transitions:
            for s in (*t.sources, t.dest, *t.via):
                if s not in known:
                    raise ValueError(f"{self.name}: {t.trigger}: unknown state {s!r}")
            for src in t.sources:
                # A table maps (state, trigger) to one dest: reject ambiguity at declaration time.
                if (src, t.trigger) in seen:
                    raise ValueError(f"{self.name}: ({src}, {t.trigger}) declared twice")
                seen[(src, t.trigger)] = t.dest
        for s in self.terminal:
            if s not in known or any(s in t.sources for t in self.transitions):
                raise ValueError(f"{self.name}: terminal {s!r} must be a state with no exits")

    @property
    def triggers(self) -> tuple[str, ...]:
        """Triggers in declaration order, each once."""
        return tuple(dict.fromkeys(t.trigger for t in self.transitions))


def transition(
    trigger: str, sources: str | Iterable[str], dest: str, doc: str, via: Iterable[str] = ()
) -> Transition:
    """Shorthand constructor: ``sources`` may be one state name or several."""
    srcs = (sources,) if isinstance(sources, str) else tuple(sources)
    return Transition(trigger, srcs, dest, " ".join(doc.split()), tuple(via))


def self_loops(trigger: str, states: str | Iterable[str], doc: str) -> tuple[Transition, ...]:
    """``trigger`` keeps each of ``states`` where it is (one transition per state)."""
    names = (states,) if isinstance(states, str) else tuple(states)
    return tuple(transition(trigger, s, s, doc) for s in names)


def build_machine(decl: Declaration) -> Machine:
    """The reference ``transitions.Machine`` for ``decl``: no model, no auto ``to_*`` triggers.

    Drive it with ``machine.events[trigger].trigger(model)`` on any object with a
    ``state`` attribute; invalid triggers raise ``transitions.MachineError``.
    """
    specs: list[dict[str, Any]] = [
        {"trigger": t.trigger, "source": list(t.sources), "dest": t.dest} for t in decl.transitions
    ]
    return Machine(
        model=None,
        states=list(decl.states),
        transitions=specs,
        initial=decl.initial,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )
