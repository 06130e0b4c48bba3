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
