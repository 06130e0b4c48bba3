"""``Coordinator.decide`` is a value: deciding twice from one state gives equal decisions and
leaves the whole model (hard and soft state, timers, clock, id source) exactly as it was.

Every decision the checker asks for while it replays the golden traces and simulated runs is
made twice here (the checker gets the first), with a deep snapshot of the coordinator taken
before the first and after the second.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kgspec.model.coordinator import Coordinator
from kgspec.model.step import Decision

from kgspec.cli import main
from tests.helpers import check

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "tests" / "golden").glob("*/*.jsonl"))


def deep_state(value: Any, seen: dict[int, int] | None = None) -> Any:
    """Everything reachable from ``value`` as plain, comparable data (callables by name only)."""
    seen = {} if seen is None else seen
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if callable(value) and not hasattr(value, "__slots__") and not hasattr(value, "__dict__"):
        return ("callable", getattr(value, "__qualname__", type(value).__name__))
    if id(value) in seen:
        return ("seen", seen[id(value)])
    seen[id(value)] = len(seen)
    if isinstance(value, dict):
        return ("dict", [(deep_state(k, seen), deep_state(v, seen)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [deep_state(v, seen) for v in value])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(repr(deep_state(v, seen)) for v in value))
    if isinstance(value, type) or (callable(value) and type(value).__name__ in ("function", "method")):
        return ("callable", getattr(value, "__qualname__", repr(value)))
    fields: list[tuple[str, Any]] = []
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(value, name):
                fields.append((name, deep_state(getattr(value, name), seen)))
    for name, v in sorted(getattr(value, "__dict__", {}).items()):
        fields.append((name, deep_state(v, seen)))
    fields = [(name, v) for name, v in fields if name not in MEMOS]
    return (type(value).__name__, fields)


# Memo tables of pure functions (a topic's hash): filling one changes no answer.
MEMOS = frozenset({"_topic_hash_cache", "_sorted_names"})


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two deep states differ first, for the assertion message."""
    if type(a) is not type(b) or not isinstance(a, (tuple, list)):
        return None if a == b else f"{path}: {a!r:.200} != {b!r:.200}"
    if len(a) != len(b):
        return f"{path}: length {len(a)} != {len(b)}: {a!r:.300} != {b!r:.300}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        label = x[0] if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) else i
        found = first_difference(x, y, f"{path}/{label}")
        if found is not None:
            return found
    return None


def decision_value(d: Decision) -> Any:
    """A decision as data: its exception by code and message, its effects by count."""
    return (d.response, [r.to_json() for r in d.records], d.explain,
            None if d.error is None else (d.error.error, d.error.message),
            d.timer_ops, d.soft, d.pending, len(d.effects), d.member_ids_drawn)


class Counter:
    decisions = 0


@pytest.fixture
def checked_decide(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Every ``decide`` runs twice; the state must not move and the two decisions must agree."""
    original = Coordinator.decide
    counter = Counter()

    def decide(self: Coordinator, *args: Any, **kwargs: Any) -> Decision:
        before = deep_state(self)
        first = original(self, *args, **kwargs)
        second = original(self, *args, **kwargs)
        after = deep_state(self)
        assert after == before, f"decide changed the model: {first_difference(before, after)}"
        assert decision_value(first) == decision_value(second), "deciding twice gave two decisions"
        counter.decisions += 1
        return first

    monkeypatch.setattr(Coordinator, "decide", decide)
    return counter


@pytest.mark.parametrize("trace", GOLDEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_decide_is_a_value_on_golden_traces(trace: Path, checked_decide: Counter) -> None:
    status, _ = check(trace)
    assert status in (0, 1)


def _calls(trace: Path) -> int:
    return sum(1 for line in trace.read_text().splitlines() if line.strip() and "request" in json.loads(line))


def test_golden_traces_make_decisions(checked_decide: Counter) -> None:
    """The golden traces do reach decide (the test above is not vacuous): one decision per call."""
    for name in ("consumer/reconciliation.jsonl", "streams/standby_rebalance.jsonl"):
        before = checked_decide.decisions
        check(GOLDEN_BY_NAME[name])
        assert checked_decide.decisions - before == _calls(GOLDEN_BY_NAME[name]), name
    assert checked_decide.decisions == 14 + 25 > 30


GOLDEN_BY_NAME = {f"{p.parent.name}/{p.name}": p for p in GOLDEN}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), protocol=st.sampled_from(["consumer", "streams"]),
       loss=st.sampled_from(["0", "0.1"]), failover=st.booleans())
def test_decide_is_a_value_on_simulated_walks(seed: int, protocol: str, loss: str, failover: bool,
                                              tmp_path_factory: pytest.TempPathFactory,
                                              checked_decide: Counter) -> None:
    out = tmp_path_factory.mktemp("sim") / "sim.jsonl"
    extra = ["--failover-every", "20000"] if failover else []
    assert main(["simulate", "--groups", "2", "--members", "3", "--duration-ms", "40000", "--seed", str(seed),
                 "--protocol", protocol, "--loss", loss, "-o", str(out), *extra]) == 0
    status, report = check(out)
    assert (status, report["findings"]) == (0, [])
