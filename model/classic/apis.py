"""The classic protocol's APIs, with their versions (``model/api.py``)."""

from __future__ import annotations

from kgspec.model.api import Api

JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP, DESCRIBE_GROUPS = 11, 12, 13, 14, 15

APIS = (
    Api(JOIN_GROUP, "JOIN_GROUP", "JoinGroup", "classic", (0, 9)),
    Api(HEARTBEAT, "HEARTBEAT", "Heartbeat", "classic", (0, 4)),
    Api(LEAVE_GROUP, "LEAVE_GROUP", "LeaveGroup", "classic", (0, 5)),
    Api(SYNC_GROUP, "SYNC_GROUP", "SyncGroup", "classic", (0, 5)),
    Api(DESCRIBE_GROUPS, "DESCRIBE_GROUPS", "DescribeGroups", "classic", (0, 6)),
)
VERSIONS = {api.key: api.versions for api in APIS}
