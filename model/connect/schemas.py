"""The shapes of the Connect draft's records (types 1000-1004), in the form of
:mod:`kgspec.model.record_schemas`, so that a record the draft's code could not have written
(a float or ``Infinity`` for an epoch, a list for a name) is told apart from one the replay
rejects. The draft has no message JSON files; the fields are those :mod:`.records` writes.
Fields the replay reads with a default are optional (tagged here).
"""

from __future__ import annotations

from typing import Final

from kgspec.model.record_schemas import F, RecordSchema
from kgspec.model.records import (
    CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA,
    CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONNECT_WORKER_GROUP_MEMBER_METADATA,
    CONNECT_WORKER_GROUP_METADATA,
    CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT,
)

_OPTIONAL: Final = "0+"  # as ``tagged``: may be left out
_GROUP_KEY: Final = (F("groupId", "string", "0"),)
_MEMBER_KEY: Final = (*_GROUP_KEY, F("memberId", "string", "0"))
_TASK: Final = (F("connector", "string", "0+"), F("task", "int32", "0+"))
_RESOURCES: Final = (
    F("connectors", "[]string", "0+", nullable="0+", tagged=_OPTIONAL),
    F("tasks", "[]Task", "0+", nullable="0+", tagged=_OPTIONAL, fields=_TASK),
)
_ASSIGNOR: Final = (
    F("name", "string", "0+"),
    F("minimumVersion", "int16", "0+"),
    F("maximumVersion", "int16", "0+"),
    F("reason", "int8", "0+", tagged=_OPTIONAL),
    F("version", "int16", "0+", tagged=_OPTIONAL),
    F("metadata", "bytes", "0+", nullable="0+", tagged=_OPTIONAL),
)
_CONNECTOR: Final = (F("name", "string", "0+"), F("tasks", "[]int32", "0+"))
_TARGET_MEMBER: Final = (
    F("memberId", "string", "0+"),
    F("error", "int16", "0+", tagged=_OPTIONAL),
    F("connectorsAndTasks", "[]ConnectorsAndTasks", "0+", fields=_RESOURCES),
    F("version", "int16", "0+", tagged=_OPTIONAL),
    F("metadata", "bytes", "0+", nullable="0+", tagged=_OPTIONAL),
)

CONNECT_RECORD_SCHEMAS: Final[dict[int, RecordSchema]] = {s.type: s for s in (
    RecordSchema(CONNECT_WORKER_GROUP_METADATA, "ConnectWorkerGroupMetadata", "0+", 0, _GROUP_KEY,
                 (F("epoch", "int32", "0+"),)),
    RecordSchema(CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA, "ConnectWorkerGroupConnectorsTasksMetadata", "0+", 0,
                 _GROUP_KEY, (F("connectors", "[]Connector", "0+", fields=_CONNECTOR),)),
    RecordSchema(CONNECT_WORKER_GROUP_MEMBER_METADATA, "ConnectWorkerGroupMemberMetadata", "0+", 0, _MEMBER_KEY, (
        F("groupEpoch", "int32", "0+"),
        F("instanceId", "string", "0+", nullable="0+", tagged=_OPTIONAL),
        F("clientId", "string", "0+", tagged=_OPTIONAL),
        F("clientHost", "string", "0+", tagged=_OPTIONAL),
        F("rebalanceTimeoutMs", "int32", "0+", tagged=_OPTIONAL),
        F("assignors", "[]Assignor", "0+", nullable="0+", tagged=_OPTIONAL, fields=_ASSIGNOR),
    )),
    RecordSchema(CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT, "ConnectWorkerGroupTargetAssignment", "0+", 0, _GROUP_KEY, (
        F("assignmentEpoch", "int32", "0+"),
        F("error", "int16", "0+", tagged=_OPTIONAL),
        F("delayedUntilMs", "int64", "0+", tagged=_OPTIONAL),
        F("members", "[]TargetMember", "0+", fields=_TARGET_MEMBER),
    )),
    RecordSchema(CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT, "ConnectWorkerGroupCurrentMemberAssignment", "0+", 0,
                 _MEMBER_KEY, (
        F("memberEpoch", "int32", "0+"),
        F("previousMemberEpoch", "int32", "0+"),
        F("state", "int8", "0+"),
        F("error", "int16", "0+", tagged=_OPTIONAL),
        F("connectorsAndTasks", "[]ConnectorsAndTasks", "0+", fields=_RESOURCES),
        F("connectorsAndTasksPendingRevocation", "[]ConnectorsAndTasks", "0+", fields=_RESOURCES),
        F("version", "int16", "0+", tagged=_OPTIONAL),
        F("metadata", "bytes", "0+", nullable="0+", tagged=_OPTIONAL),
    )),
)}
