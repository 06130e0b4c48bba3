"""Write the golden migration traces under tests/golden/migration/ (run once; commit the output).

Mixed API sequences on one group id, following GroupMetadataManagerTest's migration cases
(Kafka 4.3): a classic group upgraded by a ConsumerGroupHeartbeat, its classic members living
on inside the consumer group (JoinGroup/SyncGroup/Heartbeat to a consumer group), and a consumer
group downgraded when its last consumer-protocol member leaves. Responses and records come from
the model; tests/migration/test_check_migration.py pins Kafka's values in them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT
from kgspec.model.hashing import deterministic_topic_id
from kgspec.model.migration.protocol import encode_assignment, encode_subscription
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
        self._time(ts)
        result = self.coord.handle(CONSUMER_GROUP_HEARTBEAT, 1, request, now=ts, client_id=client_id)
        self._correlation += 1
        event = {"tsMs": ts, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "clientId": client_id,
                                               "correlationId": self._correlation,
                                               "requestApiKeyName": "CONSUMER_GROUP_HEARTBEAT"},
                 "request": request, "response": result.response}
        self.events.append(event)
        self._records(ts, result.records)
        self._settle()
        return event

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


SCENARIOS = {"upgrade": upgrade, "downgrade": downgrade}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        scenario().write(OUT / f"{name}.jsonl")
        print(f"wrote {OUT / name}.jsonl")


if __name__ == "__main__":
    main()
