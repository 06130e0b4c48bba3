"""Coordinator records, as written to ``__consumer_offsets``.

A record is a key (type + data) and a value (version + data), or a tombstone
(value ``None``). Field names are those of Kafka's JSON converters (the schema
field name with a lower-case first letter), so :meth:`Record.to_json` is exactly
the contract's ``record`` event body. Tagged fields equal to their default are
omitted, as Kafka's JSON converters omit them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

# Record types (the key's apiKey), group-coordinator/src/main/resources/common/message/*Key.json.
GROUP_METADATA = 2
CONSUMER_GROUP_METADATA = 3
CONSUMER_GROUP_PARTITION_METADATA = 4
CONSUMER_GROUP_MEMBER_METADATA = 5
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA = 6
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER = 7
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 8
CONSUMER_GROUP_REGULAR_EXPRESSION = 16
STREAMS_GROUP_METADATA = 17
# 18: Kafka 4.0's StreamsGroupPartitionMetadata (removed by KAFKA-17747); the seed's, kip only.
STREAMS_GROUP_PARTITION_METADATA = 18
STREAMS_GROUP_MEMBER_METADATA = 19
STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA = 20
STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER = 21
STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT = 22
STREAMS_GROUP_TOPOLOGY = 23
# The Connect draft's records (kept in __worker_offsets; the draft gives no numbers): kgspec's
# own key types, far above Kafka's, see docs/connect.md.
CONNECT_WORKER_GROUP_METADATA = 1000
CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA = 1001
CONNECT_WORKER_GROUP_MEMBER_METADATA = 1002
CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT = 1003
CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 1004

RECORD_NAMES = {
    0: "LegacyOffsetCommit",  # model/offsets/records.py
    1: "OffsetCommit",
    GROUP_METADATA: "GroupMetadata",
    CONSUMER_GROUP_METADATA: "ConsumerGroupMetadata",
    CONSUMER_GROUP_PARTITION_METADATA: "ConsumerGroupPartitionMetadata",
    CONSUMER_GROUP_MEMBER_METADATA: "ConsumerGroupMemberMetadata",
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: "ConsumerGroupTargetAssignmentMetadata",
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: "ConsumerGroupTargetAssignmentMember",
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: "ConsumerGroupCurrentMemberAssignment",
    CONSUMER_GROUP_REGULAR_EXPRESSION: "ConsumerGroupRegularExpression",
    STREAMS_GROUP_METADATA: "StreamsGroupMetadata",
    STREAMS_GROUP_PARTITION_METADATA: "StreamsGroupPartitionMetadata",
    STREAMS_GROUP_MEMBER_METADATA: "StreamsGroupMemberMetadata",
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA: "StreamsGroupTargetAssignmentMetadata",
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER: "StreamsGroupTargetAssignmentMember",
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT: "StreamsGroupCurrentMemberAssignment",
    STREAMS_GROUP_TOPOLOGY: "StreamsGroupTopology",
    CONNECT_WORKER_GROUP_METADATA: "ConnectWorkerGroupMetadata",
    CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA: "ConnectWorkerGroupConnectorsTasksMetadata",
    CONNECT_WORKER_GROUP_MEMBER_METADATA: "ConnectWorkerGroupMemberMetadata",
    CONNECT_WORKER_GROUP_TARGET_ASSIGNMENT: "ConnectWorkerGroupTargetAssignment",
    CONNECT_WORKER_GROUP_CURRENT_MEMBER_ASSIGNMENT: "ConnectWorkerGroupCurrentMemberAssignment",
}


def partition_entries(items: Iterable[tuple[str, Collection[int]]], id_field: str,
                      epochs: bool = False) -> list[dict[str, Any]]:
    """``[{id_field: id, "partitions": [...]}]`` for the non-empty entries, partitions sorted.

    With ``epochs`` (KIP-1251, 4.3+) each entry also carries ``assignmentEpochs``, the epoch of
    each partition in order; the partitions are then a ``{partition: epoch}`` mapping.
    """
    out = []
    for ident, parts in items:
        if not parts:
            continue
        ordered = sorted(parts)
        entry: dict[str, Any] = {id_field: ident, "partitions": ordered}
        if epochs:
            by_partition = cast(Mapping[int, int], parts)
            entry["assignmentEpochs"] = [by_partition[p] for p in ordered]
        out.append(entry)
    return out


class ReplayError(Exception):
    """A record that Kafka's replay would reject (IllegalStateException and friends)."""


# Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__, which
# costs a replayed record (dump-log check) more than parsing it. Records are never changed.
NO_PRODUCER_ID = -1  # RecordBatch.NO_PRODUCER_ID: a record not written in a transaction


@dataclass(slots=True)
class Record:
    type: int
    key: dict[str, Any]
    value: dict[str, Any] | None
    version: int = 0
    # The producer id of a transactional batch (TxnOffsetCommit's offsets, pending until the
    # transaction's end marker); a trace's record body carries it as ``producerId``.
    producer_id: int = NO_PRODUCER_ID

    @property
    def is_tombstone(self) -> bool:
        return self.value is None

    @property
    def name(self) -> str:
        return RECORD_NAMES.get(self.type, f"Record{self.type}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": {"type": self.type, "data": self.key},
            "value": None if self.value is None else {"version": self.version, "data": self.value},
        }
        if self.producer_id != NO_PRODUCER_ID:
            out["producerId"] = self.producer_id
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Record:
        """Parse a contract ``record`` body; raises ValueError naming the bad field."""
        key, value = obj.get("key"), obj.get("value")
        if "producerId" in obj:
            return Record._transactional(obj)
        # Fast path: a body the readers validated (exact types; json gives no subclasses).
        # Anything else goes through the checks below, which convert or name the problem.
        if type(key) is dict:
            rtype, data = key.get("type"), key.get("data")
            if type(rtype) is int and type(data) is dict:
                if type(value) is dict:
                    vdata, version = value.get("data"), value.get("version", 0)
                    if type(vdata) is dict and type(version) is int:
                        return Record(rtype, data, vdata, version)
                elif value is None and "value" in obj:
                    return Record(rtype, data, None)
        return Record._checked_from_json(obj)

    @staticmethod
    def _transactional(obj: dict[str, Any]) -> Record:
        """A record of a transactional batch: ``producerId`` beside key and value."""
        producer_id = obj["producerId"]
        if type(producer_id) is not int or producer_id < 0:
            raise ValueError("record.producerId must be a non-negative integer")
        record = Record._checked_from_json(obj)
        record.producer_id = producer_id
        return record

    @staticmethod
    def _checked_from_json(obj: dict[str, Any]) -> Record:
        key = obj.get("key")
        if not isinstance(key, dict):
            raise ValueError("record.key must be an object")
        rtype = key.get("type")
        if isinstance(rtype, str) and rtype.lstrip("-").isdigit():
            rtype = int(rtype)  # kafka-dump-log prints the type as a string
        if not isinstance(rtype, int) or isinstance(rtype, bool):
            raise ValueError("record.key.type must be an integer")
        data = key.get("data")
        if not isinstance(data, dict):
            raise ValueError("record.key.data must be an object")
        if "value" not in obj:
            raise ValueError("record.value is missing (null for a tombstone)")
        value = obj["value"]
        if value is None:
            return Record(rtype, data, None)
        if not isinstance(value, dict):
            raise ValueError("record.value must be an object or null")
        vdata = value.get("data")
        if not isinstance(vdata, dict):
            raise ValueError("record.value.data must be an object")
        version = value.get("version", 0)
        if isinstance(version, str) and version.isdigit():
            version = int(version)
        if not isinstance(version, int):
            raise ValueError("record.value.version must be an integer")
        return Record(rtype, data, vdata, version)

    def describe(self) -> str:
        ident = ", ".join(f"{k}={v}" for k, v in self.key.items() if k != "groupId")
        what = "tombstone" if self.value is None else "record"
        if self.producer_id != NO_PRODUCER_ID:
            what += f" of producer {self.producer_id}'s transaction"
        return f"{self.name}({ident}) {what}".replace("() ", " ")
