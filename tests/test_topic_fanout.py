"""Topic and tick events reach only the groups they concern, with the verdicts of a fan-out.

``FanOutChecker`` is the checker as it was before topic metadata became one shared image: every
group's model kept its own copy of the topics (a new group replayed every topic seen so far) and
every topic and tick event was applied to every group. Both checkers must report the same
findings and group summaries on the golden traces and on simulated runs with topic changes
(growth, re-creation, deletion, regex subscriptions, failover).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding, GroupSummary, Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.session import GroupSession, num, ts_of
from kgspec.model.coordinator import Coordinator
from kgspec.model.offsets.groups import arm_expiry_since

from kgspec.sim.network import NetworkConfig
from kgspec.sim.scenario import Scenario, run_scenario
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.trace import write_trace

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "tests" / "golden").glob("*/*.jsonl"))


class FanOutChecker(TraceChecker):
    """The former router: one topic table per group, every topic and tick event to every group."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: dict[str, tuple[str, int]] = {}
        self.notified = 0  # update_topic / delete_topic calls made

    def _topic(self, event: Event) -> None:
        body = event.body
        name = body["name"]
        ts = ts_of(event)
        for g in self.groups.values():
            self.advance(g, ts, event.line)
        if body.get("deleted"):
            self.seen.pop(name, None)
            self.topics.delete(name)  # for messages only
            for g in self.groups.values():
                g.generation += 1
                g.coord.delete_topic(name)
                self.notified += 1
        else:
            self.seen[name] = (body["topicId"], int(body["partitions"]))
            self.topics.upsert(name, body["topicId"], int(body["partitions"]))
            for g in self.groups.values():
                g.generation += 1
                g.coord.update_topic(name, body["topicId"], int(body["partitions"]))
                self.notified += 1

    def _tick(self, event: Event) -> None:
        ts = ts_of(event)
        failover = bool(event.body.get("coordinatorFailover"))
        if failover:
            self.loaded_at = int(ts)  # the offsets' cleanup phase (docs/offsets.md, "Expiry")
        for g in self.groups.values():
            if self.advance(g, ts, event.line) and failover:
                g.generation += 1
                g.coord.failover(int(ts))

    def group(self, group_id: str, gtype: str, *, from_describe: bool = False) -> GroupSession:
        g = self.groups.get(group_id)
        if g is None:
            coord = Coordinator(self.profile, self.configs, self.mutants)
            for name, (tid, parts) in self.seen.items():
                coord.update_topic(name, tid, parts)
            g = GroupSession(coord, GroupSummary(group_id, gtype), typed_by_describe=from_describe)
            self.groups[group_id] = g
            if self.loaded_at is not None:
                arm_expiry_since(coord, self.loaded_at, int(self.clock or self.loaded_at))
        elif g.typed_by_describe and not from_describe:
            g.summary.type = gtype
            g.typed_by_describe = False
        return g

    def wake(self, g: GroupSession, deadline: float) -> None:
        pass  # every group is advanced at every event

    def advance(self, g: GroupSession, ts: float, line: int) -> bool:
        if g.last_ts is not None and ts < g.last_ts:
            self.finding(g, Finding(self.path, line, g.summary.group_id, "malformed",
                                     f"time goes backwards for group {g.summary.group_id}: "
                                     f"tsMs {num(ts)} after {num(g.last_ts)}", "tsMs"))
            return False
        g.last_ts = ts
        firings = self.classic.advance(g, int(ts)) if g.summary.group_id in self.classic.groups \
            else g.coord.advance(int(ts))
        for firing in firings:
            g.generation += 1
            for record in firing.records:
                g.expected_records.append((line, record))
        return True


def _run(checker_class: type[TraceChecker], path: Path) -> tuple[Any, Any, TraceChecker]:
    report = Report()
    checker = checker_class(str(path), report)
    checker.feed_all(open_trace(str(path)))
    checker.finish()
    findings = [f.to_json() for f in report.findings]
    groups = [json.dumps(g.to_json(), sort_keys=True, default=str) for g in report.groups]
    return findings, groups, checker


def assert_same(path: Path) -> tuple[TraceChecker, TraceChecker]:
    old_findings, old_groups, old = _run(FanOutChecker, path)
    new_findings, new_groups, new = _run(TraceChecker, path)
    assert new_findings == old_findings
    assert new_groups == old_groups
    return old, new


@pytest.mark.parametrize("trace", GOLDEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_traces_same_findings(trace: Path) -> None:
    assert_same(trace)


def _churn_with_topics(seed: int, failover: bool) -> list[dict[str, Any]]:
    """Consumer groups by name and by regex; topics created, grown, re-created and deleted."""
    sim = Simulator(seed, SimConfig(record_events=True, check=False, network=NetworkConfig(0.02, 0.0, 1, 20)))
    for i in range(4):
        sim.set_topic(f"t-{i}", 3)
    for i in range(4):
        for _ in range(2):
            sim.add_client(f"g{i}", (f"t-{i}",))
    for _ in range(2):
        name = sim.add_client("rx", ())
        sim.resubscribe(name, (), "t-.*")
    sim.run_for(8000)
    for step in range(12):
        roll = sim.rng.random()
        topic = f"t-{sim.rng.randint(0, 5)}"
        info = sim.coordinator.topics.by_name(topic)
        if roll < 0.5 or info is None:
            sim.set_topic(topic, (info.partitions if info else 2) + 1)
        elif roll < 0.7:
            sim.set_topic(topic, info.partitions, recreate=True)
        else:
            sim.delete_topic(topic)
        if step == 5:
            sim.add_client(f"late{step}", (topic, "t-0"))
        if failover and step == 7:
            sim.failover()
        sim.run_for(3000)
    return sim.events


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("failover", [False, True])
def test_simulated_topic_churn_same_findings(seed: int, failover: bool, tmp_path: Path) -> None:
    path = tmp_path / "churn.jsonl"
    write_trace(_churn_with_topics(seed, failover), path)
    old, _ = assert_same(path)
    assert isinstance(old, FanOutChecker)
    assert old.notified > 0


@pytest.mark.parametrize("protocol", ["consumer", "streams"])
def test_simulated_scenario_same_findings(protocol: str, tmp_path: Path) -> None:
    sim = run_scenario(Scenario(groups=6, members=3, duration_ms=150000, seed=5, loss=0.02,
                                failover_every_ms=50000, protocol=protocol))
    path = tmp_path / "scenario.jsonl"
    write_trace(sim.events, path)
    assert_same(path)
