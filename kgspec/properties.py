"""The built-in assignors' guarantees as reusable properties of *any* assignor (needs ``kgspec[fuzz]``).

Guarantees (``GUARANTEES``), each a function of the input and the assignor's output that lists
the problems (docs/assignors.md §6, model/assignors/guarantees.py, model/streams/guarantees.py):

* ``valid`` — consumer: every subscribed partition in exactly one target, only a subscriber's;
* ``uniform`` — valid, and for HOMOGENEOUS groups balanced (sizes differ by at most one) and
  maximally sticky under that balance (what Kafka's UniformAssignor guarantees);
* ``range`` — exactly what Kafka's RangeAssignor assigns (it is deterministic);
* ``tasks-valid`` — streams: every active task exactly once, no process holding a task twice,
  standbys only of stateful subtopologies;
* ``sticky`` — tasks-valid, and each stateful task has ``min(replicas, processes - 1)`` standbys
  (what Kafka's StickyTaskAssignor guarantees).

An assignor that raises on a valid input breaks every guarantee. ``counterexample`` searches
with Hypothesis and returns the *shrunk* failing input; ``assert_meets`` is the one-line test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import strategies as st

from kgspec.model.assignors.guarantees import (
    range_problems,
    uniform_guarantee_problems,
    validate_assignment,
)
from kgspec.model.streams.guarantees import sticky_guarantee_problems
from kgspec.model.streams.task_api import TaskGroupSpec
from kgspec.strategies import ConsumerCase, group_specs, incremental_changes, task_group_specs

CONSUMER_GUARANTEES = ("valid", "uniform", "range")
TASK_GUARANTEES = ("tasks-valid", "sticky")
GUARANTEES = (*CONSUMER_GUARANTEES, *TASK_GUARANTEES)
_STANDBY_COUNT = " standbys, expected "


def consumer_problems(assignor: Any, case: ConsumerCase, guarantee: str = "valid") -> list[str]:
    """What ``assignor``'s output for ``case`` breaks of ``guarantee`` (empty: nothing)."""
    topics = case.topics
    try:
        result = assignor.assign(case.spec, topics)
    except Exception as exc:
        return [f"assign raised {type(exc).__name__}: {exc}"]
    if guarantee == "uniform":
        return uniform_guarantee_problems(case.spec, topics, result)
    if guarantee == "range":
        return validate_assignment(case.spec, topics, result) or range_problems(case.spec, topics, result)
    if guarantee != "valid":
        raise ValueError(f"unknown consumer guarantee {guarantee!r}; known: {', '.join(CONSUMER_GUARANTEES)}")
    return validate_assignment(case.spec, topics, result)


def task_problems(assignor: Any, spec: TaskGroupSpec, guarantee: str = "tasks-valid") -> list[str]:
    try:
        result = assignor.assign_tasks(spec)
    except Exception as exc:
        return [f"assign_tasks raised {type(exc).__name__}: {exc}"]
    problems = sticky_guarantee_problems(spec.members, spec.subtopologies, spec.num_standby_replicas, result)
    if guarantee == "sticky":
        return problems
    if guarantee != "tasks-valid":
        raise ValueError(f"unknown task guarantee {guarantee!r}; known: {', '.join(TASK_GUARANTEES)}")
    return [p for p in problems if _STANDBY_COUNT not in p]


def consumer_cases(assignor: Any, **options: Any) -> st.SearchStrategy[ConsumerCase]:
    """Fresh groups, and groups one change after ``assignor``'s own result (INCREMENTAL)."""

    @st.composite
    def cases(draw: st.DrawFn) -> ConsumerCase:
        case = draw(group_specs(**options))
        if not draw(st.booleans()):
            return case
        try:
            result = assignor.assign(case.spec, case.topics)
        except Exception:
            return case  # the property reports the failure on the fresh case
        return draw(incremental_changes(case, result))

    return cases()


@dataclass(frozen=True, slots=True)
class Counterexample:
    guarantee: str
    case: Any  # ConsumerCase or TaskGroupSpec
    problems: list[str]

    def describe(self) -> str:
        if isinstance(self.case, ConsumerCase):
            import json

            text = json.dumps(self.case.to_json(), separators=(",", ":"))
        else:
            text = repr(self.case)
        shown = "\n  ".join(self.problems[:5])
        return f"guarantee {self.guarantee!r} broken; shrunk input:\n  {text}\nproblems:\n  {shown}"


def counterexample(assignor: Any, guarantee: str = "valid", *, max_examples: int = 200) -> Counterexample | None:
    """The smallest input (as Hypothesis shrinks it) on which ``assignor`` breaks ``guarantee``,
    or None when ``max_examples`` inputs found none. Derandomized: the same answer every run."""
    # no explain phase: it reruns the shrunk input many times to annotate it, which find() never shows
    phases = (hypothesis.Phase.explicit, hypothesis.Phase.generate, hypothesis.Phase.shrink)
    settings = hypothesis.settings(max_examples=max_examples, database=None, derandomize=True, deadline=None,
                                   phases=phases, suppress_health_check=list(hypothesis.HealthCheck))
    check: Callable[[Any], list[str]]
    strategy: st.SearchStrategy[Any]
    if guarantee in TASK_GUARANTEES:
        strategy = task_group_specs()

        def check(spec: Any) -> list[str]:
            return task_problems(assignor, spec, guarantee)
    elif guarantee in CONSUMER_GUARANTEES:
        strategy = consumer_cases(assignor, homogeneous=True) if guarantee == "uniform" else consumer_cases(assignor)
        if guarantee == "uniform":  # HETEROGENEOUS groups are only held to validity: test both
            strategy = st.one_of(strategy, consumer_cases(assignor))

        def check(case: Any) -> list[str]:
            return consumer_problems(assignor, case, guarantee)
    else:
        raise ValueError(f"unknown guarantee {guarantee!r}; known: {', '.join(GUARANTEES)}")
    try:
        found = hypothesis.find(strategy, lambda value: bool(check(value)), settings=settings)
    except hypothesis.errors.NoSuchExample:
        return None
    return Counterexample(guarantee, found, check(found))


def assert_meets(assignor: Any, guarantee: str = "valid", *, max_examples: int = 200) -> None:
    """One line in a test: ``assert_meets(MyAssignor(), "uniform")``; an AssertionError names the
    shrunk input and what broke."""
    found = counterexample(assignor, guarantee, max_examples=max_examples)
    if found is not None:
        raise AssertionError(found.describe())


__all__ = ["GUARANTEES", "Counterexample", "assert_meets", "consumer_cases", "consumer_problems",
           "counterexample", "task_problems"]
