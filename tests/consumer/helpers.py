"""A small fluent harness over the coordinator model for the consumer-group tests.

Topics are named; their ids come from ``deterministic_topic_id``. Assignments are
written ``{"foo": [0, 1], "bar": [2]}`` and converted to Kafka's topic-id form.
A :class:`MockAssignor` plays Kafka's ``MockPartitionAssignor`` (a prepared target).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kgspec.model.assignors.api import GroupAssignment, GroupSpec, TopicDescriber
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import STABLE, ConsumerMember
from kgspec.model.coordinator import (
    CONSUMER_GROUP_DESCRIBE,
    CONSUMER_GROUP_HEARTBEAT,
    Coordinator,
)
from kgspec.model.hashing import deterministic_topic_id
from kgspec.model.records import Record
from kgspec.model.step import Decision

GROUP = "grp"
Names = Mapping[str, Iterable[int]]


def tid(name: str) -> str:
    return deterministic_topic_id(name)


def tps(assignment: Names) -> list[dict[str, Any]]:
    """``{"foo": [0, 1]}`` -> ``[{"topicId": <foo id>, "partitions": [0, 1]}]`` (request/response form)."""
    return [{"topicId": tid(t), "partitions": sorted(p)} for t, p in assignment.items()]


class MockAssignor:
    """Kafka's ``MockPartitionAssignor``: returns a prepared target, by member id and topic name."""

    name = "mock"

    def __init__(self) -> None:
        self.prepared: dict[str, dict[str, list[int]]] = {}
        self.calls = 0

    def prepare(self, target: Mapping[str, Names]) -> None:
        self.prepared = {m: {t: sorted(p) for t, p in a.items()} for m, a in target.items()}

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        self.calls += 1
        return {m: {tid(t): frozenset(p) for t, p in self.prepared.get(m, {}).items() if p}
                for m in spec.members}


class Harness:
    """One coordinator, one group ``grp``, named topics, a clock."""

    def __init__(self, topics: Mapping[str, int] | None = None, *, profile: str = "kafka-4.3",
                 configs: dict[str, Any] | None = None, mock: MockAssignor | None = None,
                 group: str = GROUP, assignors: dict[str, Any] | None = None) -> None:
        extra: dict[str, Any] = dict(assignors or {})
        if mock is not None:
            extra["mock"] = mock
            configs = {"group.consumer.assignors": "mock,uniform,range", **(configs or {})}
        self.coord = Coordinator(profile, configs, member_ids=lambda n: f"gen-{n + 1}",
                                 assignors=extra)
        self.group_id = group
        self.now = 0
        self.log: list[Record] = []
        for name, n in (topics or {}).items():
            self.coord.update_topic(name, tid(name), n)

    # --- clock ---------------------------------------------------------------------------

    def sleep(self, ms: int) -> list[Any]:
        self.now += ms
        firings = self.coord.advance(self.now)
        for f in firings:
            self.log.extend(f.records)
        return firings

    # --- requests ------------------------------------------------------------------------

    def hb(self, member_id: str | None, epoch: int, *, version: int = 1, group: str | None = None,
           **fields: Any) -> Decision:
        request: dict[str, Any] = {"groupId": self.group_id if group is None else group,
                                   "memberId": member_id, "memberEpoch": epoch}
        request.update(fields)
        result = self.coord.handle(CONSUMER_GROUP_HEARTBEAT, version, request, now=self.now,
                                   client_id="client", client_host="/127.0.0.1")
        self.log.extend(result.records)
        return result

    def join(self, member_id: str, topics: list[str] | None = None, *, regex: str | None = None,
             assignor: str | None = None, instance: str | None = None, rack: str | None = None,
             rebalance_timeout: int = 5000, version: int = 1) -> Decision:
        fields: dict[str, Any] = {"rebalanceTimeoutMs": rebalance_timeout, "topicPartitions": []}
        if topics is not None:
            fields["subscribedTopicNames"] = topics
        if regex is not None:
            fields["subscribedTopicRegex"] = regex
        if assignor is not None:
            fields["serverAssignor"] = assignor
        if instance is not None:
            fields["instanceId"] = instance
        if rack is not None:
            fields["rackId"] = rack
        return self.hb(member_id, 0, version=version, **fields)

    def heartbeat(self, member_id: str, epoch: int | None = None, owned: Names | None = None,
                  **fields: Any) -> Decision:
        """A plain heartbeat at the member's epoch (or ``epoch``), reporting ``owned`` if given."""
        if epoch is None:
            epoch = self.member(member_id).member_epoch
        if owned is not None:
            fields["topicPartitions"] = tps(owned)
        return self.hb(member_id, epoch, **fields)

    def ack(self, member_id: str, **fields: Any) -> Decision:
        """Heartbeat reporting exactly the partitions the coordinator lets the member keep."""
        m = self.member(member_id)
        return self.heartbeat(member_id, m.member_epoch, held_names(self.coord, m.assigned), **fields)

    def leave(self, member_id: str, epoch: int = -1, instance: str | None = None) -> Decision:
        fields: dict[str, Any] = {}
        if instance is not None:
            fields["instanceId"] = instance
        return self.hb(member_id, epoch, **fields)

    def describe(self, *group_ids: str, version: int = 1) -> dict[str, Any]:
        response = self.coord.handle(CONSUMER_GROUP_DESCRIBE, version,
                                     {"groupIds": list(group_ids or [self.group_id])}, now=self.now).response
        assert response is not None
        return response

    # --- state ---------------------------------------------------------------------------

    @property
    def group(self) -> ConsumerGroup:
        return self.coord.groups[self.group_id]

    def member(self, member_id: str) -> ConsumerMember:
        return self.group.members[member_id]

    def assigned(self, member_id: str) -> dict[str, dict[int, int]]:
        """The member's assigned partitions by topic name, with their assignment epochs."""
        return epochs_by_name(self.coord, self.member(member_id).assigned)

    def pending(self, member_id: str) -> dict[str, dict[int, int]]:
        return epochs_by_name(self.coord, self.member(member_id).pending_revocation)

    def target(self, member_id: str) -> dict[str, list[int]]:
        return {self.coord.topics.name_of(t) or t: sorted(p)
                for t, p in self.group.target.get(member_id, {}).items() if p}

    def timers(self) -> list[str]:
        return sorted(self.coord.timers.snapshot())

    def seed(self, group_epoch: int, members: list[ConsumerMember], target: Mapping[str, Names],
             assignment_epoch: int | None = None, timestamp: int = 12345) -> None:
        """Load a group the way Kafka's tests do: replay 5 for every member, 3, 7s, 6, then 8s."""
        gid = self.group_id
        records = [rec.member_metadata_record(gid, m) for m in members]
        names = {n for m in members for n in m.subscribed_topic_names}
        records.append(rec.group_epoch_record(gid, group_epoch, self.coord.metadata_hash(names)))
        records += [rec.target_member_record(gid, mid, {tid(t): frozenset(p) for t, p in a.items()})
                    for mid, a in target.items()]
        records.append(rec.target_metadata_record(
            gid, group_epoch if assignment_epoch is None else assignment_epoch, timestamp))
        records += [rec.current_assignment_record(gid, m, self.coord.profile) for m in members]
        self.replay(records)

    def replay(self, records: Iterable[Record]) -> None:
        for r in records:
            self.coord.replay(r)
            self.log.append(r)


def epochs_by_name(coord: Coordinator, holding: Mapping[str, Mapping[int, int]]) -> dict[str, dict[int, int]]:
    return {coord.topics.name_of(t) or t: dict(sorted(p.items())) for t, p in holding.items() if p}


def held_names(coord: Coordinator, holding: Mapping[str, Iterable[int]]) -> dict[str, list[int]]:
    return {coord.topics.name_of(t) or t: sorted(p) for t, p in holding.items() if p}


def assignment(result: Decision) -> dict[str, list[int]] | None:
    """The response's assignment by topic name (None when the response carries none)."""
    assert result.response is not None
    a = result.response["assignment"]
    if a is None:
        return None
    by_id = {tid(n): n for n in ("foo", "bar", "baz", "qux", "zar", "fob", "fox")}
    return {by_id.get(e["topicId"], e["topicId"]): list(e["partitions"]) for e in a["topicPartitions"]}


def types(records: Iterable[Record]) -> list[str]:
    """Record types in order; a tombstone is written ``"8-"``."""
    return [f"{r.type}-" if r.value is None else str(r.type) for r in records]


def code(result: Decision) -> int:
    assert result.response is not None
    return int(result.response["errorCode"])


def epoch(result: Decision) -> int:
    assert result.response is not None
    return int(result.response["memberEpoch"])


def member(member_id: str, epoch: int, assigned: Names, *, prev: int | None = None, state: int = STABLE,
           pending: Names | None = None, topics: Iterable[str] = ("foo", "bar"), assigned_epoch: int | None = None,
           instance: str | None = None, assignor: str | None = "range", rebalance_timeout: int = 5000) -> ConsumerMember:
    """A member as Kafka's tests build it (``ConsumerGroupMember.Builder``), client "client" at /127.0.0.1."""
    e = epoch if assigned_epoch is None else assigned_epoch
    return ConsumerMember(
        member_id, instance_id=instance, client_id="client", client_host="/127.0.0.1",
        subscribed_topic_names=tuple(sorted(topics)), rebalance_timeout_ms=rebalance_timeout,
        server_assignor=assignor, member_epoch=epoch, previous_member_epoch=epoch - 1 if prev is None else prev,
        state=state,
        assigned={tid(t): dict.fromkeys(p, e) for t, p in assigned.items()},
        pending_revocation={tid(t): dict.fromkeys(p, e) for t, p in (pending or {}).items()},
    )


def canon(value: Any) -> Any:
    """A record value or response with every ``[{topicId, ...}]`` list sorted by topic id.

    Kafka writes topics in HashMap order; its tests compare them unordered.
    """
    if isinstance(value, dict):
        return {k: canon(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [canon(v) for v in value]
        if items and all(isinstance(v, dict) and "topicId" in v for v in items):
            return sorted(items, key=lambda v: v["topicId"])
        return items
    return value
