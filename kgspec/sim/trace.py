"""Contract trace events (``shared/contracts/trace-format.md``) and writing them to a file."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

FORMAT = "kgspec-trace/1"
CONSUMER_GROUP_HEARTBEAT = 68


def header_event(profile: str, configs: dict[str, Any]) -> dict[str, Any]:
    return {"header": {"format": FORMAT, "profile": profile, "configs": dict(configs)}}


def call_event(ts: int, client_id: str, correlation_id: int, request: dict[str, Any],
               response: dict[str, Any], api_version: int = 1,
               api_key: int = CONSUMER_GROUP_HEARTBEAT) -> dict[str, Any]:
    return {
        "tsMs": ts,
        "requestHeader": {"requestApiKey": api_key, "requestApiVersion": api_version,
                          "clientId": client_id, "correlationId": correlation_id},
        "request": request,
        "response": response,
    }


def topic_event(ts: int, name: str, topic_id: str | None, partitions: int | None) -> dict[str, Any]:
    if topic_id is None or partitions is None:
        return {"tsMs": ts, "topic": {"name": name, "deleted": True}}
    return {"tsMs": ts, "topic": {"name": name, "topicId": topic_id, "partitions": partitions}}


def tick_event(ts: int, **fields: Any) -> dict[str, Any]:
    """Time passes; ``coordinatorFailover=True`` marks a coordinator failover (our addition)."""
    return {"tsMs": ts, "tick": dict(fields)}


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "wt", encoding="utf-8")
    return path.open("w", encoding="utf-8")


def write_trace(events: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write events as JSON Lines (gzip when the name ends in .gz); returns the line count."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with _open(target) as out:
        for event in events:
            out.write(json.dumps(event, separators=(",", ":")))
            out.write("\n")
            count += 1
    return count
