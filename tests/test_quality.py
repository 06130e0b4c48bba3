"""ruff and mypy are part of the test suite, so CI proves the code stays clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["kgspec", "spec", "model", "invariants", "conformance", "tests", "scripts"]


def test_ruff_clean() -> None:
    if shutil.which("ruff", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("ruff not installed")
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *SOURCES], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_clean() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "typecheck.py")], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
