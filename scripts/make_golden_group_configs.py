"""Write the golden group-config traces under tests/golden/group_configs/ (run once; commit the output).

Recorded by driving the model (``TraceRecorder``):

- ``consumer_configs`` (kafka-4.3, the broker setting ``group.consumer.session.timeout.ms``): a
  member joins; DescribeConfigs with synonyms; IncrementalAlterConfigs refusals (under the broker's
  minimum, a non-number, APPEND, an unknown name, validateOnly) and a change of the session
  timeout and heartbeat interval, which the next heartbeat answers; a DELETE; a DescribeConfigs
  naming a topic too (not the coordinator's: not compared).
- ``streams_configs`` (kafka-4.3): two processes; ``streams.num.standby.replicas`` set to 1, the
  next heartbeat bumps the epoch and assigns standbys.
- ``configs_41`` (kafka-4.1): the 4.1 names (no assignment interval) and DescribeConfigs v2.
- ``streams_defaults_41`` (kafka-4.1, the broker's streams session timeout 50000): a streams group
  given a consumer config re-arms its session at GroupConfig's 45000 (4.1 copies no streams config
  into a group's GroupConfig), so its member is fenced by 47000; a consumer group given a streams
  config keeps the broker's 50000.

Provenance: written by the model; their heartbeats' responses and session timers agree with Kafka's
own GroupMetadataManager (scripts/oracle_group_configs/run.py: kafka 4.3 @ 0157ac7cf2c6 for
consumer_configs and streams_configs, kafka 4.1 @ dc255832aa1f for configs_41 and
streams_defaults_41; that harness does not compare ``endpointInformationEpoch``: the first join's
1 is 4.1's bump on the transient group, GroupMetadataManager 4.1:2047, docs/kafka-facts.md).
DescribeConfigs' answers follow ConfigHelper as read (docs/group-configs.md).

tests/group_configs/test_check_group_configs.py pins the values Kafka's tests assert.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgspec.conformance.recorder import TraceRecorder, owned

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "group_configs"
GROUP, TOPIC = 32, 2
TOPOLOGY = {"epoch": 0, "subtopologies": [{
    "subtopologyId": "0", "sourceTopics": ["input"], "sourceTopicRegex": [],
    "stateChangelogTopics": [{"name": "app-store-changelog", "partitions": 0, "replicationFactor": 0,
                              "topicConfigs": []}],
    "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}


def alter(r: TraceRecorder, ts: int, group: str, *configs: tuple[str, int, str | None],
          validate_only: bool = False) -> dict[str, Any]:
    request = {"resources": [{"resourceType": GROUP, "resourceName": group, "configs": [
        {"name": n, "configOperation": o, "value": v} for n, o, v in configs]}], "validateOnly": validate_only}
    return r.call(ts, "admin", request, api_key=44, version=1)


def describe(r: TraceRecorder, ts: int, group: str, *, version: int = 4, synonyms: bool = True,
             keys: list[str] | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"resources": [{"resourceType": GROUP, "resourceName": group,
                                              "configurationKeys": keys}], "includeSynonyms": synonyms}
    if version >= 3:
        request["includeDocumentation"] = False
    return r.call(ts, "admin", request, api_key=32, version=version)


def consumer() -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", {"group.consumer.session.timeout.ms": 50000}, records=True)
    r.topic(0, "foo", 2)
    a = r.join(1000, "m1", ["foo"], serverAssignor="range")
    a = r.heartbeat(1100, "m1", a["memberEpoch"], topicPartitions=owned(a))
    describe(r, 1200, "g")
    alter(r, 1300, "g", ("consumer.session.timeout.ms", 0, "40000"))  # under group.consumer.min.session.timeout.ms
    alter(r, 1400, "g", ("consumer.heartbeat.interval.ms", 0, "ten"))  # not an INT
    alter(r, 1500, "g", ("consumer.heartbeat.interval.ms", 2, "1"))  # APPEND: not a LIST
    alter(r, 1600, "g", ("consumer.rebalance.timeout.ms", 0, "1"))  # no such group config
    alter(r, 1700, "g", ("consumer.heartbeat.interval.ms", 0, "9000"), validate_only=True)
    alter(r, 1800, "g", ("consumer.session.timeout.ms", 0, "55000"), ("consumer.heartbeat.interval.ms", 0, "8000"))
    a = r.heartbeat(2000, "m1", a["memberEpoch"])  # heartbeatIntervalMs 8000; session re-armed for 55000
    describe(r, 2100, "g", keys=["consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"])
    alter(r, 2200, "g", ("consumer.heartbeat.interval.ms", 1, None))  # DELETE: back to the broker's
    r.heartbeat(2300, "m1", a["memberEpoch"])  # heartbeatIntervalMs 5000
    r.call(2400, "admin", {"resources": [{"resourceType": TOPIC, "resourceName": "foo", "configurationKeys": None},
                                         {"resourceType": GROUP, "resourceName": "g",
                                          "configurationKeys": ["consumer.session.timeout.ms"]}],
                           "includeSynonyms": False, "includeDocumentation": False}, api_key=32, version=4)
    return r


def streams() -> TraceRecorder:
    r = TraceRecorder("kafka-4.3", {"group.streams.initial.rebalance.delay.ms": 0,
                                    "group.streams.assignment.interval.ms": 0}, records=True)
    r.topic(0, "input", 2)
    r.topic(0, "app-store-changelog", 2)
    s1 = r.streams_join(1000, "s1", TOPOLOGY, "p1", activeTasks=[], standbyTasks=[], warmupTasks=[])
    s2 = r.streams_join(1100, "s2", TOPOLOGY, "p2", activeTasks=[], standbyTasks=[], warmupTasks=[])
    s1 = r.streams_heartbeat(1200, "s1", s1["memberEpoch"], activeTasks=s1["activeTasks"], standbyTasks=[],
                             warmupTasks=[])
    alter(r, 1300, "g", ("streams.num.standby.replicas", 0, "3"))  # above group.streams.max.standby.replicas
    alter(r, 1400, "g", ("streams.num.standby.replicas", 0, "1"))
    r.streams_heartbeat(1500, "s2", s2["memberEpoch"], activeTasks=s2["activeTasks"], standbyTasks=[],
                        warmupTasks=[])  # the assignment configs changed: epoch bump, standbys
    describe(r, 1600, "g", keys=["streams.num.standby.replicas"])
    return r


def configs_41() -> TraceRecorder:
    r = TraceRecorder("kafka-4.1", records=True)
    r.topic(0, "foo", 1)
    r.join(1000, "m1", ["foo"], serverAssignor="range")
    alter(r, 1100, "g", ("consumer.assignment.interval.ms", 0, "0"))  # a 4.3 name: unknown on 4.1
    alter(r, 1200, "g", ("consumer.heartbeat.interval.ms", 0, "6000"))
    describe(r, 1300, "g", version=2)
    return r


def streams_defaults_41() -> TraceRecorder:
    # no records: the model writes 4.3's streams records (4.1's record 17 has fewer fields)
    r = TraceRecorder("kafka-4.1", {"group.streams.session.timeout.ms": 50000,
                                    "group.consumer.session.timeout.ms": 50000})
    topology = {"epoch": 0, "subtopologies": [{**TOPOLOGY["subtopologies"][0], "stateChangelogTopics": []}]}
    r.topic(0, "input", 2)
    s = r.streams_join(1000, "s1", topology, "p1", activeTasks=[], standbyTasks=[], warmupTasks=[])
    alter(r, 1100, "g", ("consumer.heartbeat.interval.ms", 0, "6000"))
    r.streams_heartbeat(1200, "s1", s["memberEpoch"], activeTasks=s["activeTasks"], standbyTasks=[],
                        warmupTasks=[])  # session re-armed at 1200 + 45000
    c = r.join(1300, "c1", ["input"], group="h")
    alter(r, 1400, "h", ("streams.session.timeout.ms", 0, "55000"))
    r.heartbeat(1500, "c1", c["memberEpoch"], group="h")  # session re-armed at 1500 + 50000
    r.streams_heartbeat(47000, "s1", s["memberEpoch"])  # its session expired at 46200: UNKNOWN_MEMBER_ID
    return r


SCENARIOS = {"consumer_configs": consumer, "streams_configs": streams, "configs_41": configs_41,
             "streams_defaults_41": streams_defaults_41}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        path = build().write(OUT / f"{name}.jsonl")
        print(f"wrote {path} ({sum(1 for _ in path.open())} lines)")


if __name__ == "__main__":
    main()
