"""Run mypy over the kgspec import package as installed.

setuptools maps the top-level folders spec/ model/ invariants/ conformance/ onto
kgspec.spec, kgspec.model, ...; mypy cannot follow that mapping through the
editable-install finder, so this builds a tree of symlinks with the import layout
(kgspec/ under a fresh temporary directory) and checks it. Each run gets its own tree so
that concurrent runs (several test sessions on one checkout) cannot delete each other's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = ("spec", "model", "invariants", "conformance")


def build_tree(tree: Path) -> Path:
    pkg = tree / "kgspec"
    pkg.mkdir(parents=True)
    for entry in (ROOT / "kgspec").iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, pkg / entry.name)
    for name in MAPPED:
        os.symlink(ROOT / name, pkg / name)
    return tree


def main() -> int:
    tree = Path(tempfile.mkdtemp(prefix="kgspec-typecheck-"))
    try:
        build_tree(tree)
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(tree / ".mypy_cache"), "kgspec"]
        env = dict(os.environ, MYPYPATH=str(tree))
        return subprocess.call(cmd, cwd=tree, env=env)
    finally:
        shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
