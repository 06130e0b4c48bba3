"""In-memory partition logs: v2 batches kept whole, offsets assigned, reads from the holding batch."""

from __future__ import annotations

import pytest

from kgspec.server.logs import BatchError, PartitionLog, split_batches


def batch(records: int, max_timestamp: int = 1000, magic: int = 2) -> bytes:
    """A v2 record batch header with ``records`` records (bodies left out: the log never reads them)."""
    body = (
        (0).to_bytes(4, "big")  # partitionLeaderEpoch
        + bytes([magic])
        + (0).to_bytes(4, "big")  # crc (not checked by the log)
        + (0).to_bytes(2, "big")  # attributes
        + (records - 1).to_bytes(4, "big")  # lastOffsetDelta
        + (0).to_bytes(8, "big")  # baseTimestamp
        + max_timestamp.to_bytes(8, "big")
        + (-1).to_bytes(8, "big", signed=True)  # producerId
        + (-1).to_bytes(2, "big", signed=True)
        + (-1).to_bytes(4, "big", signed=True)
        + records.to_bytes(4, "big")
    )
    return (0).to_bytes(8, "big") + len(body).to_bytes(4, "big") + body


def test_offsets_are_assigned_batch_by_batch() -> None:
    log = PartitionLog()
    assert log.append(batch(3) + batch(2)) == 0
    assert log.append(batch(4)) == 5
    assert log.end_offset == 9
    assert [(b.base_offset, b.last_offset) for b in log.batches] == [(0, 2), (3, 4), (5, 8)]
    assert [int.from_bytes(b.data[:8], "big") for b in log.batches] == [0, 3, 5]


def test_read_starts_at_the_batch_holding_the_offset_and_returns_at_least_one() -> None:
    log = PartitionLog()
    log.append(batch(3) + batch(2) + batch(4))
    one = len(log.batches[0].data)
    assert log.read(4, 1) == log.batches[1].data  # over the budget: still one whole batch
    assert log.read(0, 2 * one) == log.batches[0].data + log.batches[1].data
    assert log.read(9, 1 << 20) == b""


def test_offset_for_time() -> None:
    log = PartitionLog()
    log.append(batch(2, max_timestamp=100) + batch(2, max_timestamp=200))
    assert [log.offset_for_time(t) for t in (-2, -1, 50, 150, 201)] == [0, 4, 0, 2, -1]


def test_batches_that_are_not_v2_are_refused_with_where() -> None:
    with pytest.raises(BatchError, match="record batch magic 1"):
        split_batches(batch(1, magic=1))
    with pytest.raises(BatchError, match="cut short at byte 0"):
        split_batches(batch(1)[:20])
    long = bytearray(batch(1))
    long[8:12] = (100).to_bytes(4, "big")  # says 100 bytes follow; 49 do
    with pytest.raises(BatchError, match=r"a record batch at byte 0 has a bad length \(100\)"):
        split_batches(bytes(long))
