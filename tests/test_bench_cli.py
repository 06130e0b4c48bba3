"""``kgspec bench``: the JMH grids, the inputs they build, the quality measures and the outputs."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from kgspec.model.assignors import RangeAssignor, UniformAssignor
from kgspec.model.streams.assignor import TaskAssignment
from kgspec.model.streams.task_api import StickyTaskAssignor

from kgspec.bench.grid import Point, grids, parse_point
from kgspec.bench.quality import consumer_quality, partition_racks, streams_quality
from kgspec.bench.runner import Timing, measure
from kgspec.bench.scenarios import (
    NEW_MEMBER,
    consumer_input,
    streams_input,
    subtopologies,
    topic_ids,
)
from kgspec.cli import main

NODE_SCRIPT = Path(__file__).parent / "assignors" / "roundrobin.js"
QUICK = Timing(warmup=0, calls=2, max_seconds=1.0, min_calls=1)


def test_grid_sizes_follow_kafkas_jmh_matrices() -> None:
    sizes = {name: len(points) for name, points in grids().items()}
    # ServerSide: 5 member counts x 3 ratios x 3 topic counts, less 100x5/1000 (no partition per
    # topic), x racks x subscription x FULL/INCREMENTAL; Target: the same less racks, INCREMENTAL only;
    # Streams (4.3): 2^6 combinations.
    assert sizes == {"tiny": 6, "jmh-small": 8, "jmh-server": 44 * 8, "jmh-target": 44 * 2,
                     "jmh-streams": 64, "jmh": 44 * 8 + 44 * 2 + 64}


def test_parse_point() -> None:
    assert parse_point("consumer:m=1000,r=10,t=100,hetero,incr") == \
        Point("consumer", 1000, True, 10, 100, heterogeneous=True)
    assert parse_point("streams:m=100,p=100,s=10,standby=0,mpp=50") == \
        Point("streams", 100, False, partitions=100, subtopologies=10, standby=0, members_per_process=50)
    assert parse_point("target") == Point("target", 1000, True)


@pytest.mark.parametrize(("text", "message"), [
    ("nope:m=1", "--point nope:m=1: the kind must be one of consumer, target, streams, not 'nope'"),
    ("consumer:x=1", "--point consumer:x=1: unknown key 'x'; keys: members, m, ratio, r, topics, t, partitions, "
                     "p, subtopologies, s, standby, mpp, members-per-process"),
    ("consumer:m=ten", "--point consumer:m=ten: m must be an integer, not 'ten'"),
    ("consumer:m=0", "--point consumer:m=0: m must be at least 1"),
    ("consumer:m=100,r=5,t=1000", "--point consumer:m=100,r=5,t=1000: members x ratio / topics = 0.5 "
                                  "partitions per topic"),
    ("target:full", "--point target:full: a target build is always incremental (M-1 members with a target "
                    "plus one new)"),
])
def test_bad_points_name_the_item(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_point(text)
    assert str(info.value) == message


def test_heterogeneous_buckets_and_incremental_new_member() -> None:
    point = Point("consumer", 10, True, ratio=2, topics=10, heterogeneous=True, racks=True)
    data = consumer_input(point, UniformAssignor())
    ids = topic_ids(10)
    members = data.spec.members
    assert len(members) == 10
    # 9 members in 5 buckets of ceil(9/5)=2 members and ceil(10/5)=2 topics
    assert members["member0"].subscribed_topic_ids == frozenset(ids[0:2])
    assert members["member3"].subscribed_topic_ids == frozenset(ids[2:4])
    assert members["member8"].subscribed_topic_ids == frozenset(ids[8:10])
    assert members[NEW_MEMBER].subscribed_topic_ids == frozenset(ids[8:10])  # like member M-2
    assert members[NEW_MEMBER].rack_id == "rack0"  # rackId(M-1) = rack{9 % 3}
    assert members["member4"].rack_id == "rack1"
    assert members[NEW_MEMBER].assignment == {}
    assert sum(len(p) for m in data.previous.values() for p in m.values()) == 20


def test_uniform_incremental_moves_only_the_surplus() -> None:
    # 1000 partitions over 99 members: 10 hold 11; the new member takes exactly those 10.
    data = consumer_input(Point("consumer", 100, True, ratio=10, topics=10), UniformAssignor())
    quality = consumer_quality(data, UniformAssignor().assign(data.spec, data.topics), True, False)
    assert (quality.valid, quality.balance, quality.moved) == (True, 0, 10)
    # range is not sticky: 100 partitions per topic over 100 sorted members, everyone shifts
    rdata = consumer_input(Point("consumer", 100, True, ratio=10, topics=10), RangeAssignor())
    rquality = consumer_quality(rdata, RangeAssignor().assign(rdata.spec, rdata.topics), True, False)
    assert (rquality.valid, rquality.balance, rquality.moved) == (True, 0, 990)


def test_rack_locality_convention() -> None:
    assert partition_racks(0) == {"rack0", "rack1"}  # brokers 0, 1
    assert partition_racks(2) == {"rack2", "rack0"}  # brokers 2, 3 (broker 3 in rack0)
    assert partition_racks(3) == {"rack0"}  # brokers 3, 0
    data = consumer_input(Point("consumer", 3, False, ratio=4, topics=3, racks=True), RangeAssignor())
    quality = consumer_quality(data, RangeAssignor().assign(data.spec, data.topics), False, True)
    # range: member0 (rack0) gets partition 0 of each topic, member1 (rack1) 1, member2 (rack2) 2... of 4
    assert quality.rack_local is not None
    assert 0 < quality.rack_local <= 1


def test_invalid_assignments_are_flagged() -> None:
    data = consumer_input(Point("consumer", 2, False, ratio=1, topics=1), UniformAssignor())
    topic = topic_ids(1)[0]
    quality = consumer_quality(data, {"member0": {topic: frozenset({0, 1})}, "member1": {topic: frozenset({1})}},
                               False, False)
    assert quality.valid is False
    assert quality.problems == [f"{topic}-1 is assigned to both member0 and member1"]
    assert quality.balance == 1


def test_streams_points_follow_the_jmh_layout() -> None:
    point = Point("streams", 4, True, partitions=2, subtopologies=3, standby=1, members_per_process=2)
    assert [(s.subtopology_id, s.stateful) for s in subtopologies(point)] == \
        [("topic-0_subtopology", True), ("topic-1_subtopology", False), ("topic-2_subtopology", True)]
    data = streams_input(point, StickyTaskAssignor())
    assert {m.member_id: m.process_id for m in data.spec.members} == {
        "member-0": "process-0", "member-1": "process-0", "member-2": "process-1", NEW_MEMBER: "process-newMember"}
    result = StickyTaskAssignor().assign_tasks(data.spec)
    quality = streams_quality(data, result, True)
    assert (quality.valid, quality.standby_shortfall) == (True, 0)
    lonely = streams_quality(data, TaskAssignment({"member-0": {"topic-0_subtopology": frozenset({0, 1}),
                                                               "topic-1_subtopology": frozenset({0, 1}),
                                                               "topic-2_subtopology": frozenset({0, 1})}},
                                                  {}), True)
    assert lonely.valid  # every active task once: valid, but no standbys
    assert lonely.standby_shortfall == 4  # 4 stateful tasks lack their standby
    assert lonely.balance == 6


def test_a_failing_assignor_is_reported_not_raised() -> None:
    class Boom:
        name = "boom"

        def assign(self, *_: object) -> object:
            raise RuntimeError("no")

    m = measure(Point("consumer", 2, False, ratio=1, topics=1), "boom", Boom(), QUICK)
    assert (m.error, m.ok, m.times_ms) == ("RuntimeError: no", False, [])


def test_bench_side_by_side_writes_table_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, plot = tmp_path / "b.json", tmp_path / "b.svg"
    status = main(["bench", "--assignor", "tests.assignors.examples:AllToFirstAssignor", "--assignor", "uniform",
                   "--grid", "tiny", "--calls", "2", "--warmup", "0", "--json", str(out), "--svg", str(plot)])
    printed = capsys.readouterr().out
    assert status == 0
    assert "consumer 100m r10 t10 homo full" in printed
    assert f"wrote {out} and {plot}" in printed
    doc = json.loads(out.read_text())
    assert doc["format"] == "kgspec-bench/1"
    assert doc["assignors"] == ["all-to-first", "uniform"]
    # streams points run no consumer assignor: 4 consumer points x 2 assignors
    assert len(doc["results"]) == 8
    first = doc["results"][0]
    assert (first["assignor"], first["ratioToFirst"], first["quality"]["valid"]) == ("all-to-first", 1.0, True)
    assert first["quality"]["balance"] == 1000  # all 1000 partitions on one member
    assert set(first["time"]) == {"medianMs", "p10Ms", "p90Ms", "minMs", "maxMs", "calls", "perCallMs"}
    root = ET.fromstring(plot.read_text())
    bars = [e for e in root if e.tag.endswith("rect") and e.find("{http://www.w3.org/2000/svg}title") is not None]
    assert len(bars) == 8


def test_bench_exit_1_on_an_invalid_assignor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "--assignor", "tests.assignors.examples:DoubleAssignor", "--point",
                   "consumer:m=3,r=2,t=2", "--calls", "1", "--warmup", "0", "--no-files"])
    err = capsys.readouterr().err
    assert status == 1
    assert "consumer 3m r2 t2 homo full / double: 2 problem(s)" in err


@pytest.mark.parametrize(("args", "message"), [
    (["--grid", "nope"], "kgspec bench: error: unknown grid 'nope'; known: tiny, jmh-small, jmh-server, "
                         "jmh-target, jmh-streams, jmh"),
    (["--assignor", "nosuch"], "kgspec bench: error: --assignor nosuch: unknown assignor"),
    (["--point", "streams", "--assignor", "uniform"], "kgspec bench: error: none of the assignors applies"),
])
def test_bench_usage_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--no-files", *args]) == 2
    assert capsys.readouterr().err.startswith(message)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_bench_runs_a_node_assignor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "--assignor", f"rr=exec:node {NODE_SCRIPT}", "--assignor", "range", "--point",
                   "consumer:m=10,r=2,t=5", "--calls", "1", "--warmup", "0", "--json", "-",
                   "--svg", str(tmp_path / "p.svg")])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)  # --json -: the document alone on standard output
    rr, rng = doc["results"]
    assert (rr["assignor"], rr["quality"]["valid"], rr["quality"]["balance"]) == ("rr", True, 0)
    # range cuts each topic's 4 partitions over the first 4 sorted members: 5 each, 6 members none
    assert (rng["assignor"], rng["quality"]["valid"], rng["quality"]["balance"]) == ("range", True, 5)
