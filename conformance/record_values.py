"""A record's value as its bytes say it (issue #21 A.1; contract section 2).

Two JSON renderings of one record are the same record when they decode to the same bytes:
- a tagged field at its default (``null``, ``0``, ``[]``, ...) is not written, so showing it
  (other tools) and omitting it (Kafka's converters) are the same;
- key order, and the spelling of a whole number (``5``, ``5.0``, ``5e0``) in an integer field;
- ``bytes`` in standard or URL-safe base64, padded or not; a ``uuid`` likewise (16 bytes).

Anything that changes the decoded record counts: a value, a non-default tagged field, a list's
elements, the value version (it is the record's first two bytes). The record schemas
(``model/record_schemas.py``, per release, and the Connect draft's) give each field's type,
whether it is tagged in the record's version, and its default. Lists Kafka writes from a
``HashMap`` are then compared as sets (``compare.normalize_record_value``).
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from kgspec.conformance.compare import normalize_record_value
from kgspec.conformance.shapes import record_schema_of
from kgspec.model.record_schemas import FieldSchema, RecordSchema, parse_versions
from kgspec.model.records import Record

_INTEGER_TYPES: Final = frozenset({"int8", "int16", "int32", "int64", "uint16", "uint32"})
# A float names its integer exactly only up to 2**53; beyond, the text's digits are lost.
_EXACT_FLOAT: Final = float(1 << 53)


def record_schema_for(profile: str, record_type: int) -> RecordSchema | None:
    return record_schema_of(profile, record_type)


def value_version(schema: RecordSchema, version: int) -> int:
    """The version whose fields a value is read with: its own, or, unknown, the one Kafka writes
    (as ``shapes.record_shape_problem`` reads it)."""
    versions = parse_versions(schema.valid_value_versions)
    return version if versions is not None and versions[0] <= version <= versions[1] else schema.written_version


def with_whole_numbers(profile: str, record: Record) -> Record:
    """``record`` with every whole float of an integer field as its integer (``5.0`` is ``5``);
    the record itself when it has none. Other floats stay, for the shape check to refuse."""
    schema = record_schema_for(profile, record.type)
    if schema is None:
        return record
    key = _whole(record.key, schema.key, 0)
    value = None if record.value is None else _whole(record.value, schema.value,
                                                     value_version(schema, record.version))
    if key is record.key and value is record.value:
        return record
    return Record(record.type, key, value, record.version)


def _whole(data: Mapping[str, Any], fields: Sequence[FieldSchema], version: int) -> Any:
    out: dict[str, Any] | None = None
    for f in fields:
        if f.name not in data:
            continue
        old = data[f.name]
        new = _whole_value(old, f, version)
        if new is not old:
            if out is None:
                out = dict(data)
            out[f.name] = new
    return data if out is None else out


def _whole_value(value: Any, f: FieldSchema, version: int) -> Any:
    if f.is_array:
        if not isinstance(value, list):
            return value
        items = [_whole_item(v, f, version) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return _whole_item(value, f, version)


def _whole_item(value: Any, f: FieldSchema, version: int) -> Any:
    if f.element_type in _INTEGER_TYPES:
        if type(value) is float and math.isfinite(value) and value.is_integer() and abs(value) <= _EXACT_FLOAT:
            return int(value)
        return value
    if f.is_struct and f.fields and isinstance(value, Mapping):
        return _whole(value, f.fields, version)
    return value


def canonical_value(profile: str, record: Record) -> dict[str, Any] | None:
    """The record's value with tagged fields at their default left out and bytes spelled one way
    (lists as they are: a protocol's own normal form orders them, as the Connect draft's does)."""
    schema = record_schema_for(profile, record.type)
    if schema is None or record.value is None:
        return record.value
    return _canonical(record.value, schema.value, value_version(schema, record.version))


def comparable(profile: str, record: Record) -> Any:
    """What two renderings of one record share: its type, key, value version and value by value."""
    schema = record_schema_for(profile, record.type)
    if schema is None:  # no schema here (offset records): their own normal form
        return record.type, record.key, record.version, normalize_record_value(record.value)
    version = value_version(schema, record.version)
    key = _canonical(record.key, schema.key, 0)
    if record.value is None:
        return record.type, key, None
    return record.type, key, record.version, normalize_record_value(_canonical(record.value, schema.value, version))


def _canonical(data: Mapping[str, Any], fields: Sequence[FieldSchema], version: int) -> dict[str, Any]:
    by_name = {f.name: f for f in fields}
    out: dict[str, Any] = {}
    for name, value in data.items():
        f = by_name.get(name)
        if f is None:
            out[name] = value
            continue
        if f.tagged_in(version) and value == f.default_value():
            continue  # not written: the same as left out
        out[name] = _canonical_value(value, f, version)
    return out


def _canonical_value(value: Any, f: FieldSchema, version: int) -> Any:
    if f.is_array and isinstance(value, list):
        return [_canonical_item(v, f, version) for v in value]
    return _canonical_item(value, f, version)


def _canonical_item(value: Any, f: FieldSchema, version: int) -> Any:
    t = f.element_type
    if t in ("bytes", "uuid") and isinstance(value, str):
        raw = _decoded(value)
        if raw is None:
            return value
        # one spelling of the bytes: Kafka's (standard padded base64; a uuid URL-safe, unpadded)
        return base64.b64encode(raw).decode() if t == "bytes" else base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if f.is_struct and f.fields and isinstance(value, Mapping):
        return _canonical(value, f.fields, version)
    return value


def _decoded(text: str) -> bytes | None:
    """Base64 in either alphabet, padded or not, as its bytes; None when it is none."""
    try:
        return base64.b64decode(text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
