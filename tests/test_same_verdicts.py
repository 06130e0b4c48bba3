"""One run, written as a native trace, a broker request log, a kafka-dump-log file and
console-formatter JSON: `kgspec check` gives every format the same verdict.

Same verdict means: the same exit status; the same groups diverge; and, for each diverging
group, the first invariant named and the run step it is named at (a call, or for records the
call or timer that wrote them) are the same. What a format cannot express is listed in
docs/checking.md: a request log shows no target records, so `target-validity` is named only by
the formats that carry records; the request log still diverges at the same group.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.writers import write_console, write_dump_log, write_request_log
from kgspec.model.mutants import Mutants

from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.trace import write_trace
from tests.helpers import check

Events = list[dict[str, Any]]
FORMATS = ("native", "request-log", "dump-log", "console")


def _run(mutant: str | None = None) -> Events:
    """Two groups; joins, a crash (session expiry), a late joiner, a topic growing; 5% loss."""
    sim = Simulator(7, SimConfig(record_events=True, check=False, network=NetworkConfig(0.05, 0.0, 1, 20)),
                    Mutants((mutant,) if mutant else ()))
    for g in ("ga", "gb"):
        sim.set_topic(f"t-{g}", 6)
    for g in ("ga", "gb"):
        for _ in range(3):
            sim.add_client(g, (f"t-{g}",))
    sim.run_for(20000)
    sim.crash(sorted(n for n, c in sim.clients.items() if c.group_id == "ga")[0])
    sim.run_for(60000)
    sim.add_client("gb", ("t-gb",))
    sim.set_topic("t-ga", 8)
    sim.run_for(30000)
    return sim.finish()


def _write(events: Events, tmp: Path) -> dict[str, tuple[Path, list[int | None]]]:
    out: dict[str, tuple[Path, list[int | None]]] = {}
    native = tmp / "run.jsonl"
    write_trace(events, native)
    out["native"] = native, list(range(len(events)))
    writers: dict[str, tuple[str, Callable[..., list[int | None]]]] = {
        "request-log": ("kafka-request.log", write_request_log), "dump-log": ("offsets.dump.txt", write_dump_log),
        "console": ("offsets.console.txt", write_console)}
    for name, (file_name, writer) in writers.items():
        path = tmp / file_name
        with path.open("w", encoding="utf-8") as fh:
            out[name] = path, writer(events, fh)
    return out


def _step(events: Events, index: int) -> int:
    """The run step an event belongs to: records belong to the call or timer that wrote them."""
    while index > 0 and "record" in events[index]:
        index -= 1
    return index


def _verdict(events: Events, path: Path, lines: list[int | None]) -> dict[str, Any]:
    status, report = check(path)
    first: dict[str, tuple[str, int]] = {}
    for f in report["findings"]:
        index = lines[f["line"] - 1]
        assert index is not None, f
        if f["kind"] == "invariant":
            first.setdefault(f["groupId"], (f["field"], _step(events, index)))
    return {"status": status, "diverging": {g["groupId"] for g in report["groups"] if g["verdict"] != "conforms"},
            "groups": {g["groupId"] for g in report["groups"]}, "first_invariant": first,
            "kinds": {(f["groupId"], f["kind"], f.get("field")) for f in report["findings"]},
            "findings": report["findings"]}


def _verdicts(events: Events, tmp: Path) -> dict[str, dict[str, Any]]:
    return {name: _verdict(events, path, lines) for name, (path, lines) in _write(events, tmp).items()}


def test_conforming_run_passes_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = _run()
    written = _write(events, tmp_path)
    order = [i for i in written["request-log"][1] if i is not None]
    assert order != sorted(order)  # completion order: the reader has to re-order by arrival
    verdicts = _verdicts(events, tmp_path)
    for name in FORMATS:
        assert verdicts[name]["status"] == 0, (name, verdicts[name]["findings"][:3])
        assert verdicts[name]["groups"] == {"ga", "gb"}
        assert verdicts[name]["diverging"] == set()


# What each mutant breaks, and the formats that cannot name it (the request log has no target records).
MUTANTS = {"bump-while-revoking": ("epoch-monotonicity", ()),
           "assignor-double-assign": ("target-validity", ("request-log",))}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_run_gets_the_same_verdict(mutant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    invariant, blind = MUTANTS[mutant]
    verdicts = _verdicts(_run(mutant), tmp_path)
    native = verdicts["native"]
    assert native["status"] == 1
    assert native["diverging"] == {"ga", "gb"}
    assert {name for name, _ in native["first_invariant"].values()} == {invariant}
    for name in FORMATS:
        v = verdicts[name]
        assert (v["status"], v["diverging"]) == (1, native["diverging"]), name
        if name in blind:
            assert v["first_invariant"] == {}, name
            assert {g for g, kind, _ in v["kinds"] if kind == "response-mismatch"} == native["diverging"]
        else:
            assert v["first_invariant"] == native["first_invariant"], name


def _corrupt_double_ownership(events: Events) -> tuple[Events, int, str]:
    """Give one member, in a response and in the record of that step, a partition another member owns."""
    owned: dict[tuple[str, str], dict[str, set[int]]] = {}  # (group, member) -> topic -> partitions
    for i, event in enumerate(events):
        record = event.get("record")
        if record is not None and record["key"]["type"] == 8 and record["value"] is not None:
            data = record["value"]["data"]
            holding: dict[str, set[int]] = {}
            for tp in data["assignedPartitions"] + data["partitionsPendingRevocation"]:
                holding.setdefault(tp["topicId"], set()).update(tp["partitions"])
            owned[(record["key"]["data"]["groupId"], record["key"]["data"]["memberId"])] = holding
        response = event.get("response")
        if response is None or response["errorCode"] != 0 or not response.get("assignment"):
            continue
        gid, mid = event["request"]["groupId"], response["memberId"]
        written = next((j for j in range(i + 1, len(events)) if "record" not in events[j]
                        or (events[j]["record"]["key"]["type"] == 8
                        and events[j]["record"]["key"]["data"]["memberId"] == mid)), None)
        if written is None or "record" not in events[written] or events[written]["record"]["value"] is None:
            continue
        others = [(t, p) for (g, m), h in sorted(owned.items()) if g == gid and m != mid
                  for t, ps in sorted(h.items()) for p in sorted(ps)]
        if not others:
            continue
        topic_id, partition = others[0]
        out = json.loads(json.dumps(events))
        for holder in (out[i]["response"]["assignment"]["topicPartitions"],
                       out[written]["record"]["value"]["data"]["assignedPartitions"]):
            entry = next((tp for tp in holder if tp["topicId"] == topic_id), None)
            if entry is None:
                entry = {"topicId": topic_id, "partitions": []}
                holder.append(entry)
            entry["partitions"] = sorted({*entry["partitions"], partition})
            if "assignmentEpochs" in entry:
                entry["assignmentEpochs"] = [entry["assignmentEpochs"][0]] * len(entry["partitions"])
        return out, i, gid
    raise AssertionError("no step to corrupt")


def test_double_ownership_is_named_at_the_same_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events, step, gid = _corrupt_double_ownership(_run())
    verdicts = _verdicts(events, tmp_path)
    for name in FORMATS:
        v = verdicts[name]
        assert (v["status"], v["diverging"]) == (1, {gid}), (name, v["findings"])
        assert v["first_invariant"] == {gid: ("no-double-ownership", step)}, name
    # the call formats also say which response field departs; record formats see only the record
    assert (gid, "response-mismatch", "assignment") in verdicts["request-log"]["kinds"]
    assert (gid, "response-mismatch", "record") in verdicts["native"]["kinds"]
    assert {kind for _, kind, _ in verdicts["dump-log"]["kinds"]} == {"invariant"}
