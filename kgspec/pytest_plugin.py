"""kgspec's pytest plugin (entry point ``pytest11``: loaded wherever kgspec is installed).

Fixtures for testing your own assignor (docs/assignors.md §6):

* ``assert_assignor_meets(assignor, guarantee)``: fails the test with the shrunk input when the
  assignor breaks ``valid``, ``uniform``, ``range``, ``tasks-valid`` or ``sticky``;
* ``assignor_counterexample(assignor, guarantee)``: the shrunk input and its problems, or None;
* ``kgspec_strategies``: the ``kgspec.strategies`` module (Hypothesis strategies).

``--kgspec-examples N`` sets how many inputs the fixtures try (default 200). Hypothesis is
imported only when a fixture is used.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

DEFAULT_EXAMPLES = 200


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("kgspec").addoption(
        "--kgspec-examples", type=int, default=DEFAULT_EXAMPLES, metavar="N",
        help=f"inputs the kgspec assignor fixtures try (default {DEFAULT_EXAMPLES})")


def _examples(request: pytest.FixtureRequest) -> int:
    try:
        return int(request.config.getoption("--kgspec-examples"))
    except ValueError:  # the option is not registered (the plugin was imported, not loaded)
        return DEFAULT_EXAMPLES


@pytest.fixture
def assert_assignor_meets(request: pytest.FixtureRequest) -> Callable[..., None]:
    from kgspec.properties import assert_meets

    examples = _examples(request)

    def check(assignor: Any, guarantee: str = "valid", *, max_examples: int | None = None) -> None:
        assert_meets(assignor, guarantee, max_examples=max_examples or examples)

    return check


@pytest.fixture
def assignor_counterexample(request: pytest.FixtureRequest) -> Callable[..., Any]:
    from kgspec.properties import counterexample

    examples = _examples(request)

    def find(assignor: Any, guarantee: str = "valid", *, max_examples: int | None = None) -> Any:
        return counterexample(assignor, guarantee, max_examples=max_examples or examples)

    return find


@pytest.fixture
def kgspec_strategies() -> ModuleType:
    import kgspec.strategies

    return kgspec.strategies
