"""The streams group topology lifecycle (KIP-1071).

A topology record is written once by the first member's heartbeat
(GroupMetadataManager.maybeUpdateTopology) and re-configured against topic
metadata by InternalTopicManager.configureTopics whenever it is new, not yet
configured, or the metadata hash changed. configureTopics reports at most one
reason, in this precedence order (KIP-1071 "Handling topic topology mismatches"):
missing source topics, incorrectly partitioned topics, missing internal topics
(whose creation the coordinator then requests). Otherwise the ConfiguredTopology
``isReady()`` and validatedTopologyEpoch := topology epoch.
"""

from __future__ import annotations

from kgspec.spec.declarations import Declaration, transition

ABSENT, INITIALIZED, READY = "ABSENT", "INITIALIZED", "READY"
MISSING_SOURCE_TOPICS = "MISSING_SOURCE_TOPICS"
INCORRECTLY_PARTITIONED_TOPICS = "INCORRECTLY_PARTITIONED_TOPICS"
MISSING_INTERNAL_TOPICS = "MISSING_INTERNAL_TOPICS"

#: NOT_READY reasons, highest precedence first (TopicConfigurationException statuses 1, 2, 3).
NOT_READY_REASONS = (MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS)
_CONFIGURABLE = (INITIALIZED, *NOT_READY_REASONS, READY)
_ITM = "InternalTopicManager.configureTopics"

STREAMS_TOPOLOGY = Declaration(
    name="streams-topology",
    title="Streams group topology (initialization and configuration)",
    doc="Topology epoch fixed at initialization: trunk rejects a different topology "
    "(InvalidRequestException 'Topology updates are not supported yet').",
    states=(ABSENT, INITIALIZED, *NOT_READY_REASONS, READY),
    initial=ABSENT,
    transitions=(
        transition("initialized", ABSENT, INITIALIZED, """
            First heartbeat with a topology: maybeUpdateTopology writes the
            StreamsGroupTopology record at the member's topology epoch."""),
        transition("configured_missing_source_topics", _CONFIGURABLE, MISSING_SOURCE_TOPICS, f"""
            {_ITM}: throwOnMissingSourceTopics (status MISSING_SOURCE_TOPICS=1); checked
            first; no subtopologies configured, validatedTopologyEpoch = -1."""),
        transition("configured_incorrectly_partitioned", _CONFIGURABLE,
                   INCORRECTLY_PARTITIONED_TOPICS, f"""
            {_ITM}: source topics exist but copartitioned topics differ or an existing
            internal topic has the wrong partition count (status 2)."""),
        transition("configured_missing_internal_topics", _CONFIGURABLE, MISSING_INTERNAL_TOPICS, f"""
            {_ITM}: partition counts decided, some internal topics missing (status 3); the
            heartbeat result carries internalTopicsToBeCreated so their creation is
            requested."""),
        transition("configured_ready", _CONFIGURABLE, READY, f"""
            {_ITM}: no TopicConfigurationException, ConfiguredTopology.isReady(); the group
            records validatedTopologyEpoch = topology epoch and bumps its group epoch."""),
        transition("deleted", _CONFIGURABLE, ABSENT, """
            Group deletion writes the StreamsGroupTopology tombstone."""),
    ),
)
