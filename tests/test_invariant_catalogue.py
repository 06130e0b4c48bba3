"""The catalogue (invariants/catalogue.py), the Z3 encodings and the Python checks stay in step.

* every catalogue entry with a Z3 encoding names one in ``invariants/symbolic``, and every
  encoding is in the catalogue, for (at least) its protocols;
* every executable check, core and adapter the catalogue references exists and is callable;
  an entry without one says why;
* every invariant name the code reports (an ``invariant`` finding's field, a simulator
  ``Violation``, a problem tuple, a registry key) is a catalogue name, spelled through its
  constant;
* on small concrete states, the Python predicates and the Z3 encodings agree, violated or not;
* docs/invariants.md is the catalogue's rendering.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from kgspec.invariants import (
    ALL_NAMES,
    CONSUMER_INVARIANTS,
    STREAMS_GROUP_INVARIANTS,
    STREAMS_INVARIANTS,
    catalogue,
)
from kgspec.invariants.catalogue import (
    CATALOGUE,
    ENTRIES,
    HARNESS_NAMES,
    LEMMA,
    PROTOCOLS,
    RENAMED,
    resolve,
)

ROOT = Path(__file__).resolve().parent.parent
# Where names are reported: the checks, the trace checker, the simulator and fuzzer.
SCANNED = [*sorted((ROOT / "invariants").rglob("*.py")), *sorted((ROOT / "conformance").glob("*.py")),
           *sorted((ROOT / "kgspec" / "sim").glob("*.py"))]
CONSTANTS = {name: value for name, value in vars(catalogue).items()
             if name.isupper() and isinstance(value, str) and value in CATALOGUE}


def test_entries_are_unique_and_complete() -> None:
    assert len(CATALOGUE) == len(ENTRIES)
    for e in ENTRIES:
        assert e.meaning, e.name
        assert set(e.protocols) <= set(PROTOCOLS), e.name
        assert e.check is not None or e.no_check, f"{e.name}: no check and no reason"
        assert e.symbolic is not None or e.no_symbolic, f"{e.name}: no Z3 encoding and no reason"
        assert e.same_rule_as is None or e.same_rule_as in CATALOGUE, e.name
        assert e.symbolic in (None, e.name), f"{e.name}: the Z3 encoding must have the same name"
        assert not set(e.renamed_from) & set(CATALOGUE), e.name
    assert set(RENAMED.values()) <= set(CATALOGUE)
    assert RENAMED == {"partition-epoch-map": catalogue.PARTITION_EPOCH_INDEX}
    assert not set(HARNESS_NAMES) & set(CATALOGUE)
    # every name constant is an entry, and every entry has its constant
    assert set(CONSTANTS.values()) == set(CATALOGUE)


def test_every_reference_resolves_to_a_callable() -> None:
    for e in ENTRIES:
        for ref in (e.check, e.core, *e.adapters):
            if ref is None:
                continue
            if ref.startswith("kgspec.invariants.symbolic"):
                pytest.importorskip("z3")
            assert callable(resolve(ref)), ref


def test_symbolic_and_catalogue_agree() -> None:
    pytest.importorskip("z3")
    from kgspec.invariants.symbolic.invariants import CORE, INVARIANTS

    encoded = {e.name for e in ENTRIES if e.symbolic is not None}
    assert encoded == set(INVARIANTS)
    for name, inv in INVARIANTS.items():
        entry = CATALOGUE[name]
        assert set(inv.protocols) <= set(entry.protocols), name
        if inv.core:
            assert entry.kind != LEMMA, name
        elif entry.check is None:
            assert entry.kind == LEMMA, name  # a proof lemma with no Python twin
    assert set(CORE) <= encoded


def test_registries_use_catalogue_names() -> None:
    for name in (*CONSUMER_INVARIANTS, *STREAMS_GROUP_INVARIANTS, *STREAMS_INVARIANTS, *ALL_NAMES):
        assert name in CATALOGUE, name


def _reported_names(tree: ast.AST) -> list[ast.expr]:
    """The expressions a module reports invariant names through."""
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = node.args
            if fn == "Finding" and len(args) > 6 and isinstance(args[4], ast.Constant) and args[4].value == "invariant":
                out.append(args[6])
            elif fn == "_report" and len(args) > 4 and isinstance(args[2], ast.Constant) and args[2].value == "invariant":
                out.append(args[4])
            elif fn in ("Violation", "ClientProblem") and args:
                out.append(args[0])
        elif isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[1], ast.JoinedStr):
            out.append(node.elts[0])  # a (name, message) problem
    return out


def test_every_reported_name_is_in_the_catalogue() -> None:
    seen = 0
    for path in SCANNED:
        if path.name == "catalogue.py":
            continue
        for expr in _reported_names(ast.parse(path.read_text(), str(path))):
            where = f"{path.relative_to(ROOT)}:{expr.lineno}"
            if isinstance(expr, ast.Constant):
                # spelled out: allowed only for the harness's own names
                assert expr.value in HARNESS_NAMES, f"{where}: {expr.value!r} is not a catalogue constant"
                seen += 1
            elif isinstance(expr, ast.Name) and expr.id.isupper():
                assert expr.id in CONSTANTS, f"{where}: {expr.id} is not a catalogue name"
                seen += 1
    # the scan finds the reporting sites it can read: a site added, or one it stops reading (a message
    # built with str.format instead of an f-string), changes this count; recount and update it
    assert seen == 23


def test_names_are_spelled_only_in_the_catalogue() -> None:
    """No string literal outside the catalogue is an invariant name (docstrings aside)."""
    for path in SCANNED:
        if path.name == "catalogue.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        exported = {id(n) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                    for n in ast.walk(node.value)}  # function names such as convergence
        exported |= {id(n) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                     for n in ast.walk(node)}  # words of a message
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in CATALOGUE:
                assert id(node) in exported, \
                    f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}; use its catalogue constant"


def test_docs_render_the_catalogue() -> None:
    doc = (ROOT / "docs" / "invariants.md").read_text()
    assert doc == catalogue.render_markdown(), "regenerate: python -m kgspec.invariants.catalogue > docs/invariants.md"


# --- the Python predicates and the Z3 encodings on small concrete states -------------------

TWINNED = ("no-double-ownership", "processid-exclusivity", "epoch-monotonicity", "target-validity", "commit-fencing")


def _random_state(rng: random.Random, protocol: str):  # type: ignore[no-untyped-def]
    from kgspec.invariants.symbolic.concrete import initial

    members, tasks = ("m1", "m2", "m3"), ("t0", "t1")
    processes = ("q1", "q2") if protocol == "streams" else ()
    process_of = {m: rng.choice(processes) for m in members} if processes else {}
    s = initial(protocol, members, tasks, processes, process_of)
    s.group_epoch = rng.randint(1, 4)
    s.assignment_epoch = rng.randint(0, s.group_epoch + 1)
    tidy = rng.random() < 0.5  # epochs in order, so that epoch-monotonicity holds at times
    density = rng.choice((0.1, 0.3))

    def some() -> frozenset[str]:
        return frozenset(t for t in tasks if rng.random() < density)

    for m in members:
        if rng.random() < 0.8:
            s.joined.add(m)
        s.epoch[m] = rng.randint(0, 4)
        s.prev_epoch[m] = rng.randint(0, 4)
        s.client_epoch[m] = rng.randint(0, 4)
        s.mstate[m] = rng.choice(("STABLE", "UNREVOKED", "UNRELEASED"))
        if tidy:
            s.assignment_epoch = max(s.assignment_epoch, 1)
            s.epoch[m] = min(s.epoch[m], s.assignment_epoch - 1)
            s.prev_epoch[m] = min(s.prev_epoch[m], s.epoch[m])
        s.subscribed[m] = some()
        if rng.random() < 0.2:
            s.shrinking.add(m)
        if rng.random() < 0.4:
            s.has_dup.add(m)
            s.dup_epoch[m] = rng.randint(0, 4)
        for r in s.roles:
            s.assigned[r][m], s.pending[r][m], s.target[r][m] = some(), some(), some()
            s.owned[r][m], s.dup_owned[r][m] = some(), some()
    for t in tasks:
        s.epoch_owner[t] = rng.choice((None, *members))
    return s


@pytest.mark.parametrize("protocol", ["consumer", "streams"])
def test_python_and_z3_agree_on_random_states(protocol: str) -> None:
    pytest.importorskip("z3")
    from kgspec.invariants.symbolic.concrete import python_holds, state_satisfies
    from kgspec.invariants.symbolic.invariants import INVARIANTS

    rng = random.Random(20 if protocol == "consumer" else 21)
    names = [n for n in TWINNED if protocol in INVARIANTS[n].protocols]
    verdicts: dict[tuple[str, bool], int] = {}
    for _ in range(40):
        s = _random_state(rng, protocol)
        for name in names:
            holds = python_holds(name, s)
            assert holds == state_satisfies(name, s), (name, s)
            verdicts[name, holds] = verdicts.get((name, holds), 0) + 1
    # both verdicts seen for each, so the agreement is not vacuous
    assert {name for name, _ in verdicts if (name, True) in verdicts and (name, False) in verdicts} == set(names)
