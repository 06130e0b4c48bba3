"""Fuzzing assignors: the exported strategies, the guarantee properties, the pytest plugin's
fixtures and ``kgspec fuzz --assignor``. A deliberately broken assignor is caught and shrunk."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from kgspec.model.assignors import RangeAssignor, UniformAssignor
from kgspec.model.assignors.api import SubscriptionType
from kgspec.model.streams.task_api import StickyTaskAssignor, TaskGroupSpec

from kgspec.cli import main
from kgspec.properties import Counterexample, consumer_problems, counterexample
from kgspec.pytest_plugin import assert_assignor_meets, assignor_counterexample  # noqa: F401  (fixtures)
from kgspec.strategies import ConsumerCase, group_specs, incremental_changes, task_group_specs
from tests.assignors.examples import AllToFirstAssignor, DoubleAssignor

ROOT = Path(__file__).resolve().parent.parent
NODE_SCRIPT = ROOT / "tests" / "assignors" / "roundrobin.js"
TOPIC = "AAAAAAAAAAAAAAAAAAAAAA"  # the Uuid a shrunk topic id ends at (16 zero bytes)
FEW = 40


@settings(max_examples=60, deadline=None, database=None)
@given(group_specs())
def test_group_specs_are_consistent(case: ConsumerCase) -> None:
    subs = {m.subscribed_topic_ids for m in case.spec.members.values()}
    homogeneous = len(subs) == 1
    assert case.spec.subscription_type is (SubscriptionType.HOMOGENEOUS if homogeneous
                                           else SubscriptionType.HETEROGENEOUS)
    owners: dict[tuple[str, int], str] = {}
    for member in case.spec.members.values():
        assert member.subscribed_topic_ids <= set(case.partitions)
        for topic, parts in member.assignment.items():
            assert topic in member.subscribed_topic_ids  # previous targets: subscribers only
            for p in parts:
                assert 0 <= p < case.partitions[topic]
                assert owners.setdefault((topic, p), member.member_id) == member.member_id  # disjoint


@settings(max_examples=40, deadline=None, database=None)
@given(group_specs().flatmap(lambda c: incremental_changes(c, UniformAssignor().assign(c.spec, c.topics))))
def test_uniform_keeps_its_guarantees_after_a_change(case: ConsumerCase) -> None:
    assert consumer_problems(UniformAssignor(), case, "uniform") == []


@settings(max_examples=40, deadline=None, database=None)
@given(task_group_specs())
def test_task_group_specs_hold_disjoint_active_targets(spec: TaskGroupSpec) -> None:
    seen: set[tuple[str, int]] = set()
    for member in spec.members:
        for sid, parts in member.active_tasks.items():
            for p in parts:
                assert (sid, p) not in seen
                seen.add((sid, p))
    assert spec.configs == {"num.standby.replicas": str(spec.num_standby_replicas)}


@pytest.mark.parametrize(("assignor", "guarantee"), [
    (UniformAssignor(), "uniform"), (RangeAssignor(), "range"), (UniformAssignor(), "valid"),
    (StickyTaskAssignor(), "sticky"),
])
def test_builtins_meet_their_guarantees(assert_assignor_meets: Any, assignor: Any, guarantee: str) -> None:  # noqa: F811
    assert_assignor_meets(assignor, guarantee, max_examples=FEW)


def test_the_broken_assignor_is_caught_and_shrunk(assignor_counterexample: Any) -> None:  # noqa: F811
    found = assignor_counterexample(DoubleAssignor(), "valid", max_examples=100)
    assert isinstance(found, Counterexample)
    case = found.case
    # the smallest group where a partition can be handed out twice: two members, one topic of two
    assert dict(case.partitions) == {TOPIC: 2}
    assert [(m.member_id, m.subscribed_topic_ids, dict(m.assignment)) for m in case.spec.members.values()] == \
        [("m0", frozenset({TOPIC}), {}), ("m1", frozenset({TOPIC}), {})]
    assert found.problems == [f"{TOPIC}-0 is assigned to both m0 and m1"]


def test_assert_meets_fails_with_the_shrunk_input(assert_assignor_meets: Any) -> None:  # noqa: F811
    with pytest.raises(AssertionError) as info:
        assert_assignor_meets(AllToFirstAssignor(), "uniform", max_examples=100)
    text = str(info.value)
    assert text.startswith("guarantee 'uniform' broken; shrunk input:\n  {\"protocol\":\"kgspec-assignor/1\"")
    assert text.endswith("problems:\n  unbalanced: member m0 has 2 partitions but member m1 has 0 "
                         "(homogeneous targets may differ by at most 1)")


def test_range_is_not_sticky() -> None:
    found = counterexample(RangeAssignor(), "uniform", max_examples=100)
    assert found is not None
    assert found.problems[-1] == ("not maximally sticky: 0 previously assigned partitions stayed with their "
                                  "owner, a balanced assignment can keep 1")


def test_an_assignor_that_raises_breaks_every_guarantee() -> None:
    class Raises:
        name = "raises"

        def assign(self, *_: object) -> object:
            raise KeyError("x")

    found = counterexample(Raises(), "valid", max_examples=10)
    assert found is not None
    assert found.problems == ["assign raised KeyError: 'x'"]


def test_unknown_guarantee() -> None:
    with pytest.raises(ValueError, match=r"^unknown guarantee 'fair'; known: valid, uniform, range, "
                                         r"tasks-valid, sticky$"):
        counterexample(UniformAssignor(), "fair")


def test_fuzz_cli_on_an_assignor(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--assignor", "tests.assignors.examples:DoubleAssignor", "--examples", "30"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("assignor 'double': guarantee 'valid' broken; shrunk input:\n")
    assert out.endswith(f"problems:\n  {TOPIC}-0 is assigned to both m0 and m1\n")
    assert main(["fuzz", "--assignor", "uniform", "--guarantee", "uniform", "--examples", str(FEW)]) == 0
    assert capsys.readouterr().out == f"assignor 'uniform' kept guarantee 'uniform' on {FEW} generated inputs\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--guarantee", "valid"], "kgspec fuzz: error: --guarantee needs --assignor\n"),
    (["--assignor", "uniform", "--guarantee", "fair"],
     "kgspec fuzz: error: unknown guarantee 'fair'; known: valid, uniform, range, tasks-valid, sticky\n"),
    (["--assignor", "uniform", "--guarantee", "sticky"],
     "kgspec fuzz: error: --assignor uniform has no assign_tasks(): guarantee 'sticky' does not apply\n"),
])
def test_fuzz_cli_usage_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", *args]) == 2
    assert capsys.readouterr().err == message


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_fuzz_a_node_assignor(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--assignor", f"rr=exec:node {NODE_SCRIPT}", "--examples", "5"]) == 0
    assert capsys.readouterr().out == "assignor 'rr' kept guarantee 'valid' on 5 generated inputs\n"


def test_the_plugin_is_declared_for_pytest() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["project"]["entry-points"]["pytest11"] == {"kgspec": "kgspec.pytest_plugin"}
