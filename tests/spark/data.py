"""A small multi-group dataset with injected violations, shared by the Spark tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kgspec.conformance.steady import write_steady_trace

FORMATS_DIR = Path(__file__).resolve().parent.parent / "data" / "formats"
GROUPS = 24
# Groups whose first steady-state response gets a wrong member epoch.
MUTATED = frozenset({"group-2", "group-5", "group-11", "group-17", "group-20"})


@dataclass(frozen=True)
class Dataset:
    native: Path  # generated, GROUPS groups, MUTATED diverge, one malformed line
    fixtures: tuple[Path, ...]  # the readers' format fixtures

    @property
    def all(self) -> list[Path]:
        return [self.native, *self.fixtures]


def make_dataset(directory: Path) -> Dataset:
    steady = directory / "steady.jsonl"
    write_steady_trace(steady, 1200, groups=GROUPS, members=3, partitions=6)
    out: list[str] = []
    done: set[str] = set()
    for i, line in enumerate(steady.read_text().splitlines()):
        obj = json.loads(line)
        gid = obj.get("request", {}).get("groupId")
        if gid in MUTATED and gid not in done and obj.get("tsMs", 0) >= 10_000:
            obj["response"]["memberEpoch"] += 5
            done.add(gid)
            line = json.dumps(obj, separators=(",", ":"))
        out.append(line)
        if i == 7:
            out.append("{not json")
            out.append("")
    assert done == MUTATED
    native = directory / "mutated.jsonl"
    native.write_text("\n".join(out) + "\n")
    fixtures = tuple(FORMATS_DIR / name for name in
                     ("native.jsonl.gz", "native_malformed.jsonl", "offsets.console.txt", "offsets.dump.txt",
                      "request.log"))
    return Dataset(native, fixtures)


def _admin_call(ts: int, api: int, version: int, request: dict[str, object], response: dict[str, object]) -> str:
    return json.dumps({"tsMs": ts, "requestHeader": {"requestApiKey": api, "requestApiVersion": version,
                                                     "clientId": "admin", "correlationId": 1},
                       "request": request, "response": response})


def make_admin_trace(directory: Path) -> Path:
    """A 3-group steady trace followed by ListGroups, DescribeGroups and StreamsGroupDescribe calls:
    right ones, one wrong for group-1 (line n-3), one judged as a whole (n-2), one wrong for
    group-2 (n-1); "elsewhere" is listed but never shown, "nope" only described."""
    steady = directory / "steady.jsonl"
    write_steady_trace(steady, 200, groups=3, members=2, partitions=4)
    lines = steady.read_text().splitlines()
    end = json.loads(lines[-1])["tsMs"] + 1
    listing = {"statesFilter": [], "typesFilter": []}
    dead = {"groupState": "Dead", "protocolType": "", "protocolData": "", "members": [],
            "authorizedOperations": -2147483648}
    lines += [
        # right: group-0 Stable; "elsewhere" is not in the trace, so not judged (and not a group)
        _admin_call(end, 16, 5, listing, {"errorCode": 0, "groups": [
            {"groupId": "group-0", "protocolType": "consumer", "groupState": "Stable", "groupType": "consumer"},
            {"groupId": "elsewhere", "protocolType": "consumer", "groupState": "Stable", "groupType": "consumer"}]}),
        # wrong for group-1 only
        _admin_call(end, 16, 4, {"statesFilter": []}, {"errorCode": 0, "groups": [
            {"groupId": "group-1", "protocolType": "consumer", "groupState": "Empty"},
            {"groupId": "group-2", "protocolType": "consumer", "groupState": "Stable"}]}),
        # judged as a whole
        _admin_call(end, 16, 5, listing, {"errorCode": 15, "groups": []}),
        # DescribeGroups v5 of two consumer groups (Dead, code 0) and an unknown one, wrong for group-2
        _admin_call(end, 15, 5, {"groups": ["group-0", "group-2", "nope"]}, {"groups": [
            {"errorCode": 0, "groupId": "group-0", **dead}, {"errorCode": 0, "groupId": "nope", **dead},
            {"errorCode": 0, "groupId": "group-2", **dead, "groupState": "Stable"}]}),
        # StreamsGroupDescribe of a consumer group
        _admin_call(end, 89, 0, {"groupIds": ["group-1"]}, {"groups": [
            {"errorCode": 69, "groupId": "group-1", "errorMessage": "Group group-1 is not a streams group."}]}),
    ]
    path = directory / "admin.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path
