"""Offset records (``OffsetCommitKey`` / ``OffsetCommitValue``, key types 0 and 1).

``GroupCoordinatorRecordHelpers.newOffsetCommitRecord`` (4.3 l.470-503): key type 1 with
``group``, ``topic``, ``partition``; value version 1 when the commit carries an expire timestamp
(OffsetCommit v2-4 with ``retentionTimeMs`` != -1), else version 4. Value fields by version
(``OffsetCommitValue.json``, versions 0-4, flexible from 4): ``offset``, ``leaderEpoch`` (3+),
``metadata``, ``commitTimestamp``, ``expireTimestamp`` (1 only), ``topicId`` (tagged, 4+,
printed only when not the zero id). Key type 0 (``LegacyOffsetCommitKey``) is read the same
way (replay only). A tombstone is the key with a null value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgspec.model.records import Record, ReplayError

LEGACY_OFFSET_COMMIT = 0
OFFSET_COMMIT = 1
OFFSET_RECORD_TYPES = frozenset({LEGACY_OFFSET_COMMIT, OFFSET_COMMIT})
ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid.ZERO_UUID.toString()
NO_TIMESTAMP = -1  # OffsetCommitRequest.DEFAULT_TIMESTAMP


@dataclass(frozen=True, slots=True)
class Committed:
    """``OffsetAndMetadata``: one committed offset."""

    offset: int
    leader_epoch: int  # -1: none (RecordBatch.NO_PARTITION_LEADER_EPOCH)
    metadata: str
    commit_timestamp: int
    expire_timestamp: int | None  # None: no explicit expiry (OptionalLong.empty())
    topic_id: str = ZERO_UUID

    def snapshot(self) -> dict[str, Any]:
        return {"offset": self.offset, "leaderEpoch": self.leader_epoch, "metadata": self.metadata,
                "commitTimestamp": self.commit_timestamp, "expireTimestamp": self.expire_timestamp,
                "topicId": self.topic_id}


def offset_record(group_id: str, topic: str, partition: int, c: Committed) -> Record:
    """``newOffsetCommitRecord``: value v1 with an expire timestamp, else v4."""
    if c.expire_timestamp is not None:
        value: dict[str, Any] = {"offset": c.offset, "metadata": c.metadata,
                                 "commitTimestamp": c.commit_timestamp, "expireTimestamp": c.expire_timestamp}
        version = 1
    else:
        value = {"offset": c.offset, "leaderEpoch": c.leader_epoch, "metadata": c.metadata,
                 "commitTimestamp": c.commit_timestamp}
        if c.topic_id != ZERO_UUID:
            value["topicId"] = c.topic_id  # tagged: printed only when not the default
        version = 4
    return Record(OFFSET_COMMIT, {"group": group_id, "topic": topic, "partition": partition}, value, version)


def offset_tombstone(group_id: str, topic: str, partition: int) -> Record:
    return Record(OFFSET_COMMIT, {"group": group_id, "topic": topic, "partition": partition}, None)


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _int_field(value: dict[str, Any], name: str, default: int | None = None) -> int:
    """An int64 field of an offset record's value; ``ReplayError`` (Kafka's deserializer refuses
    the record) when it is missing without a default, or not an int64."""
    raw = value.get(name, default)
    if type(raw) is not int or not _INT64[0] <= raw <= _INT64[1]:
        raise ReplayError(f"OffsetCommit record value: `{name}` must be an int64, not {raw!r}")
    return raw


def committed_from_record(record: Record) -> Committed:
    """``OffsetAndMetadata.fromRecord``: an expire timestamp of -1 (or absent) is none; a
    leader epoch below 0 (or absent, v0-2) is none (-1). A value Kafka could not have
    deserialized (a missing offset, a non-integer) is a ``ReplayError``."""
    v = record.value
    assert v is not None
    expire = _int_field(v, "expireTimestamp", NO_TIMESTAMP)
    epoch = _int_field(v, "leaderEpoch", -1)
    offset = _int_field(v, "offset")
    commit_timestamp = _int_field(v, "commitTimestamp", 0)
    metadata = v.get("metadata")
    topic_id = v.get("topicId")
    if topic_id is not None and not isinstance(topic_id, str):
        raise ReplayError(f"OffsetCommit record value: `topicId` must be a string, not {topic_id!r}")
    return Committed(offset, epoch if epoch >= 0 else -1, metadata if isinstance(metadata, str) else "",
                     commit_timestamp, None if expire == NO_TIMESTAMP else expire, topic_id or ZERO_UUID)
