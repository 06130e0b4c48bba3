"""``kgspec serve`` under N real librdkafka KIP-848 consumers in one group (N = 10, 50, 100).

Run: .venv/bin/python -m pytest tests/benchmarks/test_bench_serve.py -m slow --benchmark-only

The server runs as its own process (``kgspec serve``, default configs: 5 s heartbeat interval,
45 s session), so its CPU time is its own (read from /proc); the consumers run here, polled by
one thread. Measured, into ``extra_info``:

- ``stable_s``: from the first consumer's start until every consumer holds a disjoint, non-empty
  share of the topic's 2N partitions;
- ``rtt_p50_ms`` / ``rtt_p99_ms``: heartbeat round trips as librdkafka measures them (its
  ``GroupCoordinator`` connection's rtt statistics, one window a second; the median of the windows'
  p50 and the 99th percentile of their p99), auto-commit off so the connection carries heartbeats;
  they include the client's own scheduling, here N librdkafka instances on a shared machine;
- ``served_p50_ms`` / ``served_p99_ms``: the server's own time per heartbeat, from its frame read to
  its response written (the SIGUSR1 status line);
- ``calls_per_s`` (all calls: heartbeats, fetches' long polls, metadata), ``coordinator_calls_per_s``,
  ``cpu_ms_per_call`` and ``cpu_share``: over a steady window of ``WINDOW_S`` s (counts from the
  server's SIGUSR1 status line), the server's CPU time per call served and per second of wall time
  (``cpu_share`` < 1: one core suffices).

The test asserts that the group stays stable through the window: no heartbeat is answered with a
fencing error, every consumer keeps its share, and the server used less than one core.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("kio")

WINDOW_S = 30.0
FENCING = {25, 110, 111, 82}  # UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


class Status:
    """The server's status lines (SIGUSR1), read from its standard error."""

    PATTERN = re.compile(r"served (\d+) call\(s\) \((\d+) to the coordinator\)")
    SERVICE = re.compile(r"heartbeats served in ([\d.]+) ms \(p50\), ([\d.]+) ms \(p99\)")

    def __init__(self, server: subprocess.Popen[str]) -> None:
        self.server = server
        self.lines: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.server.stderr is not None
        for line in self.server.stderr:
            self.err.append(line)
            if "status:" in line:
                self.lines.put(line)

    def calls(self) -> tuple[int, int]:
        """(calls served, of which to the coordinator), now; ``service``: the server's heartbeat
        service times (p50, p99 ms) so far."""
        self.server.send_signal(signal.SIGUSR1)
        line = self.lines.get(timeout=30)
        match = self.PATTERN.search(line)
        assert match is not None
        service = self.SERVICE.search(line)
        self.service = (float(service.group(1)), float(service.group(2))) if service else None
        return int(match.group(1)), int(match.group(2))


class Group:
    """N consumers polled round-robin by one thread; their assignments and rtt windows."""

    def __init__(self, bootstrap: str, n: int) -> None:
        from confluent_kafka import Consumer

        self.assigned: list[set[int]] = [set() for _ in range(n)]
        self.rtt: list[tuple[float, float]] = []  # (p50, p99) ms of each stats window with heartbeats
        self._lock = threading.Lock()
        self.consumers = []
        for i in range(n):
            c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench", "group.protocol": "consumer",
                          "client.id": f"c{i}", "enable.auto.commit": False, "log_level": 2,
                          "statistics.interval.ms": 1000, "stats_cb": self._stats})
            c.subscribe(["t"], on_assign=self._assign(i), on_revoke=self._revoke(i))
            self.consumers.append(c)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _assign(self, i: int) -> Any:
        return lambda _c, parts: self.assigned[i].update(p.partition for p in parts)

    def _revoke(self, i: int) -> Any:
        return lambda _c, parts: self.assigned[i].difference_update(p.partition for p in parts)

    def _stats(self, raw: str) -> None:
        coordinator = json.loads(raw)["brokers"].get("GroupCoordinator")
        if coordinator and coordinator["rtt"]["cnt"]:
            with self._lock:
                self.rtt.append((coordinator["rtt"]["p50"] / 1000, coordinator["rtt"]["p99"] / 1000))

    def _poll(self) -> None:
        while not self._stop.is_set():
            for c in self.consumers:
                c.poll(0)
            time.sleep(0.01)

    def stable(self, partitions: int) -> bool:
        owned = [p for s in self.assigned for p in s]
        return all(self.assigned) and sorted(owned) == list(range(partitions))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        for c in self.consumers:
            c.close()


def _run(n: int, tmp: Path) -> dict[str, Any]:
    partitions = 2 * n
    trace = tmp / f"serve-{n}.jsonl"
    server = subprocess.Popen([sys.executable, "-m", "kgspec", "serve", "--port", "0", "--topic", f"t:{partitions}",
                               "--trace-out", str(trace)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    bootstrap = server.stdout.readline().split()[-1]
    status = Status(server)
    try:
        start = time.monotonic()
        group = Group(bootstrap, n)
        deadline = start + 120
        while not group.stable(partitions):
            assert time.monotonic() < deadline, f"{n} consumers not stable after 120 s"
            time.sleep(0.1)
        stable_s = time.monotonic() - start
        shares = [set(s) for s in group.assigned]
        lines_before = sum(1 for _ in trace.open())
        (all0, calls0), cpu0, t0 = status.calls(), _cpu_seconds(server.pid), time.monotonic()
        time.sleep(WINDOW_S)
        (all1, calls1), cpu1, t1 = status.calls(), _cpu_seconds(server.pid), time.monotonic()
        window = [json.loads(line) for line in trace.read_text().splitlines()[lines_before:]]
        fenced = [e for e in window if "requestHeader" in e and e["response"].get("errorCode") in FENCING]
        assert fenced == [], f"{len(fenced)} heartbeat(s) fenced in the steady window"
        assert [set(s) for s in group.assigned] == shares, "assignments moved in the steady window"
        group.close()
    finally:
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=120)
    assert server.returncode == 0, out + "".join(status.err)
    served, calls, cpu, wall = all1 - all0, calls1 - calls0, cpu1 - cpu0, t1 - t0
    p50s = sorted(p for p, _ in group.rtt)
    p99s = sorted(p for _, p in group.rtt)
    figures = {
        "consumers": n, "stable_s": round(stable_s, 2),
        "rtt_p50_ms": round(statistics.median(p50s), 2) if p50s else None,
        "rtt_p99_ms": round(p99s[min(len(p99s) - 1, int(len(p99s) * 0.99))], 2) if p99s else None,
        "calls_per_s": round(served / wall, 1), "coordinator_calls_per_s": round(calls / wall, 1),
        "cpu_ms_per_call": round(1000 * cpu / max(served, 1), 3),
        "cpu_share": round(cpu / wall, 3), "served_p50_ms": status.service and status.service[0],
        "served_p99_ms": status.service and status.service[1], "summary": out.strip().splitlines()[-1],
    }
    assert figures["cpu_share"] < 1.0, figures
    return figures


@pytest.mark.slow
@pytest.mark.parametrize("n", [10, 50, 100])
def test_bench_serve_kip848_group(benchmark: Any, n: int, tmp_path: Path) -> None:
    figures: dict[str, Any] = {}

    def run() -> None:
        figures.update(_run(n, tmp_path))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(figures)
    print(figures)
