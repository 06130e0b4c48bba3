"""kip (seed 002, "Assignment"): the seed's ``highly_available`` task assignor, chosen for stateful
topologies unless ``group.streams.assignor.name`` names one (model/streams/highly_available.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignment, TaskMemberSpec
from kgspec.model.streams.highly_available import HighlyAvailableTaskAssignor, place_on_caught_up
from kgspec.model.streams.target import seed_assignor_name
from kgspec.model.streams.task_api import TaskGroupSpec, builtin_task_assignors

from tests.helpers import check, check_events, read_jsonl
from tests.streams.goldens import GOLDEN, kip_highly_available, kip_highly_available_sticky
from tests.streams.helpers import S8_TOPOLOGY, STATEFUL, coordinator, join

T00 = [{"subtopologyId": "0", "partitions": [0]}]


def _answers(lines: list[str]) -> dict[int, tuple[str, int, Any, Any]]:
    out = {}
    for i, line in enumerate(lines, 1):
        e = json.loads(line)
        if "response" in e:
            r = e["response"]
            out[i] = (e["request"]["memberId"], r["memberEpoch"], r["activeTasks"], r["warmupTasks"])
    return out


def test_caught_up_member_gets_the_task_and_the_other_warms_it_up() -> None:
    """m-b (lag 50) is caught up, m-c (lag 20000, the higher offset sum) is not: highly_available
    gives 0_0 to m-b and a warm-up of it to m-c; sticky (configured) gives it to m-c as active."""
    ha = _answers((GOLDEN / "kip_highly_available.jsonl").read_text().splitlines())
    assert ha[13] == ("m-b", 6, [{"subtopologyId": "0", "partitions": [0, 2]}], [])
    assert ha[14] == ("m-c", 6, [{"subtopologyId": "0", "partitions": [1]}], T00)
    sticky = _answers(kip_highly_available_sticky().lines())
    assert sticky[13] == ("m-b", 6, None, None)
    assert sticky[14] == ("m-c", 6, [{"subtopologyId": "0", "partitions": [0, 1]}], [])


def test_one_line_mutant_sticky_placement_is_flagged_at_its_line(tmp_path: Path) -> None:
    """m-c answered as sticky would (0_0 active, no warm-up) after m-b was given 0_0: line 14."""
    status, report = check(GOLDEN / "kip_highly_available.jsonl")
    assert (status, report["findings"]) == (0, [])
    events = read_jsonl(GOLDEN / "kip_highly_available.jsonl")
    events[13]["response"].update(activeTasks=[{"subtopologyId": "0", "partitions": [0, 1]}], warmupTasks=[])
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert {(f["line"], f["kind"], f["field"]) for f in report["findings"]} == {
        (14, "response-mismatch", "activeTasks"), (14, "response-mismatch", "warmupTasks"),
        (14, "invariant", "streams-single-active-owner")}


def test_golden_is_current() -> None:
    assert (GOLDEN / "kip_highly_available.jsonl").read_text().splitlines() == kip_highly_available().lines()


def test_the_broker_picks_by_topology_unless_configured() -> None:
    """"the AK implementation will choose highly_available for stateful topologies and sticky for
    stateless topologies"; group.streams.assignor.name "Can be sticky or highly_available"."""
    stateful, stateless = [SubtopologyTasks("0", 3, True)], [SubtopologyTasks("0", 3, False)]
    c = coordinator("kip")
    assert (seed_assignor_name(c, "g", stateful), seed_assignor_name(c, "g", stateless)) == ("highly_available", "sticky")
    configured = coordinator("kip", **{"group.streams.assignor.name": "sticky"})
    assert seed_assignor_name(configured, "g", stateful) == "sticky"
    assert set(builtin_task_assignors()) == {"sticky", "highly_available"}


def test_an_unknown_assignor_name_fails_the_assignment() -> None:
    c = coordinator("kip", **{"group.streams.assignor.name": "nosuch"})
    c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 6)
    r = join(c, 0, "m1", "p1", STATEFUL).response
    assert r is not None
    assert (r["errorCode"], r["errorMessage"]) == (
        -1, "Failed to compute a new target assignment for epoch 2: group.streams.assignor.name 'nosuch' "
            "names no task assignor")


def test_kafka_profiles_keep_the_sticky_assignor() -> None:
    """Under Kafka's profiles the name is never read: a stateful topology is still sticky's."""
    c = coordinator("kafka-trunk", **{"group.streams.assignor.name": "nosuch"})
    r = join(c, 0, "m1", "p1", S8_TOPOLOGY).response
    assert r is not None
    assert r["errorCode"] == 0


def _spec(member: str, process: str, offset: int | None = None, end: int | None = None,
          standby: tuple[int, ...] = ()) -> TaskMemberSpec:
    return TaskMemberSpec(member, process, {}, {"0": frozenset(standby)} if standby else {},
                          {"0": {0: offset}} if offset is not None else {},
                          {"0": {0: end}} if end is not None else {})


def test_no_caught_up_member_the_highest_offset_wins() -> None:
    """Unknown end offsets are never caught up, but "the cumulative task changelog offset can
    still be used ... by selecting the client with the maximal cumulative task changelog offset"."""
    specs = [_spec("a", "p1"), _spec("b", "p2", offset=50), _spec("c", "p3", offset=70)]
    base = TaskAssignment({"a": {"0": frozenset({0})}, "b": {}, "c": {}}, {"a": {}, "b": {}, "c": {}})
    out = place_on_caught_up(TaskGroupSpec(specs, [SubtopologyTasks("0", 1, True)]), base, 10000, 1)
    assert (out.active, out.warmup) == ({"a": {}, "b": {}, "c": {"0": frozenset({0})}},
                                        {"a": {"0": frozenset({0})}, "b": {}, "c": {}})
    no_warmups = place_on_caught_up(TaskGroupSpec(specs, [SubtopologyTasks("0", 1, True)]), base, 10000, 0)
    assert (no_warmups.active["c"], no_warmups.warmup["a"]) == ({"0": frozenset({0})}, {})


def test_a_standby_on_the_caught_up_process_swaps_with_the_active() -> None:
    """HighAvailabilityTaskAssignor's "swap standby and active on caught-up client": the receiving
    process's standby of the task goes to the member the active left, which gets no warm-up."""
    specs = [_spec("a", "p1"), _spec("b", "p2", offset=95, end=100, standby=(0,))]
    base = TaskAssignment({"a": {"0": frozenset({0})}, "b": {}}, {"a": {}, "b": {"0": frozenset({0})}})
    out = HighlyAvailableTaskAssignor().assign_tasks(TaskGroupSpec(specs, [SubtopologyTasks("0", 1, True)], 1))
    assert out.active["b"] == {"0": frozenset({0})}
    swapped = place_on_caught_up(TaskGroupSpec(specs, [SubtopologyTasks("0", 1, True)], 1), base, 10000, 1)
    assert (swapped.active, swapped.standby, swapped.warmup) == (
        {"a": {}, "b": {"0": frozenset({0})}}, {"a": {"0": frozenset({0})}, "b": {}}, {"a": {}, "b": {}})


def test_a_task_still_held_stays_for_the_warm_up_step() -> None:
    """A task some member held as active before is left where the sticky assignor put it: its
    holder keeps it while the new member warms it up (the warm-up step, refiner.refine)."""
    held = TaskMemberSpec("a", "p1", {"0": frozenset({0})})
    specs = [held, _spec("b", "p2"), _spec("c", "p3", offset=95, end=100)]
    base = TaskAssignment({"a": {}, "b": {"0": frozenset({0})}, "c": {}}, {"a": {}, "b": {}, "c": {}})
    out = place_on_caught_up(TaskGroupSpec(specs, [SubtopologyTasks("0", 1, True)]), base, 10000, 1)
    assert out.active == {"a": {}, "b": {"0": frozenset({0})}, "c": {}}
    assert out.warmup == {"a": {}, "b": {}, "c": {}}
