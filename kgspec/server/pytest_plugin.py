"""A pytest fixture for client test suites: a ``kgspec serve`` per test.

Enable it in a ``conftest.py`` with ``pytest_plugins = ["kgspec.server.pytest_plugin"]``, then::

    @pytest.mark.kgspec_serve(topics={"orders": 6}, profile="kafka-4.1", clients=True)
    def test_my_consumer(kgspec_broker):
        run_my_consumer(kgspec_broker.bootstrap)
        assert kgspec_broker.findings == []

The marker's keywords are those of ``kgspec.serve`` (default: an in-process server on a free
port). After the test, a live finding fails it (``kgspec_serve(allow_findings=True)`` keeps them
for the test to judge) and the trace is checked once more as a whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .api import ServedBroker, serve


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "kgspec_serve(**options): options of the kgspec_broker fixture "
                                       "(kgspec.serve's keywords, and allow_findings)")


@pytest.fixture
def kgspec_broker(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[ServedBroker]:
    marker = request.node.get_closest_marker("kgspec_serve")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    allow = bool(options.pop("allow_findings", False))
    options.setdefault("trace_out", tmp_path / "kgspec-serve.jsonl")
    with serve(**options) as broker:
        yield broker
    if not allow and broker.findings:
        lines = "\n".join(f"  line {f.line}: group {f.group_id}: {f.kind} ({f.field}): {f.message}"
                          for f in broker.findings[:10])
        pytest.fail(f"kgspec serve found {len(broker.findings)} departure(s) in {broker.trace_path}:\n{lines}")
