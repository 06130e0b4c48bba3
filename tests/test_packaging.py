"""The four top-level folders install as subpackages of `kgspec`, and the CLI is wired."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPING = {"spec": "kgspec.spec", "model": "kgspec.model", "invariants": "kgspec.invariants",
           "conformance": "kgspec.conformance", "kgspec": "kgspec"}


def _declared_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["tool"]["setuptools"]["packages"])


def test_every_package_folder_is_declared() -> None:
    on_disk = set()
    for folder, dotted in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            on_disk.add(".".join([dotted, *rel.parts]))
    assert on_disk == _declared_packages()


def test_subpackages_import_under_kgspec() -> None:
    import kgspec.conformance
    import kgspec.invariants
    import kgspec.model
    import kgspec.spec

    assert Path(kgspec.model.__file__).parent == ROOT / "model"
    assert Path(kgspec.spec.__file__).parent == ROOT / "spec"
    assert Path(kgspec.invariants.__file__).parent == ROOT / "invariants"
    assert Path(kgspec.conformance.__file__).parent == ROOT / "conformance"


def test_simulator_sits_in_the_import_package() -> None:
    import kgspec.sim

    # above the model and the invariants it checks (tests/test_layering.py), not inside model/
    assert Path(kgspec.sim.__file__).parent == ROOT / "kgspec" / "sim"
    assert "kgspec.sim" in _declared_packages()
    assert not (ROOT / "model" / "sim").exists()


def test_cli_help_lists_commands() -> None:
    out = subprocess.run([sys.executable, "-m", "kgspec", "--help"], capture_output=True, text=True, check=True)
    assert "usage: kgspec" in out.stdout
