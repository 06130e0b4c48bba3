"""KIP-1071 streams groups: topology, topic configuration and the sticky task assignor.

Pure functions modelling Kafka 4.3 (see docs/streams.md for sources and release notes).
"""

from kgspec.model.streams.assignor import (
    SubtopologyTasks,
    TaskAssignment,
    TaskAssignorError,
    TaskMemberSpec,
    assign_tasks,
)
from kgspec.model.streams.configure import (
    ConfiguredInternalTopic,
    ConfiguredSubtopology,
    ConfiguredTopology,
    CreatableTopic,
    Status,
    StreamsInvalidTopology,
    TopicConfigurationStatus,
    UnexpectedServerError,
    check_topology_topic_names,
    configure_topology,
    throw_if_invalid_topology,
)
from kgspec.model.streams.guarantees import sticky_guarantee_problems
from kgspec.model.streams.topology import (
    CopartitionGroup,
    Subtopology,
    TopicConfig,
    TopicInfo,
    Topology,
    TopologyParseError,
    from_record_value,
    parse_request_topology,
    parse_topology_record,
    to_record_value,
    topology_to_json,
)

__all__ = [
    "ConfiguredInternalTopic",
    "ConfiguredSubtopology",
    "ConfiguredTopology",
    "CopartitionGroup",
    "CreatableTopic",
    "Status",
    "StreamsInvalidTopology",
    "Subtopology",
    "SubtopologyTasks",
    "TaskAssignment",
    "TaskAssignorError",
    "TaskMemberSpec",
    "TopicConfig",
    "TopicConfigurationStatus",
    "TopicInfo",
    "Topology",
    "TopologyParseError",
    "UnexpectedServerError",
    "assign_tasks",
    "check_topology_topic_names",
    "configure_topology",
    "from_record_value",
    "parse_request_topology",
    "parse_topology_record",
    "sticky_guarantee_problems",
    "throw_if_invalid_topology",
    "to_record_value",
    "topology_to_json",
]
