"""The fast paths of checking a kafka-dump-log file give exactly what their general paths give.

Reading: the one-pass record line (``dump_log._common_record``) against the general path it
stands for. Checking: ``Record.from_json`` against its checked parse, ``target_overlaps``
against its sorting path, the streams state checks kept per member against
``invariants.streams.record_problems`` at every record, and whole reports with every fast path
switched off. Inputs: written runs (mutants included), odd lines and random mutations of lines.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.findings import Report
from kgspec.conformance.readers import dump_log, open_trace, read_dump_log
from kgspec.conformance.readers.jsonfast import loads, loads_long_run
from kgspec.conformance.writers import write_dump_log
from kgspec.invariants import streams
from kgspec.invariants import target as target_checks
from kgspec.invariants.target import TARGET_VALIDITY
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.mutants import Mutants
from kgspec.model.records import Record

from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.streams_client import streams_topology
from tests.readers_compare import item_reprs, mutated

DATA = Path(__file__).parent / "data" / "formats"


def _consumer_run(mutant: str | None = None) -> list[dict[str, Any]]:
    sim = Simulator(7, SimConfig(record_events=True, check=False, network=NetworkConfig(0.05, 0.0, 1, 20)),
                    Mutants((mutant,) if mutant else ()))
    for g in ("ga", "gb"):
        sim.set_topic(f"t-{g}", 6)
    for g in ("ga", "gb"):
        for _ in range(3):
            sim.add_client(g, (f"t-{g}",), static=g == "gb")
    sim.run_for(20000)
    sim.crash(sorted(n for n, c in sim.clients.items() if c.group_id == "ga")[0])
    sim.run_for(60000)
    sim.set_topic("t-ga", 8)
    sim.run_for(20000)
    return sim.finish()


def _streams_run(mutant: str | None = None) -> list[dict[str, Any]]:
    sim = Simulator(3, SimConfig(record_events=True, check=False, configs={"group.streams.num.standby.replicas": 1},
                                 network=NetworkConfig(0.05, 0.0, 1, 20)), Mutants((mutant,) if mutant else ()))
    sim.set_topic("s0", 4)
    sim.set_topic("s1", 2)
    for process in ("p0", "p0", "p1", "p1"):
        sim.add_streams_client("sg", process, streams_topology("two"))
    sim.run_for(30000)
    sim.crash_process("p0")
    sim.run_for(60000)
    sim.add_streams_client("sg", "p2", streams_topology("two"))
    sim.run_for(30000)
    return sim.finish()


def _dump(events: list[dict[str, Any]]) -> bytes:
    out = io.StringIO()
    write_dump_log(events, out)
    return out.getvalue().encode()


@pytest.fixture(scope="module")
def dumps() -> list[bytes]:
    return [_dump(_consumer_run()), _dump(_consumer_run("assignor-double-assign")),
            _dump(_consumer_run("bump-while-revoking")), _dump(_streams_run()),
            _dump(_streams_run("standby-on-active-process")), (DATA / "offsets.dump.txt").read_bytes()]


# --- reading -----------------------------------------------------------------------------


def _items(text: bytes, **options: Any) -> list[str]:
    return item_reprs(read_dump_log, text, **options)


def _general(monkeypatch: pytest.MonkeyPatch, text: bytes, **options: Any) -> list[str]:
    with monkeypatch.context() as patch:
        patch.setattr(dump_log, "_common_record", lambda content, line_no, ts_ms, keys: None)
        return _items(text, **options)


KEY = '{"type":"8","data":{"groupId":"g","memberId":"m"}}'
VALUE = ('{"version":"0","data":{"memberEpoch":2,"previousMemberEpoch":1,"state":0,"assignedPartitions":'
         '[{"topicId":"T","partitions":[0,1],"assignmentEpochs":[2,2]}],"partitionsPendingRevocation":[]}}')


def _record(key: str = KEY, payload: str = VALUE, meta: str = "offset: 3 CreateTime: 1700 keySize: 9 valueSize: 9") -> str:
    return f"| {meta} sequence: -1 headerKeys: [] key: {key} payload: {payload}\n"


ODD_LINES = [
    _record(), _record(), _record(payload="<DELETE>"),
    _record(meta="offset: 4 CreateTime: -1 keySize: 1"),  # no timestamp: keeps the previous one
    _record(meta="offset: 4 CreateTime: 0 keySize: 1"), _record(),
    _record(meta="offset: 5 LogAppendTime: 1800 keySize: 1"),
    _record(meta="offset: 6 NoTimestampType: -1 keySize: 1"),
    _record(meta="offset: 7 CreateTime: 17x0 keySize: 1"),
    _record(meta="offset: 8 CreateTime: 1900"),  # the number ends at the key
    _record(meta="offset: 9 keySize: 1 CreateTime: 2000 LogAppendTime: 1"),
    _record(meta="offset: 10 LogAppendTime: 1 CreateTime: 2100"),
    _record(KEY.replace('"8"', '"08"')), _record(KEY.replace('"8"', '"-8"')), _record(KEY.replace('"8"', '"٣"')),
    _record(KEY.replace('"8"', "8")), _record(KEY.replace('"8"', '"99999"')), _record(KEY.replace('"8"', '"x"')),
    _record(KEY.replace('"8"', "[8]")), _record(KEY.replace('"8"', "true")), _record("[1, 2]"), _record('"key"'),
    _record(KEY.replace('"type":"8",', "")), _record('{"type":"8","data":[]}'), _record('{"type":"8"}'),
    _record('{"data":{"groupId":"g","memberId":"m"},"type":"8"}'),  # other key order
    _record('{"type":"8","data":{"groupId":"g","memberId":"m"},"extra":1}'),
    _record('{"type":"8","data":{"groupId":"g","memberId":"m","nested":{"a":[1]}}}'),
    _record('{"type":"5","data":{"groupId":"g x payload: y","memberId":"m"}}', "<DELETE>"),
    _record(KEY, VALUE.replace('"0"', '"1"', 1)), _record(KEY, VALUE.replace('"0"', "0", 1)),
    _record(KEY, VALUE.replace('"0"', '"x"', 1)), _record(KEY, VALUE.replace('"version":"0",', "")),
    _record(KEY, VALUE.replace('"data":{', '"data":[{', 1)[:-2] + "}]}"), _record(KEY, "null"), _record(KEY, "[]"),
    _record(KEY, VALUE.replace('"memberEpoch":2', '"memberEpoch":12345678901234567890')),
    _record(KEY, VALUE.replace('"memberEpoch":2', '"memberEpoch":-9223372036854775809')),
    _record(KEY, VALUE.replace('"memberEpoch":2', '"memberEpoch":1234567890123456789')),
    _record(KEY, VALUE.replace('"memberEpoch":2', '"memberEpoch":2.50000000000000000001')),
    _record(KEY, VALUE.replace('"memberEpoch":2', '"memberEpoch":NaN')),
    _record(KEY, VALUE.replace('"memberEpoch":2', '"memberEpoch":1e400')),
    _record(KEY.replace('"m"', '"m1234567890123456789"'), VALUE),
    _record(KEY, VALUE.replace('"T"', '"\\ud800"')), _record(KEY, VALUE + " "), _record(KEY, VALUE[:-1]),
    _record(KEY, VALUE + "}"), _record(KEY, "<DELETE> "), _record(KEY[:-1]), _record(KEY, ""),
    _record(KEY, VALUE).replace(" payload: ", " payload:"), _record(KEY, VALUE).replace("\n", "\r\n"),
    "  " + _record(), _record().replace("| ", "|"), _record(" " + KEY),
    "| offset: 11 CreateTime: 2200 keySize: 4 valueSize: 10 key: Unknown record type 99 at offset 11, skipping.\n",
    "| offset: 12 CreateTime: 2300 key: Error at offset 12, skipping. boom\n",
    "| offset: 13 CreateTime: 2400 keySize: 4 valueSize: 4 sequence: 0 headerKeys: [] endTxnMarker: COMMIT\n",
    "| offset: 14 CreateTime: 2500 keySize: 4 valueSize: 4 sequence: 0 headerKeys: []\n",
    "baseOffset: 0 lastOffset: 1 count: 2 CreateTime: 2600 size: 380 magic: 2\n",
    "Dumping /var/kafka/__consumer_offsets-7/00000000000000000000.log\n", "   \n", "\n",
    _record().replace("key: ", "key: \xe9".encode("latin-1").decode("latin-1")),
]


def test_odd_dump_log_lines_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(ODD_LINES).encode("utf-8", "surrogateescape")
    fast = _items(text, start_ts_ms=5)
    assert fast == _general(monkeypatch, text, start_ts_ms=5)
    assert len(fast) == sum(1 for line in text.splitlines() if line.strip())
    invalid = text.replace(b"\xc3\xa9", b"\xe9")  # a line that is not UTF-8
    assert _items(invalid) == _general(monkeypatch, invalid)


def test_too_long_lines_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(ODD_LINES[:12]).encode()
    for limit in (40, 300, 400):
        assert _items(text, max_line_bytes=limit) == _general(monkeypatch, text, max_line_bytes=limit)


def test_mutated_dump_log_lines_as_the_general_path(monkeypatch: pytest.MonkeyPatch, dumps: list[bytes]) -> None:
    rng = random.Random(5)
    records = [line for dump in dumps for line in dump.splitlines(keepends=True) if line.startswith(b"|")]
    lines = []
    for _ in range(4000):  # flip, drop or insert a byte somewhere, up to three times
        lines.append(mutated(rng, rng.choice(records), rng.randint(0, 3), b'0123456789 ,:]}["-.{|', b'0123456789 ,:]}["'))
    text = b"".join(lines)
    assert _items(text) == _general(monkeypatch, text)


def test_written_dumps_as_the_general_path(monkeypatch: pytest.MonkeyPatch, dumps: list[bytes]) -> None:
    for text in dumps:
        assert _items(text) == _general(monkeypatch, text)
    mixed = b"".join(dumps)  # the same keys again, after other groups' records: the key memory
    assert _items(mixed) == _general(monkeypatch, mixed)


@pytest.mark.parametrize("text", [
    b'{"a":1234567890123456789}', b'{"a":12345678901234567890}', b'{"a":18446744073709551615}',
    b'{"a":18446744073709551616}', b'{"a":-9223372036854775808}', b'{"a":-9223372036854775809}',
    b'[99999999999999999999999]', b'{"a":[1,{"b":-12345678901234567890123}]}', b'{"a":1.2345678901234567890}',
    b'{"a":12345678901234567890e-3}', b'{"a":"12345678901234567890123"}', b'{"a":1e400}', b'[NaN, 1234567890123456789012]',
    b'{"a":1234567890123456789012,"a":1}', b'12345678901234567890123', b'"\\ud800 1234567890123456789"', b'{"a":}',
])
def test_long_runs_are_decoded_as_jsonfast_does(text: bytes) -> None:
    def decoded(how: Any) -> str:
        try:
            return repr(how(text))
        except ValueError as exc:
            return f"{type(exc).__name__}: {exc}"

    assert decoded(loads_long_run) == decoded(loads) == decoded(json.loads)


def test_a_remembered_key_is_a_copy() -> None:
    text = ("".join(_record() for _ in range(3))).encode()
    first, second, third = [item.body for item in read_dump_log(io.BytesIO(text))]  # type: ignore[union-attr]
    first["key"]["data"]["memberId"] = "changed"
    second["key"]["type"] = 0
    assert third["key"] == {"type": 8, "data": {"groupId": "g", "memberId": "m"}}
    assert first["key"]["data"] is not second["key"]["data"] is not third["key"]["data"]


# --- checking ----------------------------------------------------------------------------


BODIES: list[Any] = [
    {"key": {"type": 3, "data": {"groupId": "g"}}, "value": {"version": 0, "data": {"epoch": 1}}},
    {"key": {"type": 3, "data": {"groupId": "g"}}, "value": None},
    {"key": {"type": 3, "data": {"groupId": "g"}}},
    {"key": {"type": 3, "data": {"groupId": "g"}}, "value": {"data": {"epoch": 1}}},
    {"key": {"type": "3", "data": {"groupId": "g"}}, "value": None},
    {"key": {"type": True, "data": {"groupId": "g"}}, "value": None},
    {"key": {"type": 3, "data": {"groupId": "g"}}, "value": {"version": True, "data": {}}},
    {"key": {"type": 3, "data": {"groupId": "g"}}, "value": {"version": "2", "data": {}}},
    {"key": {"type": 3, "data": {"groupId": "g"}}, "value": {"version": 1.0, "data": {}}},
    {"key": {"type": 3, "data": []}, "value": None},
    {"key": {"type": 3, "data": {}}, "value": []},
    {"key": {"type": 3, "data": {}}, "value": {"version": 0, "data": None}},
    {"key": [], "value": None},
    {"value": None},
]


@pytest.mark.parametrize("body", BODIES)
def test_record_from_json_as_its_checked_parse(body: Any) -> None:
    def parse(how: Any) -> str:
        try:
            return repr(how(json.loads(json.dumps(body))))
        except ValueError as exc:
            return f"ValueError: {exc}"

    assert parse(Record.from_json) == parse(Record._checked_from_json)


def test_target_overlaps_as_the_sorting_path(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    for _ in range(3000):
        target = {f"m{rng.randrange(6)}": {t: frozenset(rng.sample(range(8), rng.randint(0, 4)))
                                           for t in rng.sample(["A", "B", "C"], rng.randint(0, 3))}
                  for _ in range(rng.randint(0, 5))}
        fast = target_checks.target_overlaps(target)
        with monkeypatch.context() as patch:
            patch.setattr(target_checks, "_disjoint", lambda target: False)
            assert fast == target_checks.target_overlaps(target)
        assert {name for name, _ in fast} <= {TARGET_VALIDITY}


def test_unchanged_subscriptions_keep_the_counts() -> None:
    rng = random.Random(4)
    group = ConsumerGroup("g", 0)
    for _ in range(2000):
        mid = f"m{rng.randrange(5)}"
        if rng.random() < 0.2:
            group.remove_member(mid)
            continue
        old = group.members.get(mid)
        member = old.copy() if old is not None and rng.random() < 0.7 else ConsumerMember(mid)
        if rng.random() < 0.3:
            member.subscribed_topic_names = tuple(sorted(rng.sample(["a", "b", "c"], rng.randint(0, 2))))
        if rng.random() < 0.3:
            member.subscribed_topic_regex = rng.choice(["", "x.*", "y.*"])
        group.put_member(member)
        names = Counter(n for m in group.members.values() for n in m.subscribed_topic_names)
        regexes = Counter(m.subscribed_topic_regex for m in group.members.values() if m.subscribed_topic_regex)
        assert group.subscribed_names == names
        assert group.subscribed_regexes == regexes


def _check(text: bytes, path: Path, **options: Any) -> tuple[dict[str, Any], TraceChecker]:
    path.write_bytes(text)
    report = Report()
    checker = TraceChecker(str(path), report, **options)
    checker.feed_all(open_trace(path))
    checker.finish()
    return report.to_json(), checker


def test_streams_checks_per_member_are_record_problems(monkeypatch: pytest.MonkeyPatch, dumps: list[bytes],
                                                       tmp_path: Path) -> None:
    kept = streams.ReplayedStateProblems.problems
    seen = Counter[str]()

    def compared(self: streams.ReplayedStateProblems, group: Any, record: Record, generation: int) -> Any:
        found = kept(self, group, record, generation)
        assert found == streams.record_problems(group, record)
        seen["state problems" if group is not None and streams.state_problems(group) else "none"] += 1
        return found

    monkeypatch.setattr(streams.ReplayedStateProblems, "problems", compared)
    rng = random.Random(2)
    for text in dumps[3:5]:
        lines = text.splitlines(keepends=True)
        members = sorted(set(re.findall(rb'"memberId":"([^"]+)"', text)))
        for _ in range(20):  # broken runs too: records dropped, swapped, repeated, edited, misattributed
            mutated = list(lines)
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(mutated))
                op = rng.randrange(5)
                if op == 0:
                    del mutated[at]
                elif op == 1 and at + 1 < len(mutated):
                    mutated[at], mutated[at + 1] = mutated[at + 1], mutated[at]
                elif op == 2:
                    mutated.insert(at, mutated[at])
                elif op == 3:
                    mutated[at] = re.sub(rb'"processId":"[^"]*"', b'"processId":"p9"', mutated[at])
                else:  # another member's copy of the record: it holds the same tasks
                    other = b'"memberId":"' + rng.choice(members) + b'"'
                    mutated.insert(at, re.sub(rb'"memberId":"[^"]+"', other, mutated[at], count=1))
            _check(b"".join(mutated), tmp_path / "s.dump.txt")
        _check(text, tmp_path / "s.dump.txt")
    assert seen["state problems"] > 10
    assert seen["none"] > 0


def test_streams_checks_skip_a_sound_group(monkeypatch: pytest.MonkeyPatch, dumps: list[bytes],
                                           tmp_path: Path) -> None:
    calls = Counter[str]()
    kept = streams.state_problems

    def counted(group: Any) -> Any:
        calls["state"] += 1
        return kept(group)

    monkeypatch.setattr(streams, "state_problems", counted)
    report, _ = _check(dumps[3], tmp_path / "s.dump.txt")
    assert report["findings"] == []
    assert calls["state"] == 0  # no member holds anything twice: nothing to list, nothing computed


def _general_checker(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(dump_log, "_common_record", lambda content, line_no, ts_ms, keys: None)
    patch.setattr(Record, "from_json", staticmethod(Record._checked_from_json))
    patch.setattr(target_checks, "_disjoint", lambda target: False)
    patch.setattr(streams.ReplayedStateProblems, "problems",
                  lambda self, group, record, generation: streams.record_problems(group, record))


def test_reports_as_the_general_paths(monkeypatch: pytest.MonkeyPatch, dumps: list[bytes], tmp_path: Path) -> None:
    texts = [*dumps, _dump(_consumer_run("lost-partition-epoch")), _dump(_consumer_run("grant-before-ack"))]
    rng = random.Random(8)
    lines = dumps[1].splitlines(keepends=True)
    for _ in range(6):
        mutated = list(lines)
        for _ in range(3):
            at = rng.randrange(len(mutated))
            mutated[at] = re.sub(rb"(?<=[:\[,])\d+(?=[,\]}])", lambda m: str(int(m.group()) + 1).encode(),
                                 mutated[at], count=1)
        texts.append(b"".join(mutated))
    for text in texts:
        for profile in (None, "kafka-4.1"):
            fast, _ = _check(text, tmp_path / "f.dump.txt", profile=profile)
            with monkeypatch.context() as patch:
                _general_checker(patch)
                general, _ = _check(text, tmp_path / "g.dump.txt", profile=profile)
            general["inputs"][0]["path"] = fast["inputs"][0]["path"]
            for finding in general["findings"]:
                finding["path"] = fast["inputs"][0]["path"]
            assert fast == general
