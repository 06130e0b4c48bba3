"""One coordinator driven with both protocols, as GroupMetadataManagerTest's migration tests do.

Topics are named (ids from ``deterministic_topic_id``); the embedded consumer protocol is built
with :mod:`kgspec.model.migration.protocol` (what ``ConsumerProtocol.serializeSubscription`` /
``serializeAssignment`` produce).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import ClassicMember
from kgspec.model.classic.records import group_metadata_record
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.migration.members import classic_metadata
from kgspec.model.migration.protocol import encode_assignment, encode_subscription
from kgspec.model.records import Record
from kgspec.model.step import Decision
from kgspec.spec.classic import STABLE

from tests.consumer.helpers import MockAssignor, tid, tps

GROUP = "group-id"
Names = Mapping[str, list[int]]

__all__ = ["GROUP", "MixedHarness", "MockAssignor", "assignment_bytes", "subscription", "tid", "tps"]


def subscription(topics: list[str], owned: Names | None = None, version: int = 3) -> str:
    return encode_subscription(topics, version, owned=owned)


def assignment_bytes(parts: Names, version: int = 3) -> str:
    """``serializeAssignment(new Assignment(List.of(tp...)))``: topics in first-seen order."""
    return encode_assignment([(t, p) for t, p in parts.items()], version)


class MixedHarness:
    def __init__(self, topics: Mapping[str, int], *, configs: dict[str, Any] | None = None,
                 mock: MockAssignor | None = None, profile: str = "kafka-4.3") -> None:
        extra: dict[str, Any] = {}
        cfg = dict(configs or {})
        if mock is not None:
            extra["range"] = mock  # MockPartitionAssignor("range") in Kafka's tests
        self.coord = Coordinator(profile, cfg, member_ids=lambda n: f"gen-{n + 1}", assignors=extra)
        self.now = 0
        self.done: dict[int, dict[str, Any]] = {}
        for name, n in topics.items():
            self.coord.update_topic(name, tid(name), n)

    # --- setup -------------------------------------------------------------------------

    def stable_classic_group(self, generation: int, members: list[tuple[str, str, int, int, str, str]],
                             protocol: str | None = "range", leader: str | None = None,
                             protocol_type: str | None = "consumer") -> None:
        """Replay a GroupMetadata record of a STABLE group: (member id, client id, rebalance timeout,
        session timeout, subscription, assignment) per member (``context.replay(newGroupMetadataRecord)``)."""
        group = ClassicGroup(GROUP, 0, state=STABLE, generation_id=generation, protocol_type=protocol_type,
                             protocol_name=protocol if members else None)
        for mid, client, rebalance, session, sub, _ in members:
            group.add(ClassicMember(mid, None, client, "client-host", rebalance, session, "consumer",
                                    ((protocol or "", sub),)))
        if leader is not None:
            group.leader_id = leader
        self.coord.replay(group_metadata_record(group, {m[0]: m[5] for m in members}))

    def classic_member(self, member_id: str, epoch: int, assigned: Names, *, session: int = 5000,
                       protocols: tuple[tuple[str, str], ...] = (), topics: tuple[str, ...] = ("foo", "bar"),
                       rebalance: int = 45000, instance: str | None = None) -> ConsumerMember:
        m = self.consumer_member(member_id, epoch, assigned, topics=topics, rebalance=rebalance, instance=instance)
        m.classic_member_metadata = classic_metadata(session, protocols)
        return m

    @staticmethod
    def consumer_member(member_id: str, epoch: int, assigned: Names, *, topics: tuple[str, ...] = ("foo", "bar"),
                        rebalance: int = 45000, instance: str | None = None) -> ConsumerMember:
        return ConsumerMember(member_id, instance, None, "client", "/127.0.0.1", tuple(sorted(topics)), "",
                              rebalance, "range", None, epoch, epoch - 1, 0,
                              {tid(t): dict.fromkeys(p, epoch) for t, p in assigned.items()}, {})

    def seed_consumer_group(self, epoch: int, members: list[ConsumerMember]) -> None:
        from kgspec.model.consumer import records as rec

        records: list[Record] = [rec.member_metadata_record(GROUP, m) for m in members]
        names = {n for m in members for n in m.subscribed_topic_names}
        records.append(rec.group_epoch_record(GROUP, epoch, self.coord.metadata_hash(names)))
        records += [rec.target_member_record(GROUP, m.member_id, m.assigned_sets()) for m in members]
        records.append(rec.target_metadata_record(GROUP, epoch, 0))
        records += [rec.current_assignment_record(GROUP, m, self.coord.profile) for m in members]
        for r in records:
            self.coord.replay(r)

    # --- calls -------------------------------------------------------------------------

    def advance(self, ts: int) -> list[Any]:
        self.now = ts
        firings = self.coord.advance(ts)
        self._collect()
        return firings

    def _collect(self) -> None:
        for c in self.coord.take_completed():
            self.done[c.call.call_id] = c.response

    def hb(self, member_id: str, epoch: int, **fields: Any) -> Decision:
        request: dict[str, Any] = {"groupId": GROUP, "memberId": member_id, "memberEpoch": epoch, **fields}
        result = self.coord.handle(CONSUMER_GROUP_HEARTBEAT, 1, request, now=self.now, client_id="client",
                                   client_host="/127.0.0.1")
        self._collect()
        return result

    def join_consumer(self, member_id: str, topics: list[str], **fields: Any) -> Decision:
        return self.hb(member_id, 0, rebalanceTimeoutMs=5000, serverAssignor="range",
                       subscribedTopicNames=topics, topicPartitions=[], **fields)

    def classic(self, api: int, version: int, request: dict[str, Any], client_id: str = "client") -> Decision:
        result = self.coord.handle(api, version, {"groupId": GROUP, **request}, now=self.now, client_id=client_id,
                                   client_host="/127.0.0.1")
        self._collect()
        return result

    def join_classic(self, member_id: str, protocols: list[tuple[str, str]], *, version: int = 9,
                     session: int = 5000, rebalance: int = 10000, instance: str | None = None,
                     protocol_type: str = "consumer") -> Decision:
        return self.classic(11, version, {
            "sessionTimeoutMs": session, "rebalanceTimeoutMs": rebalance, "memberId": member_id,
            "groupInstanceId": instance, "protocolType": protocol_type,
            "protocols": [{"name": n, "metadata": m} for n, m in protocols], "reason": None})

    def sync_classic(self, member_id: str, generation: int, *, version: int = 5, name: str | None = "range",
                     protocol_type: str | None = "consumer", instance: str | None = None) -> Decision:
        return self.classic(14, version, {"generationId": generation, "memberId": member_id,
                                          "groupInstanceId": instance, "protocolType": protocol_type,
                                          "protocolName": name, "assignments": []})

    def heartbeat_classic(self, member_id: str, generation: int, *, version: int = 4,
                          instance: str | None = None) -> dict[str, Any]:
        response = self.classic(12, version, {"generationId": generation, "memberId": member_id,
                                              "groupInstanceId": instance}).response
        assert response is not None
        return response

    def leave_classic(self, members: list[tuple[str, str | None]], version: int = 5) -> Decision:
        return self.classic(13, version, {"members": [{"memberId": m, "groupInstanceId": i, "reason": None}
                                                      for m, i in members]})

    def timers(self) -> dict[str, int]:
        """Live timers: key -> deadline."""
        return {k: v["deadlineMs"] for k, v in self.coord.timers.snapshot().items()}


def describe_records(records: list[Record]) -> list[tuple[int, str | None, bool]]:
    """(type, member id or None, tombstone?) per record: the shape Kafka's tests assert in order."""
    return [(r.type, r.key.get("memberId"), r.value is None) for r in records]
