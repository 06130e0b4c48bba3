"""The user's guide cannot rot: every command of a ``console`` block in docs/guide/*.md and the
README is run from the repository's root (in a scratch directory that sees the repository's
``docs`` and ``tests``) and its standard output compared with what the page shows. In the
expected output, a line ending in ``...`` matches any line starting with what precedes it, and a
line ``...`` alone any number of lines. The contract's copy in the docs is kept in step with the
shared one."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from kgspec.cli import main
from tests.report.test_findings_human import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
SHARED_CONTRACT = Path("/work/shared/contracts/trace-format.md")
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def examples() -> list[tuple[str, str, list[str]]]:
    """(page, command, expected output lines) for every ``$ `` line of a console block."""
    out: list[tuple[str, str, list[str]]] = []
    for page in PAGES:
        for block in _BLOCK.findall(page.read_text(encoding="utf-8")):
            for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
                command, *expected = chunk.rstrip("\n").split("\n")
                out.append((page.name, command, expected))
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    line = actual[0]
    ok = line.startswith(head[:-3]) if head.endswith("...") else line == head
    return ok and matches(rest, actual[1:])


EXAMPLES = examples()


def test_the_guide_has_its_examples() -> None:
    pages = {page for page, _, _ in EXAMPLES}
    assert pages == {"README.md", "collecting.md", "check-broker-logs.md", "first-bad-event.md", "assignor.md", "client.md",
                     "coordinator.md"}
    assert all(command.startswith("kgspec ") for _, command, _ in EXAMPLES)


@pytest.mark.parametrize(("page", "command", "expected"), EXAMPLES,
                         ids=[f"{p}:{c[:60]}" for p, c, _ in EXAMPLES])
def test_guide_command(page: str, command: str, expected: list[str], tmp_path_factory: pytest.TempPathFactory,
                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    scratch = tmp_path_factory.getbasetemp() / "guide" / page  # one per page: its commands run in order
    if not scratch.exists():
        scratch.mkdir(parents=True)
        for name in ("docs", "tests"):
            (scratch / name).symlink_to(ROOT / name)
    monkeypatch.chdir(scratch)
    monkeypatch.delenv("KGSPEC_PROGRESS", raising=False)
    status = main(shlex.split(command)[1:])
    captured = capsys.readouterr()
    assert status in (0, 1), captured.err
    actual = [line.rstrip() for line in captured.out.splitlines()]
    assert matches([line.rstrip() for line in expected], actual), "\n".join(actual)


def test_matching_rules_can_fail() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["no invariant broke: ..."], ["no invariant broke: 3 batch(es) in 2.1 s"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["a"], ["a", "b"])


def test_the_contract_in_the_docs_is_the_shared_one() -> None:
    copy = (ROOT / "docs" / "guide" / "trace-format.md").read_text(encoding="utf-8")
    assert "## 2. `kgspec check`" in copy
    if SHARED_CONTRACT.exists():
        assert copy == SHARED_CONTRACT.read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/guide/trace-format.md" in readme
    assert "shared/contracts" not in readme
