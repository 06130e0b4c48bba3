"""What a finding's reader needs around it: when, which call, whose, and values in Kafka's words.

The checker knows the event a finding is about; :func:`event_context` turns it into the facts an
SRE looks for in a broker log (the time as the log wrote it, the API and version, the member,
client id and host, the static instance id) and keeps the topic names the group's ids stand for.
The ``render_*`` helpers print values the way Kafka's tools do: ``orders-3, orders-14`` for
partitions, ``0_3`` for streams tasks, ``UNKNOWN_MEMBER_ID (25)`` for an error code.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from kgspec.conformance.connection import client_host
from kgspec.conformance.events import Event
from kgspec.conformance.findings import jsonable
from kgspec.model.apis import API_KEYS_BY_NAME
from kgspec.model.errors import error_name

# API key -> Kafka's name of the message (ConsumerGroupHeartbeat, ...), for the APIs named in traces.
_CAMEL_NAMES: Final = {
    key: "".join(part.capitalize() for part in name.split("_"))
    for name, key in API_KEYS_BY_NAME.items()
}
_CLASSIC_NAMES: Final = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups",
                         16: "ListGroups", 8: "OffsetCommit", 9: "OffsetFetch", 42: "DeleteGroups"}
# Streams tasks fields of a StreamsGroupHeartbeat: their values are subtopology -> partitions.
TASK_FIELDS: Final = frozenset({"activeTasks", "standbyTasks", "warmupTasks"})
ERROR_FIELDS: Final = ("errorCode",)
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def api_label(event: Event) -> str | None:
    """``ConsumerGroupHeartbeat`` for key 68, the log's own name for a key-less API, else None."""
    key = event.api_key
    if key is not None:
        return _CLASSIC_NAMES.get(key) or _CAMEL_NAMES.get(key) or f"API {key}"
    if event.api_name:
        return "".join(part.capitalize() for part in event.api_name.split("_"))
    return None


def iso_time(ts_ms: float, tz: dt.tzinfo | None = None) -> str:
    """Epoch milliseconds as ISO-8601 with its zone, to the millisecond (``2025-06-01T00:00:57.832+00:00``):
    a request log's own time, read back in the zone it was written in (``--tz``)."""
    when = _EPOCH + dt.timedelta(milliseconds=ts_ms)  # exact: no float division, no rounding down
    return when.astimezone(tz or dt.UTC).isoformat(timespec="milliseconds")


def event_context(event: Event, tz: dt.tzinfo | None = None) -> dict[str, Any]:
    """The JSON-able facts of ``event`` a finding carries (keys of the report's finding, contract §2)."""
    out: dict[str, Any] = {}
    if event.ts_ms is not None:
        out["tsMs"] = int(event.ts_ms) if float(event.ts_ms).is_integer() else event.ts_ms
        with contextlib.suppress(OverflowError, ValueError):  # a tsMs no calendar holds: the number alone
            out["time"] = iso_time(event.ts_ms, tz)
            if event.total_time_ms:  # Kafka's request log stamps the line when the response left
                out["loggedAt"] = iso_time(event.ts_ms + event.total_time_ms, tz)
    if event.kind == "record":
        key = event.body.get("key")
        if isinstance(key, dict):
            out["recordType"] = key.get("type")
            data = key.get("data")
            if isinstance(data, dict) and isinstance(data.get("memberId"), str):
                out["memberId"] = data["memberId"]
        return out
    if event.kind != "call":
        return out
    api = api_label(event)
    if api is not None:
        out["api"] = api
    if event.api_version is not None:
        out["apiVersion"] = event.api_version
    req, resp = event.request, event.response
    member = req.get("memberId")
    if not member and isinstance(resp, dict) and isinstance(resp.get("memberId"), str):
        member = resp["memberId"]  # a first join: the id the coordinator gave
    if isinstance(member, str) and member:
        out["memberId"] = member
    if event.client_id is not None:
        out["clientId"] = event.client_id
    if event.connection:
        out["clientHost"] = client_host(event.connection)
    instance = req.get("instanceId", req.get("groupInstanceId"))
    if isinstance(instance, str):
        out["instanceId"] = instance
    return out


def render_error(code: Any) -> str:
    """``UNKNOWN_MEMBER_ID (25)``; anything that is no code as JSON."""
    if isinstance(code, int) and not isinstance(code, bool):
        return f"{error_name(code)} ({code})"
    return render_json(code)


def render_partitions(parts: Mapping[str, Iterable[int]] | None, names: Mapping[str, str] | None = None) -> str:
    """``{topic or id: [partitions]}`` as Kafka's tools print partitions: ``orders-3, orders-14``
    (ids shown as their topic's name where known); ``none`` when empty, ``null`` for None."""
    if parts is None:
        return "null"
    items = sorted(((names or {}).get(t, t), p) for t, ps in parts.items() for p in ps)
    return ", ".join(f"{t}-{p}" for t, p in items) if items else "none"


def render_tasks(tasks: Mapping[str, Iterable[int]] | None) -> str:
    """``{subtopology: [partitions]}`` as Kafka Streams names tasks: ``0_3, 1_0``."""
    if tasks is None:
        return "null"
    items = [f"{s}_{p}" for s, ps in sorted(tasks.items()) for p in sorted(ps)]
    return ", ".join(items) if items else "none"


def render_value(field: str | None, value: Any, names: Mapping[str, str] | None = None) -> str:
    """A finding's expected or observed value, in the words of its field."""
    leaf = (field or "").rsplit(".", 1)[-1]
    if leaf in ERROR_FIELDS:
        return render_error(value)
    if leaf in TASK_FIELDS and (value is None or _is_part_map(value)):
        return render_tasks(value)
    if leaf in ("assignment", "topicPartitions", "assigned", "pendingRevocation") and \
            (value is None or _is_part_map(value)):
        return render_partitions(value, names)
    return render_json(value)


def render_json(value: Any) -> str:
    return json.dumps(value, default=jsonable)


def _is_part_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, list) and all(isinstance(p, int) for p in v) for v in value.values())
