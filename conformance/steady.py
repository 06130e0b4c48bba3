"""Generate a steady-state consumer trace: the benchmark input for ``kgspec check``.

``groups`` groups of ``members`` members each join, reconcile, then heartbeat every
``interval_ms`` until ``heartbeats`` heartbeats have been written. Responses come from
the model, so the trace conforms; writing is streamed (constant memory).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from kgspec.conformance.recorder import TraceRecorder, owned

from kgspec.sim.trace import write_trace


def write_steady_trace(path: Path, heartbeats: int, *, groups: int = 100, members: int = 10,
                       partitions: int = 60, interval_ms: int = 5000) -> int:
    """Write the trace; returns the number of lines."""
    configs = {"group.consumer.assignment.interval.ms": 0}
    r = TraceRecorder("kafka-4.3", configs)
    for g in range(groups):
        r.topic(0, f"t{g}", partitions)
    state: dict[tuple[str, str], int] = {}
    given: dict[tuple[str, str], list[dict[str, object]]] = {}
    ts = 10
    for g in range(groups):
        for m in range(members):
            key = (f"group-{g}", f"g{g}-m{m}")
            resp = r.join(ts, key[1], [f"t{g}"], group=key[0])
            state[key], given[key] = resp["memberEpoch"], owned(resp)
            ts += 1
    # Heartbeat (acknowledging what was given) until everybody is stable.
    for _ in range(6):
        for key in state:
            resp = r.heartbeat(ts, key[1], state[key], group=key[0], topicPartitions=given[key])
            state[key] = resp["memberEpoch"]
            if resp["assignment"] is not None:
                given[key] = owned(resp)
            ts += 1
    return write_trace(chain(r.events, _steady_heartbeats(state, heartbeats, max(ts, 10_000), interval_ms)), path)


def _steady_heartbeats(state: dict[tuple[str, str], int], heartbeats: int, ts: int,
                       interval_ms: int) -> Iterator[dict[str, Any]]:
    """Every member heartbeats at its epoch each ``interval_ms``, answered unchanged (generated
    here, not by the model: a million calls through the recorder would be the slow part)."""
    written = 0
    while written < heartbeats:
        for (gid, mid), epoch in state.items():
            yield {
                "tsMs": ts, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "clientId": mid},
                "request": {"groupId": gid, "memberId": mid, "memberEpoch": epoch, "instanceId": None,
                            "rackId": None, "rebalanceTimeoutMs": -1, "subscribedTopicNames": None,
                            "subscribedTopicRegex": None, "serverAssignor": None, "topicPartitions": None},
                "response": {"errorCode": 0, "errorMessage": None, "memberId": mid, "memberEpoch": epoch,
                             "heartbeatIntervalMs": 5000, "assignment": None},
            }
            written += 1
            if written >= heartbeats:
                return
        ts += interval_ms
