"""The assignor API: loading by name, module:Class, entry point and exec:, and the coordinator
running what was registered (consumer and streams)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from kgspec.model.assignors import PartitionAssignorError, RangeAssignor, UniformAssignor
from kgspec.model.assignors.api import GroupSpec, MemberSpec, SubscriptionType
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.coordinator import Coordinator
from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignorError, TaskMemberSpec
from kgspec.model.streams.task_api import StickyTaskAssignor, TaskGroupSpec

from kgspec import plugins
from kgspec.external import ExecAssignor, ExternalAssignorError, consumer_request
from kgspec.plugins import AssignorLoadError, assignor_registry, load_assignor, prefer
from tests.assignors.examples import AllToFirstAssignor, FirstMemberTaskAssignor
from tests.consumer.helpers import Harness
from tests.streams.helpers import BAR, FOO, join, tasks

NODE_SCRIPT = Path(__file__).parent / "assignors" / "roundrobin.js"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
TOPICS = MappingTopicDescriber({"foo": 3, "bar": 2})


def spec(*members: tuple[str, set[str]]) -> GroupSpec:
    kind = SubscriptionType.HOMOGENEOUS if len({frozenset(t) for _, t in members}) <= 1 \
        else SubscriptionType.HETEROGENEOUS
    return GroupSpec({m: MemberSpec(m, None, None, frozenset(t)) for m, t in members}, kind)


def test_builtin_names_load_the_builtins() -> None:
    assert isinstance(load_assignor("uniform"), UniformAssignor)
    assert isinstance(load_assignor("range"), RangeAssignor)
    assert isinstance(load_assignor("sticky"), StickyTaskAssignor)


def test_module_class_is_instantiated() -> None:
    assignor = load_assignor("tests.assignors.examples:AllToFirstAssignor")
    assert isinstance(assignor, AllToFirstAssignor)


@pytest.mark.parametrize(("ref", "message"), [
    ("nosuch", "--assignor nosuch: unknown assignor; known names: highly_available, range, sticky, uniform "
               "(or give module:Class, or exec:COMMAND)"),
    ("no_such_module_xyz:A", "--assignor no_such_module_xyz:A: cannot import module 'no_such_module_xyz': "
                             "No module named 'no_such_module_xyz'"),
    ("tests.assignors.examples:Missing", "--assignor tests.assignors.examples:Missing: module "
                                         "'tests.assignors.examples' has no 'Missing'"),
    ("exec:", "--assignor exec:: no command after exec:"),
])
def test_bad_references_name_the_reference(ref: str, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "entry_points", lambda **_: [])
    with pytest.raises(AssignorLoadError) as info:
        load_assignor(ref)
    assert str(info.value) == message


def test_an_object_that_is_no_assignor_is_refused() -> None:
    with pytest.raises(AssignorLoadError, match=r"object has no `name`"):
        assignor_registry(["tests.assignors.examples:NOT_AN_ASSIGNOR"], discover=False)


class _EntryPoint:
    def __init__(self, name: str, target: object) -> None:
        self.name = name
        self.value = f"example:{name}"
        self._target = target

    def load(self) -> object:
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


def test_a_broken_entry_point_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(*, group: str, name: str | None = None) -> list[_EntryPoint]:
        return [_EntryPoint("broken", ImportError("no module named nope"))] if group == plugins.CONSUMER_GROUP else []

    monkeypatch.setattr(plugins, "entry_points", fake)
    with pytest.raises(AssignorLoadError) as info:
        assignor_registry()
    assert str(info.value) == ("entry point 'broken' of group kgspec.assignors (example:broken) cannot be "
                               "loaded: ImportError: no module named nope")


def test_entry_points_are_discovered_and_selectable(monkeypatch: pytest.MonkeyPatch) -> None:
    points = {plugins.CONSUMER_GROUP: [_EntryPoint("all-to-first", AllToFirstAssignor)],
              plugins.TASK_GROUP: [_EntryPoint("first-member", FirstMemberTaskAssignor)]}

    def fake(*, group: str, name: str | None = None) -> list[_EntryPoint]:
        return [p for p in points.get(group, []) if name is None or p.name == name]

    monkeypatch.setattr(plugins, "entry_points", fake)
    registry = assignor_registry()
    assert sorted(registry.consumer) == ["all-to-first", "range", "uniform"]
    assert isinstance(registry.tasks["sticky"], FirstMemberTaskAssignor)  # replaces Kafka's by name
    assert registry.chosen == []
    assert isinstance(load_assignor("all-to-first"), AllToFirstAssignor)


def test_registration_is_an_input_not_a_global() -> None:
    registry = assignor_registry(["tests.assignors.examples:AllToFirstAssignor"], discover=False)
    mine = Coordinator(**registry.coordinator_kwargs())
    builtin = Coordinator()
    assert "all-to-first" in mine.assignors
    assert "all-to-first" not in builtin.assignors
    assert registry.chosen == ["all-to-first"]
    assert prefer({}, registry) == {"group.consumer.assignors": "all-to-first,uniform,range"}
    assert prefer({"group.consumer.assignors": "range,all-to-first"}, registry) == \
        {"group.consumer.assignors": "all-to-first,range"}


def test_a_registered_assignor_is_chosen_by_server_assignor() -> None:
    h = Harness({"foo": 3, "bar": 2}, configs={"group.consumer.assignors": "uniform,range,all-to-first"},
                assignors={"all-to-first": AllToFirstAssignor()})
    h.now = 10_000
    h.join("A", ["foo", "bar"], assignor="all-to-first")
    h.sleep(1000)
    h.join("B", ["foo", "bar"], assignor="all-to-first")
    for _ in range(4):
        for m in ("A", "B"):
            h.heartbeat(m)
            h.ack(m)
    assert h.target("A") == {"foo": [0, 1, 2], "bar": [0, 1]}
    assert h.target("B") == {}


def test_exec_reference_with_a_name() -> None:
    assignor = load_assignor("rr=exec: node x.js")
    assert isinstance(assignor, ExecAssignor)
    assert (assignor.name, assignor.command) == ("rr", "node x.js")
    plain = load_assignor("exec:cat")
    assert isinstance(plain, ExecAssignor)
    assert (plain.name, plain.command) == ("exec", "cat")


def test_consumer_request_shape() -> None:
    s = GroupSpec({"b": MemberSpec("b", "i-1", "r1", frozenset({"foo"}), {"foo": frozenset({2, 0})})},
                  SubscriptionType.HOMOGENEOUS)
    assert consumer_request("rr", s, TOPICS) == {
        "protocol": "kgspec-assignor/1", "kind": "consumer", "assignor": "rr", "subscriptionType": "HOMOGENEOUS",
        "members": [{"memberId": "b", "instanceId": "i-1", "rackId": "r1", "subscribedTopicIds": ["foo"],
                     "assignment": {"foo": [0, 2]}}],
        "topics": {"foo": {"numPartitions": 3}},
    }


@needs_node
def test_node_assignor_round_robin() -> None:
    assignor = ExecAssignor(f"node {NODE_SCRIPT}", name="rr")
    result = assignor.assign(spec(("m2", {"foo", "bar"}), ("m1", {"foo", "bar"})), TOPICS)
    # topics sorted (bar, foo), members sorted (m1, m2), one turn across topics
    assert result == {"m1": {"bar": frozenset({0}), "foo": frozenset({0, 2})},
                      "m2": {"bar": frozenset({1}), "foo": frozenset({1})}}


@needs_node
def test_node_assignor_error_is_a_partition_assignor_error() -> None:
    assignor = ExecAssignor(f"node {NODE_SCRIPT}", name="fail")
    with pytest.raises(PartitionAssignorError, match=r"^asked to fail$"):
        assignor.assign(spec(("m1", {"foo"})), TOPICS)
    with pytest.raises(TaskAssignorError, match=r"^asked to fail$"):
        assignor.assign_tasks(TaskGroupSpec([TaskMemberSpec("m1", "p1")], [SubtopologyTasks("0", 2, True)]))


@needs_node
def test_node_task_assignor() -> None:
    assignor = ExecAssignor(f"node {NODE_SCRIPT}", name="rr")
    result = assignor.assign_tasks(TaskGroupSpec(
        [TaskMemberSpec("m1", "p1"), TaskMemberSpec("m2", "p2")], [SubtopologyTasks("0", 3, True)], 1))
    assert result.active == {"m1": {"0": frozenset({0, 2})}, "m2": {"0": frozenset({1})}}
    assert result.standby == {"m1": {}, "m2": {}}


@pytest.mark.parametrize(("command", "message"), [
    ("exit 3", "external assignor 'x' (exit 3): exited with status 3"),
    ("echo oops >&2; exit 1", "external assignor 'x' (echo oops >&2; exit 1): exited with status 1: oops"),
    ("echo not json", "external assignor 'x' (echo not json): response line 1 is not JSON: "
                      "Expecting value: line 1 column 1 (char 0)"),
    ("echo '{}'", "external assignor 'x' (echo '{}'): the response has neither \"assignment\" nor \"error\""),
    ("printf '1\\n2\\n'", "external assignor 'x' (printf '1\\n2\\n'): expected one response line on "
                          "standard output, got 2"),
    ("echo '{\"assignment\": {\"m1\": {\"foo\": [0, \"1\"]}}}'", "assignment.m1.foo: expected a list of integers"),
])
def test_protocol_breaches_name_what_was_wrong(command: str, message: str) -> None:
    with pytest.raises(ExternalAssignorError) as info:
        ExecAssignor(command, name="x").assign(spec(("m1", {"foo"})), TOPICS)
    assert str(info.value) == message


def _streams(task_assignors: dict[str, Any] | None) -> Coordinator:
    c = Coordinator("kafka-4.3", {"group.streams.initial.rebalance.delay.ms": 0}, task_assignors=task_assignors)
    c.update_topic("foo", FOO, 6)
    c.update_topic("bar", BAR, 3)
    return c


@pytest.mark.parametrize(("task_assignors", "second"), [
    (None, {"sub1": {3, 4, 5}, "sub2": {2}}),  # Kafka's sticky assignor splits the tasks
    ({"sticky": FirstMemberTaskAssignor()}, {}),  # the replacement keeps them on the first member
])
def test_a_registered_task_assignor_replaces_sticky(task_assignors: dict[str, Any] | None,
                                                    second: dict[str, set[int]]) -> None:
    c = _streams(task_assignors)
    first = join(c, 0, "m1", "p1").response
    assert first is not None
    assert tasks(first) == {"sub1": [0, 1, 2, 3, 4, 5], "sub2": [0, 1, 2]}
    joined = join(c, 5000, "m2", "p2").response  # after group.streams.assignment.interval.ms
    assert joined is not None
    assert c.streams_groups["g"].target["m2"]["active"] == second


@needs_node
def test_simulate_and_check_with_a_node_assignor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kgspec.cli import main

    ref = f"rr=exec:node {NODE_SCRIPT}"
    trace = tmp_path / "rr.jsonl"
    assert main(["simulate", "--members", "3", "--duration-ms", "20000", "--assignor", ref, "--check",
                 "-o", str(trace)]) == 0
    assert '"group.consumer.assignors":"rr,uniform,range"' in trace.read_text()
    assert main(["check", "-q", "--assignor", ref, str(trace)]) == 0
    # without the assignor the model cannot run the group's "rr": it answers UNKNOWN_SERVER_ERROR
    assert main(["check", "-q", str(trace)]) == 1
    capsys.readouterr()
    assert main(["check", "--assignor", "nosuch", str(trace)]) == 2
    assert "--assignor nosuch: unknown assignor" in capsys.readouterr().err


def test_the_documented_example_runs_and_is_valid() -> None:
    """docs/assignors.md's 20-line example, executed as written."""
    from kgspec.model.assignors.guarantees import validate_assignment

    text = (Path(__file__).parent.parent / "docs" / "assignors.md").read_text()
    code = text.split("### A 20-line example\n\n```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 20
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    assignor = namespace["RoundRobinAssignor"]()
    s = spec(("m2", {"foo", "bar"}), ("m1", {"foo"}))
    result = assignor.assign(s, TOPICS)
    assert result == {"m1": {"foo": frozenset({0, 2})}, "m2": {"bar": frozenset({0, 1}), "foo": frozenset({1})}}
    assert validate_assignment(s, TOPICS, result) == []
