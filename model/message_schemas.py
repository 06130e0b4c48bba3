"""Request/response schemas of the group RPCs the checker sees, per Kafka release.

Source: ``clients/src/main/resources/common/message/<Name>.json`` on the Kafka branches ``4.1``,
``4.3`` and trunk (``HEAD``), transcribed mechanically (structs that several fields share are written once). Field names are
the JSON converter names (lowerCamel); printing rules are those in
:mod:`kgspec.model.record_schemas`. Versions:

* Classic: JoinGroup (11) v0-9, SyncGroup (14) v0-5, Heartbeat (12) v0-4, LeaveGroup (13) v0-5,
  identical on 4.1, 4.3 and trunk (``protocolName`` in the JoinGroup response is nullable from
  v7; LeaveGroup has ``memberId`` in v0-2 and a ``members`` batch from v3).

* DescribeGroups (15) v0-6 and ListGroups (16) v0-5, identical on 4.1, 4.3 and trunk: the
  describe's ``errorMessage`` is v6+, ``authorizedOperations`` v3+, a member's
  ``groupInstanceId`` v4+; the listing's ``statesFilter``/``groupState`` are v4+,
  ``typesFilter``/``groupType`` v5+.

* ConsumerGroupHeartbeat (68) request/response: v0-1 on all three releases.
  The request field ``subscribedTopicRegex`` (nullable, default null) is v1+; v1 also makes the
  client generate the member id and lets the response carry INVALID_REGULAR_EXPRESSION. The
  response fields are the same in v0 and v1.
* ConsumerGroupDescribe (69): v0-1; response ``members[].memberType`` (int8, default -1,
  ignorable) is v1+.
* StreamsGroupHeartbeat (88) / StreamsGroupDescribe (89): v0 on 4.1 and 4.3; v0-1 on trunk
  (trunk v1: response ``acceptableRecoveryLag`` replaces v0-only ``acceptableRecoveryLagLegacy``,
  ``topologyDescriptionRequired``; describe request ``includeTopologyDescription``; describe
  response ``groups[].topologyDescription``, ``topologyDescriptionStatus``, ``assignorName``).

Facts the checker relies on (all releases): in the CGHB response ``memberId``, ``errorMessage``
and ``assignment`` are nullable (default null); in the CGHB request ``memberId`` is NOT
nullable, while ``instanceId``, ``rackId``, ``subscribedTopicNames``, ``subscribedTopicRegex``
(v1+), ``serverAssignor`` and ``topicPartitions`` are nullable (default null); ``rebalanceTimeoutMs``
defaults to -1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .record_schemas import (
    _ENDPOINT,
    _KEY_VALUE,
    _STREAMS_ASSIGNMENT,
    _TASK_IDS,
    _TASK_ROLES,
    _TOPIC_PARTITIONS,
    F,
    FieldSchema,
    _in,
    edit_fields,
    normalize_release,
    parse_versions,
    validate_fields,
)

__all__ = [
    "MESSAGE_SCHEMAS",
    "MessageSchema",
    "field_added_in",
    "field_names",
    "find_field",
    "is_nullable",
    "message_schema",
    "validate_against",
    "validate_message",
]


@dataclass(frozen=True)
class MessageSchema:
    api_key: int
    name: str
    valid_versions: str
    fields: tuple[FieldSchema, ...]

    def supports(self, version: int) -> bool:
        return _in(self.valid_versions, version)


_BY_RELEASE_AND_NAME: dict[tuple[str, str], MessageSchema] = {}


def message_schema(release: str, name: str) -> MessageSchema:
    found = _BY_RELEASE_AND_NAME.get((release, name))  # every call looks its schema up
    if found is not None:
        return found
    rel = normalize_release(release)
    try:
        found = _BY_RELEASE_AND_NAME[release, name] = MESSAGE_SCHEMAS[rel][name]
    except KeyError:
        raise KeyError(f"no schema for {name} in Kafka {rel}") from None
    return found


def find_field(release: str, name: str, path: str) -> FieldSchema:
    """Field by dotted path, e.g. ``"assignment.topicPartitions.topicId"`` (no indices)."""
    fields: Sequence[FieldSchema] = message_schema(release, name).fields
    found: FieldSchema | None = None
    for part in path.split("."):
        found = next((f for f in fields if f.name == part), None)
        if found is None:
            raise KeyError(f"{name} has no field {path!r}")
        fields = found.fields
    assert found is not None
    return found


def field_names(release: str, name: str, version: int, path: str | None = None) -> tuple[str, ...]:
    """Top-level (or nested under ``path``) field names present in ``version``."""
    fields = (message_schema(release, name).fields if path is None
              else find_field(release, name, path).fields)
    return tuple(f.name for f in fields if f.present_in(version))


def is_nullable(release: str, name: str, path: str, version: int) -> bool:
    return find_field(release, name, path).nullable_in(version)


def field_added_in(release: str, name: str, path: str) -> int:
    rng = parse_versions(find_field(release, name, path).versions)
    assert rng is not None
    return rng[0]


def validate_message(data: Mapping[str, Any], release: str, name: str, version: int) -> list[str]:
    """Unknown / missing / wrongly-null / wrongly-typed fields of a JSON-printed message.

    Tagged fields may be omitted. Messages read ``<Name> v<N>: ...``.
    """
    return validate_against(data, message_schema(release, name), version)


def validate_against(data: Mapping[str, Any], schema: MessageSchema, version: int) -> list[str]:
    """``validate_message`` for a schema outside the release tables (the Connect draft's)."""
    name = schema.name
    if not schema.supports(version):
        return [f"{name}: version {version} is not valid (valid: {schema.valid_versions})"]
    problems = validate_fields(data, schema.fields, version)
    return [f"{name} v{version}: {m}" for m in problems] if problems else problems


# ---------------------------------------------------------------------------------------------
# Tables (transcribed from the Kafka JSON schemas)
# ---------------------------------------------------------------------------------------------

# Nested structs that several messages (or fields) share; Kafka's JSON repeats them. Those the
# records carry too (_TOPIC_PARTITIONS, _TASK_IDS, _KEY_VALUE, _ENDPOINT, _STREAMS_ASSIGNMENT) come
# from record_schemas.
_DESCRIBED_ASSIGNMENT: Final = (  # ConsumerGroupDescribeResponse members[].(target)assignment
    F('topicPartitions', '[]TopicPartitions', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('topicName', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
)
_TASK_OFFSET: Final = (
    F('subtopologyId', 'string', '0+'),
    F('partition', 'int32', '0+'),
    F('offset', 'int64', '0+'),
)
_TOPIC_INFO: Final = (
    F('name', 'string', '0+'),
    F('partitions', 'int32', '0+'),
    F('replicationFactor', 'int16', '0+'),
    F('topicConfigs', '[]KeyValue', '0+', fields=_KEY_VALUE),
)
_TOPIC_PARTITION: Final = (
    F('topic', 'string', '0+'),
    F('partitions', '[]int32', '0+'),
)
_TOPOLOGY_DESCRIPTION_NODE: Final = (
    F('name', 'string', '1+'),
    F('nodeType', 'int8', '1+'),
    F('sourceTopics', '[]string', '1+'),
    F('sinkTopic', 'string', '1+', nullable='1+', default='null'),
    F('stores', '[]string', '1+'),
    F('successors', '[]string', '1+'),
)


_STATUS: Final = (
    F('statusCode', 'int8', '0+'),
    F('statusDetail', 'string', '0+'),
)


def N(name: str, type: str, fields: tuple[FieldSchema, ...] = ()) -> FieldSchema:
    """A field of every version that is nullable and defaults to null."""
    return F(name, type, '0+', nullable='0+', default='null', fields=fields)


_NULLABLE_TASK_ID_LISTS: Final = tuple(N(n, '[]TaskIds', _TASK_IDS) for n in _TASK_ROLES)


# StreamsGroupDescribeResponse groups[] up to v0.
_SGD_GROUP: Final = (
    F('errorCode', 'int16', '0+'),
    N('errorMessage', 'string'),
    F('groupId', 'string', '0+'),
    F('groupState', 'string', '0+'),
    F('groupEpoch', 'int32', '0+'),
    F('assignmentEpoch', 'int32', '0+'),
    N('topology', 'Topology', fields=(
        F('epoch', 'int32', '0+'),
        N('subtopologies', '[]Subtopology', fields=(
            F('subtopologyId', 'string', '0+'),
            F('sourceTopics', '[]string', '0+'),
            F('repartitionSinkTopics', '[]string', '0+'),
            F('stateChangelogTopics', '[]TopicInfo', '0+', fields=_TOPIC_INFO),
            F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=_TOPIC_INFO),
        )),
    )),
    F('members', '[]Member', '0+', fields=(
        F('memberId', 'string', '0+'),
        F('memberEpoch', 'int32', '0+'),
        N('instanceId', 'string'),
        N('rackId', 'string'),
        F('clientId', 'string', '0+'),
        F('clientHost', 'string', '0+'),
        F('topologyEpoch', 'int32', '0+'),
        F('processId', 'string', '0+'),
        N('userEndpoint', 'Endpoint', fields=_ENDPOINT),
        F('clientTags', '[]KeyValue', '0+', fields=_KEY_VALUE),
        F('taskOffsets', '[]TaskOffset', '0+', fields=_TASK_OFFSET),
        F('taskEndOffsets', '[]TaskOffset', '0+', fields=_TASK_OFFSET),
        F('assignment', 'Assignment', '0+', fields=_STREAMS_ASSIGNMENT),
        F('targetAssignment', 'Assignment', '0+', fields=_STREAMS_ASSIGNMENT),
        F('isClassic', 'bool', '0+'),
    )),
    F('authorizedOperations', 'int32', '0+', default='-2147483648'),
)


# Kafka 4.1: every schema.
_MESSAGES_4_1: Final[dict[str, MessageSchema]] = {s.name: s for s in (
    MessageSchema(11, 'JoinGroupRequest', '0-9', fields=(
        F('groupId', 'string', '0+'),
        F('sessionTimeoutMs', 'int32', '0+'),
        F('rebalanceTimeoutMs', 'int32', '1+', default='-1', ignorable=True),
        F('memberId', 'string', '0+'),
        F('groupInstanceId', 'string', '5+', nullable='5+', default='null'),
        F('protocolType', 'string', '0+'),
        F('protocols', '[]JoinGroupRequestProtocol', '0+', fields=(
            F('name', 'string', '0+'),
            F('metadata', 'bytes', '0+'),
        )),
        F('reason', 'string', '8+', nullable='8+', default='null', ignorable=True),
    )),
    MessageSchema(11, 'JoinGroupResponse', '0-9', fields=(
        F('throttleTimeMs', 'int32', '2+', ignorable=True),
        F('errorCode', 'int16', '0+'),
        F('generationId', 'int32', '0+', default='-1'),
        F('protocolType', 'string', '7+', nullable='7+', default='null', ignorable=True),
        F('protocolName', 'string', '0+', nullable='7+'),
        F('leader', 'string', '0+'),
        F('skipAssignment', 'bool', '9+', default='false'),
        F('memberId', 'string', '0+'),
        F('members', '[]JoinGroupResponseMember', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('groupInstanceId', 'string', '5+', nullable='5+', default='null', ignorable=True),
            F('metadata', 'bytes', '0+'),
        )),
    )),
    MessageSchema(14, 'SyncGroupRequest', '0-5', fields=(
        F('groupId', 'string', '0+'),
        F('generationId', 'int32', '0+'),
        F('memberId', 'string', '0+'),
        F('groupInstanceId', 'string', '3+', nullable='3+', default='null'),
        F('protocolType', 'string', '5+', nullable='5+', default='null', ignorable=True),
        F('protocolName', 'string', '5+', nullable='5+', default='null', ignorable=True),
        F('assignments', '[]SyncGroupRequestAssignment', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('assignment', 'bytes', '0+'),
        )),
    )),
    MessageSchema(14, 'SyncGroupResponse', '0-5', fields=(
        F('throttleTimeMs', 'int32', '1+', ignorable=True),
        F('errorCode', 'int16', '0+'),
        F('protocolType', 'string', '5+', nullable='5+', default='null', ignorable=True),
        F('protocolName', 'string', '5+', nullable='5+', default='null', ignorable=True),
        F('assignment', 'bytes', '0+'),
    )),
    MessageSchema(12, 'HeartbeatRequest', '0-4', fields=(
        F('groupId', 'string', '0+'),
        F('generationId', 'int32', '0+'),
        F('memberId', 'string', '0+'),
        F('groupInstanceId', 'string', '3+', nullable='3+', default='null'),
    )),
    MessageSchema(12, 'HeartbeatResponse', '0-4', fields=(
        F('throttleTimeMs', 'int32', '1+', ignorable=True),
        F('errorCode', 'int16', '0+'),
    )),
    MessageSchema(13, 'LeaveGroupRequest', '0-5', fields=(
        F('groupId', 'string', '0+'),
        F('memberId', 'string', '0-2'),
        F('members', '[]MemberIdentity', '3+', fields=(
            F('memberId', 'string', '3+'),
            F('groupInstanceId', 'string', '3+', nullable='3+', default='null'),
            F('reason', 'string', '5+', nullable='5+', default='null', ignorable=True),
        )),
    )),
    MessageSchema(13, 'LeaveGroupResponse', '0-5', fields=(
        F('throttleTimeMs', 'int32', '1+', ignorable=True),
        F('errorCode', 'int16', '0+'),
        F('members', '[]MemberResponse', '3+', fields=(
            F('memberId', 'string', '3+'),
            F('groupInstanceId', 'string', '3+', nullable='3+'),
            F('errorCode', 'int16', '3+'),
        )),
    )),
    MessageSchema(68, 'ConsumerGroupHeartbeatRequest', '0-1', fields=(
        F('groupId', 'string', '0+'),
        F('memberId', 'string', '0+'),
        F('memberEpoch', 'int32', '0+'),
        N('instanceId', 'string'),
        N('rackId', 'string'),
        F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
        N('subscribedTopicNames', '[]string'),
        F('subscribedTopicRegex', 'string', '1+', nullable='1+', default='null'),
        N('serverAssignor', 'string'),
        N('topicPartitions', '[]TopicPartitions', fields=_TOPIC_PARTITIONS),
    )),
    MessageSchema(68, 'ConsumerGroupHeartbeatResponse', '0-1', fields=(
        F('throttleTimeMs', 'int32', '0+'),
        F('errorCode', 'int16', '0+'),
        N('errorMessage', 'string'),
        N('memberId', 'string'),
        F('memberEpoch', 'int32', '0+'),
        F('heartbeatIntervalMs', 'int32', '0+'),
        N('assignment', 'Assignment', fields=(
            F('topicPartitions', '[]TopicPartitions', '0+', fields=_TOPIC_PARTITIONS),
        )),
    )),
    MessageSchema(69, 'ConsumerGroupDescribeRequest', '0-1', fields=(
        F('groupIds', '[]string', '0+'),
        F('includeAuthorizedOperations', 'bool', '0+'),
    )),
    MessageSchema(69, 'ConsumerGroupDescribeResponse', '0-1', fields=(
        F('throttleTimeMs', 'int32', '0+'),
        F('groups', '[]DescribedGroup', '0+', fields=(
            F('errorCode', 'int16', '0+'),
            N('errorMessage', 'string'),
            F('groupId', 'string', '0+'),
            F('groupState', 'string', '0+'),
            F('groupEpoch', 'int32', '0+'),
            F('assignmentEpoch', 'int32', '0+'),
            F('assignorName', 'string', '0+'),
            F('members', '[]Member', '0+', fields=(
                F('memberId', 'string', '0+'),
                N('instanceId', 'string'),
                N('rackId', 'string'),
                F('memberEpoch', 'int32', '0+'),
                F('clientId', 'string', '0+'),
                F('clientHost', 'string', '0+'),
                F('subscribedTopicNames', '[]string', '0+'),
                N('subscribedTopicRegex', 'string'),
                F('assignment', 'Assignment', '0+', fields=_DESCRIBED_ASSIGNMENT),
                F('targetAssignment', 'Assignment', '0+', fields=_DESCRIBED_ASSIGNMENT),
                F('memberType', 'int8', '1+', default='-1', ignorable=True),
            )),
            F('authorizedOperations', 'int32', '0+', default='-2147483648'),
        )),
    )),
    MessageSchema(88, 'StreamsGroupHeartbeatRequest', '0', fields=(
        F('groupId', 'string', '0+'),
        F('memberId', 'string', '0+'),
        F('memberEpoch', 'int32', '0+'),
        F('endpointInformationEpoch', 'int32', '0+'),
        N('instanceId', 'string'),
        N('rackId', 'string'),
        F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
        N('topology', 'Topology', fields=(
            F('epoch', 'int32', '0+'),
            F('subtopologies', '[]Subtopology', '0+', fields=(
                F('subtopologyId', 'string', '0+'),
                F('sourceTopics', '[]string', '0+'),
                F('sourceTopicRegex', '[]string', '0+'),
                F('stateChangelogTopics', '[]TopicInfo', '0+', fields=_TOPIC_INFO),
                F('repartitionSinkTopics', '[]string', '0+'),
                F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=_TOPIC_INFO),
                F('copartitionGroups', '[]CopartitionGroup', '0+', fields=(
                    F('sourceTopics', '[]int16', '0+'),
                    F('sourceTopicRegex', '[]int16', '0+'),
                    F('repartitionSourceTopics', '[]int16', '0+'),
                )),
            )),
        )),
        *_NULLABLE_TASK_ID_LISTS,
        N('processId', 'string'),
        N('userEndpoint', 'Endpoint', fields=_ENDPOINT),
        N('clientTags', '[]KeyValue', fields=_KEY_VALUE),
        N('taskOffsets', '[]TaskOffset', fields=_TASK_OFFSET),
        N('taskEndOffsets', '[]TaskOffset', fields=_TASK_OFFSET),
        F('shutdownApplication', 'bool', '0+', default='false'),
    )),
    MessageSchema(88, 'StreamsGroupHeartbeatResponse', '0', fields=(
        F('throttleTimeMs', 'int32', '0+'),
        F('errorCode', 'int16', '0+'),
        N('errorMessage', 'string'),
        F('memberId', 'string', '0+'),
        F('memberEpoch', 'int32', '0+'),
        F('heartbeatIntervalMs', 'int32', '0+'),
        F('acceptableRecoveryLag', 'int32', '0+'),
        F('taskOffsetIntervalMs', 'int32', '0+'),
        N('status', '[]Status', _STATUS),
        *_NULLABLE_TASK_ID_LISTS,
        F('endpointInformationEpoch', 'int32', '0+'),
        N('partitionsByUserEndpoint', '[]EndpointToPartitions', fields=(
            F('userEndpoint', 'Endpoint', '0+', fields=_ENDPOINT),
            F('activePartitions', '[]TopicPartition', '0+', fields=_TOPIC_PARTITION),
            F('standbyPartitions', '[]TopicPartition', '0+', fields=_TOPIC_PARTITION),
        )),
    )),
    MessageSchema(15, 'DescribeGroupsRequest', '0-6', fields=(
        F('groups', '[]string', '0+'),
        F('includeAuthorizedOperations', 'bool', '3+'),
    )),
    MessageSchema(15, 'DescribeGroupsResponse', '0-6', fields=(
        F('throttleTimeMs', 'int32', '1+', ignorable=True),
        F('groups', '[]DescribedGroup', '0+', fields=(
            F('errorCode', 'int16', '0+'),
            F('errorMessage', 'string', '6+', nullable='6+', default='null'),
            F('groupId', 'string', '0+'),
            F('groupState', 'string', '0+'),
            F('protocolType', 'string', '0+'),
            F('protocolData', 'string', '0+'),
            F('members', '[]DescribedGroupMember', '0+', fields=(
                F('memberId', 'string', '0+'),
                F('groupInstanceId', 'string', '4+', nullable='4+', default='null', ignorable=True),
                F('clientId', 'string', '0+'),
                F('clientHost', 'string', '0+'),
                F('memberMetadata', 'bytes', '0+'),
                F('memberAssignment', 'bytes', '0+'),
            )),
            F('authorizedOperations', 'int32', '3+', default='-2147483648'),
        )),
    )),
    MessageSchema(16, 'ListGroupsRequest', '0-5', fields=(
        F('statesFilter', '[]string', '4+'),
        F('typesFilter', '[]string', '5+'),
    )),
    MessageSchema(16, 'ListGroupsResponse', '0-5', fields=(
        F('throttleTimeMs', 'int32', '1+', ignorable=True),
        F('errorCode', 'int16', '0+'),
        F('groups', '[]ListedGroup', '0+', fields=(
            F('groupId', 'string', '0+'),
            F('protocolType', 'string', '0+'),
            F('groupState', 'string', '4+', ignorable=True),
            F('groupType', 'string', '5+', ignorable=True),
        )),
    )),
    MessageSchema(89, 'StreamsGroupDescribeRequest', '0', fields=(
        F('groupIds', '[]string', '0+'),
        F('includeAuthorizedOperations', 'bool', '0+'),
    )),
    MessageSchema(89, 'StreamsGroupDescribeResponse', '0', fields=(
        F('throttleTimeMs', 'int32', '0+'),
        F('groups', '[]DescribedGroup', '0+', fields=_SGD_GROUP),
    )),
)}


def _changed(release: dict[str, MessageSchema], name: str, valid_versions: str | None = None,
             replace: dict[str, FieldSchema] | None = None,
             after: dict[str, tuple[FieldSchema, ...]] | None = None) -> MessageSchema:
    """``name`` as in ``release`` with its valid versions and top-level fields changed."""
    old = release[name]
    return dataclasses.replace(old, valid_versions=valid_versions or old.valid_versions,
                               fields=edit_fields(old.fields, replace, after))


# What Kafka 4.3 changed; everything else is as in the release before.
_MESSAGES_4_3: Final[dict[str, MessageSchema]] = {s.name: s for s in (
    _changed(_MESSAGES_4_1, 'StreamsGroupHeartbeatResponse', replace={
        'status': F('status', '[]Status', '0+', nullable='0+', fields=_STATUS),  # no default
    }),
)}
_4_3: Final = {**_MESSAGES_4_1, **_MESSAGES_4_3}

# What Kafka trunk changed; everything else is as in the release before.
_MESSAGES_TRUNK: Final[dict[str, MessageSchema]] = {s.name: s for s in (
    _changed(_4_3, 'StreamsGroupHeartbeatRequest', '0-1'),
    _changed(_4_3, 'StreamsGroupHeartbeatResponse', '0-1', replace={
        'acceptableRecoveryLag': F('acceptableRecoveryLagLegacy', 'int32', '0'),
    }, after={
        'taskOffsetIntervalMs': (
            F('acceptableRecoveryLag', 'int64', '1+', default='-1', ignorable=True),),
        'warmupTasks': (F('topologyDescriptionRequired', 'bool', '1+', default='false'),),
    }),
    _changed(_4_3, 'StreamsGroupDescribeRequest', '0-1', after={
        'includeAuthorizedOperations': (
            F('includeTopologyDescription', 'bool', '1+', default='false'),),
    }),
    _changed(_4_3, 'StreamsGroupDescribeResponse', '0-1', replace={
        'groups': F('groups', '[]DescribedGroup', '0+', fields=(
            *_SGD_GROUP,
            F('topologyDescription', 'TopologyDescription', '1+', nullable='1+', default='null',
              fields=(
                F('subtopologies', '[]TopologyDescriptionSubtopology', '1+', fields=(
                    F('subtopologyId', 'string', '1+'),
                    F('nodes', '[]TopologyDescriptionNode', '1+',
                      fields=_TOPOLOGY_DESCRIPTION_NODE),
                )),
                F('globalStores', '[]TopologyDescriptionGlobalStore', '1+', fields=(
                    F('source', 'TopologyDescriptionNode', '1+',
                      fields=_TOPOLOGY_DESCRIPTION_NODE),
                    F('processor', 'TopologyDescriptionNode', '1+',
                      fields=_TOPOLOGY_DESCRIPTION_NODE),
                )),
              )),
            F('topologyDescriptionStatus', 'int8', '1+', default='0'),
            F('assignorName', 'string', '1+', nullable='1+', default='null', ignorable=True),
        )),
    }),
)}

MESSAGE_SCHEMAS: Final[dict[str, dict[str, MessageSchema]]] = {
    '4.1': _MESSAGES_4_1,
    '4.3': _4_3,
    'trunk': {**_4_3, **_MESSAGES_TRUNK},
}
