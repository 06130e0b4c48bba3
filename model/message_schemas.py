"""Request/response schemas of the group RPCs the checker sees, per Kafka release.

Source: ``clients/src/main/resources/common/message/<Name>.json`` on the Kafka branches ``4.1``,
``4.3`` and trunk (``HEAD``), transcribed mechanically (common structs inlined). Field names are
the JSON converter names (lowerCamel); printing rules are those in
:mod:`kgspec.model.record_schemas`. Versions:

* Classic: JoinGroup (11) v0-9, SyncGroup (14) v0-5, Heartbeat (12) v0-4, LeaveGroup (13) v0-5,
  identical on 4.1, 4.3 and trunk (``protocolName`` in the JoinGroup response is nullable from
  v7; LeaveGroup has ``memberId`` in v0-2 and a ``members`` batch from v3).

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .record_schemas import F, FieldSchema, _in, normalize_release, parse_versions, validate_fields

__all__ = [
    "MESSAGE_SCHEMAS",
    "MessageSchema",
    "field_added_in",
    "field_names",
    "find_field",
    "is_nullable",
    "message_schema",
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

    def fields_in(self, version: int) -> tuple[FieldSchema, ...]:
        return tuple(f for f in self.fields if f.present_in(version))


def M(
    api_key: int, name: str, valid_versions: str, fields: tuple[FieldSchema, ...]
) -> MessageSchema:
    return MessageSchema(api_key, name, valid_versions, fields)


def message_schema(release: str, name: str) -> MessageSchema:
    rel = normalize_release(release)
    try:
        return MESSAGE_SCHEMAS[rel][name]
    except KeyError:
        raise KeyError(f"no schema for {name} in Kafka {rel}") from None


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
    schema = message_schema(release, name)
    if not schema.supports(version):
        return [f"{name}: version {version} is not valid (valid: {schema.valid_versions})"]
    return [f"{name} v{version}: {m}" for m in validate_fields(data, schema.fields, version)]


# ---------------------------------------------------------------------------------------------
# Tables (generated from the Kafka JSON schemas; do not edit by hand)
# ---------------------------------------------------------------------------------------------

# Kafka 4.1: every schema.
_MESSAGES_4_1: Final[dict[str, MessageSchema]] = {
    'JoinGroupRequest': M(11, 'JoinGroupRequest', '0-9',
        fields=(
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
    'JoinGroupResponse': M(11, 'JoinGroupResponse', '0-9',
        fields=(
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
    'SyncGroupRequest': M(14, 'SyncGroupRequest', '0-5',
        fields=(
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
    'SyncGroupResponse': M(14, 'SyncGroupResponse', '0-5',
        fields=(
            F('throttleTimeMs', 'int32', '1+', ignorable=True),
            F('errorCode', 'int16', '0+'),
            F('protocolType', 'string', '5+', nullable='5+', default='null', ignorable=True),
            F('protocolName', 'string', '5+', nullable='5+', default='null', ignorable=True),
            F('assignment', 'bytes', '0+'),
        )),
    'HeartbeatRequest': M(12, 'HeartbeatRequest', '0-4',
        fields=(
            F('groupId', 'string', '0+'),
            F('generationId', 'int32', '0+'),
            F('memberId', 'string', '0+'),
            F('groupInstanceId', 'string', '3+', nullable='3+', default='null'),
        )),
    'HeartbeatResponse': M(12, 'HeartbeatResponse', '0-4',
        fields=(
            F('throttleTimeMs', 'int32', '1+', ignorable=True),
            F('errorCode', 'int16', '0+'),
        )),
    'LeaveGroupRequest': M(13, 'LeaveGroupRequest', '0-5',
        fields=(
            F('groupId', 'string', '0+'),
            F('memberId', 'string', '0-2'),
            F('members', '[]MemberIdentity', '3+', fields=(
                F('memberId', 'string', '3+'),
                F('groupInstanceId', 'string', '3+', nullable='3+', default='null'),
                F('reason', 'string', '5+', nullable='5+', default='null', ignorable=True),
            )),
        )),
    'LeaveGroupResponse': M(13, 'LeaveGroupResponse', '0-5',
        fields=(
            F('throttleTimeMs', 'int32', '1+', ignorable=True),
            F('errorCode', 'int16', '0+'),
            F('members', '[]MemberResponse', '3+', fields=(
                F('memberId', 'string', '3+'),
                F('groupInstanceId', 'string', '3+', nullable='3+'),
                F('errorCode', 'int16', '3+'),
            )),
        )),
    'ConsumerGroupHeartbeatRequest': M(68, 'ConsumerGroupHeartbeatRequest', '0-1',
        fields=(
            F('groupId', 'string', '0+'),
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('instanceId', 'string', '0+', nullable='0+', default='null'),
            F('rackId', 'string', '0+', nullable='0+', default='null'),
            F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
            F('subscribedTopicNames', '[]string', '0+', nullable='0+', default='null'),
            F('subscribedTopicRegex', 'string', '1+', nullable='1+', default='null'),
            F('serverAssignor', 'string', '0+', nullable='0+', default='null'),
            F('topicPartitions', '[]TopicPartitions', '0+', nullable='0+', default='null', fields=(
                F('topicId', 'uuid', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
        )),
    'ConsumerGroupHeartbeatResponse': M(68, 'ConsumerGroupHeartbeatResponse', '0-1',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('errorCode', 'int16', '0+'),
            F('errorMessage', 'string', '0+', nullable='0+', default='null'),
            F('memberId', 'string', '0+', nullable='0+', default='null'),
            F('memberEpoch', 'int32', '0+'),
            F('heartbeatIntervalMs', 'int32', '0+'),
            F('assignment', 'Assignment', '0+', nullable='0+', default='null', fields=(
                F('topicPartitions', '[]TopicPartitions', '0+', fields=(
                    F('topicId', 'uuid', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
            )),
        )),
    'ConsumerGroupDescribeRequest': M(69, 'ConsumerGroupDescribeRequest', '0-1',
        fields=(
            F('groupIds', '[]string', '0+'),
            F('includeAuthorizedOperations', 'bool', '0+'),
        )),
    'ConsumerGroupDescribeResponse': M(69, 'ConsumerGroupDescribeResponse', '0-1',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('groups', '[]DescribedGroup', '0+', fields=(
                F('errorCode', 'int16', '0+'),
                F('errorMessage', 'string', '0+', nullable='0+', default='null'),
                F('groupId', 'string', '0+'),
                F('groupState', 'string', '0+'),
                F('groupEpoch', 'int32', '0+'),
                F('assignmentEpoch', 'int32', '0+'),
                F('assignorName', 'string', '0+'),
                F('members', '[]Member', '0+', fields=(
                    F('memberId', 'string', '0+'),
                    F('instanceId', 'string', '0+', nullable='0+', default='null'),
                    F('rackId', 'string', '0+', nullable='0+', default='null'),
                    F('memberEpoch', 'int32', '0+'),
                    F('clientId', 'string', '0+'),
                    F('clientHost', 'string', '0+'),
                    F('subscribedTopicNames', '[]string', '0+'),
                    F('subscribedTopicRegex', 'string', '0+', nullable='0+', default='null'),
                    F('assignment', 'Assignment', '0+', fields=(
                        F('topicPartitions', '[]TopicPartitions', '0+', fields=(
                            F('topicId', 'uuid', '0+'),
                            F('topicName', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                    )),
                    F('targetAssignment', 'Assignment', '0+', fields=(
                        F('topicPartitions', '[]TopicPartitions', '0+', fields=(
                            F('topicId', 'uuid', '0+'),
                            F('topicName', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                    )),
                    F('memberType', 'int8', '1+', default='-1', ignorable=True),
                )),
                F('authorizedOperations', 'int32', '0+', default='-2147483648'),
            )),
        )),
    'StreamsGroupHeartbeatRequest': M(88, 'StreamsGroupHeartbeatRequest', '0',
        fields=(
            F('groupId', 'string', '0+'),
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('endpointInformationEpoch', 'int32', '0+'),
            F('instanceId', 'string', '0+', nullable='0+', default='null'),
            F('rackId', 'string', '0+', nullable='0+', default='null'),
            F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
            F('topology', 'Topology', '0+', nullable='0+', default='null', fields=(
                F('epoch', 'int32', '0+'),
                F('subtopologies', '[]Subtopology', '0+', fields=(
                    F('subtopologyId', 'string', '0+'),
                    F('sourceTopics', '[]string', '0+'),
                    F('sourceTopicRegex', '[]string', '0+'),
                    F('stateChangelogTopics', '[]TopicInfo', '0+', fields=(
                        F('name', 'string', '0+'),
                        F('partitions', 'int32', '0+'),
                        F('replicationFactor', 'int16', '0+'),
                        F('topicConfigs', '[]KeyValue', '0+', fields=(
                            F('key', 'string', '0+'),
                            F('value', 'string', '0+'),
                        )),
                    )),
                    F('repartitionSinkTopics', '[]string', '0+'),
                    F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=(
                        F('name', 'string', '0+'),
                        F('partitions', 'int32', '0+'),
                        F('replicationFactor', 'int16', '0+'),
                        F('topicConfigs', '[]KeyValue', '0+', fields=(
                            F('key', 'string', '0+'),
                            F('value', 'string', '0+'),
                        )),
                    )),
                    F('copartitionGroups', '[]CopartitionGroup', '0+', fields=(
                        F('sourceTopics', '[]int16', '0+'),
                        F('sourceTopicRegex', '[]int16', '0+'),
                        F('repartitionSourceTopics', '[]int16', '0+'),
                    )),
                )),
            )),
            F('activeTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('standbyTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('warmupTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('processId', 'string', '0+', nullable='0+', default='null'),
            F('userEndpoint', 'Endpoint', '0+', nullable='0+', default='null', fields=(
                F('host', 'string', '0+'),
                F('port', 'uint16', '0+'),
            )),
            F('clientTags', '[]KeyValue', '0+', nullable='0+', default='null', fields=(
                F('key', 'string', '0+'),
                F('value', 'string', '0+'),
            )),
            F('taskOffsets', '[]TaskOffset', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partition', 'int32', '0+'),
                F('offset', 'int64', '0+'),
            )),
            F('taskEndOffsets', '[]TaskOffset', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partition', 'int32', '0+'),
                F('offset', 'int64', '0+'),
            )),
            F('shutdownApplication', 'bool', '0+', default='false'),
        )),
    'StreamsGroupHeartbeatResponse': M(88, 'StreamsGroupHeartbeatResponse', '0',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('errorCode', 'int16', '0+'),
            F('errorMessage', 'string', '0+', nullable='0+', default='null'),
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('heartbeatIntervalMs', 'int32', '0+'),
            F('acceptableRecoveryLag', 'int32', '0+'),
            F('taskOffsetIntervalMs', 'int32', '0+'),
            F('status', '[]Status', '0+', nullable='0+', default='null', fields=(
                F('statusCode', 'int8', '0+'),
                F('statusDetail', 'string', '0+'),
            )),
            F('activeTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('standbyTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('warmupTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('endpointInformationEpoch', 'int32', '0+'),
            F('partitionsByUserEndpoint', '[]EndpointToPartitions', '0+', nullable='0+', default='null', fields=(
                F('userEndpoint', 'Endpoint', '0+', fields=(
                    F('host', 'string', '0+'),
                    F('port', 'uint16', '0+'),
                )),
                F('activePartitions', '[]TopicPartition', '0+', fields=(
                    F('topic', 'string', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
                F('standbyPartitions', '[]TopicPartition', '0+', fields=(
                    F('topic', 'string', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
            )),
        )),
    'StreamsGroupDescribeRequest': M(89, 'StreamsGroupDescribeRequest', '0',
        fields=(
            F('groupIds', '[]string', '0+'),
            F('includeAuthorizedOperations', 'bool', '0+'),
        )),
    'StreamsGroupDescribeResponse': M(89, 'StreamsGroupDescribeResponse', '0',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('groups', '[]DescribedGroup', '0+', fields=(
                F('errorCode', 'int16', '0+'),
                F('errorMessage', 'string', '0+', nullable='0+', default='null'),
                F('groupId', 'string', '0+'),
                F('groupState', 'string', '0+'),
                F('groupEpoch', 'int32', '0+'),
                F('assignmentEpoch', 'int32', '0+'),
                F('topology', 'Topology', '0+', nullable='0+', default='null', fields=(
                    F('epoch', 'int32', '0+'),
                    F('subtopologies', '[]Subtopology', '0+', nullable='0+', default='null', fields=(
                        F('subtopologyId', 'string', '0+'),
                        F('sourceTopics', '[]string', '0+'),
                        F('repartitionSinkTopics', '[]string', '0+'),
                        F('stateChangelogTopics', '[]TopicInfo', '0+', fields=(
                            F('name', 'string', '0+'),
                            F('partitions', 'int32', '0+'),
                            F('replicationFactor', 'int16', '0+'),
                            F('topicConfigs', '[]KeyValue', '0+', fields=(
                                F('key', 'string', '0+'),
                                F('value', 'string', '0+'),
                            )),
                        )),
                        F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=(
                            F('name', 'string', '0+'),
                            F('partitions', 'int32', '0+'),
                            F('replicationFactor', 'int16', '0+'),
                            F('topicConfigs', '[]KeyValue', '0+', fields=(
                                F('key', 'string', '0+'),
                                F('value', 'string', '0+'),
                            )),
                        )),
                    )),
                )),
                F('members', '[]Member', '0+', fields=(
                    F('memberId', 'string', '0+'),
                    F('memberEpoch', 'int32', '0+'),
                    F('instanceId', 'string', '0+', nullable='0+', default='null'),
                    F('rackId', 'string', '0+', nullable='0+', default='null'),
                    F('clientId', 'string', '0+'),
                    F('clientHost', 'string', '0+'),
                    F('topologyEpoch', 'int32', '0+'),
                    F('processId', 'string', '0+'),
                    F('userEndpoint', 'Endpoint', '0+', nullable='0+', default='null', fields=(
                        F('host', 'string', '0+'),
                        F('port', 'uint16', '0+'),
                    )),
                    F('clientTags', '[]KeyValue', '0+', fields=(
                        F('key', 'string', '0+'),
                        F('value', 'string', '0+'),
                    )),
                    F('taskOffsets', '[]TaskOffset', '0+', fields=(
                        F('subtopologyId', 'string', '0+'),
                        F('partition', 'int32', '0+'),
                        F('offset', 'int64', '0+'),
                    )),
                    F('taskEndOffsets', '[]TaskOffset', '0+', fields=(
                        F('subtopologyId', 'string', '0+'),
                        F('partition', 'int32', '0+'),
                        F('offset', 'int64', '0+'),
                    )),
                    F('assignment', 'Assignment', '0+', fields=(
                        F('activeTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('standbyTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('warmupTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                    )),
                    F('targetAssignment', 'Assignment', '0+', fields=(
                        F('activeTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('standbyTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('warmupTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                    )),
                    F('isClassic', 'bool', '0+'),
                )),
                F('authorizedOperations', 'int32', '0+', default='-2147483648'),
            )),
        )),
}


# What Kafka 4.3 changed; everything else is as in the release before.
_MESSAGES_4_3: Final[dict[str, MessageSchema]] = {
    'StreamsGroupHeartbeatResponse': M(88, 'StreamsGroupHeartbeatResponse', '0',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('errorCode', 'int16', '0+'),
            F('errorMessage', 'string', '0+', nullable='0+', default='null'),
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('heartbeatIntervalMs', 'int32', '0+'),
            F('acceptableRecoveryLag', 'int32', '0+'),
            F('taskOffsetIntervalMs', 'int32', '0+'),
            F('status', '[]Status', '0+', nullable='0+', fields=(
                F('statusCode', 'int8', '0+'),
                F('statusDetail', 'string', '0+'),
            )),
            F('activeTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('standbyTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('warmupTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('endpointInformationEpoch', 'int32', '0+'),
            F('partitionsByUserEndpoint', '[]EndpointToPartitions', '0+', nullable='0+', default='null', fields=(
                F('userEndpoint', 'Endpoint', '0+', fields=(
                    F('host', 'string', '0+'),
                    F('port', 'uint16', '0+'),
                )),
                F('activePartitions', '[]TopicPartition', '0+', fields=(
                    F('topic', 'string', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
                F('standbyPartitions', '[]TopicPartition', '0+', fields=(
                    F('topic', 'string', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
            )),
        )),
}


# What Kafka trunk changed; everything else is as in the release before.
_MESSAGES_TRUNK: Final[dict[str, MessageSchema]] = {
    'StreamsGroupHeartbeatRequest': M(88, 'StreamsGroupHeartbeatRequest', '0-1',
        fields=(
            F('groupId', 'string', '0+'),
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('endpointInformationEpoch', 'int32', '0+'),
            F('instanceId', 'string', '0+', nullable='0+', default='null'),
            F('rackId', 'string', '0+', nullable='0+', default='null'),
            F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
            F('topology', 'Topology', '0+', nullable='0+', default='null', fields=(
                F('epoch', 'int32', '0+'),
                F('subtopologies', '[]Subtopology', '0+', fields=(
                    F('subtopologyId', 'string', '0+'),
                    F('sourceTopics', '[]string', '0+'),
                    F('sourceTopicRegex', '[]string', '0+'),
                    F('stateChangelogTopics', '[]TopicInfo', '0+', fields=(
                        F('name', 'string', '0+'),
                        F('partitions', 'int32', '0+'),
                        F('replicationFactor', 'int16', '0+'),
                        F('topicConfigs', '[]KeyValue', '0+', fields=(
                            F('key', 'string', '0+'),
                            F('value', 'string', '0+'),
                        )),
                    )),
                    F('repartitionSinkTopics', '[]string', '0+'),
                    F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=(
                        F('name', 'string', '0+'),
                        F('partitions', 'int32', '0+'),
                        F('replicationFactor', 'int16', '0+'),
                        F('topicConfigs', '[]KeyValue', '0+', fields=(
                            F('key', 'string', '0+'),
                            F('value', 'string', '0+'),
                        )),
                    )),
                    F('copartitionGroups', '[]CopartitionGroup', '0+', fields=(
                        F('sourceTopics', '[]int16', '0+'),
                        F('sourceTopicRegex', '[]int16', '0+'),
                        F('repartitionSourceTopics', '[]int16', '0+'),
                    )),
                )),
            )),
            F('activeTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('standbyTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('warmupTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('processId', 'string', '0+', nullable='0+', default='null'),
            F('userEndpoint', 'Endpoint', '0+', nullable='0+', default='null', fields=(
                F('host', 'string', '0+'),
                F('port', 'uint16', '0+'),
            )),
            F('clientTags', '[]KeyValue', '0+', nullable='0+', default='null', fields=(
                F('key', 'string', '0+'),
                F('value', 'string', '0+'),
            )),
            F('taskOffsets', '[]TaskOffset', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partition', 'int32', '0+'),
                F('offset', 'int64', '0+'),
            )),
            F('taskEndOffsets', '[]TaskOffset', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partition', 'int32', '0+'),
                F('offset', 'int64', '0+'),
            )),
            F('shutdownApplication', 'bool', '0+', default='false'),
        )),
    'StreamsGroupHeartbeatResponse': M(88, 'StreamsGroupHeartbeatResponse', '0-1',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('errorCode', 'int16', '0+'),
            F('errorMessage', 'string', '0+', nullable='0+', default='null'),
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('heartbeatIntervalMs', 'int32', '0+'),
            F('acceptableRecoveryLagLegacy', 'int32', '0'),
            F('taskOffsetIntervalMs', 'int32', '0+'),
            F('acceptableRecoveryLag', 'int64', '1+', default='-1', ignorable=True),
            F('status', '[]Status', '0+', nullable='0+', fields=(
                F('statusCode', 'int8', '0+'),
                F('statusDetail', 'string', '0+'),
            )),
            F('activeTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('standbyTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('warmupTasks', '[]TaskIds', '0+', nullable='0+', default='null', fields=(
                F('subtopologyId', 'string', '0+'),
                F('partitions', '[]int32', '0+'),
            )),
            F('topologyDescriptionRequired', 'bool', '1+', default='false'),
            F('endpointInformationEpoch', 'int32', '0+'),
            F('partitionsByUserEndpoint', '[]EndpointToPartitions', '0+', nullable='0+', default='null', fields=(
                F('userEndpoint', 'Endpoint', '0+', fields=(
                    F('host', 'string', '0+'),
                    F('port', 'uint16', '0+'),
                )),
                F('activePartitions', '[]TopicPartition', '0+', fields=(
                    F('topic', 'string', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
                F('standbyPartitions', '[]TopicPartition', '0+', fields=(
                    F('topic', 'string', '0+'),
                    F('partitions', '[]int32', '0+'),
                )),
            )),
        )),
    'StreamsGroupDescribeRequest': M(89, 'StreamsGroupDescribeRequest', '0-1',
        fields=(
            F('groupIds', '[]string', '0+'),
            F('includeAuthorizedOperations', 'bool', '0+'),
            F('includeTopologyDescription', 'bool', '1+', default='false'),
        )),
    'StreamsGroupDescribeResponse': M(89, 'StreamsGroupDescribeResponse', '0-1',
        fields=(
            F('throttleTimeMs', 'int32', '0+'),
            F('groups', '[]DescribedGroup', '0+', fields=(
                F('errorCode', 'int16', '0+'),
                F('errorMessage', 'string', '0+', nullable='0+', default='null'),
                F('groupId', 'string', '0+'),
                F('groupState', 'string', '0+'),
                F('groupEpoch', 'int32', '0+'),
                F('assignmentEpoch', 'int32', '0+'),
                F('topology', 'Topology', '0+', nullable='0+', default='null', fields=(
                    F('epoch', 'int32', '0+'),
                    F('subtopologies', '[]Subtopology', '0+', nullable='0+', default='null', fields=(
                        F('subtopologyId', 'string', '0+'),
                        F('sourceTopics', '[]string', '0+'),
                        F('repartitionSinkTopics', '[]string', '0+'),
                        F('stateChangelogTopics', '[]TopicInfo', '0+', fields=(
                            F('name', 'string', '0+'),
                            F('partitions', 'int32', '0+'),
                            F('replicationFactor', 'int16', '0+'),
                            F('topicConfigs', '[]KeyValue', '0+', fields=(
                                F('key', 'string', '0+'),
                                F('value', 'string', '0+'),
                            )),
                        )),
                        F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=(
                            F('name', 'string', '0+'),
                            F('partitions', 'int32', '0+'),
                            F('replicationFactor', 'int16', '0+'),
                            F('topicConfigs', '[]KeyValue', '0+', fields=(
                                F('key', 'string', '0+'),
                                F('value', 'string', '0+'),
                            )),
                        )),
                    )),
                )),
                F('members', '[]Member', '0+', fields=(
                    F('memberId', 'string', '0+'),
                    F('memberEpoch', 'int32', '0+'),
                    F('instanceId', 'string', '0+', nullable='0+', default='null'),
                    F('rackId', 'string', '0+', nullable='0+', default='null'),
                    F('clientId', 'string', '0+'),
                    F('clientHost', 'string', '0+'),
                    F('topologyEpoch', 'int32', '0+'),
                    F('processId', 'string', '0+'),
                    F('userEndpoint', 'Endpoint', '0+', nullable='0+', default='null', fields=(
                        F('host', 'string', '0+'),
                        F('port', 'uint16', '0+'),
                    )),
                    F('clientTags', '[]KeyValue', '0+', fields=(
                        F('key', 'string', '0+'),
                        F('value', 'string', '0+'),
                    )),
                    F('taskOffsets', '[]TaskOffset', '0+', fields=(
                        F('subtopologyId', 'string', '0+'),
                        F('partition', 'int32', '0+'),
                        F('offset', 'int64', '0+'),
                    )),
                    F('taskEndOffsets', '[]TaskOffset', '0+', fields=(
                        F('subtopologyId', 'string', '0+'),
                        F('partition', 'int32', '0+'),
                        F('offset', 'int64', '0+'),
                    )),
                    F('assignment', 'Assignment', '0+', fields=(
                        F('activeTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('standbyTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('warmupTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                    )),
                    F('targetAssignment', 'Assignment', '0+', fields=(
                        F('activeTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('standbyTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                        F('warmupTasks', '[]TaskIds', '0+', fields=(
                            F('subtopologyId', 'string', '0+'),
                            F('partitions', '[]int32', '0+'),
                        )),
                    )),
                    F('isClassic', 'bool', '0+'),
                )),
                F('authorizedOperations', 'int32', '0+', default='-2147483648'),
                F('topologyDescription', 'TopologyDescription', '1+', nullable='1+', default='null', fields=(
                    F('subtopologies', '[]TopologyDescriptionSubtopology', '1+', fields=(
                        F('subtopologyId', 'string', '1+'),
                        F('nodes', '[]TopologyDescriptionNode', '1+', fields=(
                            F('name', 'string', '1+'),
                            F('nodeType', 'int8', '1+'),
                            F('sourceTopics', '[]string', '1+'),
                            F('sinkTopic', 'string', '1+', nullable='1+', default='null'),
                            F('stores', '[]string', '1+'),
                            F('successors', '[]string', '1+'),
                        )),
                    )),
                    F('globalStores', '[]TopologyDescriptionGlobalStore', '1+', fields=(
                        F('source', 'TopologyDescriptionNode', '1+', fields=(
                            F('name', 'string', '1+'),
                            F('nodeType', 'int8', '1+'),
                            F('sourceTopics', '[]string', '1+'),
                            F('sinkTopic', 'string', '1+', nullable='1+', default='null'),
                            F('stores', '[]string', '1+'),
                            F('successors', '[]string', '1+'),
                        )),
                        F('processor', 'TopologyDescriptionNode', '1+', fields=(
                            F('name', 'string', '1+'),
                            F('nodeType', 'int8', '1+'),
                            F('sourceTopics', '[]string', '1+'),
                            F('sinkTopic', 'string', '1+', nullable='1+', default='null'),
                            F('stores', '[]string', '1+'),
                            F('successors', '[]string', '1+'),
                        )),
                    )),
                )),
                F('topologyDescriptionStatus', 'int8', '1+', default='0'),
                F('assignorName', 'string', '1+', nullable='1+', default='null', ignorable=True),
            )),
        )),
}

MESSAGE_SCHEMAS: Final[dict[str, dict[str, MessageSchema]]] = {
    '4.1': _MESSAGES_4_1,
    '4.3': {**_MESSAGES_4_1, **_MESSAGES_4_3},
    'trunk': {**_MESSAGES_4_1, **_MESSAGES_4_3, **_MESSAGES_TRUNK},
}

_ = F  # the tables use F
