"""Diagram text is generated from the declarations; committed docs do not drift."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from kgspec.spec import MACHINES
from kgspec.spec.diagrams import to_dot, to_markdown, to_mermaid

ROOT = Path(__file__).resolve().parent.parent

CLASSIC_MERMAID = """\
---
title: Classic group (ClassicGroupState)
---
stateDiagram-v2
    [*] --> EMPTY
    EMPTY --> PREPARING_REBALANCE: prepare_rebalance
    STABLE --> PREPARING_REBALANCE: prepare_rebalance
    COMPLETING_REBALANCE --> PREPARING_REBALANCE: prepare_rebalance
    PREPARING_REBALANCE --> COMPLETING_REBALANCE: join_completed
    PREPARING_REBALANCE --> EMPTY: join_completed_empty
    COMPLETING_REBALANCE --> STABLE: leader_synced
    EMPTY --> DEAD: unloaded
    PREPARING_REBALANCE --> DEAD: unloaded
    COMPLETING_REBALANCE --> DEAD: unloaded
    STABLE --> DEAD: unloaded
    DEAD --> DEAD: unloaded
"""


def test_exact_mermaid_for_classic_group() -> None:
    assert to_mermaid(MACHINES["classic-group"]) == CLASSIC_MERMAID


def test_mermaid_merges_triggers_sharing_an_edge_and_marks_terminals() -> None:
    text = to_mermaid(MACHINES["consumer-group"])
    assert ("    ASSIGNING --> ASSIGNING: member_joined, member_left, group_epoch_bumped, "
            "member_reconciled, all_members_reconciled, member_unreconciled\n") in text
    assert text.endswith("    DEAD --> [*]\n")


EDGE = re.compile(r'^    "([A-Z_]+)" -> "([A-Z_]+)" \[label="([a-z_\\n]+)"\];$')
NODE = re.compile(r'^    "([A-Z_]+)" \[label="\1"(, peripheries=2)?\];$')


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_dot_structure_matches_declaration(name: str) -> None:
    decl = MACHINES[name]
    lines = to_dot(decl).splitlines()
    assert lines[0] == f'digraph "{name}" {{'
    assert lines[-1] == "}"
    nodes: dict[str, bool] = {}
    edges: set[tuple[str, str, str]] = set()
    for line in lines[1:-1]:
        if m := NODE.match(line):
            nodes[m.group(1)] = m.group(2) is not None
        elif m := EDGE.match(line):
            for trigger in m.group(3).split("\\n"):
                edges.add((m.group(1), m.group(2), trigger))
    assert list(nodes) == list(decl.states)
    assert {s for s, terminal in nodes.items() if terminal} == set(decl.terminal)
    assert f'    __start -> "{decl.initial}";' in lines
    assert edges == {(s, t.dest, t.trigger) for t in decl.transitions for s in t.sources}
    assert to_dot(decl).count("{") == to_dot(decl).count("}")


def test_markdown_page_contains_diagram_and_every_trigger() -> None:
    decl = MACHINES["consumer-client"]
    page = to_markdown(decl)
    assert "```mermaid\n" + to_mermaid(decl) + "```" in page
    for t in decl.transitions:
        assert f"| `{t.trigger}` |" in page


def _gen_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_diagrams", ROOT / "scripts" / "gen_diagrams.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_diagrams", module)
    spec.loader.exec_module(module)
    return module


def test_committed_diagrams_match_declarations() -> None:
    gen = _gen_script()
    drifted = [str(p.relative_to(ROOT)) for p in gen.stale()]
    assert not drifted, f"docs/diagrams drifted: {drifted}; regenerate with: {gen.COMMAND}"
    assert {p.name for p in gen.expected()} == {f"{n}.md" for n in MACHINES} | {"README.md"}
