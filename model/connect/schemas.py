"""The shapes of the Connect draft's records (types 1000-1004) and messages (its three APIs,
version 0), in the form of :mod:`kgspec.model.record_schemas` and
:mod:`kgspec.model.message_schemas`, so that a record or call the draft's code could not have
written (a float or ``Infinity`` for an epoch, a list for a name, an int16 beyond 32767) is a
``malformed`` finding naming its field, told apart from one the replay or the coordinator rejects.

Records: the draft has no record JSON files; the fields are those :mod:`.records` writes.
Fields the replay reads with a default are optional (tagged here).

Messages: the draft's schemas (seed 001, "Request Schema" / "Response Schema" of each API; seed
000 where 001 has none: ConnectGroupPrepareAssignment's request, GroupId/MemberId/MemberEpoch).
kgspec's readings where the draft's text cannot be taken as written (docs/connect.md):

* Install's ``members[].connectorsAndTasks`` is ``[]String`` with struct fields in the draft: read
  as the ``[]ConnectorsAndTasks`` every other API carries; ``ConnectorTaskID`` is Connect's
  ``ConnectorTaskId`` ``{connector: string, task: int32}``;
* assignor and assignment ``metadata`` (bytes) and Prepare's ``members[].instanceId`` are
  nullable: a worker without metadata or instance id has nothing else to send, and the model
  answers null;
* fields the model reads with a default are optional in structs (tagged here): an assignor's
  ``reason``, ``version`` and ``metadata``; an installed member's ``connectorsAndTasks``,
  ``version``, ``metadata`` and ``error`` (the last is kgspec's, as record 1003 carries it).

Top-level fields may be left out of a trace's call, as for the Kafka APIs
(``conformance/shapes.py``); the draft's Request Validation answers a missing id or epoch.
"""

from __future__ import annotations

from typing import Final

from kgspec.model.message_schemas import MessageSchema, N
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


# --- messages (version 0) --------------------------------------------------------------------------

_CONNECTORS_AND_TASKS: Final = (
    F("connectors", "[]string", "0+"),
    F("tasks", "[]ConnectorTaskID", "0+", fields=_TASK),
)


_ERROR_FIELDS: Final = (
    F("throttleTimeMs", "int32", "0+"),
    F("errorCode", "int16", "0+"),
    N("errorMessage", "string"),
)

CONNECT_MESSAGE_SCHEMAS: Final[dict[str, MessageSchema]] = {s.name: s for s in (
    # The draft's APIs have no key ("apiKey": TBD): -1 here; traces name them (contract §1).
    MessageSchema(-1, "ConnectGroupHeartbeatRequest", "0", fields=(
        F("groupId", "string", "0+"),
        F("memberId", "string", "0+"),
        F("memberEpoch", "int32", "0+", default="-1"),
        N("instanceId", "string"),
        F("rebalanceTimeoutMs", "int32", "0+", default="-1"),
        N("serverAssignor", "string"),
        N("clientAssignors", "[]Assignor", _ASSIGNOR),
        N("connectorsAndTasks", "[]ConnectorsAndTasks", _CONNECTORS_AND_TASKS),
    )),
    MessageSchema(-1, "ConnectGroupHeartbeatResponse", "0", fields=(
        *_ERROR_FIELDS,
        F("memberEpoch", "int32", "0+"),
        F("heartbeatIntervalMs", "int32", "0+"),
        N("assignment", "Assignment", (
            F("error", "int8", "0+"),
            F("connectorsAndTasks", "[]ConnectorsAndTasks", "0+", fields=_CONNECTORS_AND_TASKS),
            F("version", "int16", "0+"),
            F("metadata", "bytes", "0+", nullable="0+"),
        )),
    )),
    MessageSchema(-1, "ConnectGroupPrepareAssignmentRequest", "0", fields=(
        F("groupId", "string", "0+"),
        F("memberId", "string", "0+"),
        F("memberEpoch", "int32", "0+"),
    )),
    MessageSchema(-1, "ConnectGroupPrepareAssignmentResponse", "0", fields=(
        *_ERROR_FIELDS,
        F("groupEpoch", "int32", "0+"),
        F("assignorName", "string", "0+"),
        F("members", "[]Member", "0+", fields=(
            F("memberId", "string", "0+"),
            F("memberEpoch", "int32", "0+"),
            F("instanceId", "string", "0+", nullable="0+"),
            F("assignor", "Assignor", "0+", fields=(
                F("version", "int16", "0+"),
                F("reason", "int8", "0+"),
                F("metadata", "bytes", "0+", nullable="0+"),
            )),
            F("connectorsAndTasks", "[]ConnectorsAndTasks", "0+", fields=_CONNECTORS_AND_TASKS),
        )),
    )),
    MessageSchema(-1, "ConnectGroupInstallAssignmentRequest", "0", fields=(
        F("groupId", "string", "0+"),
        F("memberId", "string", "0+"),
        F("memberEpoch", "int32", "0+"),
        F("groupEpoch", "int32", "0+"),
        F("error", "int8", "0+"),
        F("members", "[]Member", "0+", fields=(
            F("memberId", "string", "0+"),
            F("connectorsAndTasks", "[]ConnectorsAndTasks", "0+", nullable="0+", tagged=_OPTIONAL,
              fields=_CONNECTORS_AND_TASKS),
            F("version", "int32", "0+", tagged=_OPTIONAL),
            F("metadata", "bytes", "0+", nullable="0+", tagged=_OPTIONAL),
            F("error", "int16", "0+", tagged=_OPTIONAL),
        )),
    )),
    MessageSchema(-1, "ConnectGroupInstallAssignmentResponse", "0", fields=_ERROR_FIELDS),
)}
