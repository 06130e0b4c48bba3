"""kip: the seed's own streams group records where they differ from Kafka's (seed 002, "Records").

* ``StreamsGroupMetadataValue`` has only ``Epoch`` ("The group metadata, keyed by the group ID,
  contains the group epoch."); Kafka adds ``metadataHash``, ``validatedTopologyEpoch`` and
  ``lastAssignmentConfigs``.
* ``StreamsGroupPartitionMetadata`` (type 18, Kafka 4.0's number; KAFKA-17747 replaced it by the
  hash): "The partition metadata record, keyed by the group ID, contains metadata of all topic
  partitions consumed by the current topology". "When the group coordinator receives valid
  topology metadata in a heartbeat request, both records are created" and, when a heartbeat finds
  the partition metadata changed, "the stream group partition metadata record is updated, and a
  new assignment is computed".

kgspec's readings (docs/kip.md, "Records"): the topics are those the topology requires (sources,
regex matches, repartition sources and changelogs) that exist, by name, as Kafka's own version of
this record had them; racks are not modelled, so every topic stores the empty list the seed asks
for when "the rack information is unavailable for all the partitions". What Kafka keeps in record
17 is derived instead: whether the topology is valid from the topology and partition metadata
records (Kafka 4.0's ``maybeUpdateConfiguredTopology``), the last assignment configs from the
coordinator's configs when the records are loaded (soft state, like the seed's task offsets).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from kgspec.model.record_schemas import F, RecordSchema, record_schema
from kgspec.model.records import (
    CONSUMER_GROUP_PARTITION_METADATA,
    STREAMS_GROUP_METADATA,
    STREAMS_GROUP_PARTITION_METADATA,
    STREAMS_GROUP_TOPOLOGY,
    Record,
    ReplayError,
)
from kgspec.model.streams import source_regex
from kgspec.model.streams.configure import configure_topology
from kgspec.model.streams.group import StreamsGroup

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

# (topic name, topic id, number of partitions) of each existing topic, by name.
PartitionMetadata = tuple[tuple[str, str, int], ...]

_GROUP_KEY: Final = (F("groupId", "string", "0"),)
#: The seed's schemas of the records it words differently from Kafka (the others are Kafka's).
SEED_RECORD_SCHEMAS: Final[dict[int, RecordSchema]] = {
    STREAMS_GROUP_METADATA: RecordSchema(STREAMS_GROUP_METADATA, "StreamsGroupMetadata", "0", 0, key=_GROUP_KEY,
                                         value=(F("epoch", "int32", "0+"),)),
    # the seed's record 18 is KIP-848's partition-metadata record under the streams name
    STREAMS_GROUP_PARTITION_METADATA: RecordSchema(
        STREAMS_GROUP_PARTITION_METADATA, "StreamsGroupPartitionMetadata", "0", 0, key=_GROUP_KEY,
        value=record_schema("4.3", CONSUMER_GROUP_PARTITION_METADATA).value),
}


def compute(coord: Coordinator, names: Iterable[str]) -> PartitionMetadata:
    """The partition metadata of the existing topics among ``names``, by name."""
    out = []
    for name in sorted(set(names)):
        info = coord.topics.by_name(name)
        if info is not None:
            out.append((name, info.topic_id, info.partitions))
    return tuple(out)


def group_metadata_record(group_id: str, epoch: int) -> Record:
    return Record(STREAMS_GROUP_METADATA, {"groupId": group_id}, {"epoch": epoch})


def partition_metadata_record(group_id: str, metadata: PartitionMetadata) -> Record:
    topics = [{"topicId": tid, "topicName": name, "numPartitions": n, "partitionMetadata": []}
              for name, tid, n in metadata]
    return Record(STREAMS_GROUP_PARTITION_METADATA, {"groupId": group_id}, {"topics": topics})


def partition_metadata_tombstone(group_id: str) -> Record:
    return Record(STREAMS_GROUP_PARTITION_METADATA, {"groupId": group_id}, None)


def parse(value: Mapping[str, Any]) -> PartitionMetadata:
    topics = value.get("topics")
    if not isinstance(topics, list):
        raise ReplayError("StreamsGroupPartitionMetadata topics must be a list")
    out = []
    for t in topics:
        if not isinstance(t, dict) or not {"topicId", "topicName", "numPartitions"} <= t.keys():
            raise ReplayError("StreamsGroupPartitionMetadata topics need topicId, topicName and numPartitions")
        out.append((str(t["topicName"]), str(t["topicId"]), int(t["numPartitions"])))
    return tuple(sorted(out))


def validated_epoch(group: StreamsGroup, regexes: bool) -> int:
    """The topology epoch when the topology configured on the recorded partition metadata is ready
    (Kafka 4.0's ``configureTopics(topology, partitionMetadata)``), else -1."""
    topology, metadata = group.topology, group.partition_metadata
    if topology is None or metadata is None:
        return -1
    counts = {name: n for name, _, n in metadata}
    if regexes:
        resolved, unmatched = source_regex.resolve(topology, counts)
        configured = source_regex.configure(resolved, unmatched, counts)
    else:
        configured = configure_topology(topology, counts)
    return topology.epoch if configured.is_ready else -1


def after_replay(coord: Coordinator, record: Record, configs: Callable[[str], Mapping[str, str]]) -> None:
    """What the seed's records leave out, rebuilt after one of them is replayed (``configs``: a
    group's assignment configs now)."""
    group = coord.streams_groups.get(str(record.key.get("groupId")))
    if group is None:
        return
    if record.type in (STREAMS_GROUP_PARTITION_METADATA, STREAMS_GROUP_TOPOLOGY, STREAMS_GROUP_METADATA):
        group.validated_topology_epoch = validated_epoch(group, coord.profile.streams_kip_source_regexes)
    if record.type == STREAMS_GROUP_METADATA and record.value is not None:
        group.last_assignment_configs = dict(configs(group.group_id))
