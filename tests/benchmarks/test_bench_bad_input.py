"""`kgspec check` on 10^6 lines of mixed bad input: bounded time and memory, every line accounted for.

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_bad_input.py --benchmark-only

The input (built once, deterministically): a steady run of 100 healthy groups (its heartbeats)
with, after each of its lines, one bad line in rotation: text that is no JSON, a JSON line cut
in half, nesting beyond the limit, numbers beyond their type (``1e400``, ``Infinity``, floats,
a ``tsMs`` beyond int64), a call of an API no coordinator serves (skipped), a topic without id
or of 2^31 partitions, a regex with a huge repetition, a group id full of control characters,
a 64 KiB string, and every line that once crashed the checker (``tests/fuzz``). The bad lines
spread over 5,000 groups of their own.

The check runs in a child process so its CPU time and peak resident memory are its own;
``extra_info`` holds both, with lines per CPU second. Asserted: exit status 1, the accounting
identity (lines = events + malformed + skipped, 10^6 in all), the healthy groups conform (bad
lines elsewhere must not disturb them), and memory stays under 1 GiB.

Measured 2026-11-28 (shared 2-core machine): 77.5 CPU s (12.9k lines per CPU second), peak
1.70 GB, about half of it the report: every finding is listed up to 200 per group (here about
450k findings over 6,400 groups) and the JSON report is built as one string before it is written.
Later that day, the same input (513,313 findings over 7,600 groups, a 1.08 GB report), before
and after the report was streamed (findings spooled to disk as they are found, the report
written in pieces: ``kgspec/commands/report_json.py``), CPU s before / after, run back to back:
on a quiet machine 88.7 / 86.5; under load 102.9 / 103.8 and 90.4 / 103.8 (CPU time grows with
the machine's load); peak 4,464 MB before in every run, 330-331 MB after; the reports byte-identical.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.steady import write_steady_trace

from tests.fuzz.test_input_fuzz import REGRESSIONS

LINES = 1_000_000
BAD_GROUPS = 5_000

_CHILD = """\
import json, resource, sys, time
from kgspec.cli import main
start = time.process_time()
status = main(["check", "--quiet", "--json", sys.argv[2], sys.argv[1]])
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"status": status, "cpu": cpu, "peak": peak}), file=sys.stderr)
"""


def _bad_lines() -> list[str]:
    """One of each kind, with ``{g}`` where the group id goes."""
    call = ('{"tsMs":%s,"requestHeader":{"requestApiKey":68,"requestApiVersion":1},"request":{"groupId":"{g}",'
            '"memberId":"m","memberEpoch":0,"rebalanceTimeoutMs":30000,"subscribedTopicNames":["foo"]},'
            '"response":{"errorCode":0,"memberId":"m","memberEpoch":1,"heartbeatIntervalMs":5000,'
            '"assignment":null}}')
    kinds = [
        "this is no JSON {g}",
        call[:len(call) // 2],
        '{"tsMs":1,"tick":' + "[" * 2_000 + "]" * 2_000 + "}",
        call.replace('"memberEpoch":0', '"memberEpoch":1e400') % 1,
        call.replace('"memberEpoch":0', '"memberEpoch":-Infinity') % 1,
        call.replace("30000", "2.5e4") % 1,
        '{"tsMs":1,"requestHeader":{"requestApiKey":0,"requestApiVersion":9},"request":{},"response":{}}',
        '{"tsMs":1,"requestHeader":{"requestApiKey":9999,"requestApiVersion":0},"request":{"groupId":"{g}"},'
        '"response":{"errorCode":0}}',
        call.replace('"groupId":"{g}"', '"groupId":"{g}\\u001b[2J\\n{g}: conforms"') % 2,
        call.replace('"memberId":"m"', '"memberId":"' + "m" * 65_536 + '"', 1) % 3,
        call.replace('"subscribedTopicNames":["foo"]',
                     '"subscribedTopicRegex":"(a{1000}){1000}","topicPartitions":[]') % 4,
    ]
    for text in REGRESSIONS.values():
        for line in text.split("\n"):
            kinds.append(line.replace('"groupId":"g"', '"groupId":"{g}"').replace('"groupId":"k"', '"groupId":"{g}"')
                         .replace('"groupId":"c"', '"groupId":"{g}"'))
    return kinds


_TS = re.compile(r'^\{"tsMs":(\d+),')


def _mixed(healthy: Path) -> Iterator[str]:
    """Each healthy line, then a bad one at the same time (a bad line's own non-negative integer
    ``tsMs`` is moved there, so the trace's clock never goes back and the lines reach the model)."""
    kinds = _bad_lines()
    ts = "0"
    with healthy.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            yield line
            stamp = _TS.match(line)
            ts = stamp.group(1) if stamp else ts
            bad = kinds[n % len(kinds)].replace("{g}", f"bad-{n % BAD_GROUPS}")
            yield _TS.sub('{"tsMs":' + ts + ",", bad, count=1) + "\n"


@pytest.fixture(scope="module")
def mixed_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("bad-input")
    healthy = tmp / "healthy.jsonl"
    # the recorder's join phase is 7,101 lines (header and topics included); the rest are heartbeats
    assert write_steady_trace(healthy, LINES // 2 - 7_101) == LINES // 2
    path = tmp / "mixed.jsonl"
    with path.open("w", encoding="utf-8") as out:
        out.writelines(_mixed(healthy))
    return path


def test_check_mixed_bad_input(benchmark: Any, mixed_trace: Path, tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    figures: list[dict[str, Any]] = []

    def run() -> None:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(mixed_trace), str(report_path)],
                              capture_output=True, text=True, check=False)
        figures.append(json.loads(done.stderr.strip().splitlines()[-1]))

    benchmark.pedantic(run, rounds=1, iterations=1)
    got = figures[0]
    report = json.loads(report_path.read_text(encoding="utf-8"))
    (inp,) = report["inputs"]
    benchmark.extra_info.update(cpu_seconds=round(got["cpu"], 2), peak_mb=round(got["peak"] / 2**20),
                                lines_per_cpu_second=round(inp["lines"] / got["cpu"]),
                                malformed=inp["malformed"], skipped=inp["skipped"], events=inp["events"])
    assert got["status"] == 1
    assert inp["lines"] == LINES
    assert inp["lines"] == inp["events"] + inp["malformed"] + inp["skipped"]
    assert inp["malformed"] > LINES // 5  # a quarter of the bad lines reach the model
    assert inp["skipped"] > LINES // 100
    verdicts = {g["groupId"]: g["verdict"] for g in report["groups"]}
    assert [gid for gid in (f"group-{g}" for g in range(100)) if verdicts.get(gid) != "conforms"] == []
    assert got["peak"] < 2**30  # the findings are spooled to disk, not kept (docs/checking.md, "Limits")
