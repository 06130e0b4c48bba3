"""``kafka-dump-log.sh --offsets-decoder`` output of a run's records.

Layout from ``DumpLogSegments.scala`` (``dumpLog``, ``printBatchLevel`` and the
``CoordinatorRecordMessageParser``): a file header, then per batch one ``baseOffset:``
line and one ``| offset:`` line per record, the key printed as
``{"type":"<id>","data":...}`` and the value as ``{"version":"<v>","data":...}`` (numbers
as JSON strings), ``payload: <DELETE>`` for a tombstone. Records written by one
coordinator step (consecutive records with the same ``tsMs``) form one batch, as the
coordinator appends one step's records atomically. ``keySize``/``valueSize`` are the sizes
of the JSON text, not of Kafka's binary encoding (the reader ignores them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

_COMPACT = (",", ":")


def write_dump_log(events: Iterable[dict[str, Any]], out: TextIO, *,
                   segment: str = "/var/lib/kafka/data/__consumer_offsets-0/00000000000000000000.log",
                   producer_id: int = -1) -> list[int | None]:
    """Write the ``record`` events of ``events``; returns the native event index per line."""
    lines: list[int | None] = []

    def emit(text: str, index: int | None) -> None:
        out.write(text)
        out.write("\n")
        lines.append(index)

    emit(f"Dumping {segment}", None)
    emit("Log starting offset: 0", None)
    batch: list[tuple[int, dict[str, Any], int]] = []
    offset = position = 0
    for index, event in enumerate(events):
        record = event.get("record")
        if record is None:
            continue
        ts = int(event["tsMs"])
        if batch and batch[-1][2] != ts:
            offset, position = _batch(batch, offset, position, producer_id, emit)
            batch = []
        batch.append((index, record, ts))
    if batch:
        _batch(batch, offset, position, producer_id, emit)
    return lines


def _batch(batch: list[tuple[int, dict[str, Any], int]], offset: int, position: int, producer_id: int,
           emit: Any) -> tuple[int, int]:
    rendered = [(index, _key(record), _payload(record), ts) for index, record, ts in batch]
    size = 61 + sum(12 + len(k) + len(v) for _, k, v, _ in rendered)  # 61: the v2 batch header
    ts = batch[0][2]
    last = offset + len(batch) - 1
    emit(f"baseOffset: {offset} lastOffset: {last} count: {len(batch)} baseSequence: -1 lastSequence: -1 "
         f"producerId: {producer_id} producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false "
         f"isControl: false deleteHorizonMs: OptionalLong.empty position: {position} CreateTime: {ts} "
         f"size: {size} magic: 2 compresscodec: none crc: 0 isvalid: true", None)
    for i, (index, key, payload, record_ts) in enumerate(rendered):
        value_size = -1 if payload == "<DELETE>" else len(payload)
        emit(f"| offset: {offset + i} CreateTime: {record_ts} keySize: {len(key)} valueSize: {value_size} "
             f"sequence: -1 headerKeys: [] key: {key} payload: {payload}", index)
    return last + 1, position + size


def _key(record: dict[str, Any]) -> str:
    key = record["key"]
    return json.dumps({"type": str(key["type"]), "data": key["data"]}, separators=_COMPACT)


def _payload(record: dict[str, Any]) -> str:
    value = record.get("value")
    if value is None:
        return "<DELETE>"
    return json.dumps({"version": str(value["version"]), "data": value["data"]}, separators=_COMPACT)
