"""In-memory partition logs: enough of Produce, Fetch and ListOffsets for real clients.

A partition keeps the record batches producers sent, as bytes, each given its base offset
(the first 8 bytes of a v2 batch; the CRC covers only the bytes from ``attributes`` on, so
rewriting the offset keeps the batch valid). Fetch returns whole batches from the one that
holds the fetch offset, as a broker does; clients skip records below the offset they asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Offsets into a v2 record batch (Kafka's DefaultRecordBatch).
_LENGTH = 8  # int32 batchLength: the bytes after this field
_MAGIC = 16
_LAST_OFFSET_DELTA = 23
_MAX_TIMESTAMP = 35
_HEADER = 61


class BatchError(ValueError):
    """Bytes that are not v2 record batches."""


@dataclass(frozen=True, slots=True)
class Batch:
    base_offset: int
    last_offset: int
    max_timestamp: int
    data: bytes


def split_batches(records: bytes) -> list[tuple[int, int, bytes]]:
    """(record count, max timestamp, bytes) of each v2 batch in a Produce request's records."""
    out = []
    pos = 0
    while pos < len(records):
        if len(records) - pos < _HEADER:
            raise BatchError(f"a record batch is cut short at byte {pos}")
        length = int.from_bytes(records[pos + _LENGTH:pos + _LENGTH + 4], "big", signed=True)
        end = pos + 12 + length
        if length < _HEADER - 12 or end > len(records):
            raise BatchError(f"a record batch at byte {pos} has a bad length ({length})")
        if records[pos + _MAGIC] != 2:
            raise BatchError(f"record batch magic {records[pos + _MAGIC]} (only v2 batches are kept)")
        delta = int.from_bytes(records[pos + _LAST_OFFSET_DELTA:pos + _LAST_OFFSET_DELTA + 4], "big", signed=True)
        max_ts = int.from_bytes(records[pos + _MAX_TIMESTAMP:pos + _MAX_TIMESTAMP + 8], "big", signed=True)
        out.append((delta + 1, max_ts, records[pos:end]))
        pos = end
    return out


@dataclass(slots=True)
class PartitionLog:
    batches: list[Batch] = field(default_factory=list)
    end_offset: int = 0

    def append(self, records: bytes) -> int:
        """Append a Produce request's batches; returns the base offset of the first."""
        first = self.end_offset
        for count, max_ts, data in split_batches(records):
            base = self.end_offset
            self.batches.append(Batch(base, base + count - 1, max_ts, base.to_bytes(8, "big") + data[8:]))
            self.end_offset += count
        return first

    def read(self, offset: int, max_bytes: int) -> bytes:
        """Whole batches from the one holding ``offset``, at least one, then up to ``max_bytes``."""
        out = bytearray()
        for batch in self.batches:  # few batches per partition in a test session
            if batch.last_offset < offset:
                continue
            if out and len(out) + len(batch.data) > max_bytes:
                break
            out += batch.data
        return bytes(out)

    def offset_for_time(self, timestamp: int) -> int:
        """ListOffsets: -2 earliest, -1 latest, else the first batch whose records reach ``timestamp``
        (-1: none does)."""
        if timestamp == -2:
            return 0
        if timestamp == -1:
            return self.end_offset
        for batch in self.batches:
            if batch.max_timestamp >= timestamp:
                return batch.base_offset
        return -1
