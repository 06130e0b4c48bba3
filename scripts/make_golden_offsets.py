"""Write the golden offset traces under tests/golden/offsets/ (run once; commit the output).

One commit/fetch session per group type, recorded by driving the model (``TraceRecorder``), with
the records: a consumer group (KIP-848 members on OffsetCommit v9, a commit at an older epoch
that KIP-1251 accepts and one it refuses, a zombie after leaving, batched and single fetches), a
streams group (a member committing its active tasks), and a simple (classic) group of a client
without group management (OffsetCommit v2-v8 with retention, OffsetFetch v1-v7, OffsetDelete), and
DeleteGroups of a consumer group (refused while it has a member), a simple group and an unknown
id. The values
tests/offsets/test_check_offsets.py pins are those of Kafka's OffsetMetadataManagerTest.

Provenance: delete_groups.jsonl, consumer_commits.jsonl and streams_commits.jsonl were replayed
through Kafka's own coordinator (the oracle of /work/shared/oracle, check mode) at kafka 4.3 @
0157ac7cf2c652628443b270b9801dd44b4b0154: every call matches (10/10, 22/22, 7/7; the oracle
compares responses, not records). simple_commits.jsonl uses OffsetFetch v1, which the harness
does not support; expiry.jsonl (the cleanup timer) and transactions.jsonl (TxnOffsetCommit,
WriteTxnMarkers) use what the harness does not drive: they rest on the source reading in
docs/kafka-facts.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgspec.conformance.recorder import TraceRecorder, owned
from kgspec.model.shards import partition_for

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "offsets"
NO_BATCHING = {"group.consumer.assignment.interval.ms": 0}
STREAMS_CONFIGS = {"group.streams.initial.rebalance.delay.ms": 0, "group.streams.assignment.interval.ms": 0}
TOPOLOGY = {"epoch": 0, "subtopologies": [{
    "subtopologyId": "0", "sourceTopics": ["input"], "sourceTopicRegex": [], "stateChangelogTopics": [],
    "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}


def commit(r: TraceRecorder, ts: int, member: str, epoch: int, topic: str, offsets: dict[int, int], *,
           group: str = "g", version: int = 9, metadata: str | None = "", **fields: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"groupId": group, "generationIdOrMemberEpoch": epoch, "memberId": member,
                               "topics": [{"name": topic, "partitions": [
                                   {"partitionIndex": p, "committedOffset": o, "committedLeaderEpoch": -1,
                                    "committedMetadata": metadata} for p, o in offsets.items()]}]}
    if version >= 7:
        request["groupInstanceId"] = None
    request.update(fields)
    return r.call(ts, member or "admin", request, api_key=8, version=version)


def fetch(r: TraceRecorder, ts: int, client: str, groups: list[dict[str, Any]], version: int = 9) -> dict[str, Any]:
    return r.call(ts, client, {"groups": groups, "requireStable": True}, api_key=9, version=version)


def consumer() -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 4)
    a = r.join(1000, "m1", ["foo"], serverAssignor="range")
    a = r.heartbeat(1100, "m1", a["memberEpoch"], topicPartitions=owned(a))
    commit(r, 1200, "m1", a["memberEpoch"], "foo", {0: 10, 1: 11, 2: 12, 3: 13}, metadata="m1")  # accepted
    b = r.join(2000, "m2", ["foo"])
    a = r.heartbeat(2100, "m1", a["memberEpoch"], topicPartitions=owned(a))  # revoke half
    old = a["memberEpoch"]
    commit(r, 2150, "m1", old, "foo", {0: 20})  # still assigned
    a = r.heartbeat(2200, "m1", a["memberEpoch"], topicPartitions=owned(a) if a.get("assignment") else
                    [{"topicId": r.coord.topics.id_of("foo"), "partitions": [0, 1]}])
    b = r.heartbeat(2300, "m2", b["memberEpoch"], topicPartitions=[])
    b = r.heartbeat(2400, "m2", b["memberEpoch"], topicPartitions=owned(b))
    commit(r, 2500, "m1", old - 1, "foo", {1: 21})  # KIP-1251: an older epoch, a partition m1 holds since then
    commit(r, 2550, "m1", old - 1, "foo", {2: 22})  # an older epoch for a partition m1 gave up: refused
    commit(r, 2600, "m2", b["memberEpoch"], "foo", {2: 32, 3: 33})
    fetch(r, 2700, "m2", [{"groupId": "g", "memberId": "m2", "memberEpoch": b["memberEpoch"],
                           "topics": [{"name": "foo", "partitionIndexes": [0, 1, 2, 3]}]}])
    fetch(r, 2800, "m1", [{"groupId": "g", "memberId": "m1", "memberEpoch": b["memberEpoch"] + 5, "topics": None}])
    r.heartbeat(3000, "m2", -1)  # m2 leaves: its commits are now a zombie's
    commit(r, 3100, "m2", b["memberEpoch"], "foo", {2: 99})  # UNKNOWN_MEMBER_ID
    commit(r, 3200, "m1", 99, "foo", {0: 1})  # an epoch from the future: STALE_MEMBER_EPOCH
    commit(r, 3300, "m1", a["memberEpoch"], "foo", {0: 1}, version=8)  # KIP-848 member on v8: UNSUPPORTED_VERSION
    commit(r, 3400, "", -1, "foo", {0: 5})  # admin on a non-empty group: UNKNOWN_MEMBER_ID
    fetch(r, 3500, "admin", [{"groupId": "g", "memberId": None, "memberEpoch": -1, "topics": None},
                             {"groupId": "h", "memberId": None, "memberEpoch": -1, "topics": None}])
    commit(r, 3600, "m1", a["memberEpoch"], "nope", {0: 1})  # unknown topic: the broker answers
    r.call(3700, "admin", {"groupId": "g", "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0}]}]},
           api_key=47, version=0)  # OffsetDelete of a subscribed topic: GROUP_SUBSCRIBED_TO_TOPIC
    return r


def streams() -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", STREAMS_CONFIGS, records=True)
    r.topic(0, "input", 2)
    s = r.streams_join(1000, "s1", TOPOLOGY, "p1", activeTasks=[], standbyTasks=[], warmupTasks=[])
    s = r.streams_heartbeat(1100, "s1", s["memberEpoch"], activeTasks=s["activeTasks"], standbyTasks=[],
                            warmupTasks=[])
    epoch = s["memberEpoch"]
    commit(r, 1200, "s1", epoch, "input", {0: 7, 1: 8})
    commit(r, 1300, "s1", epoch - 1, "input", {0: 9})  # older than the task's assignment epoch: refused
    commit(r, 1400, "s1", epoch, "input", {0: 9}, version=8)  # streams members need v9
    fetch(r, 1500, "s1", [{"groupId": "g", "memberId": "s1", "memberEpoch": epoch, "topics": None}])
    fetch(r, 1600, "s1", [{"groupId": "g", "memberId": "s1", "memberEpoch": epoch + 1, "topics": None}])
    return r


def simple() -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", records=True)
    r.topic(0, "bar", 3)
    commit(r, 1000, "", -1, "bar", {0: 100}, version=2, retentionTimeMs=-1)
    commit(r, 1100, "", -1, "bar", {1: 101}, version=4, retentionTimeMs=1234)  # value v1, an expire time
    commit(r, 1200, "", -1, "bar", {2: 102, 3: 103}, version=8, metadata="x" * 4097)  # too large; no partition 3
    commit(r, 1300, "member", 1, "bar", {0: 1}, version=8)  # a simple group has no members
    commit(r, 1400, "member", 1, "bar", {0: 1}, group="other", version=5)  # unknown group below v9
    r.call(1500, "admin", {"groupId": "g", "topics": [{"name": "bar", "partitionIndexes": [0, 1, 2]}]},
           api_key=9, version=1)
    r.call(1600, "admin", {"groupId": "g", "topics": None, "requireStable": False}, api_key=9, version=7)
    r.call(1700, "admin", {"groupId": "other", "topics": None}, api_key=9, version=3)
    fetch(r, 1800, "admin", [{"groupId": "g", "memberId": None, "memberEpoch": -1,
                              "topics": [{"topicId": r.coord.topics.id_of("bar"), "partitionIndexes": [0, 1]}]}],
          version=10)
    r.call(1900, "admin", {"groupId": "g", "topics": [{"name": "bar", "partitions": [
        {"partitionIndex": 0}, {"partitionIndex": 2}, {"partitionIndex": 5}]}]}, api_key=47, version=0)  # tombstone for 0
    r.call(2000, "admin", {"groupId": "", "topics": []}, api_key=47, version=0)  # INVALID_GROUP_ID
    return r


def commit_fencing(configs: dict[str, Any] | None = None) -> TraceRecorder:
    """docs/upstream.md, finding 2: a commit at the member's current epoch is accepted without looking at
    its partitions (ConsumerGroup.validateOffsetCommit). While group.consumer.assignment.interval.ms
    (default 1000 ms) holds the next target back, a resubscribe without foo takes foo-0 from m1 at the
    same epoch; m2 gets foo-0 later, at a higher epoch, and commits; m1's late commit for foo-0 at its
    unchanged epoch is still accepted and overwrites m2's offset. After m1's next heartbeat (its epoch
    moves) the same commit is STALE_MEMBER_EPOCH. ``configs`` {interval: 0}: the contrast, where the
    resubscribe is answered with a new epoch at once and every commit at the old one is refused."""
    r = TraceRecorder("kafka-4.3", configs or {}, records=True)
    r.topic(0, "foo", 1)
    r.topic(0, "bar", 1)
    a = r.join(100, "m1", ["foo", "bar"])
    a = r.heartbeat(150, "m1", a["memberEpoch"], topicPartitions=owned(a))
    epoch = a["memberEpoch"]
    b = r.join(200, "m2", ["foo"])
    a = r.heartbeat(300, "m1", epoch, subscribedTopicNames=["bar"], topicPartitions=owned(a))  # drops foo
    bar = [{"topicId": r.coord.topics.id_of("bar"), "partitions": [0]}]
    a = r.heartbeat(400, "m1", a["memberEpoch"], topicPartitions=bar)                          # foo-0 released
    commit(r, 500, "m1", epoch, "foo", {0: 7})                  # foo-0 no longer m1's, same epoch: accepted
    b = r.heartbeat(1200, "m2", b["memberEpoch"], topicPartitions=[])  # the held-back target: foo-0 to m2
    b = r.heartbeat(1300, "m2", b["memberEpoch"], topicPartitions=owned(b))
    commit(r, 1400, "m2", b["memberEpoch"], "foo", {0: 100})    # the new owner commits
    commit(r, 1500, "m1", epoch, "foo", {0: 10})                # m1's late commit: overwrites it
    fetch(r, 1600, "m2", [{"groupId": "g", "memberId": "m2", "memberEpoch": b["memberEpoch"],
                           "topics": [{"name": "foo", "partitionIndexes": [0]}]}])
    r.heartbeat(1700, "m1", a["memberEpoch"], topicPartitions=bar)  # m1's epoch moves (if it had not)
    commit(r, 1800, "m1", epoch, "foo", {0: 11})                # STALE_MEMBER_EPOCH
    fetch(r, 1900, "m2", [{"groupId": "g", "memberId": "m2", "memberEpoch": b["memberEpoch"],
                           "topics": [{"name": "foo", "partitionIndexes": [0]}]}])
    return r


def commit_fencing_interval_0() -> TraceRecorder:
    return commit_fencing(NO_BATCHING)


def delete_groups() -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 2)
    a = r.join(1000, "m1", ["foo"], serverAssignor="range")
    a = r.heartbeat(1100, "m1", a["memberEpoch"], topicPartitions=owned(a))
    commit(r, 1200, "m1", a["memberEpoch"], "foo", {0: 10, 1: 11})
    commit(r, 1300, "", -1, "foo", {0: 5}, group="s")  # a simple group
    r.call(1400, "admin", {"groupsNames": ["g"]}, api_key=42, version=2)  # NON_EMPTY_GROUP
    r.heartbeat(1500, "m1", -1)  # m1 leaves: g is empty
    r.call(1600, "admin", {"groupsNames": ["g", "s", "nope", "g"]}, api_key=42, version=2)
    fetch(r, 1700, "admin", [{"groupId": "g", "memberId": None, "memberEpoch": -1, "topics": None},
                             {"groupId": "s", "memberId": None, "memberEpoch": -1, "topics": None}])
    r.call(1800, "admin", {"groupsNames": ["g"]}, api_key=42, version=0)  # gone: GROUP_ID_NOT_FOUND
    commit(r, 1900, "", -1, "foo", {1: 7}, group="s")  # the id starts over as a new simple group
    return r


def expiry() -> TraceRecorder:
    """Offsets expire 1 minute after their commit (or at a v2-4 retention's expire time); the
    cleanup runs every 10 s from the coordinator's load (the failover tick at 0); an empty group
    whose offsets are all gone is deleted with them."""
    r = TraceRecorder("kafka-4.3", {**NO_BATCHING, "offsets.retention.minutes": 1,
                                    "offsets.retention.check.interval.ms": 10_000}, records=True)
    r.failover(0)
    r.topic(0, "foo", 2)
    commit(r, 1000, "", -1, "foo", {0: 5}, group="s", version=2, retentionTimeMs=-1)
    commit(r, 1000, "", -1, "foo", {1: 6}, group="s", version=4, retentionTimeMs=3000)  # expires at 4000
    a = r.join(1000, "m1", ["foo"], serverAssignor="range")
    a = r.heartbeat(1100, "m1", a["memberEpoch"], topicPartitions=owned(a))
    commit(r, 2000, "m1", a["memberEpoch"], "foo", {0: 10, 1: 11})  # kept while m1 is subscribed
    r.tick(30_000)  # the runs at 10 s (s's foo-1), 20 s and 30 s
    r.heartbeat(40_000, "m1", -1)  # g is empty: its offsets count from their commit
    r.tick(80_000)  # the run at 70 s: s's foo-0 and s; g's offsets and g
    fetch(r, 80_000, "admin", [{"groupId": "g", "memberId": None, "memberEpoch": -1, "topics": None},
                               {"groupId": "s", "memberId": None, "memberEpoch": -1, "topics": None}])
    commit(r, 90_000, "", -1, "foo", {0: 7}, group="s")  # a new simple group of the same id
    return r


def txn_commit(r: TraceRecorder, ts: int, member: str, generation: int, offsets: dict[int, int], *,
               producer: int = 7, version: int = 3) -> dict[str, Any]:
    request: dict[str, Any] = {"transactionalId": "tx", "groupId": "g", "producerId": producer, "producerEpoch": 0,
                               "topics": [{"name": "foo", "partitions": [
                                   {"partitionIndex": p, "committedOffset": o, "committedLeaderEpoch": -1,
                                    "committedMetadata": ""} for p, o in offsets.items()]}]}
    if version >= 3:
        request.update(generationId=generation, memberId=member, groupInstanceId=None)
    return r.call(ts, f"producer-{producer}", request, api_key=28, version=version)


def end_txn(r: TraceRecorder, ts: int, producer: int, commit: bool) -> dict[str, Any]:
    shard = partition_for("g", 50)
    return r.call(ts, "txn-coordinator", {"markers": [{
        "producerId": producer, "producerEpoch": 0, "transactionResult": commit, "coordinatorEpoch": 0,
        "topics": [{"name": "__consumer_offsets", "partitionIndexes": [shard]}], "transactionVersion": 2}]},
        api_key=27, version=2)


def transactions() -> TraceRecorder:
    """A consumer's transactional commits (TxnOffsetCommit v3): pending until the marker
    (fetches with requireStable answer UNSTABLE_OFFSET_COMMIT), committed by a COMMIT marker,
    dropped by an ABORT one; a stale generation refused (ILLEGAL_GENERATION)."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 2)
    a = r.join(1000, "m1", ["foo"], serverAssignor="range")
    a = r.heartbeat(1100, "m1", a["memberEpoch"], topicPartitions=owned(a))
    epoch = a["memberEpoch"]
    txn_commit(r, 1200, "m1", epoch, {0: 10, 1: 11})
    fetch(r, 1300, "m1", [{"groupId": "g", "memberId": "m1", "memberEpoch": epoch,
                           "topics": [{"name": "foo", "partitionIndexes": [0, 1]}]}])  # unstable
    end_txn(r, 1400, 7, True)
    fetch(r, 1500, "m1", [{"groupId": "g", "memberId": "m1", "memberEpoch": epoch, "topics": None}])  # 10, 11
    txn_commit(r, 1600, "m1", epoch, {0: 20}, producer=8)
    end_txn(r, 1700, 8, False)  # aborted: 0 stays at 10
    txn_commit(r, 1800, "m1", epoch + 5, {0: 30}, producer=9)  # ILLEGAL_GENERATION
    txn_commit(r, 1900, "", -1, {1: 40}, producer=9, version=0)  # v0: no member fields, accepted
    fetch(r, 2000, "m1", [{"groupId": "g", "memberId": "m1", "memberEpoch": epoch, "topics": None}])
    return r


def commit_fencing_unrevoked() -> TraceRecorder:
    """docs/upstream.md, finding 2, the second path (no assignment interval needed): m1 is revoking
    foo-2/foo-3 at epoch 2 when m3's join changes the target again; its next heartbeat, without them
    but still owning foo-1 that the new target also takes, leaves UNREVOKED_PARTITIONS for
    UNREVOKED_PARTITIONS at the same epoch 2 (CurrentAssignmentBuilder.computeNextAssignment(memberEpoch)):
    foo-2 has left m1 at epoch 2, and m1's late commit for it overwrites the new owner's offset.
    Member ids a and b make the uniform assignor take foo-1 from m1 (others take from the joiner).
    Kafka 4.3 @ 0157ac7cf2c6 answered every call alike (the oracle)."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 4)
    foo = r.coord.topics.id_of("foo")

    def tps(*partitions: int) -> list[dict[str, Any]]:
        return [{"topicId": foo, "partitions": list(partitions)}]

    r.join(100, "m1", ["foo"])
    r.heartbeat(150, "m1", 2, topicPartitions=tps(0, 1, 2, 3))
    b = r.join(200, "a", ["foo"])
    r.heartbeat(300, "m1", 2, topicPartitions=tps(0, 1, 2, 3))   # revoke foo-2, foo-3
    r.join(400, "b", ["foo"])                                    # the target changes again: foo-1 to b
    r.heartbeat(500, "m1", 2, topicPartitions=tps(0, 1))         # foo-2, foo-3 gone; still epoch 2
    b = r.heartbeat(600, "a", b["memberEpoch"], topicPartitions=[])  # a gets foo-2, foo-3 at epoch 4
    b = r.heartbeat(650, "a", b["memberEpoch"], topicPartitions=owned(b))
    commit(r, 700, "a", b["memberEpoch"], "foo", {2: 100})
    commit(r, 800, "m1", 2, "foo", {2: 10})                      # accepted: overwrites a's offset
    fetch(r, 900, "a", [{"groupId": "g", "memberId": "a", "memberEpoch": b["memberEpoch"],
                         "topics": [{"name": "foo", "partitionIndexes": [2]}]}])
    r.heartbeat(1000, "m1", 2, topicPartitions=tps(0))           # foo-1 released: epoch 4
    commit(r, 1100, "m1", 2, "foo", {2: 11})                     # STALE_MEMBER_EPOCH
    return r


SCENARIOS = {"consumer_commits": consumer, "streams_commits": streams, "simple_commits": simple,
             "commit_fencing": commit_fencing, "commit_fencing_interval_0": commit_fencing_interval_0,
             "delete_groups": delete_groups, "expiry": expiry, "transactions": transactions,
             "commit_fencing_unrevoked": commit_fencing_unrevoked}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        path = build().write(OUT / f"{name}.jsonl")
        print(f"wrote {path} ({sum(1 for _ in path.open())} lines)")


if __name__ == "__main__":
    main()
