"""kgspec's Streams ``UserData`` for classic members of a streams group (profile ``kip`` only).

The seed (KIP-1071, "Compatibility, Deprecation and Migration Plan") says the Streams
``UserData`` of the classic protocol "will have to be extended with the missing
(topology-derived) data" so that the coordinator can translate JoinGroup / SyncGroup into the
streams protocol, but gives no format; Kafka never implemented it. This encoding is **kgspec's**,
chosen to be minimal and readable:

- the member's JoinGroup protocol metadata is an ordinary ``ConsumerProtocol`` Subscription
  (:mod:`kgspec.model.migration.protocol`) whose ``userData`` is UTF-8 JSON::

      {"version": "kgspec-streams/1", "processId": "p1", "topologyEpoch": 0,
       "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}], "standbyTasks": [...],
       "userEndpoint": {"host": "h", "port": 8080} | null, "clientTags": [{"key": "k", "value": "v"}]}

  (the field names are StreamsGroupHeartbeat's; owned warm-up tasks are reported as standby
  tasks, since the classic protocol has no warm-ups);
- the SyncGroup assignment the coordinator returns is a ``ConsumerProtocol`` Assignment at the
  member's subscription version with no partitions and ``userData`` =
  ``{"version": "kgspec-streams/1", "activeTasks": [...], "standbyTasks": [...]}``, warm-up
  tasks listed with the standby tasks (the seed: "translated to a standby task").

Anything else (no user data, not JSON, another ``version``, a missing field) is malformed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgspec.model.migration.protocol import (
    SchemaError,
    decode_assignment,
    decode_subscription,
    encode_assignment,
)
from kgspec.model.streams.member import ACTIVE, STANDBY, WARMUP
from kgspec.model.streams.records import tasks_json

USER_DATA_VERSION = "kgspec-streams/1"
Tasks = dict[str, frozenset[int]]


@dataclass(frozen=True, slots=True)
class StreamsSubscription:
    """What a classic Streams member's JoinGroup tells the coordinator."""

    process_id: str
    topology_epoch: int
    active: Tasks
    standby: Tasks
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    rack_id: str | None = None


def _parse_tasks(raw: Any, name: str) -> Tasks:
    if not isinstance(raw, list):
        raise SchemaError(f"{name} must be a list")
    out: dict[str, set[int]] = {}
    for e in raw:
        if not isinstance(e, dict) or not isinstance(e.get("subtopologyId"), str) \
                or not isinstance(e.get("partitions"), list) \
                or not all(isinstance(p, int) and not isinstance(p, bool) for p in e["partitions"]):
            raise SchemaError(f"{name} entries need a string subtopologyId and integer partitions")
        out.setdefault(e["subtopologyId"], set()).update(e["partitions"])
    return {s: frozenset(p) for s, p in out.items() if p}


def _load(user_data: bytes | None) -> dict[str, Any]:
    if user_data is None:
        raise SchemaError("no Streams user data")
    try:
        value = json.loads(user_data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise SchemaError("the Streams user data is not kgspec's JSON") from None
    if not isinstance(value, dict) or value.get("version") != USER_DATA_VERSION:
        raise SchemaError(f"the Streams user data is not {USER_DATA_VERSION}")
    return value


def encode_subscription_user_data(process_id: str, topology_epoch: int, active: Mapping[str, frozenset[int]],
                                  standby: Mapping[str, frozenset[int]], *,
                                  user_endpoint: tuple[str, int] | None = None,
                                  client_tags: Mapping[str, str] | None = None) -> bytes:
    value = {"version": USER_DATA_VERSION, "processId": process_id, "topologyEpoch": topology_epoch,
             "activeTasks": tasks_json(active), "standbyTasks": tasks_json(standby),
             "userEndpoint": None if user_endpoint is None else {"host": user_endpoint[0], "port": user_endpoint[1]},
             "clientTags": [{"key": k, "value": v} for k, v in sorted((client_tags or {}).items())]}
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def decode_streams_subscription(metadata: str) -> StreamsSubscription:
    """A JoinGroup protocol's metadata: the consumer Subscription, then kgspec's user data."""
    sub = decode_subscription(metadata)
    value = _load(sub.user_data)
    process_id, epoch = value.get("processId"), value.get("topologyEpoch")
    if not isinstance(process_id, str) or not isinstance(epoch, int) or isinstance(epoch, bool):
        raise SchemaError("processId (string) and topologyEpoch (integer) are required")
    endpoint = value.get("userEndpoint")
    if endpoint is not None and (not isinstance(endpoint, dict) or not isinstance(endpoint.get("host"), str)
                                 or not isinstance(endpoint.get("port"), int)):
        raise SchemaError("userEndpoint must be null or {host, port}")
    tags = value.get("clientTags", [])
    if not isinstance(tags, list) or not all(isinstance(t, dict) and isinstance(t.get("key"), str)
                                             and isinstance(t.get("value"), str) for t in tags):
        raise SchemaError("clientTags must be a list of {key, value}")
    return StreamsSubscription(
        process_id, epoch, _parse_tasks(value.get("activeTasks"), "activeTasks"),
        _parse_tasks(value.get("standbyTasks"), "standbyTasks"),
        None if endpoint is None else (endpoint["host"], int(endpoint["port"])),
        {t["key"]: t["value"] for t in tags}, sub.rack_id or None)


def encode_streams_assignment(active: Mapping[str, frozenset[int]], standby: Mapping[str, frozenset[int]],
                              version: int) -> str:
    """The SyncGroup assignment of a classic Streams member (base64, as Kafka prints bytes)."""
    user_data = json.dumps({"version": USER_DATA_VERSION, "activeTasks": tasks_json(active),
                            "standbyTasks": tasks_json(standby)}, separators=(",", ":")).encode("utf-8")
    return encode_assignment([], version, user_data)


def encode_role_assignment(tasks: Mapping[str, Mapping[str, frozenset[int]]], version: int) -> str:
    """:func:`encode_streams_assignment` of tasks by role: the classic protocol has no warm-ups, so
    they are listed with the standby tasks (the seed: "translated to a standby task")."""
    standby = dict(tasks.get(STANDBY, {}))
    for sid, parts in tasks.get(WARMUP, {}).items():
        standby[sid] = standby.get(sid, frozenset()) | parts
    return encode_streams_assignment(tasks.get(ACTIVE, {}), standby, version)


def decode_streams_assignment(data: str) -> tuple[Tasks, Tasks]:
    """(active, standby) of an assignment :func:`encode_streams_assignment` wrote."""
    value = _load(decode_assignment(data).user_data)
    return _parse_tasks(value.get("activeTasks"), "activeTasks"), _parse_tasks(value.get("standbyTasks"),
                                                                                 "standbyTasks")
