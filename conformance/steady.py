"""Generate a steady-state consumer trace: the benchmark input for ``kgspec check``.

``groups`` groups of ``members`` members each join, reconcile, then heartbeat every
``interval_ms`` until ``heartbeats`` heartbeats have been written. Responses come from
the model, so the trace conforms; writing is streamed (constant memory).
"""

from __future__ import annotations

import json
from pathlib import Path

from kgspec.conformance.recorder import TraceRecorder, owned


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
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for e in r.events:
            fh.write(json.dumps(e, separators=(",", ":")) + "\n")
            n += 1
        written = 0
        ts = max(ts, 10_000)
        while written < heartbeats:
            for (gid, mid), epoch in state.items():
                event = {
                    "tsMs": ts, "requestHeader": {"requestApiKey": 68, "requestApiVersion": 1, "clientId": mid},
                    "request": {"groupId": gid, "memberId": mid, "memberEpoch": epoch, "instanceId": None,
                                "rackId": None, "rebalanceTimeoutMs": -1, "subscribedTopicNames": None,
                                "subscribedTopicRegex": None, "serverAssignor": None, "topicPartitions": None},
                    "response": {"errorCode": 0, "errorMessage": None, "memberId": mid, "memberEpoch": epoch,
                                 "heartbeatIntervalMs": 5000, "assignment": None},
                }
                fh.write(json.dumps(event, separators=(",", ":")) + "\n")
                n += 1
                written += 1
                if written >= heartbeats:
                    break
            ts += interval_ms
    return n
