"""The one version table: every API the model answers, its protocol and versions per profile.

The model (``Coordinator.decide`` checks a call's version here), the trace checker, the Spark
replay and the simulator read this table; nothing else spells a version range. A version
range can grow with a profile: ``since`` lists (version, profile flag) pairs, e.g.
StreamsGroupHeartbeat v1 exists only where ``streams_recovery_lag_in_response`` (KAFKA-18652,
trunk) holds.

Facts: Kafka's ``clients/src/main/resources/common/message/*Request.json`` ``validVersions``
on each release branch (docs/kafka-facts.md); the Connect draft's APIs have no Kafka key and
answer UNSUPPORTED_VERSION themselves (model/connect/ops.py), so they are not listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgspec.model.profiles import Profile


@dataclass(frozen=True, slots=True)
class Api:
    key: int
    name: str  # Kafka's ApiKeys name, as request logs print it
    label: str  # the message's name, for findings
    protocol: str  # the protocol that answers it: consumer, streams, classic or admin
    versions: tuple[int, int]  # on every profile
    since: tuple[tuple[int, str], ...] = ()  # (version, profile flag): newer versions per profile

    def range(self, profile: Profile) -> tuple[int, int]:
        low, high = self.versions
        for version, flag in self.since:
            if getattr(profile, flag):
                high = max(high, version)
        return low, high

    def supports(self, profile: Profile, version: int) -> bool:
        low, high = self.range(profile)
        return low <= version <= high


JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = 11, 12, 13, 14
DESCRIBE_GROUPS, LIST_GROUPS = 15, 16
CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_DESCRIBE = 68, 69
STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE = 88, 89

APIS: dict[int, Api] = {api.key: api for api in (
    Api(JOIN_GROUP, "JOIN_GROUP", "JoinGroup", "classic", (0, 9)),
    Api(HEARTBEAT, "HEARTBEAT", "Heartbeat", "classic", (0, 4)),
    Api(LEAVE_GROUP, "LEAVE_GROUP", "LeaveGroup", "classic", (0, 5)),
    Api(SYNC_GROUP, "SYNC_GROUP", "SyncGroup", "classic", (0, 5)),
    Api(DESCRIBE_GROUPS, "DESCRIBE_GROUPS", "DescribeGroups", "admin", (0, 6)),
    Api(LIST_GROUPS, "LIST_GROUPS", "ListGroups", "admin", (0, 5)),
    Api(CONSUMER_GROUP_HEARTBEAT, "CONSUMER_GROUP_HEARTBEAT", "ConsumerGroupHeartbeat", "consumer", (0, 1)),
    Api(CONSUMER_GROUP_DESCRIBE, "CONSUMER_GROUP_DESCRIBE", "ConsumerGroupDescribe", "consumer", (0, 1)),
    # v1 (KAFKA-18652, trunk): the int64 acceptableRecoveryLag; v1 of the describe: topology
    # descriptions (KIP-1071 follow-up, trunk).
    Api(STREAMS_GROUP_HEARTBEAT, "STREAMS_GROUP_HEARTBEAT", "StreamsGroupHeartbeat", "streams", (0, 0),
        ((1, "streams_recovery_lag_in_response"),)),
    Api(STREAMS_GROUP_DESCRIBE, "STREAMS_GROUP_DESCRIBE", "StreamsGroupDescribe", "streams", (0, 0),
        ((1, "streams_task_offsets"),)),
)}

API_KEYS_BY_NAME: dict[str, int] = {api.name: api.key for api in APIS.values()}


def version_range(api_key: int, profile: Profile) -> tuple[int, int]:
    """The versions of ``api_key`` the model answers under ``profile`` (KeyError: not modelled)."""
    return APIS[api_key].range(profile)
