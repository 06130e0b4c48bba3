"""Imports go one way: model ← invariants ← simulator / checker ← CLI.

The import graph is read from the source with ``ast`` (runtime imports only: an
``if TYPE_CHECKING:`` block is skipped) and checked for:

(a) no cycle between the parts of ``kgspec.model``: each protocol folder, ``migration``,
    ``assignors`` and each top-level module (``coordinator``, ``records``, ...) is a node;
(b) a protocol (consumer, streams, classic, connect, offsets, group_configs) imports no other protocol and no
    ``migration`` module: what crosses protocols is ``model/migration/rules.py``
    (``coord.migration``), and ``model/protocol.py`` is the one interface they plug in through;
(c) the layers: the model imports no invariants, checker, simulator, server or CLI; the invariants
    no checker, simulator, server or CLI; the simulator no checker, server or CLI; the checker no
    server or CLI; the server (``kgspec serve``) no CLI; the declarations (``kgspec.spec``)
    nothing of kgspec but ``kgspec.spec``;
(d) no function-level import of a kgspec module in ``model/``, ``invariants/`` or
    ``conformance/`` (an import hidden in a function is how a cycle hides); the only
    function-level imports there are of optional third-party packages, loaded when used.

Every rule is a function of the import list, and each has a self-test on a synthetic graph
that breaks it, so none passes vacuously.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# folder -> the package it installs as: pyproject.toml's [tool.setuptools] package-dir, read, so
# a folder added there is scanned too
FOLDERS = {folder: package for package, folder in
           tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].items()}

MODEL = "kgspec.model"
PROTOCOLS = frozenset({"consumer", "streams", "classic", "connect", "offsets", "group_configs"})
MIGRATION = "migration"

# package -> the packages it must not import (rule c); the declarations import no kgspec module
# outside themselves (SELF_CONTAINED), whatever its package
SELF_CONTAINED = "kgspec.spec"
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "kgspec.model": ("kgspec.invariants", "kgspec.conformance", "kgspec.sim", "kgspec.server", "kgspec.commands",
                     "kgspec.cli"),
    "kgspec.invariants": ("kgspec.conformance", "kgspec.sim", "kgspec.server", "kgspec.commands", "kgspec.cli"),
    "kgspec.sim": ("kgspec.conformance", "kgspec.server", "kgspec.commands", "kgspec.cli"),
    "kgspec.conformance": ("kgspec.server", "kgspec.commands", "kgspec.cli"),
    # the server (kgspec serve) sits beside the CLI: above the model and the checker it drives
    "kgspec.server": ("kgspec.commands", "kgspec.cli"),
}
# rule d: where function-level imports of kgspec modules are banned, and the optional
# third-party packages that may still be imported where they are used (heavy or optional:
# a core install has none of the extras)
NO_LAZY_KGSPEC = ("kgspec.model", "kgspec.invariants", "kgspec.conformance")
LAZY_THIRD_PARTY = frozenset({"pyspark", "pyarrow", "pandas", "z3", "confluent_kafka", "kio", "rich",
                              "orjson", "hypothesis", "graphviz"})


@dataclass(frozen=True, slots=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module: a kgspec module when it is one, else the name as written
    line: int
    in_function: bool  # inside a def or lambda (else module or class level)

    def where(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}" + (" in a function" if self.in_function else "")


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


# --- the graph ---------------------------------------------------------------------------


def source_modules() -> Iterator[tuple[str, bool, Path]]:
    """(module name, is a package, file) for every kgspec source file."""
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            yield ".".join([package, *parts]), is_package, path


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_in(tree: ast.AST, module: str, is_package: bool, known: Iterable[str] = ()) -> list[Import]:
    """The runtime imports of one module. ``from a import b`` names module ``a.b`` when that is a
    module of ``known``, else ``a``; relative imports are resolved against ``module``."""
    modules = set(known)
    out: list[Import] = []

    def absolute(level: int, name: str | None) -> str:
        if level == 0:
            return name or ""
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (level - 1)]
        return ".".join([*base, name] if name else base)

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for other in child.orelse:  # the runtime branch of ``if TYPE_CHECKING: ... else:``
                    visit_one(other, in_function)
                continue
            visit_one(child, in_function)

    def visit_one(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            out.extend(Import(module, alias.name, node.lineno, in_function) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append(Import(module, sub if sub in modules else base, node.lineno, in_function))
        else:
            inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(node, inner)

    visit(tree, False)
    return out


@cache
def all_imports() -> tuple[Import, ...]:
    found = list(source_modules())
    known = {name for name, _, _ in found}
    out: list[Import] = []
    for name, is_package, path in found:
        out.extend(imports_in(ast.parse(path.read_text(encoding="utf-8"), str(path)), name, is_package, known))
    return tuple(out)


def model_node(module: str) -> str | None:
    """The part of the model ``module`` belongs to: ``coordinator``, ``consumer``, ``migration``..."""
    if not within(module, MODEL):
        return None
    rest = module[len(MODEL) + 1:]
    return rest.split(".")[0] if rest else "__init__"


def model_graph(imports: Iterable[Import]) -> dict[str, set[str]]:
    """Edges between the parts of the model (an import inside one part is no edge)."""
    edges: dict[str, set[str]] = {}
    for imp in imports:
        src, dst = model_node(imp.source), model_node(imp.target)
        if src is None:
            continue
        edges.setdefault(src, set())
        if dst is not None and dst != src:
            edges[src].add(dst)
    return edges


def find_cycle(edges: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A cycle of ``edges`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := dfs(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := dfs(start)) is not None:
            return cycle
    return None


# --- the rules -----------------------------------------------------------------------------


def protocol_problems(imports: Iterable[Import]) -> list[str]:
    """Rule (b)."""
    out = []
    for imp in imports:
        src, dst = model_node(imp.source), model_node(imp.target)
        if src in PROTOCOLS and dst is not None and dst != src and (dst in PROTOCOLS or dst == MIGRATION):
            out.append(imp.where())
    return out


def layer_problems(imports: Iterable[Import]) -> list[str]:
    """Rule (c)."""
    out = []
    for imp in imports:
        if within(imp.source, SELF_CONTAINED):
            if within(imp.target, "kgspec") and not within(imp.target, SELF_CONTAINED):
                out.append(imp.where())
            continue
        for package, banned in FORBIDDEN.items():
            if within(imp.source, package) and any(within(imp.target, b) for b in banned):
                out.append(imp.where())
    return out


def lazy_problems(imports: Iterable[Import]) -> list[str]:
    """Rule (d)."""
    out = []
    for imp in imports:
        if not imp.in_function or not any(within(imp.source, p) for p in NO_LAZY_KGSPEC):
            continue
        if within(imp.target, "kgspec") or imp.target.split(".")[0] not in LAZY_THIRD_PARTY:
            out.append(imp.where())
    return out


# --- the checks ----------------------------------------------------------------------------


def test_the_graph_sees_the_source() -> None:
    # every package a rule names is read (the folders are pyproject.toml's)
    for package in (MODEL, SELF_CONTAINED, *FORBIDDEN, *NO_LAZY_KGSPEC):
        assert any(within(package, scanned) for scanned in FOLDERS.values()), package
    imports = all_imports()
    sources = {imp.source for imp in imports}
    assert {"kgspec.model.coordinator", "kgspec.conformance.checker", "kgspec.sim.simulator"} <= sources
    graph = model_graph(imports)
    assert PROTOCOLS | {MIGRATION, "assignors", "coordinator", "protocol"} <= set(graph)
    assert PROTOCOLS | {MIGRATION} <= graph["coordinator"]  # the coordinator imports everything in the model


def test_model_has_no_import_cycle() -> None:
    cycle = find_cycle(model_graph(all_imports()))
    assert cycle is None, "import cycle in kgspec.model: " + " -> ".join(cycle or ())


def test_protocols_import_no_other_protocol_and_no_migration() -> None:
    problems = protocol_problems(all_imports())
    assert not problems, "\n".join(problems)


def test_layers_import_one_way() -> None:
    problems = layer_problems(all_imports())
    assert not problems, "\n".join(problems)


def test_no_function_level_imports_of_kgspec() -> None:
    problems = lazy_problems(all_imports())
    assert not problems, "\n".join(problems)


# --- each rule can fail ----------------------------------------------------------------------


def _imports(source: str, module: str, is_package: bool = False, known: Iterable[str] = ()) -> list[Import]:
    return imports_in(ast.parse(source), module, is_package, known)


def test_reading_imports() -> None:
    source = """
from typing import TYPE_CHECKING
from kgspec.model import timers
from .records import Record
from . import ops
from ..invariants.exclusivity import Exclusive
import z3
if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
class C:
    from kgspec.model.errors import Errors
def f():
    from kgspec.model.javaorder import java_hashmap_order
    g = lambda: __import__("x")
"""
    known = {"kgspec.model.timers", "kgspec.model.streams.ops"}
    got = [(i.target, i.in_function) for i in _imports(source, "kgspec.model.streams.group", known=known)]
    assert got == [("typing", False), ("kgspec.model.timers", False), ("kgspec.model.streams.records", False),
                   ("kgspec.model.streams.ops", False), ("kgspec.model.invariants.exclusivity", False),
                   ("z3", False), ("kgspec.model.errors", False), ("kgspec.model.javaorder", True)]
    # a package's relative imports are relative to the package itself
    assert [i.target for i in _imports("from .group import G", "kgspec.model.streams", is_package=True)] == [
        "kgspec.model.streams.group"]


def test_a_cycle_is_found_and_reported() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"x": {"y"}, "y": {"y2"}, "y2": {"y"}}) == ["y", "y2", "y"]
    # through the model graph: records imports coordinator imports records
    cyclic = [Import("kgspec.model.coordinator", "kgspec.model.records", 1, False),
              Import("kgspec.model.records.schema", "kgspec.model.coordinator", 1, False),
              Import("kgspec.model.records", "kgspec.model.records.schema", 1, False)]
    assert find_cycle(model_graph(cyclic)) == ["coordinator", "records", "coordinator"]


def test_each_rule_flags_a_breach() -> None:
    def one(source: str, target: str, in_function: bool = False) -> list[Import]:
        return [Import(source, target, 7, in_function)]

    assert protocol_problems(one("kgspec.model.consumer.ops", "kgspec.model.classic.group")) != []
    assert protocol_problems(one("kgspec.model.streams.ops", "kgspec.model.migration.protocol")) != []
    assert protocol_problems(one("kgspec.model.migration.rules", "kgspec.model.classic.group")) == []
    assert protocol_problems(one("kgspec.model.consumer.ops", "kgspec.model.protocol")) == []

    assert layer_problems(one("kgspec.model.assignors.guarantees", "kgspec.invariants.exclusivity")) != []
    assert layer_problems(one("kgspec.invariants.replay", "kgspec.sim.trace")) != []
    assert layer_problems(one("kgspec.spec.tables", "kgspec.model.records")) != []
    assert layer_problems(one("kgspec.spec.tables", "kgspec.__main__")) != []  # any kgspec module outside spec
    assert layer_problems(one("kgspec.spec.tables", "kgspec.spec.registry")) == []
    assert layer_problems(one("kgspec.sim.machine", "kgspec.conformance.checker")) != []
    assert layer_problems(one("kgspec.conformance.checker", "kgspec.commands.check")) != []
    assert layer_problems(one("kgspec.conformance.recorder", "kgspec.sim.trace")) == []

    assert lazy_problems(one("kgspec.conformance.classic", "kgspec.conformance.checker", True)) != []
    assert lazy_problems(one("kgspec.model.streams.ops", "json", True)) != []  # stdlib: import it at the top
    assert lazy_problems(one("kgspec.conformance.spark.pipeline", "pyspark.sql", True)) == []
    assert lazy_problems(one("kgspec.commands.fuzz", "kgspec.sim.machine", True)) == []  # the CLI's startup
