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
    """Write the ``record`` events of ``events``; returns the native event index per line.

    A record with a ``producerId`` goes in a transactional batch of that producer; a
    transaction's end (a WriteTxnMarkers call naming ``__consumer_offsets``, or a marker record)
    is a control batch with its ``endTxnMarker`` record."""
    lines: list[int | None] = []

    def emit(text: str, index: int | None) -> None:
        out.write(text)
        out.write("\n")
        lines.append(index)

    emit(f"Dumping {segment}", None)
    emit("Log starting offset: 0", None)
    batch: list[tuple[int, dict[str, Any], int]] = []
    batch_producer = producer_id
    offset = position = 0
    for index, event in enumerate(events):
        record = event.get("record")
        markers = _markers(event, record)
        if record is None and not markers:
            continue
        ts = int(event["tsMs"])
        producer = record.get("producerId", producer_id) if record is not None and not markers else producer_id
        if batch and (markers or batch[-1][2] != ts or producer != batch_producer):
            offset, position = _batch(batch, offset, position, batch_producer, emit)
            batch = []
        if markers:
            for pid, result in markers:
                offset, position = _control(index, ts, offset, position, pid, result, emit)
            continue
        assert record is not None
        batch_producer = producer
        batch.append((index, record, ts))
    if batch:
        _batch(batch, offset, position, batch_producer, emit)
    return lines


def _markers(event: dict[str, Any], record: dict[str, Any] | None) -> list[tuple[int, str]]:
    """The transaction markers an event writes to ``__consumer_offsets``: (producer id, result)."""
    if record is not None:
        return [(record["producerId"], record["endTxnMarker"])] if "endTxnMarker" in record else []
    if event.get("requestHeader", {}).get("requestApiKey") != 27:
        return []
    return [(m["producerId"], "COMMIT" if m["transactionResult"] else "ABORT")
            for m in event["request"].get("markers") or []
            if any(t.get("name") == "__consumer_offsets" for t in m.get("topics") or [])]


def _header(offset: int, count: int, producer_id: int, transactional: bool, control: bool, position: int,
            ts: int, size: int) -> str:
    return (f"baseOffset: {offset} lastOffset: {offset + count - 1} count: {count} baseSequence: -1 "
            f"lastSequence: -1 producerId: {producer_id} producerEpoch: {0 if transactional else -1} "
            f"partitionLeaderEpoch: 0 isTransactional: {str(transactional).lower()} "
            f"isControl: {str(control).lower()} deleteHorizonMs: OptionalLong.empty position: {position} "
            f"CreateTime: {ts} size: {size} magic: 2 compresscodec: none crc: 0 isvalid: true")


def _control(index: int, ts: int, offset: int, position: int, producer_id: int, result: str,
             emit: Any) -> tuple[int, int]:
    size = 78  # a v2 batch with one control record
    emit(_header(offset, 1, producer_id, True, True, position, ts, size), None)
    emit(f"| offset: {offset} CreateTime: {ts} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] "
         f"endTxnMarker: {result} coordinatorEpoch: 0", index)
    return offset + 1, position + size


def _batch(batch: list[tuple[int, dict[str, Any], int]], offset: int, position: int, producer_id: int,
           emit: Any) -> tuple[int, int]:
    rendered = [(index, _key(record), _payload(record), ts) for index, record, ts in batch]
    size = 61 + sum(12 + len(k) + len(v) for _, k, v, _ in rendered)  # 61: the v2 batch header
    ts = batch[0][2]
    transactional = any("producerId" in record for _, record, _ in batch)
    emit(_header(offset, len(batch), producer_id, transactional, False, position, ts, size), None)
    for i, (index, key, payload, record_ts) in enumerate(rendered):
        value_size = -1 if payload == "<DELETE>" else len(payload)
        emit(f"| offset: {offset + i} CreateTime: {record_ts} keySize: {len(key)} valueSize: {value_size} "
             f"sequence: -1 headerKeys: [] key: {key} payload: {payload}", index)
    return offset + len(batch), position + size


def _key(record: dict[str, Any]) -> str:
    key = record["key"]
    return json.dumps({"type": str(key["type"]), "data": key["data"]}, separators=_COMPACT)


def _payload(record: dict[str, Any]) -> str:
    value = record.get("value")
    if value is None:
        return "<DELETE>"
    return json.dumps({"version": str(value["version"]), "data": value["data"]}, separators=_COMPACT)
