"""Kafka's broker request log (``kafka-request.log``) of a run's calls.

Each call becomes the line ``RequestChannel.updateRequestMetrics`` writes when the
response is sent::

    [2025-06-01 12:00:00,203] DEBUG Completed request:{json} (kafka.request.logger)

with the JSON of ``RequestConvertToJson.requestDescMetrics`` (4.3): ``isForwarded``,
``requestHeader`` (``RequestHeaderDataJsonConverter`` plus ``requestApiKeyName``),
``request``, ``response``, ``connection``, ``totalTimeMs`` and the other timings (doubles),
``securityProtocol``, ``principal``, ``listener``, ``clientInformation``. The bracketed time
is the completion, ``arrival + totalTimeMs``, and lines are written in completion order,
so the reader must re-order them by arrival.

A request log shows no topic events: a topic creation becomes the CreateTopics call
(v7) that made it, a growth a CreatePartitions call (v3) and a deletion a DeleteTopics
call (v6), each with ``totalTimeMs`` 0 so that the topic's time is the call's. Ticks
and records have no request-log form and are left out. ``total_time_ms(i)`` gives each
call's time in the coordinator (whole milliseconds, so the log's millisecond clock
loses nothing); within one arrival millisecond times are made non-decreasing so that
the reader's (arrival, line) order is the run's order.

Several brokers (``brokers=["10.0.0.1:9092", ...]``): a cluster's group coordinator is the
leader of the group's ``__consumer_offsets`` partition, so each group's calls come from one
broker, named in the ``connection`` field, and a coordinator failover (a ``tick`` with
``coordinatorFailover``) moves every group to the next broker, as a leader change would. The
group's broker is ``brokers[(crc32(groupId) + failovers so far) % len(brokers)]``; topic calls
come from the first broker. ``broker_of`` (line by line) lets a test split the log per broker.
"""

from __future__ import annotations

import datetime as dt
import heapq
import json
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from kgspec.model.config import is_number

from ..connection import broker_of as connection_broker
from ..readers.topics import CREATE_PARTITIONS, CREATE_TOPICS, DELETE_TOPICS, METADATA, ZERO_UUID

_COMPACT = (",", ":")
API_KEY_NAMES = {METADATA: "METADATA", CREATE_TOPICS: "CREATE_TOPICS", DELETE_TOPICS: "DELETE_TOPICS",
                 CREATE_PARTITIONS: "CREATE_PARTITIONS", 11: "JOIN_GROUP", 12: "HEARTBEAT", 13: "LEAVE_GROUP",
                 14: "SYNC_GROUP", 68: "CONSUMER_GROUP_HEARTBEAT", 69: "CONSUMER_GROUP_DESCRIBE", 88: "STREAMS_GROUP_HEARTBEAT",
                 89: "STREAMS_GROUP_DESCRIBE", 8: "OFFSET_COMMIT", 9: "OFFSET_FETCH", 47: "OFFSET_DELETE",
                 32: "DESCRIBE_CONFIGS", 44: "INCREMENTAL_ALTER_CONFIGS",
                 42: "DELETE_GROUPS", 28: "TXN_OFFSET_COMMIT", 27: "WRITE_TXN_MARKERS"}
_ADMIN_TIMEOUT_MS = 30000


def default_total_time(index: int) -> float:
    """A spread of whole-millisecond call times: completion order then differs from arrival order."""
    return float((index * 7) % 5)


def write_request_log(events: Iterable[dict[str, Any]], out: TextIO, *,
                      start: dt.datetime = dt.datetime(2025, 6, 1, tzinfo=dt.UTC),
                      total_time_ms: Callable[[int], float] = default_total_time,
                      connection: str = "127.0.0.1:9092-127.0.0.1:{port}-0",
                      brokers: Sequence[str] | None = None) -> list[int | None]:
    """Write the calls and topic changes of ``events``; returns the native event index per line.

    ``tsMs`` are read as milliseconds after ``start`` (in UTC, as the reader assumes) and must
    not decrease (a run's events are in time order). Streams: only calls not yet completed
    at the current arrival time are held. ``brokers``: each group's calls come from its
    coordinator's address, which moves at each failover (see the module doc); ``connection`` is
    then ignored.
    """
    lines: list[int | None] = []
    base_ms = int(start.timestamp() * 1000)
    pending: list[tuple[float, int, float, dict[str, Any]]] = []  # heap of (completion, index, total, body)
    same_arrival: list[tuple[float, float, int, dict[str, Any]]] = []  # (arrival, total, index, body)
    known: dict[str, tuple[str, int]] = {}
    failovers = 0

    def settle() -> None:
        _monotone_within_arrival(same_arrival)
        for arrival, total, index, body in same_arrival:
            heapq.heappush(pending, (arrival + total, index, total, body))
        same_arrival.clear()

    def release(until: float) -> None:
        while pending and pending[0][0] <= until:
            completion, index, total, body = heapq.heappop(pending)
            body["totalTimeMs"] = total
            at = base_ms + int(completion)
            stamp = dt.datetime.fromtimestamp(at / 1000, dt.UTC)
            out.write(f"[{stamp:%Y-%m-%d %H:%M:%S},{at % 1000:03d}] DEBUG Completed request:"
                      f"{json.dumps(body, separators=_COMPACT)} (kafka.request.logger)\n")
            lines.append(index)

    for index, event in enumerate(events):
        tick = event.get("tick")
        if brokers and type(tick) is dict and tick.get("coordinatorFailover"):
            failovers += 1
        body = _call_body(event, index, known, total_time_ms,
                          connection if not brokers else _broker_connection(event, brokers, failovers))
        if body is None:
            continue
        arrival = float(event["tsMs"])
        if same_arrival and arrival != same_arrival[0][0]:
            if arrival < same_arrival[0][0]:
                raise ValueError(f"event {index}: tsMs {arrival} goes back; events must be in time order")
            settle()
            release(arrival)  # later calls arrive at or after this, so complete no earlier
        same_arrival.append((arrival, float(body["totalTimeMs"]), index, body))
    settle()
    release(float("inf"))
    return lines


def _broker_connection(event: dict[str, Any], brokers: Sequence[str], failovers: int) -> str:
    """The connection template of the broker that coordinates the event's group now."""
    request = event.get("request")
    group = request.get("groupId") if type(request) is dict else None
    if type(group) is not str:
        return f"{brokers[0]}-127.0.0.1:{{port}}-0"
    broker = brokers[(zlib.crc32(group.encode("utf-8")) + failovers) % len(brokers)]
    return f"{broker}-127.0.0.1:{{port}}-0"


def broker_of(line: str) -> str | None:
    """The broker address of a written line (the ``connection`` field's first part)."""
    at = line.find('"connection":"')
    if at < 0:
        return None
    start = at + len('"connection":"')
    return connection_broker(line[start:line.index('"', start)])


def _monotone_within_arrival(entries: list[tuple[float, float, int, dict[str, Any]]]) -> None:
    """Calls of one arrival time never complete before earlier ones: a backwards running minimum."""
    floor = float("inf")
    for i in range(len(entries) - 1, -1, -1):
        arrival, total, index, body = entries[i]
        floor = min(floor, total)
        entries[i] = (arrival, floor, index, body)


def _call_body(event: dict[str, Any], index: int, known: dict[str, tuple[str, int]],
               total_time_ms: Callable[[int], float], connection: str) -> dict[str, Any] | None:
    if "requestHeader" in event:
        header = dict(event["requestHeader"])
        api: int | None = header.get("requestApiKey")
        name = API_KEY_NAMES.get(api, f"API_{api}") if api is not None else None
        log_header = {"requestApiKey": api, "requestApiVersion": header.get("requestApiVersion", 0),
                      "correlationId": header.get("correlationId", index),
                      "clientId": header.get("clientId", ""),
                      "requestApiKeyName": header.get("requestApiKeyName", name)}
        if api is None:  # an API known by name only (the Connect draft's have no Kafka key)
            del log_header["requestApiKey"]
        response = event["response"]
        if "throttleTimeMs" not in response:
            response = {"throttleTimeMs": 0, **response}
        # a call's own totalTimeMs (a parked classic call) is kept; others get total_time_ms
        total = event.get("totalTimeMs")
        return _body(log_header, event["request"], response,
                     float(total) if is_number(total) else float(total_time_ms(index)),
                     event.get("connection") or connection.format(port=_client_port(log_header["clientId"])))
    topic = event.get("topic")
    if topic is None:
        return None
    return _admin_body(topic, index, known, connection.format(port=39999))


def _client_port(client_id: str) -> int:
    """One connection per client, as a long-lived client keeps (a stable port from its id)."""
    return 32768 + zlib.crc32(client_id.encode("utf-8")) % 28000


def _admin_body(topic: dict[str, Any], index: int, known: dict[str, tuple[str, int]],
                connection: str) -> dict[str, Any]:
    name = topic["name"]
    if topic.get("deleted"):
        topic_id = known.pop(name, (topic.get("topicId") or ZERO_UUID, 0))[0]
        return _admin(DELETE_TOPICS, 6, index, {"topics": [{"name": name, "topicId": ZERO_UUID}], "timeoutMs": _ADMIN_TIMEOUT_MS},
                      {"throttleTimeMs": 0, "responses": [{"name": name, "topicId": topic_id, "errorCode": 0,
                                                           "errorMessage": None}]}, connection)
    topic_id, partitions = topic["topicId"], topic["partitions"]
    before = known.get(name)
    known[name] = (topic_id, partitions)
    if before is not None and before[0] == topic_id:
        return _admin(CREATE_PARTITIONS, 3, index, {"topics": [{"name": name, "count": partitions, "assignments": None}],
                                     "timeoutMs": _ADMIN_TIMEOUT_MS, "validateOnly": False},
                      {"throttleTimeMs": 0, "results": [{"name": name, "errorCode": 0, "errorMessage": None}]},
                      connection)
    return _admin(CREATE_TOPICS, 7, index, {"topics": [{"name": name, "numPartitions": partitions, "replicationFactor": 1,
                                             "assignments": [], "configs": []}],
                                 "timeoutMs": _ADMIN_TIMEOUT_MS, "validateOnly": False},
                  {"throttleTimeMs": 0, "topics": [{"name": name, "topicId": topic_id, "errorCode": 0,
                                                    "errorMessage": None, "numPartitions": partitions,
                                                    "replicationFactor": 1, "configs": []}]}, connection)


def _admin(api: int, version: int, index: int, request: dict[str, Any], response: dict[str, Any],
           connection: str) -> dict[str, Any]:
    header = {"requestApiKey": api, "requestApiVersion": version, "correlationId": index, "clientId": "admin-1",
              "requestApiKeyName": API_KEY_NAMES[api]}
    return _body(header, request, response, 0.0, connection)


def _body(header: dict[str, Any], request: dict[str, Any], response: dict[str, Any], total: float,
          connection: str) -> dict[str, Any]:
    return {"isForwarded": False, "requestHeader": header, "request": request, "response": response,
            "connection": connection, "totalTimeMs": total, "requestQueueTimeMs": 0.0, "localTimeMs": total,
            "remoteTimeMs": 0.0, "throttleTimeMs": 0, "responseQueueTimeMs": 0.0, "sendTimeMs": 0.0,
            "securityProtocol": "PLAINTEXT", "principal": "User:ANONYMOUS", "listener": "PLAINTEXT",
            "clientInformation": {"softwareName": "apache-kafka-java", "softwareVersion": "4.3.0"}}
