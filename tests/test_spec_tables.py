"""Compiled tables agree with the reference transitions.Machine, and declarations are sane."""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kgspec.spec import MACHINES, build_machine
from kgspec.spec.classic import VALID_PREVIOUS_STATES as CLASSIC_VALID
from kgspec.spec.client import VALID_PREVIOUS_STATES as CLIENT_VALID
from kgspec.spec.declarations import Declaration, transition
from kgspec.spec.tables import TABLES, InvalidTransition, Table
from transitions import MachineError

NAMES = sorted(MACHINES)
MACHINE_OBJECTS: dict[str, Any] = {name: build_machine(MACHINES[name]) for name in NAMES}


class Model:
    """Minimal model for driving a shared Machine without add_model."""

    __slots__ = ("state",)

    def __init__(self, state: str) -> None:
        self.state = state


def machine_fire(name: str, state: str, trigger: str) -> str:
    model = Model(state)
    MACHINE_OBJECTS[name].events[trigger].trigger(model)
    return model.state


@pytest.mark.parametrize("name", NAMES)
def test_every_state_trigger_pair_agrees(name: str) -> None:
    decl, table = MACHINES[name], TABLES[name]
    for state in decl.states:
        for trigger in decl.triggers:
            try:
                expected = machine_fire(name, state, trigger)
            except MachineError:
                with pytest.raises(InvalidTransition):
                    table.fire(state, trigger)
            else:
                assert table.fire(state, trigger) == expected


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(NAMES), data=st.data())
def test_random_trigger_sequences_agree(name: str, data: st.DataObject) -> None:
    decl, table = MACHINES[name], TABLES[name]
    model = Model(decl.initial)
    state = table.initial
    for trigger in data.draw(st.lists(st.sampled_from(decl.triggers), max_size=30)):
        try:
            MACHINE_OBJECTS[name].events[trigger].trigger(model)
        except MachineError:
            with pytest.raises(InvalidTransition):
                table.fire(state, trigger)
            continue  # both rejected; state unchanged
        state = table.fire(state, trigger)
        assert state == model.state


@pytest.mark.parametrize("name", NAMES)
def test_every_state_reachable_from_initial(name: str) -> None:
    table = TABLES[name]
    seen, queue = {table.initial}, deque([table.initial])
    while queue:
        state = queue.popleft()
        for trigger in table.triggers_for(state):
            dest = table.fire(state, trigger)
            if dest not in seen:
                seen.add(dest)
                queue.append(dest)
    assert seen == set(table.states)


@pytest.mark.parametrize("name", NAMES)
def test_terminal_states_have_no_triggers(name: str) -> None:
    for state in MACHINES[name].terminal:
        assert TABLES[name].triggers_for(state) == ()


def test_invalid_transition_is_a_value_error_listing_allowed_triggers() -> None:
    table = TABLES["consumer-client"]
    with pytest.raises(InvalidTransition) as info:
        table.fire("STABLE", "subscribe")
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.machine, err.state, err.trigger) == ("consumer-client", "STABLE", "subscribe")
    assert err.allowed == table.triggers_for("STABLE")
    assert "assignment_received" in str(err)
    assert "subscribe" in str(err)
    with pytest.raises(InvalidTransition, match="terminal"):
        table.fire("FATAL", "subscribe")


def test_tables_are_immutable_and_built_once() -> None:
    table = TABLES["classic-group"]
    with pytest.raises(TypeError):
        table.edges[("EMPTY", "x")] = "DEAD"  # type: ignore[index]
    with pytest.raises(TypeError):
        TABLES["x"] = table  # type: ignore[index]
    from kgspec.spec import tables

    assert tables.TABLES is TABLES
    assert isinstance(table, Table)


def test_classic_edges_are_exactly_valid_previous_states() -> None:
    edges = {(src, dest) for (src, _), dest in TABLES["classic-group"].edges.items()}
    valid = {(prev, state) for state, prevs in CLASSIC_VALID.items() for prev in prevs}
    assert edges == valid


def test_client_edges_and_hops_follow_valid_previous_states() -> None:
    valid = {(prev, state) for state, prevs in CLIENT_VALID.items() for prev in prevs}
    used = set()
    for t in MACHINES["consumer-client"].transitions:
        for src in t.sources:
            path = [src, *t.via, t.dest]
            hops = set(itertools.pairwise(path))
            assert hops <= valid, (t.trigger, src, hops - valid)
            used |= hops
    # validPreviousStates edges no client code path takes (documented in docs/spec.md).
    assert valid - used == {
        ("PREPARE_LEAVING", "FENCED"), ("LEAVING", "FENCED"), ("UNSUBSCRIBED", "PREPARE_LEAVING"),
        ("PREPARE_LEAVING", "UNSUBSCRIBED"),  # taken only via LEAVING (transitionToFenced)
    }


def test_declaration_rejects_ambiguous_or_unknown() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        Declaration("x", "x", ("A", "B"), "A",
                    (transition("go", "A", "B", ""), transition("go", "A", "A", "")))
    with pytest.raises(ValueError, match="unknown state"):
        Declaration("x", "x", ("A",), "A", (transition("go", "A", "Z", ""),))
    with pytest.raises(ValueError, match="terminal"):
        Declaration("x", "x", ("A", "B"), "A", (transition("go", "A", "B", ""),), terminal=("A",))


def test_every_transition_is_documented() -> None:
    for decl in MACHINES.values():
        assert decl.doc
        for t in decl.transitions:
            assert len(t.doc) > 10, (decl.name, t.trigger)
