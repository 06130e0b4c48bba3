"""Write the golden consumer traces under tests/golden/consumer/ (run once; commit the output).

Each scenario follows one of Kafka's GroupMetadataManagerTest cases; the responses come
from the model, and tests/test_check_golden.py pins the values Kafka's tests assert, so a
model change that breaks Kafka's behaviour cannot silently regenerate the oracle.
"""

from __future__ import annotations

import json
from pathlib import Path

from kgspec.conformance.recorder import TraceRecorder, owned

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "consumer"
NO_BATCHING = {"group.consumer.assignment.interval.ms": 0}


def join_with_records() -> TraceRecorder:
    """testMemberJoinsEmptyConsumerGroup, then a second member and a full revocation cycle."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 6)
    r.topic(0, "bar", 3)
    a = r.join(1000, "m1", ["foo", "bar"], serverAssignor="range")
    b = r.join(2000, "m2", ["foo", "bar"])
    a = r.heartbeat(3000, "m1", a["memberEpoch"])
    a = r.heartbeat(3100, "m1", a["memberEpoch"], topicPartitions=owned(a))
    b = r.heartbeat(4000, "m2", b["memberEpoch"])
    r.heartbeat(4100, "m2", b["memberEpoch"], topicPartitions=owned(b))
    r.heartbeat(4200, "m1", -1)
    r.tick(10_000)
    return r


def reconciliation() -> TraceRecorder:
    """testReconciliationProcess-like: three members, revoke before reassign, calls only."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING)
    r.topic(0, "foo", 6)
    r.topic(0, "bar", 3)
    m1 = r.join(100, "m1", ["foo", "bar"], serverAssignor="range")
    m2 = r.join(200, "m2", ["foo", "bar"], serverAssignor="range")
    m1 = r.heartbeat(300, "m1", m1["memberEpoch"])
    m1 = r.heartbeat(400, "m1", m1["memberEpoch"], topicPartitions=owned(m1))
    m2 = r.heartbeat(500, "m2", m2["memberEpoch"])
    m3 = r.join(600, "m3", ["foo", "bar"], serverAssignor="range")
    m1 = r.heartbeat(700, "m1", m1["memberEpoch"])
    m2 = r.heartbeat(800, "m2", m2["memberEpoch"])
    m3 = r.heartbeat(900, "m3", m3["memberEpoch"])
    m1 = r.heartbeat(1000, "m1", m1["memberEpoch"], topicPartitions=owned(m1))
    m2 = r.heartbeat(1100, "m2", m2["memberEpoch"], topicPartitions=owned(m2))
    m3 = r.heartbeat(1200, "m3", m3["memberEpoch"], topicPartitions=owned(m3))
    m3 = r.heartbeat(1300, "m3", m3["memberEpoch"], topicPartitions=owned(m3))
    r.call(1400, "admin", {"groupIds": ["g"], "includeAuthorizedOperations": False}, api_key=69, version=1)
    return r


def static_membership() -> TraceRecorder:
    """testStaticMemberGetsBackAssignmentUponRejoin, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 6)
    a = r.join(100, "m1", ["foo"], instanceId="i1")
    b = r.join(200, "m2", ["foo"], instanceId="i2")
    a = r.heartbeat(300, "m1", a["memberEpoch"], instanceId="i1")
    a = r.heartbeat(400, "m1", a["memberEpoch"], instanceId="i1", topicPartitions=owned(a))
    b = r.heartbeat(500, "m2", b["memberEpoch"], instanceId="i2")
    r.join(600, "m2b", ["foo"], instanceId="i2")  # UNRELEASED_INSTANCE_ID: i2 still owned
    r.heartbeat(700, "m2", -2, instanceId="i2")
    c = r.join(800, "m2b", ["foo"], instanceId="i2")
    r.heartbeat(900, "m2", 3, instanceId="i2")  # FENCED_INSTANCE_ID: i2 now belongs to m2b
    r.heartbeat(1000, "m2b", c["memberEpoch"], instanceId="i2", topicPartitions=owned(c))
    return r


def timeouts() -> TraceRecorder:
    """testRebalanceTimeoutExpiration and testSessionTimeoutExpiration."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 3)
    a = r.join(0, "m1", ["foo"], rebalanceTimeoutMs=10_000)
    r.join(5000, "m2", ["foo"], rebalanceTimeoutMs=10_000)
    r.heartbeat(5100, "m1", a["memberEpoch"])  # must revoke: rebalance timer armed
    r.tick(15_101)  # m1 never acknowledged: fenced at 15100
    r.tick(60_000)  # m2 silent since 5000: session expired at 50000
    return r


def batching() -> TraceRecorder:
    """testConsumerGroupAssignmentInterval (interval 5000)."""
    r = TraceRecorder("kafka-4.3", {"group.consumer.assignment.interval.ms": 5000})
    r.topic(0, "foo", 6)
    a = r.join(1000, "m1", ["foo"])
    b = r.join(5995, "m2", ["foo"])
    r.heartbeat(6005, "m2", b["memberEpoch"])
    r.heartbeat(6100, "m1", a["memberEpoch"])
    return r


def two_members(profile: str, configs: dict[str, int]) -> TraceRecorder:
    """m1 and m2 join one four-partition topic; m1 revokes and m2 takes its share."""
    r = TraceRecorder(profile, configs)
    r.topic(0, "foo", 4)
    a = r.join(100, "m1", ["foo"])
    b = r.join(200, "m2", ["foo"])
    a = r.heartbeat(300, "m1", a["memberEpoch"])
    a = r.heartbeat(400, "m1", a["memberEpoch"], topicPartitions=owned(a))
    r.heartbeat(500, "m2", b["memberEpoch"])
    return r


def kafka_41() -> TraceRecorder:
    """The 4.1 profile: new groups start at epoch 0 (first member epoch 1); no batching."""
    return two_members("kafka-4.1", {})


def validation_errors() -> TraceRecorder:
    """Request validation in Kafka's order, and member lookup errors."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING)
    r.topic(0, "foo", 2)
    r.heartbeat(100, "", 0, rebalanceTimeoutMs=1000, subscribedTopicNames=["foo"], topicPartitions=[])
    r.heartbeat(200, "m1", 0, subscribedTopicNames=["foo"], topicPartitions=[])
    r.heartbeat(300, "m1", 0, rebalanceTimeoutMs=1000, subscribedTopicNames=["foo"])
    r.heartbeat(400, "m1", -3)
    r.heartbeat(500, "m1", 0, rebalanceTimeoutMs=1000, subscribedTopicNames=["foo"], topicPartitions=[],
                serverAssignor="sticky")
    r.heartbeat(600, "m1", 5, group="unknown")
    a = r.join(700, "m1", ["foo"])
    r.heartbeat(800, "m9", 2)
    r.heartbeat(900, "m1", a["memberEpoch"] + 5)
    return r


def topics_and_regex() -> TraceRecorder:
    """Metadata changes bump the group epoch; a regex subscription resolves."""
    r = TraceRecorder("kafka-4.3", NO_BATCHING, records=True)
    r.topic(0, "foo", 2)
    a = r.join(100, "m1", ["foo"])
    r.topic(200, "foo", 4)  # partitions added
    a = r.heartbeat(300, "m1", a["memberEpoch"])
    a = r.heartbeat(400, "m1", a["memberEpoch"], topicPartitions=owned(a))
    b = r.join(500, "m2", [], subscribedTopicRegex="ba.*")
    r.topic(600, "bar", 3)
    r.heartbeat(700, "m2", b["memberEpoch"])
    return r


SCENARIOS = {
    "join_with_records": join_with_records,
    "reconciliation": reconciliation,
    "static_membership": static_membership,
    "timeouts": timeouts,
    "batching": batching,
    "kafka_41": kafka_41,
    "validation_errors": validation_errors,
    "topics_and_regex": topics_and_regex,
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        path = build().write(OUT / f"{name}.jsonl")
        print(f"wrote {path.relative_to(OUT.parent.parent.parent)} ({sum(1 for _ in path.open())} lines)")
    # A legal alternative uniform target: the two members' targets swapped consistently.
    r = two_members("kafka-4.3", NO_BATCHING)
    path = r.write(OUT / "uniform_recorded.jsonl")
    print(json.dumps([e.get("response", {}).get("assignment") for e in r.events[2:]]))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
