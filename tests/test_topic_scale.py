"""Cost proportional to the work: topic metadata is one image shared by every group's model, a
topic event reaches only the groups it concerns, a tick only the groups with something due, and a
new group does not replay the topics seen before it. Memory is O(groups + topics + members)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import open_trace
from kgspec.conformance.recorder import TraceRecorder, owned
from kgspec.conformance.session import GroupSession
from kgspec.model.coordinator import Coordinator
from kgspec.model.topics import MAX_PARTITIONS

from tests.helpers import check_events
from tests.test_topic_fanout import assert_same

SESSION_MS = 45000


def scale_trace(path: Path, groups: int, topics: int) -> Path:
    """``topics`` topics, then ``groups`` one-member groups (group i on topic i mod topics, one on
    a regex), then ticks, topic changes, and a tick past the first groups' session timeouts."""
    rec = TraceRecorder()
    for t in range(topics):
        rec.topic(0, f"t{t}", 3)
    for i in range(groups):
        rec.join(1 + i // 10, f"m{i}", [f"t{i % topics}"], group=f"g{i}")
    rec.join(2 + groups // 10, "rx", [], group="regex", subscribedTopicRegex="t1.*")
    end = 3 + groups // 10
    rec.tick(end + 1000)
    rec.topic(end + 1001, "t5", 4)  # grows: concerns g5 (and every 'topics'-th group after it) and the regex group
    rec.topic(end + 1002, "t1-new", 2)  # new: only the regex group may match it
    rec.topic(end + 1003, "unrelated", 2)  # new: only the regex group is asked to resolve again
    rec.delete_topic(end + 1004, "t7")
    rec.tick(end + 2000)
    rec.tick(last_tick(groups))  # the groups that joined by ts 1 + groups // 20 expire
    return rec.write(path)


def last_tick(groups: int) -> int:
    return SESSION_MS + 1 + groups // 20


def _items(path: Path) -> Iterator[Any]:
    yield from open_trace(str(path))


class Counting:
    notified = 0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counting:
    original = Coordinator.topics_changed
    counting = Counting()

    def topics_changed(self: Coordinator, names: set[str], new_topic: bool) -> None:
        counting.notified += 1
        original(self, names, new_topic)

    monkeypatch.setattr(Coordinator, "topics_changed", topics_changed)
    return counting


def _check(path: Path) -> tuple[Report, TraceChecker]:
    report = Report()
    checker = TraceChecker(str(path), report)
    checker.feed_all(_items(path))
    checker.finish()
    return report, checker


def test_topic_events_reach_only_their_groups(tmp_path: Path, counted: Counting) -> None:
    groups, topics = 300, 100
    path = scale_trace(tmp_path / "scale.jsonl", groups, topics)
    counted.notified = 0  # the recorder's own model was told too
    report, checker = _check(path)
    assert report.findings == []
    # t5 grows: the 3 groups on it (the regex t1.* does not match it); t1-new and 'unrelated' are
    # new: the regex group; t7 is deleted: its 3 groups. Nothing at set-up (the topics came first).
    assert counted.notified == groups // topics + 1 + 1 + groups // topics
    assert len(checker.groups) == groups + 1
    fenced = [g for g in checker.groups.values() if not g.coord.groups[g.summary.group_id].members]
    assert len(fenced) == 10 * (groups // 20 + 1)  # the session timeouts fired at the last tick
    # A tick with nothing due advances no group.
    advanced: list[str] = []
    original = checker.advance

    def advance(g: GroupSession, ts: float, line: int) -> bool:
        advanced.append(g.summary.group_id)
        return original(g, ts, line)

    checker.advance = advance  # type: ignore[method-assign]
    checker.feed(Event(10**6, "tick", float(last_tick(groups)), {}))
    assert advanced == []
    checker.feed(Event(10**6 + 1, "tick", float(SESSION_MS + 10**6), {}))  # every session expires
    assert len(advanced) == groups + 1 - len(fenced)


def test_same_findings_as_the_fan_out(tmp_path: Path) -> None:
    assert_same(scale_trace(tmp_path / "scale.jsonl", 200, 50))


def test_backwards_tick_is_one_finding(tmp_path: Path) -> None:
    rec = TraceRecorder()
    rec.topic(0, "t", 3)
    for i in range(50):
        rec.join(10, f"m{i}", ["t"], group=f"g{i}")
    events = [*rec.events, {"tsMs": 5, "tick": {}}, {"tsMs": 4, "topic": {"name": "t", "deleted": True}}]
    status, report = check_events(tmp_path, events)
    assert status == 1
    found = [(f["line"], f["kind"], f.get("groupId"), f.get("field")) for f in report["findings"]]
    assert found == [(len(rec.events) + 1, "malformed", None, "tsMs"), (len(rec.events) + 2, "malformed", None, "tsMs")]


def test_absurd_partition_count_is_unsupported(tmp_path: Path) -> None:
    rec = TraceRecorder()
    rec.join(10, "m", ["big"], group="g")
    start = time.process_time()
    events = [*rec.events, {"tsMs": 20, "topic": {"name": "big", "topicId": "AAAAAAAAAAAAAAAAAAAAAQ",
                                                 "partitions": 10**7}}]
    status, report = check_events(tmp_path, events)
    assert time.process_time() - start < 5
    assert status == 1
    [finding] = report["findings"]
    assert (finding["line"], finding["kind"], finding["field"]) == (len(events), "unsupported", "topic.partitions")
    assert str(MAX_PARTITIONS) in finding["message"]


def _setup_cpu(path: Path, groups: int) -> tuple[float, float, int]:
    """CPU seconds to check the first and the last 1000 group joins, and the peak traced memory."""
    report = Report()
    checker = TraceChecker(str(path), report)
    first = last = 0.0
    tracemalloc.start()
    try:
        for item in _items(path):
            gid = item.request.get("groupId") if getattr(item, "kind", None) == "call" else None
            start = time.process_time()
            checker.feed(item)
            spent = time.process_time() - start
            if isinstance(gid, str) and gid.startswith("g") and gid[1:].isdigit():
                index = int(gid[1:])
                if index < 1000:
                    first += spent
                elif index >= groups - 1000:
                    last += spent
        checker.finish()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.findings == []
    return first, last, peak


@pytest.mark.slow
def test_ten_thousand_groups_ten_thousand_topics(tmp_path: Path, counted: Counting) -> None:
    groups = topics = 10_000
    path = scale_trace(tmp_path / "scale.jsonl", groups, topics)
    counted.notified = 0  # the recorder's own model was told too
    first, last, peak = _setup_cpu(path, groups)
    assert last < 3 * first + 0.5, f"set-up per group grows with the groups: {first:.2f}s then {last:.2f}s"
    assert counted.notified == 1 + 1 + 1 + 1  # t5 (g5), t1-new and unrelated (the regex group), t7 (g7)
    assert peak < 40_000 * (groups + topics), f"peak traced memory {peak / 1e6:.0f} MB"


def test_memory_flat_in_trace_length(tmp_path: Path) -> None:
    """Heartbeats and ticks for a long time: the wake-up heap and the traced memory stay flat."""
    rec = TraceRecorder()
    groups = 10
    for i in range(groups):
        rec.topic(0, f"t{i}", 4)
    epochs: dict[int, int] = {}
    owned_now: dict[int, list[dict[str, Any]]] = {}
    ts = 1
    for i in range(groups):
        resp = rec.join(ts, f"m{i}", [f"t{i}"], group=f"g{i}")
        epochs[i], owned_now[i] = resp["memberEpoch"], owned(resp)
    marks: list[int] = []
    for round_no in range(240):
        ts += 1000
        for i in range(groups):
            resp = rec.heartbeat(ts, f"m{i}", epochs[i], group=f"g{i}", topicPartitions=owned_now[i])
            epochs[i] = resp["memberEpoch"]
        rec.tick(ts + 500)
        if round_no in (119, 239):
            marks.append(len(rec.events))
    path = rec.write(tmp_path / "long.jsonl")
    report = Report()
    checker = TraceChecker(str(path), report)
    heap_sizes: list[int] = []
    memory: list[int] = []
    tracemalloc.start()
    try:
        for n, item in enumerate(_items(path), 1):
            checker.feed(item)
            if getattr(item, "kind", None) == "tick":
                heap_sizes.append(len(checker._wakes))
            if n in marks:
                memory.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    checker.finish()
    assert report.findings == []
    assert max(heap_sizes) <= 4 * groups + 64
    assert memory[1] - memory[0] < 100_000, f"memory grew by {memory[1] - memory[0]} bytes over 120 rounds"
