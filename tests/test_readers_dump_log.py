"""kafka-dump-log --offsets-decoder output."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from kgspec.conformance.events import Event, Malformed, ReadItem, Skipped
from kgspec.conformance.readers import open_trace, read_dump_log

DATA = Path(__file__).parent / "data" / "formats"
M1 = "XoMVSOsQTvau-Xv4y2-vZg"
FOO = "JUxmFSdeRnSLhXMi3QDX9g"


def _read(text: str, **kwargs: float) -> list[ReadItem]:
    return list(read_dump_log(io.BytesIO(text.encode()), **kwargs))  # type: ignore[arg-type]


def test_fixture_exactly() -> None:
    path = DATA / "offsets.dump.txt"
    items = list(open_trace(path))
    assert len(items) == sum(1 for line in path.read_text().splitlines() if line.strip()) == 17
    assert [i.line for i in items] == list(range(1, 18))
    skipped = {i.line: i.reason for i in items if isinstance(i, Skipped)}
    assert skipped == {
        1: "dump-log file header", 2: "dump-log file header", 3: "dump-log batch header",
        9: "dump-log batch header", 12: "dump-log batch header",
        13: "Unknown record type 32767 at offset 7, skipping.",
        14: "dump-log batch header", 15: "control record", 16: "dump-log batch header",
    }
    bad = [i for i in items if isinstance(i, Malformed)]
    assert [(m.line, m.field) for m in bad] == [(17, "key")]
    assert bad[0].message.startswith("kafka-dump-log could not decode the record: Error at offset 9, skipping.")

    records = [i for i in items if isinstance(i, Event)]
    assert [(r.line, r.kind, r.ts_ms, r.body["key"]["type"], r.group_id) for r in records] == [
        (4, "record", 1748779200205, 5, "g"), (5, "record", 1748779200205, 3, "g"),
        (6, "record", 1748779200205, 7, "g"), (7, "record", 1748779200205, 6, "g"),
        (8, "record", 1748779200205, 8, "g"), (10, "record", 1748779260000, 8, "g"),
        (11, "record", 1748779260001, 5, "g"),
    ]
    assert records[4].body == {
        "key": {"type": 8, "data": {"groupId": "g", "memberId": M1}},
        "value": {"version": 0, "data": {"memberEpoch": 1, "previousMemberEpoch": 0, "state": 0,
                                         "assignedPartitions": [{"topicId": FOO, "partitions": [0, 1, 2, 3, 4, 5]}],
                                         "partitionsPendingRevocation": []}},
    }
    assert records[1].body["value"] == {"version": 0, "data": {"epoch": 1, "metadataHash": 0}}
    assert records[5].body == {"key": {"type": 8, "data": {"groupId": "g", "memberId": M1}}, "value": None}
    assert records[6].body["value"] is None


def test_without_metadata_and_odd_lines() -> None:
    text = (
        '| offset: 0 CreateTime: 500 keySize: 1 valueSize: 1 sequence: 0 headerKeys: [] key: {"type":"3","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":1}}\n'
        '| key: {"type":"3","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":2}}\n'
        '| offset: 2 NoTimestampType: -1 keySize: 1 valueSize: 1 key: {"type":"3","data":{"groupId":"g"}} payload: <DELETE>\n'
        '| offset: 3 LogAppendTime: 900 keySize: 1 valueSize: 1 key: {"type":"5","data":{"groupId":"g x payload: y","memberId":"m"}} payload: <DELETE>\n'
        '| offset: 4 CreateTime: 901 keySize: 1 valueSize: 1 sequence: 0 headerKeys: []\n'
        '| offset: 5 CreateTime: 902 keySize: 1 valueSize: 1 key: {"type":"3","data":{"groupId":"g"}} payload: {"version":"0","data":\n'
        '| offset: 6 CreateTime: 903 keySize: 1 valueSize: 1 key: {"type":"x","data":{"groupId":"g"}} payload: <DELETE>\n'
        'offset: 7 position: 0 CreateTime: 904 isvalid: true size: 80 magic: 1 compresscodec: none crc: 1\n'
        'Found 12 invalid bytes at the end of 00000000000000000000.log\n'
        'something else\n'
    )
    items = _read(text, start_ts_ms=100)
    events = [(i.line, i.ts_ms, i.body["key"]["type"], i.body["value"]) for i in items if isinstance(i, Event)]
    assert events == [
        (1, 500, 3, {"version": 0, "data": {"epoch": 1}}),
        (2, 500, 3, {"version": 0, "data": {"epoch": 2}}),  # no timestamp: keeps the previous one
        (3, 500, 3, None),
        (4, 900, 5, None),  # " payload: " inside a key string
    ]
    assert isinstance(items[3], Event)
    assert items[3].group_id == "g x payload: y"
    assert items[4] == Skipped(5, "record without a decoded key (dump taken without --offsets-decoder)")
    assert isinstance(items[5], Malformed)
    assert items[5].message.startswith("dump-log record is broken: ")
    assert items[6] == Malformed(7, "`record.key.type` must be an integer", "record.key.type")
    assert items[7:] == [Skipped(8, "dump-log batch header"), Skipped(9, "dump-log trailer"),
                         Skipped(10, "not a dump-log record line")]
    assert _read('| key: {"type":"3","data":{"groupId":"g"}} payload: <DELETE>\n', start_ts_ms=100)[0].ts_ms == 100  # type: ignore[union-attr]


def test_huge_record_line() -> None:
    items = _read("Dumping x\n| key: " + "x" * 3000 + "\n| offset: 1\n", max_line_bytes=1000)
    assert items == [Skipped(1, "dump-log file header"), Malformed(2, "line is longer than 1000 bytes"),
                     Skipped(3, "record without a decoded key (dump taken without --offsets-decoder)")]


@pytest.mark.parametrize("text", ["\u00b2", "--5", "-", "5\u0660"])
def test_non_ascii_or_doubled_sign_types_are_malformed_not_a_crash(text: str) -> None:
    """Only ASCII digits with at most one minus become an int; anything else is reported."""
    line = ('| offset: 0 CreateTime: 5 keySize: 1 valueSize: 1 sequence: -1 headerKeys: [] key: '
            f'{{"type":"{text}","data":{{"groupId":"g"}}}} payload: {{"version":"0","data":{{}}}}\n')
    items = list(read_dump_log(io.BytesIO(("Dumping x\n" + line).encode("utf-8"))))
    assert len(items) == 2
    assert isinstance(items[1], Malformed)
    assert (items[1].line, items[1].message, items[1].field) == (
        2, "`record.key.type` must be an integer", "record.key.type")
