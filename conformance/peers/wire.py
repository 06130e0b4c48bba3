"""Kafka protocol frames -> the JSON shape of Kafka's request log, decoded with kio.

A frame is the bytes after the 4-byte length prefix. Requests start with a request header
(v1, or v2 with tagged fields for flexible versions); responses with a response header
(v0, or v1 for flexible versions, except ApiVersions which always uses v0). kio's
generated dataclasses decode the bodies; :func:`to_kafka_json` turns them into what
Kafka's generated JSON converters print: lowerCamel field names, durations as ``...Ms``
integers, Uuids as url-safe base64 without padding, error codes as integers.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import uuid
from dataclasses import dataclass
from typing import Any, Final

from kio.index import load_request_schema, load_response_schema
from kio.schema.index import api_key_map
from kio.schema.request_header.v1.header import RequestHeader as RequestHeaderV1
from kio.schema.request_header.v2.header import RequestHeader as RequestHeaderV2
from kio.schema.response_header.v0.header import ResponseHeader as ResponseHeaderV0
from kio.schema.response_header.v1.header import ResponseHeader as ResponseHeaderV1
from kio.serial import entity_reader
from kio.serial.readers import read_int16

from ..readers.topics import ZERO_UUID

API_VERSIONS: Final = 18


class WireError(ValueError):
    """A frame kio cannot decode (unknown API or version, truncated bytes)."""


@dataclass(frozen=True, slots=True)
class RequestFrame:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    body: dict[str, Any] | None  # None: the body could not be decoded (see ``error``)
    error: str | None = None

    @property
    def api_name(self) -> str:
        return api_name(self.api_key)


def api_name(api_key: int) -> str:
    """Kafka's ``requestApiKeyName``: CONSUMER_GROUP_HEARTBEAT for 68."""
    name = api_key_map.get(api_key)
    return str(name).upper() if name else f"API_{api_key}"


def peek_correlation_id(frame: bytes) -> int:
    """The correlation id of a response frame (its first four bytes, in every header version)."""
    if len(frame) < 4:
        raise WireError("response frame shorter than its correlation id")
    return int.from_bytes(frame[:4], "big", signed=True)


def request_header(frame: bytes) -> tuple[int, int, int, str | None, Any | None, int]:
    """``(api key, version, correlation id, client id, body schema, header size)`` of a request
    frame; the schema is None when kio has none for the API or version (the header is then read
    as v1, whose fields every version starts with). WireError for a frame shorter than a header;
    kio's own errors for a header it cannot read."""
    if len(frame) < 8:
        raise WireError("request frame shorter than its header")
    api_key = int(read_int16(frame, 0)[0])
    api_version = int(read_int16(frame, 2)[0])
    try:
        schema: Any | None = load_request_schema(api_key, api_version)
    except Exception:  # kio raises its own index errors for unknown keys/versions
        schema = None
    if schema is not None and schema.__flexible__:
        v2, size = entity_reader(RequestHeaderV2)(frame, 0)
        return api_key, api_version, int(v2.correlation_id), v2.client_id, schema, size
    v1, size = entity_reader(RequestHeaderV1)(frame, 0)
    return api_key, api_version, int(v1.correlation_id), v1.client_id, schema, size


def decode_request(frame: bytes) -> RequestFrame:
    """Header and body of one request frame; the body is None if kio cannot decode it."""
    api_key, api_version, correlation_id, client_id, schema, size = request_header(frame)
    if schema is None:
        return RequestFrame(api_key, api_version, correlation_id, client_id, None,
                            f"kio has no schema for {api_name(api_key)} v{api_version}")
    try:
        body, _ = entity_reader(schema)(frame, size)
    except Exception as exc:  # truncated or undecodable bytes: keep the header
        return RequestFrame(api_key, api_version, correlation_id, client_id, None,
                            f"kio could not decode the body: {exc}")
    return RequestFrame(api_key, api_version, correlation_id, client_id, _object(body))


def decode_response(frame: bytes, api_key: int, api_version: int) -> dict[str, Any]:
    """The body of one response frame to a request of ``api_key``/``api_version``."""
    try:
        schema = load_response_schema(api_key, api_version)
        flexible = schema.__flexible__ and api_key != API_VERSIONS
        size = entity_reader(ResponseHeaderV1)(frame, 0)[1] if flexible else entity_reader(ResponseHeaderV0)(frame, 0)[1]
        body, _ = entity_reader(schema)(frame, size)
    except Exception as exc:
        raise WireError(f"cannot decode {api_name(api_key)} v{api_version} response: {exc}") from exc
    return _object(body)


def _object(entity: Any) -> dict[str, Any]:
    out = to_kafka_json(entity)
    assert isinstance(out, dict)
    return out


def to_kafka_json(value: Any) -> Any:
    """kio values -> the JSON Kafka's generated converters print."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            kafka_type = f.metadata.get("kafka_type", "")
            name = _camel(f.name)
            if kafka_type.startswith("timedelta") and not name.endswith("Ms"):
                name += "Ms"
            item = getattr(value, f.name)
            # kio reads Kafka's zero Uuid as None; Kafka's converters print it.
            out[name] = ZERO_UUID if kafka_type == "uuid" and item is None else to_kafka_json(item)
        return out
    if isinstance(value, tuple | list):
        return [to_kafka_json(v) for v in value]
    if isinstance(value, uuid.UUID):
        return base64.urlsafe_b64encode(value.bytes).decode("ascii").rstrip("=")
    if isinstance(value, datetime.timedelta):
        return round(value.total_seconds() * 1000)
    if isinstance(value, datetime.datetime):
        return round(value.timestamp() * 1000)
    if isinstance(value, enum.IntEnum):
        return int(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
