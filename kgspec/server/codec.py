"""Kafka's wire protocol for the server, on kio's generated schemas (no message schema here).

A request frame (the bytes after the 4-byte size) is read into its header and kio's body
entity; a response is written from the JSON the model speaks (Kafka's converter names:
``memberEpoch``, ``heartbeatIntervalMs``, topic ids in url-safe base64) or from a kio entity.
:func:`from_kafka_json` is the inverse of :func:`~kgspec.conformance.peers.wire.to_kafka_json`:
a field the JSON lacks takes the schema's default (or its type's zero), so a response the
model builds for one version writes at every version kio knows.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import io
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from kio.index import load_response_schema
from kio.schema.errors import ErrorCode
from kio.schema.index import api_key_map, schema_name_map
from kio.schema.response_header.v0.header import ResponseHeader as ResponseHeaderV0
from kio.schema.response_header.v1.header import ResponseHeader as ResponseHeaderV1
from kio.serial import entity_reader, entity_writer
from kio.serial._introspect import EntityField, EntityTupleField, classify_field
from kio.static.constants import EntityType
from kio.static.primitive import Records, i32

from kgspec.conformance.peers.wire import (
    API_VERSIONS,
    WireError,
    api_name,
    request_header,
    to_kafka_json,
)

ZERO_UUID: Final = "AAAAAAAAAAAAAAAAAAAAAA"


class CodecError(ValueError):
    """A frame that cannot be read (too short, no schema for its API or version, bad bytes)."""


@dataclass(frozen=True, slots=True)
class Request:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str
    body: Any | None  # kio's entity; None: kio has no schema for this API/version
    flexible: bool

    @property
    def api_name(self) -> str:
        return api_name(self.api_key)

    def json(self) -> dict[str, Any]:
        """The body as Kafka's JSON converters print it (what the model reads)."""
        out = to_kafka_json(self.body)
        assert isinstance(out, dict)
        return out


@cache
def kio_versions(api_key: int) -> tuple[int, int] | None:
    """The request versions kio has schemas for (None: the API is unknown to kio)."""
    name = api_key_map.get(api_key)
    if name is None:
        return None
    versions = [v for v, kinds in schema_name_map[name].items() if EntityType.request in kinds]
    return (min(versions), max(versions)) if versions else None


def read_request(frame: bytes) -> Request:
    """Header and body of one request frame; the body is None when kio has no schema for it
    (the caller answers UNSUPPORTED_VERSION, as Kafka does for ApiVersions)."""
    try:
        api_key, api_version, correlation_id, client_id, schema, size = request_header(frame)
    except WireError as exc:
        raise CodecError(str(exc)) from exc
    if schema is None:
        return Request(api_key, api_version, correlation_id, client_id or "", None, False)
    try:
        body, _ = entity_reader(schema)(frame, size)
    except Exception as exc:
        raise CodecError(f"cannot read {api_name(api_key)} v{api_version}: {exc}") from exc
    return Request(api_key, api_version, correlation_id, client_id or "", body, bool(schema.__flexible__))


def response_frame(api_key: int, api_version: int, correlation_id: int, body: Any) -> bytes:
    """One size-prefixed response frame; ``body`` is a kio entity or the model's JSON."""
    schema = load_response_schema(api_key, api_version)
    entity: Any = body if dataclasses.is_dataclass(body) else from_kafka_json(schema, body)
    buffer = io.BytesIO()
    cid = i32(correlation_id)
    if schema.__flexible__ and api_key != API_VERSIONS:  # ApiVersions answers with header v0 always
        entity_writer(ResponseHeaderV1)(buffer, ResponseHeaderV1(correlation_id=cid))
    else:
        entity_writer(ResponseHeaderV0)(buffer, ResponseHeaderV0(correlation_id=cid))
    entity_writer(schema)(buffer, entity)
    payload = buffer.getvalue()
    return len(payload).to_bytes(4, "big") + payload


# --- JSON -> kio ---------------------------------------------------------------------------

Convert = Callable[[Any], Any]


def from_kafka_json(schema: Any, obj: dict[str, Any]) -> Any:
    """The kio entity of ``schema`` holding the JSON object ``obj`` (Kafka's converter names)."""
    kwargs = {name: convert(obj[key]) if key in obj else default() for name, key, convert, default in _plan(schema)}
    return schema(**kwargs)


@cache
def _plan(schema: Any) -> tuple[tuple[str, str, Convert, Callable[[], Any]], ...]:
    """(attribute, JSON key, converter, default maker) per field of ``schema``."""
    plan = []
    for f in dataclasses.fields(schema):
        kafka_type = f.metadata.get("kafka_type", "")
        key = _camel(f.name)
        if kafka_type.startswith("timedelta") and not key.endswith("Ms"):
            key += "Ms"
        kind = classify_field(f)
        optional = "None" in str(f.type)
        if isinstance(kind, EntityTupleField):
            inner = kind.type_
            convert: Convert = _tuple_of_entities(inner)
        elif isinstance(kind, EntityField):
            convert = _entity(kind.type_)
        elif kind.is_array:
            convert = _tuple_of(_scalar(kafka_type))
        else:
            convert = _scalar(kafka_type)
        plan.append((f.name, key, _nullable(convert) if optional else convert, _default(f, kafka_type, kind, optional)))
    return tuple(plan)


def _nullable(convert: Convert) -> Convert:
    return lambda v: None if v is None else convert(v)


def _entity(schema: type[Any]) -> Convert:
    return lambda v: from_kafka_json(schema, v)


def _tuple_of_entities(schema: type[Any]) -> Convert:
    return lambda v: tuple(from_kafka_json(schema, item) for item in v or ())


def _tuple_of(convert: Convert) -> Convert:
    return lambda v: tuple(convert(item) for item in v or ())


def _scalar(kafka_type: str) -> Convert:
    if kafka_type == "error_code":
        return lambda v: ErrorCode(int(v))
    if kafka_type.startswith("timedelta"):
        return lambda v: datetime.timedelta(milliseconds=int(v))
    if kafka_type.startswith("datetime"):
        return lambda v: datetime.datetime.fromtimestamp(int(v) / 1000, datetime.UTC)
    if kafka_type == "uuid":
        return _uuid
    if kafka_type in ("bytes", "records"):
        return _bytes if kafka_type == "bytes" else lambda v: Records(_bytes(v))
    if kafka_type == "bool":
        return bool
    if kafka_type.startswith(("int", "uint")):
        return int
    if kafka_type == "float64":
        return float
    return lambda v: v


def _uuid(value: Any) -> uuid.UUID | None:
    if isinstance(value, uuid.UUID) or value is None:
        return value
    if value == ZERO_UUID:
        return None  # kio writes Kafka's zero Uuid from None
    return uuid.UUID(bytes=base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else base64.b64decode(value)


def _default(f: dataclasses.Field[Any], kafka_type: str, kind: Any, optional: bool) -> Callable[[], Any]:
    if f.default is not dataclasses.MISSING:
        value = f.default
        return lambda: value
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory
    if kind.is_array:
        return tuple
    if optional:
        return lambda: None
    if isinstance(kind, EntityField):
        inner = kind.type_
        return lambda: from_kafka_json(inner, {})
    zero: Any = {"error_code": ErrorCode.none, "bool": False, "string": "", "uuid": None,
                 "bytes": b"", "records": Records(b""), "float64": 0.0}.get(kafka_type, 0)
    if kafka_type.startswith("timedelta"):
        zero = datetime.timedelta(0)
    elif kafka_type.startswith("datetime"):
        zero = datetime.datetime.fromtimestamp(0, datetime.UTC)
    return lambda: zero


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
