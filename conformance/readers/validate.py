"""Strict validation of one event object of the contract (``trace-format.md`` §1).

Shared by the native reader and by the request-log reader (whose JSON, once given a
``tsMs``, is a native call event). Messages name the offending field in backquotes.
"""

from __future__ import annotations

import re
from typing import Any, Final

from kgspec.model.config import is_number

from ..events import Event, Malformed

KIND_KEYS: Final = ("header", "requestHeader", "topic", "record", "tick")
_UUID_RE: Final = re.compile(r"[A-Za-z0-9_-]{22}")
# Times are Kafka's int64 milliseconds (any epoch, negative too); a number beyond them is no time.
MAX_ABS_TIME_MS: Final = (1 << 63) - 1


def is_int(value: object) -> bool:
    return type(value) is int  # not bool, which is an int subclass


def kind_key(obj: dict[str, Any], line: int) -> str | Malformed:
    """The one kind key of an event, or why there is not exactly one."""
    if "requestHeader" in obj and "record" not in obj and "topic" not in obj and "tick" not in obj \
            and "header" not in obj:
        return "requestHeader"  # the common case: a call
    found = [k for k in KIND_KEYS if k in obj]
    if len(found) == 1:
        return found[0]
    if not found:
        return Malformed(line, "event has none of `header`, `requestHeader`, `topic`, `record`, `tick`")
    if len(found) == 2:
        return Malformed(line, f"event has both `{found[0]}` and `{found[1]}`", found[1])
    listed = ", ".join(f"`{k}`" for k in found)
    return Malformed(line, f"event has more than one kind: {listed}", found[1])


def timestamp(obj: dict[str, Any], line: int) -> float | Malformed:
    if "tsMs" not in obj:
        return Malformed(line, "missing `tsMs`", "tsMs")
    ts = obj["tsMs"]
    if not is_number(ts):
        return Malformed(line, "`tsMs` must be a number", "tsMs")
    if not -MAX_ABS_TIME_MS <= ts <= MAX_ABS_TIME_MS:
        return Malformed(line, "`tsMs` is beyond Kafka's 64-bit millisecond times", "tsMs")
    return ts


def call_event(obj: dict[str, Any], line: int, ts: float) -> Event | Malformed:
    hdr, request, response = obj["requestHeader"], obj.get("request"), obj.get("response")
    if type(hdr) is dict and type(request) is dict and type(response) is dict:
        # Fast path: every field well-typed (exact types: json gives no subclasses). Anything
        # else goes through the checks below, which name the first problem.
        api_key, api_name = hdr.get("requestApiKey"), hdr.get("requestApiKeyName")
        version, client_id = hdr.get("requestApiVersion"), hdr.get("clientId")
        total, connection = obj.get("totalTimeMs"), obj.get("connection")
        if type(api_key) is int and (api_name is None or (type(api_name) is str and api_name)) \
                and (version is None or type(version) is int) and (client_id is None or type(client_id) is str) \
                and (total is None or (is_number(total) and 0 <= total <= MAX_ABS_TIME_MS)) \
                and (connection is None or type(connection) is str):
            return Event(line, "call", ts, obj, api_key, api_name, version, client_id, request, response, total,
                         connection)
    return _checked_call_event(obj, line, ts)


def _checked_call_event(obj: dict[str, Any], line: int, ts: float) -> Event | Malformed:
    hdr = obj["requestHeader"]
    if not isinstance(hdr, dict):
        return Malformed(line, "`requestHeader` must be an object", "requestHeader")
    api_key = hdr.get("requestApiKey")
    api_name = hdr.get("requestApiKeyName")
    if api_key is None and api_name is None:
        return Malformed(line, "`requestHeader` needs requestApiKey or requestApiKeyName", "requestHeader")
    if api_key is not None and not is_int(api_key):
        return Malformed(line, "`requestHeader.requestApiKey` must be an integer", "requestHeader.requestApiKey")
    if api_name is not None and not (isinstance(api_name, str) and api_name):
        return Malformed(line, "`requestHeader.requestApiKeyName` must be a non-empty string",
                         "requestHeader.requestApiKeyName")
    version = hdr.get("requestApiVersion")
    if version is not None and not is_int(version):
        return Malformed(line, "`requestHeader.requestApiVersion` must be an integer", "requestHeader.requestApiVersion")
    client_id = hdr.get("clientId")
    if client_id is not None and not isinstance(client_id, str):
        return Malformed(line, "`requestHeader.clientId` must be a string", "requestHeader.clientId")
    if "request" not in obj:
        return Malformed(line, "missing `request`", "request")
    request = obj["request"]
    if not isinstance(request, dict):
        return Malformed(line, "`request` must be an object", "request")
    if "response" not in obj:
        return Malformed(line, "missing `response`", "response")
    response = obj["response"]
    if not isinstance(response, dict):
        return Malformed(line, "`response` must be an object", "response")
    total = obj.get("totalTimeMs")
    if total is not None and not (is_number(total) and 0 <= total <= MAX_ABS_TIME_MS):
        return Malformed(line, "`totalTimeMs` must be a non-negative number", "totalTimeMs")
    connection = obj.get("connection")
    if connection is not None and not isinstance(connection, str):
        return Malformed(line, "`connection` must be a string", "connection")
    return Event(line, "call", ts, obj, api_key=api_key, api_name=api_name, api_version=version,
                 client_id=client_id, request=request, response=response, total_time_ms=total,
                 connection=connection)


def topic_event(obj: dict[str, Any], line: int, ts: float) -> Event | Malformed:
    topic = obj["topic"]
    if not isinstance(topic, dict):
        return Malformed(line, "`topic` must be an object", "topic")
    name = topic.get("name")
    if not (isinstance(name, str) and name):
        return Malformed(line, "`topic.name` must be a non-empty string", "topic.name")
    topic_id = topic.get("topicId")
    if topic_id is not None and not (isinstance(topic_id, str) and _UUID_RE.fullmatch(topic_id)):
        return Malformed(line, "`topic.topicId` must be a Kafka Uuid (22 characters of url-safe base64)",
                         "topic.topicId")
    deleted = topic.get("deleted", False)
    if not isinstance(deleted, bool):
        return Malformed(line, "`topic.deleted` must be true or false", "topic.deleted")
    if not deleted:
        if "partitions" not in topic:
            return Malformed(line, "missing `topic.partitions`", "topic.partitions")
        partitions = topic["partitions"]
        if not (is_int(partitions) and partitions >= 0):
            return Malformed(line, "`topic.partitions` must be a non-negative integer", "topic.partitions")
        if topic_id is None:
            return Malformed(line, "missing `topic.topicId` (a topic that is not deleted has an id)", "topic.topicId")
    return Event(line, "topic", ts, topic)


def record_event(obj: dict[str, Any], line: int, ts: float) -> Event | Malformed:
    record = obj["record"]
    if not isinstance(record, dict):
        return Malformed(line, "`record` must be an object", "record")
    problem = record_problem(record)
    if problem is not None:
        return Malformed(line, problem[0], problem[1])
    return Event(line, "record", ts, record)


def record_problem(record: dict[str, Any], prefix: str = "record.") -> tuple[str, str] | None:
    """Why a ``{"key": .., "value": ..}`` record object is invalid (message, field), or None.
    A transaction marker is ``{"endTxnMarker": "COMMIT"|"ABORT", "producerId": N}``."""
    if "endTxnMarker" in record:
        if record["endTxnMarker"] not in ("COMMIT", "ABORT"):
            return f"`{prefix}endTxnMarker` must be COMMIT or ABORT", f"{prefix}endTxnMarker"
        producer = record.get("producerId")
        if type(producer) is not int or producer < 0:
            return f"`{prefix}producerId` must be a non-negative integer", f"{prefix}producerId"
        return None
    key = record.get("key")
    if key is None:
        return f"missing `{prefix}key`", f"{prefix}key"
    if not isinstance(key, dict):
        return f"`{prefix}key` must be an object", f"{prefix}key"
    if not is_int(key.get("type")):
        return f"`{prefix}key.type` must be an integer", f"{prefix}key.type"
    if not isinstance(key.get("data"), dict):
        return f"`{prefix}key.data` must be an object", f"{prefix}key.data"
    if "value" not in record:
        return f"missing `{prefix}value` (null for a tombstone)", f"{prefix}value"
    value = record["value"]
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"`{prefix}value` must be an object or null", f"{prefix}value"
    if not is_int(value.get("version")):
        return f"`{prefix}value.version` must be an integer", f"{prefix}value.version"
    if not isinstance(value.get("data"), dict):
        return f"`{prefix}value.data` must be an object", f"{prefix}value.data"
    return None


def tick_event(obj: dict[str, Any], line: int, ts: float) -> Event | Malformed:
    tick = obj["tick"]
    if not isinstance(tick, dict):
        return Malformed(line, "`tick` must be an object", "tick")
    return Event(line, "tick", ts, tick)
