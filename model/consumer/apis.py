"""The consumer protocol's APIs (KIP-848), with their versions (``model/api.py``)."""

from __future__ import annotations

from kgspec.model.api import Api

CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_DESCRIBE = 68, 69

APIS = (
    Api(CONSUMER_GROUP_HEARTBEAT, "CONSUMER_GROUP_HEARTBEAT", "ConsumerGroupHeartbeat", "consumer", (0, 1)),
    Api(CONSUMER_GROUP_DESCRIBE, "CONSUMER_GROUP_DESCRIBE", "ConsumerGroupDescribe", "consumer", (0, 1)),
)
