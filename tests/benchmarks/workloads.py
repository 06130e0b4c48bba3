"""Generated workloads for the cost benchmarks (issue #19): traces recorded by driving the model.

``big_group``: one consumer group of ``members`` well-behaved clients on one topic of two
partitions per member. They join within one heartbeat interval (5 s), then heartbeat every 5 s,
reporting what they own, for ``rounds`` intervals; then a tenth of them leave and rejoin (a
rebalance), and everyone heartbeats for ``rounds`` more intervals. The assignment interval is
Kafka's default (1 s), so the target is recomputed at most once a second whatever the size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgspec.conformance.recorder import TraceRecorder, owned

HEARTBEAT_INTERVAL_MS = 5000


def big_group(path: Path, members: int, rounds: int = 3, profile: str = "kafka-4.3") -> int:
    """Write the trace to ``path``; return its number of events (header excluded)."""
    recorder = TraceRecorder(profile)
    recorder.topic(0, "t", 2 * members)
    step = max(1, HEARTBEAT_INTERVAL_MS // members)
    ts = 1
    epochs: dict[str, int] = {}
    given: dict[str, list[dict[str, Any]]] = {}
    ids = [f"m{i:05d}-0000000000000" for i in range(members)]  # 22 characters, as clients' ids

    def beat(mid: str) -> None:
        nonlocal ts
        if mid not in epochs:
            resp = recorder.join(ts, mid, ["t"])
        else:
            resp = recorder.heartbeat(ts, mid, epochs[mid], topicPartitions=given.get(mid, []))
        epochs[mid] = resp["memberEpoch"]
        if resp["assignment"] is not None:
            given[mid] = owned(resp)
        ts += step

    for _ in range(rounds + 1):
        for mid in ids:
            beat(mid)
    for mid in ids[::10]:
        recorder.heartbeat(ts, mid, -1)
        del epochs[mid]
        given.pop(mid, None)
        ts += step
    for _ in range(rounds + 1):
        for mid in ids:
            beat(mid)
    recorder.write(path)
    return len(recorder.events) - 1
