"""Real clients against ``kgspec serve``: librdkafka (KIP-848 and classic) and kafka-python (classic).

Each session's trace must pass ``kgspec check --clients`` with no finding, and the clients must
see what Kafka's coordinator would give them: a disjoint share of the partitions, take-over
when a member leaves or crashes, every produced message read. The one short session runs in
the default suite; the longer ones are marked ``clients`` (``pytest -m clients``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import kgspec

from .clients import (
    FAST_CONFIGS,
    PyConsumer,
    RdConsumer,
    RdProcess,
    disjoint_cover,
    produce,
    wait_for,
)
from .helpers import calls, check, events, findings_text

pytest.importorskip("confluent_kafka")
pytest.importorskip("kio")

CONSUMER_GROUP_HEARTBEAT = 68
JOIN_GROUP = 11


def _by_partition(values: list[bytes], partitions: int) -> dict[int, set[bytes]]:
    out: dict[int, set[bytes]] = {p: set() for p in range(partitions)}
    for v in values:
        out[int(v.decode().split("-")[-1][1:]) % partitions].add(v)
    return out


def test_one_kip848_consumer_reads_what_a_producer_wrote(tmp_path: Path) -> None:
    """The default suite's real-client session (a few seconds): one librdkafka KIP-848 consumer."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 2}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        produced = produce(broker.bootstrap, "t", 10, 2)
        c1 = RdConsumer(broker.bootstrap, "c1")
        wait_for(lambda: len(c1.values) >= 10, what="c1 reads the 10 messages")
        assert c1.assigned == {0, 1}
        c1.close()
        assert broker.findings == []
    assert sorted(c1.values) == sorted(produced)
    assert c1.errors == []
    report = check(trace)
    assert report.findings == [], findings_text(report)
    first = calls(trace, CONSUMER_GROUP_HEARTBEAT, "c1")[0]
    assert first["request"]["memberEpoch"] == 0
    assert first["response"]["errorCode"] == 0
    assert first["response"]["heartbeatIntervalMs"] == 300
    assert sorted(first["response"]["assignment"]["topicPartitions"][0]["partitions"]) == [0, 1]
    last = calls(trace, CONSUMER_GROUP_HEARTBEAT, "c1")[-1]
    assert last["request"]["memberEpoch"] == -1  # the clean leave
    assert last["response"]["memberEpoch"] == -1
    assert broker.summary is not None
    assert broker.summary.findings == []


def _three_share_then_one_leaves(broker: kgspec.server.api.ServedBroker, protocol: str) -> list[RdConsumer]:
    """Three consumers share t's 6 partitions; messages are read by their owners; c1 leaves and
    the other two take its partitions and read what is produced next."""
    consumers = [RdConsumer(broker.bootstrap, f"c{i}", protocol=protocol) for i in (1, 2, 3)]
    # the settled share, two each (a disjoint cover may be passed through on the way: 4/1/1, ...)
    wait_for(lambda: disjoint_cover(consumers, 6) and all(len(c.assigned) == 2 for c in consumers), 30,
             "a disjoint share of the 6 partitions among 3 consumers, two each")
    first = produce(broker.bootstrap, "t", 60, 6, prefix="a-m")
    wait_for(lambda: sum(len(c.values) for c in consumers) >= 60, 30, "the first 60 messages read")
    for c in consumers:  # each read exactly its own partitions' messages
        owned = _by_partition(c.values, 6)
        assert {p for p, vs in owned.items() if vs} == c.assigned
    consumers[0].close()
    rest = consumers[1:]
    wait_for(lambda: disjoint_cover(rest, 6) and all(len(c.assigned) == 3 for c in rest), 30,
             "c2 and c3 take over c1's partitions, three each")
    second = produce(broker.bootstrap, "t", 60, 6, prefix="b-m")
    wait_for(lambda: {v for c in rest for v in c.values} >= set(second), 30, "the next 60 messages read")
    assert {v for c in consumers for v in c.values} >= set(first) | set(second)
    for c in rest:
        c.close()
    assert all(c.errors == [] for c in consumers)
    return consumers


@pytest.mark.clients
def test_kip848_three_consumers_share_take_over_and_check_after_sigterm(tmp_path: Path) -> None:
    """The issue's acceptance session, as a user runs it: ``kgspec serve --topic t:6`` in its own
    process, three librdkafka KIP-848 consumers, SIGTERM, then ``kgspec check --clients`` exits 0."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 6}, configs=FAST_CONFIGS, clients=True, trace_out=trace,
                      subprocess=True) as broker:
        _three_share_then_one_leaves(broker, "consumer")
    assert broker.findings == [], findings_text_of(broker.findings)
    done = subprocess.run([sys.executable, "-m", "kgspec", "check", "--clients", str(trace)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 group(s): 1 conform" in done.stdout
    leaves = [c for c in calls(trace, CONSUMER_GROUP_HEARTBEAT, "c1") if c["request"]["memberEpoch"] == -1]
    assert len(leaves) == 1
    assert leaves[0]["response"]["errorCode"] == 0


def findings_text_of(findings: list[object]) -> str:
    return "\n".join(map(str, findings[:10]))


@pytest.mark.clients
def test_classic_three_consumers_share_and_take_over(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 6}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        _three_share_then_one_leaves(broker, "classic")
    assert broker.findings == []
    report = check(trace)
    assert report.findings == [], findings_text(report)
    assert [g.type for g in report.groups] == ["classic"]
    joins = calls(trace, JOIN_GROUP)
    assert joins
    assert all(j["response"]["errorCode"] in (0, 79) for j in joins)


@pytest.mark.clients
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # kafka-python reads its schemas the old way
def test_kafka_python_classic_consumers_with_librdkafka_classic(tmp_path: Path) -> None:
    """A pure-Python client (kafka-python) and librdkafka in one classic group."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 4}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        produced = produce(broker.bootstrap, "t", 40, 4)
        py = PyConsumer(broker.bootstrap, "py1")
        rd = RdConsumer(broker.bootstrap, "rd1", protocol="classic")
        wait_for(lambda: disjoint_cover([py, rd], 4) and bool(py.assigned) and bool(rd.assigned), 30,
                 "kafka-python and librdkafka share 4 partitions")
        wait_for(lambda: {v for c in (py, rd) for v in c.values} >= set(produced), 30, "all 40 read")
        py.close()
        wait_for(lambda: rd.assigned == {0, 1, 2, 3}, 30, "rd1 takes over after kafka-python leaves")
        rd.close()
    assert py.errors == []
    assert rd.errors == []
    report = check(trace)
    assert report.findings == [], findings_text(report)
    assert calls(trace, JOIN_GROUP, "py1"), "kafka-python joined through JoinGroup"


@pytest.mark.clients
def test_members_join_leave_crash_and_rejoin(tmp_path: Path) -> None:
    """c2's process is killed (no leave, no more heartbeats): after the 6 s session timeout the
    coordinator fences it and c1 takes its partitions; c2 comes back (a new consumer, same client
    id) and rejoins."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 4}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        c1 = RdConsumer(broker.bootstrap, "c1")
        c2 = RdProcess(broker.bootstrap, "c2")
        wait_for(lambda: disjoint_cover([c1, c2], 4) and bool(c2.assigned), 30, "c1 and c2 share")
        c2.kill()
        wait_for(lambda: c1.assigned == {0, 1, 2, 3}, 30, "c1 takes over after c2's session expires")
        again = RdConsumer(broker.bootstrap, "c2")
        wait_for(lambda: disjoint_cover([c1, again], 4) and bool(again.assigned), 30, "c2 rejoins")
        c1.close()
        again.close()
    report = check(trace)
    assert report.findings == [], findings_text(report)
    # The fencing is the session timer's: a tombstone of c2's member record, written by no call.
    c2_ids = {c["request"]["memberId"] for c in calls(trace, CONSUMER_GROUP_HEARTBEAT, "c2")}
    tombstones = [e for e in events(trace) if "record" in e and e["record"]["key"]["type"] == 5
                  and e["record"]["value"] is None and e["record"]["key"]["data"]["memberId"] in c2_ids]
    assert len(tombstones) >= 2  # the crashed member fenced, the rejoined one leaving


@pytest.mark.clients
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_mixed_group_online_upgrade_and_downgrade(tmp_path: Path) -> None:
    """A classic group (kafka-python and librdkafka classic) is upgraded online when a KIP-848
    member joins, and downgraded back to classic when it leaves (migration policy bidirectional)."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 6}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        produced = produce(broker.bootstrap, "t", 60, 6)
        py = PyConsumer(broker.bootstrap, "py1")
        rd = RdConsumer(broker.bootstrap, "rd1", protocol="classic")
        wait_for(lambda: disjoint_cover([py, rd], 6) and bool(py.assigned) and bool(rd.assigned), 30,
                 "the classic group settles")
        new = RdConsumer(broker.bootstrap, "k1")
        wait_for(lambda: disjoint_cover([py, rd, new], 6) and all(c.assigned for c in (py, rd, new)), 30,
                 "the upgraded group shares among classic and KIP-848 members")
        new.close()
        wait_for(lambda: disjoint_cover([py, rd], 6), 30, "the downgraded group covers again")
        wait_for(lambda: {v for c in (py, rd, new) for v in c.values} >= set(produced), 30, "all read")
        py.close()
        rd.close()
    report = check(trace)
    assert report.findings == [], findings_text(report)
    types = [e["record"]["key"]["type"] for e in events(trace) if "record" in e]
    # upgrade: the classic group's GroupMetadata (2) is followed by consumer records (3, 5...);
    # downgrade: the consumer records are tombstoned and a GroupMetadata is written again
    assert 2 in types
    assert 3 in types
    assert max(i for i, t in enumerate(types) if t == 2) > types.index(3)


MOCK_CONFIGS = {"group.consumer.heartbeat.interval.ms": 500, "group.consumer.min.heartbeat.interval.ms": 500,
                "group.consumer.session.timeout.ms": 3000,
                "group.consumer.min.session.timeout.ms": 3000, "group.consumer.assignors": "range",
                "group.consumer.assignment.interval.ms": 0}


@pytest.mark.clients
def test_where_librdkafkas_mock_departs_kgspec_serve_answers_as_kafka(tmp_path: Path) -> None:
    """The recorded mock fixture's scenario (tests/data/librdkafka/join-revoke-leave.jsonl: c1 alone,
    c2 and c3 join, c1 leaves; the fixture's header configs) served by kgspec serve: the trace
    conforms without the mock's allow-list, and where the allow-list names a departure of the mock
    the served answer is Kafka's (docs/serve.md, "librdkafka's mock and kgspec serve")."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 4}, configs=MOCK_CONFIGS, clients=True, trace_out=trace) as broker:
        c1 = RdConsumer(broker.bootstrap, "c1")
        wait_for(lambda: c1.assigned == {0, 1, 2, 3}, 30, "c1 alone owns t")
        c2 = RdConsumer(broker.bootstrap, "c2")
        wait_for(lambda: disjoint_cover([c1, c2], 4) and bool(c2.assigned), 30, "c2 joins")
        c3 = RdConsumer(broker.bootstrap, "c3")
        wait_for(lambda: disjoint_cover([c1, c2, c3], 4) and bool(c3.assigned), 30, "c3 joins")
        c1.close()
        wait_for(lambda: disjoint_cover([c2, c3], 4) and len(c2.assigned) == len(c3.assigned) == 2, 30,
                 "c2 and c3 take over, two each")
        c2.close()
        c3.close()
    report = check(trace)
    assert report.findings == [], findings_text(report)
    heartbeats = calls(trace, CONSUMER_GROUP_HEARTBEAT)
    # leave-null-member-id, leave-heartbeat-interval: the leave answer echoes the member id, interval 0
    leaves = [c for c in heartbeats if c["request"]["memberEpoch"] == -1]
    assert len(leaves) == 3
    for leave in leaves:
        assert leave["response"]["memberId"] == leave["request"]["memberId"]
        assert (leave["response"]["memberEpoch"], leave["response"]["heartbeatIntervalMs"]) == (-1, 0)
    # joiner-withheld: c2 joins while c1 owns its target partitions: the group's new epoch at once and
    # an empty assignment (the mock: epoch 0 and a null assignment)
    c2_join = calls(trace, CONSUMER_GROUP_HEARTBEAT, "c2")[0]["response"]
    assert c2_join["memberEpoch"] > 0
    assert c2_join["assignment"] == {"topicPartitions": []}
    # mock-range-join-order: range walks the members sorted by member id, not in join order
    final = {}
    c2_leaves = next(i for i, c in enumerate(heartbeats) if c["requestHeader"]["clientId"] == "c2"
                     and c["request"]["memberEpoch"] == -1)
    for c in heartbeats[:c2_leaves]:
        assignment = c["response"].get("assignment")
        if c["request"]["memberEpoch"] != -1 and assignment is not None and c["response"]["errorCode"] == 0:
            final[c["request"]["memberId"]] = sorted(p for tp in assignment["topicPartitions"] for p in tp["partitions"])
    survivors = sorted({c["request"]["memberId"] for c in heartbeats if c["requestHeader"]["clientId"] in ("c2", "c3")})
    assert [final[m] for m in survivors] == [[0, 1], [2, 3]]


OFFSET_COMMIT = 8
OFFSET_FETCH = 9


@pytest.mark.clients
@pytest.mark.parametrize("protocol", ["consumer", "classic"])
def test_a_new_consumer_resumes_from_the_offsets_the_model_committed(tmp_path: Path, protocol: str) -> None:
    """OffsetCommit and OffsetFetch are the model's: c1 reads 10 messages and leaves (committing),
    5 more are produced, and c2 in the same group reads exactly those 5."""
    trace = tmp_path / "t.jsonl"
    with kgspec.serve(topics={"t": 2}, configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        first = produce(broker.bootstrap, "t", 10, 2, prefix="a-m")
        c1 = RdConsumer(broker.bootstrap, "c1", protocol=protocol)
        wait_for(lambda: sorted(c1.values) == sorted(first), 30, "c1 reads the first 10")
        c1.close()  # commits what it read, then leaves
        second = produce(broker.bootstrap, "t", 5, 2, prefix="b-m")
        c2 = RdConsumer(broker.bootstrap, "c2", protocol=protocol)
        wait_for(lambda: len(c2.values) >= 5, 30, "c2 reads the next 5")
        c2.close()
    assert sorted(c2.values) == sorted(second)
    report = check(trace)
    assert report.findings == [], findings_text(report)
    commits = [c for c in calls(trace, OFFSET_COMMIT, "c1")
               if all(p["errorCode"] == 0 for t in c["response"]["topics"] for p in t["partitions"])]
    committed = {(p["partitionIndex"], p["committedOffset"]) for c in commits for t in c["request"]["topics"]
                 for p in t["partitions"]}
    assert {(0, 5), (1, 5)} <= committed
    fetched = calls(trace, OFFSET_FETCH, "c2")[0]["response"]
    offsets = {p["partitionIndex"]: p["committedOffset"] for g in fetched.get("groups") or [fetched]
               for t in g["topics"] for p in t["partitions"]}
    assert offsets == {0: 5, 1: 5}


@pytest.mark.clients
def test_admin_client_creates_lists_describes_through_the_model(tmp_path: Path) -> None:
    """librdkafka's AdminClient: CreateTopics (the broker's), ListGroups, ConsumerGroupDescribe and
    DescribeGroups and DeleteGroups (the model's: an unknown group, then the emptied group deleted)."""
    from confluent_kafka import KafkaError
    from confluent_kafka.admin import AdminClient, NewTopic

    trace = tmp_path / "t.jsonl"
    with kgspec.serve(configs=FAST_CONFIGS, clients=True, trace_out=trace) as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, "log_level": 2})
        assert admin.create_topics([NewTopic("orders", 3, 1)])["orders"].result(10) is None
        new = RdConsumer(broker.bootstrap, "c1", topics=("orders",))
        old = RdConsumer(broker.bootstrap, "c2", group="cg", topics=("orders",), protocol="classic")
        wait_for(lambda: new.assigned == old.assigned == {0, 1, 2}, 30, "each group's one member owns orders")
        listed = admin.list_consumer_groups().result(10)
        assert sorted((g.group_id, g.type.name, g.state.name) for g in listed.valid) == [
            ("cg", "CLASSIC", "STABLE"), ("g", "CONSUMER", "STABLE")]
        described = {gid: f.result(10) for gid, f in admin.describe_consumer_groups(["g", "cg"]).items()}
        assert [m.client_id for m in described["g"].members] == ["c1"]
        assert [m.client_id for m in described["cg"].members] == ["c2"]
        assert {p.partition for p in described["g"].members[0].assignment.topic_partitions} == {0, 1, 2}
        new.close()
        old.close()
        deleted = admin.delete_consumer_groups(["zzz"])["zzz"]
        with pytest.raises(Exception) as caught:
            deleted.result(10)
        assert caught.value.args[0].code() == KafkaError.GROUP_ID_NOT_FOUND
        wait_for(lambda: {g.group_id for g in admin.list_consumer_groups().result(10).valid
                          if g.state.name == "EMPTY"} == {"g", "cg"}, 30, "both groups empty after close")
        assert admin.delete_consumer_groups(["g"])["g"].result(10) is None
        assert [g.group_id for g in admin.list_consumer_groups().result(10).valid] == ["cg"]
    report = check(trace)
    assert report.findings == [], findings_text(report)
    assert calls(trace, 16)
    assert calls(trace, 69)
    assert calls(trace, 15)
