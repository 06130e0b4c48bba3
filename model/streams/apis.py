"""The streams protocol's APIs (KIP-1071), with their versions (``model/api.py``)."""

from __future__ import annotations

from kgspec.model.api import Api

STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE = 88, 89

APIS = (
    # v1 (KAFKA-18652, trunk): the int64 acceptableRecoveryLag.
    Api(STREAMS_GROUP_HEARTBEAT, "STREAMS_GROUP_HEARTBEAT", "StreamsGroupHeartbeat", "streams", (0, 0),
        ((1, "streams_v1_apis"),)),
    # v1 (trunk): topology descriptions and the task-offset fields.
    Api(STREAMS_GROUP_DESCRIBE, "STREAMS_GROUP_DESCRIBE", "StreamsGroupDescribe", "streams", (0, 0),
        ((1, "streams_v1_apis"),)),
)
