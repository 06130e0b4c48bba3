"""Write the golden migration traces under tests/golden/migration/ (run once; commit the output).

Mixed API sequences on one group id, following GroupMetadataManagerTest's migration cases
(Kafka 4.3): a classic group upgraded by a ConsumerGroupHeartbeat, its classic members living
on inside the consumer group (JoinGroup/SyncGroup/Heartbeat to a consumer group), and a consumer
group downgraded when its last consumer-protocol member leaves. ``streams_<profile>.jsonl``:
classic and streams calls on one group id under each profile (Kafka's offline migration and
cross-type errors; under ``kip`` the seed's online migration). ``python scripts/make_golden_migration.py
[name ...]`` rewrites all (or the named) goldens. Responses and records come from
the model; tests/migration/test_check_migration.py pins Kafka's values in them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT
from kgspec.model.hashing import deterministic_topic_id
from kgspec.model.migration.protocol import encode_assignment, encode_subscription
from kgspec.model.migration.streams_protocol import (
    decode_streams_assignment,
    encode_streams_assignment,
    encode_subscription_user_data,
)
from make_golden_classic import ClassicRecorder

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "migration"
SUB = encode_subscription(["foo"], 3)
CONFIGS = {"group.consumer.assignment.interval.ms": 0}


class MigrationRecorder(ClassicRecorder):
    def topic(self, ts: int, name: str, partitions: int) -> None:
        topic_id = deterministic_topic_id(name)
        self.coord.update_topic(name, topic_id, partitions)
        self.events.append({"tsMs": ts, "topic": {"name": name, "topicId": topic_id, "partitions": partitions}})

    def classic_join(self, ts: int, member_id: str = "", *, client_id: str = "client",
                     protocols: list[dict[str, str]] | None = None, **kw: Any) -> dict[str, Any]:
        return self.join(ts, member_id, client_id=client_id, session=10_000, rebalance=30_000,
                         protocols=protocols or [{"name": "range", "metadata": SUB}], **kw)

    def heartbeat68(self, ts: int, member_id: str, epoch: int, *, client_id: str = "consumer",
                    **fields: Any) -> dict[str, Any]:
        request: dict[str, Any] = {"groupId": "g", "memberId": member_id, "memberEpoch": epoch, "instanceId": None,
                                   "rackId": None, "rebalanceTimeoutMs": -1, "subscribedTopicNames": None,
                                   "subscribedTopicRegex": None, "serverAssignor": None, "topicPartitions": None}
        request.update(fields)
        return self.call(ts, CONSUMER_GROUP_HEARTBEAT, 1, request, client_id)

    def owned(self, member_id: str) -> list[dict[str, Any]]:
        member = self.coord.groups["g"].members[member_id]
        return [{"topicId": t, "partitions": sorted(p)} for t, p in member.assigned.items() if p]


def upgrade() -> MigrationRecorder:
    """testConsumerGroupHeartbeatWithStableClassicGroup through the wire: two classic members at
    generation 1 own foo 0-1 / 2-3; a consumer member joins (epoch 0) -> the group converts at
    epoch 1 and bumps to 2; the classic members learn REBALANCE_IN_PROGRESS, rejoin (JoinGroup to the
    consumer group), revoke, sync; everyone ends STABLE."""
    r = MigrationRecorder(CONFIGS)
    r.topic(0, "foo", 4)
    a = r.classic_join(0, client_id="c1")["response"]["memberId"]
    b = r.classic_join(0, client_id="c2")["response"]["memberId"]
    ja = r.classic_join(0, a, client_id="c1")
    r.classic_join(0, b, client_id="c2")
    r.tick(6000)  # the initial delay, extended once
    leader = ja["response"]["leader"]
    follower = b if leader == a else a
    assignments = {leader: encode_assignment([("foo", [0, 1])], 3), follower: encode_assignment([("foo", [2, 3])], 3)}
    r.sync(6000, leader, 1, assignments=assignments)
    r.sync(6000, follower, 1)
    joined = r.heartbeat68(7000, "consumer-1", 0, rebalanceTimeoutMs=30_000, subscribedTopicNames=["foo"],
                           topicPartitions=[], serverAssignor="range")
    epoch = joined["response"]["memberEpoch"]
    r.heartbeat(7100, leader, 1)    # REBALANCE_IN_PROGRESS: the assignment epoch moved on
    r.heartbeat(7100, follower, 1)
    owned = {leader: {"foo": [0, 1]}, follower: {"foo": [2, 3]}}
    gens = {}
    for mid, client in ((leader, "c1"), (follower, "c2")):
        sub = encode_subscription(["foo"], 3, owned=owned[mid])
        gens[mid] = r.classic_join(7200, mid, client_id=client,
                                   protocols=[{"name": "range", "metadata": sub}])["response"]["generationId"]
    for mid in (leader, follower):
        r.sync(7300, mid, gens[mid])
    r.heartbeat68(7400, "consumer-1", epoch, topicPartitions=[])
    for mid, client in ((leader, "c1"), (follower, "c2")):
        r.heartbeat(7500, mid, gens[mid], client_id=client)
    # The member still revoking rejoins owning only what it keeps, then syncs the new epoch.
    kept = r.coord.groups["g"].members[follower].assigned
    sub = encode_subscription(["foo"], 3, owned={"foo": sorted(p for parts in kept.values() for p in parts)})
    gen = r.classic_join(7600, follower, client_id="c2",
                         protocols=[{"name": "range", "metadata": sub}])["response"]["generationId"]
    r.sync(7700, follower, gen, client_id="c2")
    r.heartbeat68(7800, "consumer-1", epoch, topicPartitions=[])
    r.tick(8000)
    return r


def downgrade() -> MigrationRecorder:
    """testLastConsumerProtocolMemberLeavingConsumerGroup through the wire: a consumer member and a
    classic member share the group; the consumer member leaves (-1) -> tombstones, GroupMetadata at
    generation = group epoch, PREPARING_REBALANCE; the classic member rejoins and syncs the classic way."""
    r = MigrationRecorder(CONFIGS)
    r.topic(0, "foo", 4)
    j = r.heartbeat68(0, "consumer-1", 0, rebalanceTimeoutMs=30_000, subscribedTopicNames=["foo"],
                      topicPartitions=[], serverAssignor="range")
    epoch = j["response"]["memberEpoch"]
    classic = r.classic_join(1000, client_id="c1")["response"]["memberId"]  # MEMBER_ID_REQUIRED
    gen = r.classic_join(1000, classic, client_id="c1")["response"]["generationId"]
    consumer_epoch = r.heartbeat68(1100, "consumer-1", epoch, topicPartitions=r.owned("consumer-1"))
    r.heartbeat68(1200, "consumer-1", consumer_epoch["response"]["memberEpoch"], topicPartitions=r.owned("consumer-1"))
    r.sync(1300, classic, gen, client_id="c1")  # REBALANCE_IN_PROGRESS or its partitions
    rejoin = r.classic_join(1400, classic, client_id="c1")["response"]["generationId"]
    r.sync(1500, classic, rejoin, client_id="c1")
    r.heartbeat68(2000, "consumer-1", -1)  # the last consumer-protocol member leaves: downgrade
    r.heartbeat(2100, classic, rejoin, client_id="c1")  # the classic group is rebalancing
    j2 = r.classic_join(2200, classic, client_id="c1")  # completes the join at once (all rejoined)
    r.sync(2300, classic, j2["response"]["generationId"], client_id="c1",
           assignments={classic: encode_assignment([("foo", [0, 1, 2, 3])], 3)})
    r.heartbeat(2400, classic, j2["response"]["generationId"], client_id="c1")
    return r


# --- classic <-> streams (streams_*.jsonl, one per profile) -------------------------------------------

STREAMS_CONFIGS = {"group.streams.initial.rebalance.delay.ms": 0, "group.streams.assignment.interval.ms": 0,
                   "group.streams.num.standby.replicas": 1, "group.streams.num.warmup.replicas": 0}
STREAMS_TOPOLOGY = {"epoch": 0, "subtopologies": [{
    "subtopologyId": "0", "sourceTopics": ["foo"], "sourceTopicRegex": [],
    "stateChangelogTopics": [{"name": "app-store-changelog", "partitions": 0, "replicationFactor": 0,
                              "topicConfigs": []}],
    "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}


class StreamsMigrationRecorder(MigrationRecorder):
    """Classic calls and StreamsGroupHeartbeats on one group id, under any profile."""

    def __init__(self, profile: str, configs: dict[str, Any]) -> None:
        super().__init__(configs, profile=profile)

    def heartbeat88(self, ts: int, member_id: str, epoch: int, **fields: Any) -> dict[str, Any]:
        request: dict[str, Any] = {"groupId": "g", "memberId": member_id, "memberEpoch": epoch,
                                   "endpointInformationEpoch": 0, "instanceId": None, "rackId": None,
                                   "rebalanceTimeoutMs": -1, "topology": None, "activeTasks": None,
                                   "standbyTasks": None, "warmupTasks": None, "processId": None, "userEndpoint": None,
                                   "clientTags": None, "taskOffsets": None, "taskEndOffsets": None,
                                   "shutdownApplication": False}
        request.update(fields)
        return self.call(ts, 88, 0, request, member_id)

    def streams_join(self, ts: int, member_id: str, process: str) -> dict[str, Any]:
        return self.heartbeat88(ts, member_id, 0, rebalanceTimeoutMs=30_000, topology=STREAMS_TOPOLOGY,
                                processId=process, activeTasks=[], standbyTasks=[], warmupTasks=[])

    def stream_join(self, ts: int, member_id: str, process: str, active: list[int], standby: list[int], *,
                    client_id: str) -> dict[str, Any]:
        """A classic Streams member's JoinGroup: protocol "stream", kgspec's user data (kip)."""
        data = encode_subscription_user_data(process, 0, {"0": frozenset(active)} if active else {},
                                             {"0": frozenset(standby)} if standby else {})
        return self.call(ts, 11, 9, {
            "groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 30_000, "memberId": member_id,
            "groupInstanceId": None, "protocolType": "consumer", "reason": None,
            "protocols": [{"name": "stream", "metadata": encode_subscription(["foo"], 3, user_data=data)}]}, client_id)

    def stream_sync(self, ts: int, member_id: str, generation: int, *, client_id: str,
                    assignments: dict[str, str] | None = None) -> dict[str, Any]:
        return self.call(ts, 14, 5, {
            "groupId": "g", "generationId": generation, "memberId": member_id, "groupInstanceId": None,
            "protocolType": "consumer", "protocolName": "stream",
            "assignments": [{"memberId": m, "assignment": a} for m, a in (assignments or {}).items()]}, client_id)


def streams_kafka(profile: str) -> Callable[[], MigrationRecorder]:
    """Kafka's classic <-> streams rules (no online migration), the same calls under each release:
    a classic group that empties, then a StreamsGroupHeartbeat on its id (4.2+: tombstone and a new
    streams group, testStreamsGroupHeartbeatWithEmptyClassicGroup; 4.1: not a streams group), a
    JoinGroup / SyncGroup / Heartbeat / LeaveGroup to the non-empty streams group (INCONSISTENT_GROUP_PROTOCOL,
    UNKNOWN_MEMBER_ID), a ConsumerGroupHeartbeat (not a consumer group), the last streams member
    leaving, and a JoinGroup to the empty streams group (4.2+: streams tombstones, then the classic
    group, testClassicGroupJoinWithEmptyStreamsGroup)."""
    def scenario() -> MigrationRecorder:
        r = StreamsMigrationRecorder(profile, STREAMS_CONFIGS)
        r.topic(0, "foo", 6)
        r.topic(0, "app-store-changelog", 6)
        a = r.classic_join(0, client_id="c1")["response"]["memberId"]
        r.classic_join(0, a, client_id="c1")
        r.tick(3000)  # the initial delay
        r.sync(3000, a, 1, client_id="c1", assignments={a: encode_assignment([("foo", [0, 1])], 3)})
        r.heartbeat88(3500, "s1", 1)  # not a streams group: the classic group is there
        r.streams_join(3600, "s1", "p1")  # a non-empty classic group: not a streams group
        r.leave(4000, [(a, None)], client_id="c1")  # the classic group is EMPTY now
        joined = r.streams_join(5000, "s1", "p1")
        if joined["response"]["errorCode"] != 0:  # 4.1: the empty classic group stays
            r.heartbeat68(5600, "consumer-1", 0, rebalanceTimeoutMs=30_000, subscribedTopicNames=["foo"],
                          topicPartitions=[], serverAssignor="range")  # 4.1 also upgrades an empty one
            return r
        epoch = joined["response"]["memberEpoch"]
        r.heartbeat88(5100, "s1", epoch, activeTasks=[], standbyTasks=[], warmupTasks=[])
        r.classic_join(5200, client_id="c2")  # a non-empty streams group
        r.sync(5300, "s1", epoch, client_id="c2")
        r.heartbeat(5400, "s1", epoch, client_id="c2")
        r.leave(5500, [("s1", None)], client_id="c2")
        r.heartbeat68(5600, "consumer-1", 0, rebalanceTimeoutMs=30_000, subscribedTopicNames=["foo"],
                      topicPartitions=[], serverAssignor="range")
        r.heartbeat88(6000, "s1", -1)  # the group is EMPTY now
        r.classic_join(6100, client_id="c2")  # tombstones and a new classic group
        r.tick(7000)
        return r
    return scenario


def streams_kip() -> MigrationRecorder:
    """The seed's online migration (kip): a classic Streams group of two members (generation 1)
    is converted when a streams member joins (group epoch 2 = generation + 1); the classic members
    learn REBALANCE_IN_PROGRESS, rejoin with their owned tasks (translated to the streams protocol),
    revoke and sync; the streams member leaves and the group is a classic group again."""
    r = StreamsMigrationRecorder("kip", STREAMS_CONFIGS)
    r.topic(0, "foo", 6)
    r.topic(0, "app-store-changelog", 6)
    a = r.stream_join(0, "", "pA", [], [], client_id="c1")["response"]["memberId"]
    b = r.stream_join(0, "", "pB", [], [], client_id="c2")["response"]["memberId"]
    ja = r.stream_join(0, a, "pA", [], [], client_id="c1")
    r.stream_join(0, b, "pB", [], [], client_id="c2")
    r.tick(6000)  # the classic initial delay, extended once
    leader = ja["response"]["leader"]
    follower = b if leader == a else a
    owned = {leader: ([0, 2, 4], [1, 3, 5]), follower: ([1, 3, 5], [0, 2, 4])}
    clients, processes = {a: "c1", b: "c2"}, {a: "pA", b: "pB"}
    r.stream_sync(6000, leader, 1, client_id=clients[leader], assignments={
        m: encode_streams_assignment({"0": frozenset(act)}, {"0": frozenset(stb)}, 3)
        for m, (act, stb) in owned.items()})
    r.stream_sync(6000, follower, 1, client_id=clients[follower])
    joined = r.streams_join(7000, "s1", "pC")  # converts the classic group
    epoch = joined["response"]["memberEpoch"]
    for mid in (leader, follower):
        r.heartbeat(7100, mid, 1, client_id=clients[mid])  # REBALANCE_IN_PROGRESS
    gens = {mid: r.stream_join(7200, mid, processes[mid], *owned[mid],
                               client_id=clients[mid])["response"]["generationId"] for mid in (leader, follower)}
    kept: dict[str, tuple[list[int], list[int]]] = {}
    for mid in (leader, follower):
        sync = r.stream_sync(7300, mid, gens[mid], client_id=clients[mid])
        active, standby = decode_streams_assignment(sync["response"]["assignment"])
        kept[mid] = (sorted(active.get("0", ())), sorted(standby.get("0", ())))
    for i, mid in enumerate((leader, follower)):  # still revoking: rejoin with what they keep
        r.heartbeat(7400 + 10 * i, mid, gens[mid], client_id=clients[mid])
        gens[mid] = r.stream_join(7405 + 10 * i, mid, processes[mid], *kept[mid],
                                  client_id=clients[mid])["response"]["generationId"]
        r.stream_sync(7408 + 10 * i, mid, gens[mid], client_id=clients[mid])
    r.heartbeat88(7700, "s1", epoch, activeTasks=[], standbyTasks=[{"subtopologyId": "0", "partitions": [0, 1]}],
                  warmupTasks=[])
    r.heartbeat88(8000, "s1", -1)  # the last streams-protocol member leaves: back to classic
    for mid in (leader, follower):
        r.heartbeat(8100, mid, gens[mid], client_id=clients[mid])  # the classic group rebalances
    return r


SCENARIOS: dict[str, Callable[[], MigrationRecorder]] = {
    "upgrade": upgrade, "downgrade": downgrade,
    **{f"streams_{p}": streams_kafka(p) for p in ("kafka-4.1", "kafka-4.2", "kafka-4.3", "kafka-trunk")},
    "streams_kip": streams_kip,
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:])
    for name, scenario in SCENARIOS.items():
        if only and name not in only:
            continue
        scenario().write(OUT / f"{name}.jsonl")
        print(f"wrote {OUT / name}.jsonl")


if __name__ == "__main__":
    main()
