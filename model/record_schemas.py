"""Coordinator record schemas (record types 2-8, 16, 17, 19-23) per Kafka release.

Source: ``group-coordinator/src/main/resources/common/message/*Key.json`` and ``*Value.json`` on
the Kafka branches ``4.1``, ``4.3`` and trunk (``HEAD``), transcribed mechanically (field order
kept; structs that several records share are written once). Field names are the JSON converter
names: the schema name with the first letter lower-cased (``generator/.../FieldSpec.camelCaseName``).

JSON converter printing rules (``generator/.../JsonConverterGenerator.java``, 4.3:270-420):

* int8/int16/int32/int64/uint16/uint32 print as JSON numbers (int64 too, as ``LongNode``);
* ``uuid`` prints as ``Uuid.toString()`` (22-char URL-safe base64);
* ``bytes`` prints as base64 text; ``string`` as text;
* a null value of a nullable field prints as ``null``;
* a *tagged* field is printed only when it differs from its default (else omitted);
* fields not present in the written version are not printed.

Value versions written: every record here is written at value version 0 on 4.1, 4.3 and trunk
(``GroupCoordinatorRecordHelpers`` / ``StreamsCoordinatorRecordHelpers``: all
``new ApiMessageAndVersion(..., (short) 0)``), except 2 ``GroupMetadataValue`` (classic groups,
valid 0-4, unchanged 4.1-trunk), written at version 3 (``GROUP_METADATA_VALUE_VERSION``).
Record 4 (ConsumerGroupPartitionMetadata) is only ever *tombstoned* by 4.1+ (it is listed so
old logs validate).

Release differences captured by the tables:

* 8 ``ConsumerGroupCurrentMemberAssignmentValue``: 4.3/trunk add tagged
  ``assignedPartitions[].assignmentEpochs`` and ``partitionsPendingRevocation[].assignmentEpochs`` (KIP-1251, nullable ``[]int32``, default null).
* 6 ``ConsumerGroupTargetAssignmentMetadataValue``: 4.3/trunk add tagged
  ``assignmentTimestamp`` (int64, default 0, KIP-1263).
* 17 ``StreamsGroupMetadataValue``: 4.3 adds tagged ``validatedTopologyEpoch`` (tag 0, default -1)
  and ``lastAssignmentConfigs`` (tag 1, nullable, default null); trunk adds tagged
  ``storedDescriptionTopologyEpoch`` (tag 2) and ``failedDescriptionTopologyEpoch`` (tag 3),
  both default -1.
* 20 ``StreamsGroupTargetAssignmentMetadataValue``: 4.3/trunk add tagged ``assignmentTimestamp``.
* 22 ``StreamsGroupCurrentMemberAssignmentValue``: 4.3/trunk add tagged ``assignmentEpochs`` in
  the task-id entries.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

RELEASES: Final = ("4.1", "4.3", "trunk")

_PRIMITIVES: Final = frozenset(
    {"bool", "int8", "int16", "int32", "int64", "uint16", "uint32", "float64", "string", "bytes",
     "uuid", "records"}
)
_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1),
}


@functools.cache
def parse_versions(spec: str | None) -> tuple[int, int] | None:
    """Kafka version range: ``"0+"`` -> (0, 32767), ``"0-1"`` -> (0, 1), ``"1"`` -> (1, 1).
    Memoised: the schemas spell a few dozen ranges, read for every field of every call."""
    if spec is None or spec == "none":
        return None
    if spec.endswith("+"):
        return int(spec[:-1]), 32767
    if "-" in spec:
        lo, hi = spec.split("-", 1)
        return int(lo), int(hi)
    return int(spec), int(spec)


def _in(spec: str | None, version: int) -> bool:
    rng = parse_versions(spec)
    return rng is not None and rng[0] <= version <= rng[1]


@dataclass(frozen=True)
class FieldSchema:
    """One schema field. ``name`` is the JSON converter name (lowerCamel)."""

    name: str
    type: str
    versions: str
    nullable: str | None = None
    tagged: str | None = None
    tag: int | None = None
    default: str | None = None
    ignorable: bool = False
    fields: tuple[FieldSchema, ...] = ()

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        return self.element_type not in _PRIMITIVES

    def present_in(self, version: int) -> bool:
        return _in(self.versions, version)

    def nullable_in(self, version: int) -> bool:
        return _in(self.nullable, version)

    def tagged_in(self, version: int) -> bool:
        return _in(self.tagged, version)

    def default_value(self) -> Any:
        """The field's default as Kafka's generated code initialises it (JSON form)."""
        d = self.default
        if d == "null":
            return None
        if self.is_array:
            return []
        if self.is_struct:
            return None if d is None else {}
        t = self.type
        if t in _INT_RANGES:
            return int(d, 0) if d else 0
        if t == "bool":
            return d == "true"
        if t == "float64":
            return float(d) if d else 0.0
        if t == "uuid":
            return "AAAAAAAAAAAAAAAAAAAAAA"
        return d if d is not None else ""


def F(
    name: str,
    type: str,
    versions: str,
    nullable: str | None = None,
    tagged: str | None = None,
    tag: int | None = None,
    default: str | None = None,
    ignorable: bool = False,
    fields: tuple[FieldSchema, ...] = (),
) -> FieldSchema:
    return FieldSchema(name, type, versions, nullable, tagged, tag, default, ignorable, fields)


def edit_fields(
    fields: tuple[FieldSchema, ...],
    replace: Mapping[str, FieldSchema] | None = None,
    after: Mapping[str, tuple[FieldSchema, ...]] | None = None,
) -> tuple[FieldSchema, ...]:
    """``fields`` with some replaced (by name) and others inserted after a named one.

    How the tables state what a later release (or version) changed in a schema.
    """
    replace = replace or {}
    after = after or {}
    missing = (set(replace) | set(after)) - {f.name for f in fields}
    assert not missing, f"no such fields: {sorted(missing)}"
    out: list[FieldSchema] = []
    for f in fields:
        out.append(replace.get(f.name, f))
        out.extend(after.get(f.name, ()))
    return tuple(out)


@dataclass(frozen=True)
class RecordSchema:
    type: int
    name: str
    valid_value_versions: str
    written_version: int
    key: tuple[FieldSchema, ...]
    value: tuple[FieldSchema, ...] = field(default_factory=tuple)

    def value_fields(self, version: int | None = None) -> tuple[FieldSchema, ...]:
        v = self.written_version if version is None else version
        return tuple(f for f in self.value if f.present_in(v))

    def value_field_names(self, version: int | None = None) -> tuple[str, ...]:
        return tuple(f.name for f in self.value_fields(version))


# ---------------------------------------------------------------------------------------------
# Validation (shared with message_schemas)
# ---------------------------------------------------------------------------------------------


def _type_problem(f: FieldSchema, value: Any, path: str, version: int) -> list[str]:
    """Findings for one non-null scalar or nested value of field ``f``."""
    t = f.element_type
    if t in _INT_RANGES:
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"field `{path}` must be an integer ({t}), got {type(value).__name__}"]
        lo, hi = _INT_RANGES[t]
        if not lo <= value <= hi:
            return [f"field `{path}` = {value} is out of range for {t}"]
        return []
    if t == "bool":
        return [] if isinstance(value, bool) else [f"field `{path}` must be a boolean"]
    if t == "float64":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"field `{path}` must be a number"]
    if t == "string":
        return [] if isinstance(value, str) else [f"field `{path}` must be a string"]
    if t == "uuid":
        if not isinstance(value, str):
            return [f"field `{path}` must be a uuid string"]
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except ValueError:
            raw = b""
        if len(raw) != 16 or len(value) != 22:
            return [f"field `{path}` = {value!r} is not a Kafka uuid (22-char URL-safe base64)"]
        return []
    if t in ("bytes", "records"):
        return [] if isinstance(value, str) else [f"field `{path}` must be a base64 string"]
    # struct
    if not isinstance(value, Mapping):
        return [f"field `{path}` must be an object"]
    return validate_fields_by_schema(value, f.fields, version, path + ".")


def _field_problems(f: FieldSchema, value: Any, path: str, version: int) -> list[str]:
    if value is None:
        if f.nullable_in(version):
            return []
        return [f"field `{path}` is null but not nullable in version {version}"]
    if f.is_array:
        if not isinstance(value, list):
            return [f"field `{path}` must be an array"]
        out: list[str] = []
        for i, item in enumerate(value):
            if item is None:
                out.append(f"field `{path}[{i}]` is null (array elements are never null)")
            else:
                out.extend(_type_problem(f, item, f"{path}[{i}]", version))
        return out
    return _type_problem(f, value, path, version)


_PRESENT: dict[tuple[int, int], tuple[Sequence[FieldSchema], dict[str, FieldSchema]]] = {}


def _present(schema: Sequence[FieldSchema], version: int) -> dict[str, FieldSchema]:
    """The fields of ``schema`` present in ``version``, by name; computed once per schema and
    version (schemas are module constants; the entry keeps its schema, so its id stays unique)."""
    key = (id(schema), version)
    entry = _PRESENT.get(key)
    if entry is None or entry[0] is not schema:
        entry = _PRESENT[key] = (schema, {f.name: f for f in schema if f.present_in(version)})
    return entry[1]


def validate_fields_by_schema(
    data: Mapping[str, Any], schema: Sequence[FieldSchema], version: int, prefix: str = ""
) -> list[str]:
    """Unknown fields, missing non-tagged fields, nullability and JSON types, recursively, read
    from the schema field by field: the reference ``validate_fields`` (compiled) is tested against."""
    findings: list[str] = []
    present = _present(schema, version)
    for name in data:
        if name not in present:
            known = any(f.name == name for f in schema)
            why = f"not in version {version}" if known else "unknown field"
            findings.append(f"field `{prefix}{name}`: {why}")
    for name, f in present.items():
        if name not in data:
            if not f.tagged_in(version):
                findings.append(f"missing required field `{prefix}{name}`")
            continue
        findings.extend(_field_problems(f, data[name], prefix + name, version))
    return findings


# The compiled form (issue #19): what ``validate_fields_by_schema`` asks of each field (its
# version ranges, type, range) is worked out once per schema and version, so a call is
# checked without re-reading version strings or type names. Findings are the same, in the
# same order (``tests/test_compiled_validators.py``).
_INT_KIND, _BOOL_KIND, _FLOAT_KIND, _STRING_KIND, _UUID_KIND, _BYTES_KIND, _STRUCT_KIND = range(7)
_KINDS: Final = {"bool": _BOOL_KIND, "float64": _FLOAT_KIND, "string": _STRING_KIND, "uuid": _UUID_KIND,
                 "bytes": _BYTES_KIND, "records": _BYTES_KIND}


@dataclass(frozen=True, slots=True)
class _Check:
    """One field of a schema as present in one version."""

    name: str
    required: bool  # not tagged in this version
    nullable: bool
    array: bool
    kind: int
    type: str  # the element type, for messages
    lo: int
    hi: int
    fields: tuple[FieldSchema, ...]


@dataclass(frozen=True, slots=True)
class _Compiled:
    schema: Sequence[FieldSchema]  # kept, so the id in the cache key stays this schema's
    present: dict[str, _Check]
    # True only for a body ``validate_fields`` finds nothing in (False: ask it); built on first use
    clean: list[Callable[[Mapping[str, Any]], bool]]


_COMPILED: dict[tuple[int, int], _Compiled] = {}
_MISSING: Final = object()


def _clean_check(compiled: _Compiled, version: int) -> Callable[[Mapping[str, Any]], bool]:
    """A function of one body, generated from the schema's checks for ``version``: True when
    ``validate_fields`` finds nothing but required fields of the body's own level left out
    (every name present in the version, no null where none may be, every value of its JSON
    type and range, nested structs whole), False when it may find something. Bodies are
    almost always clean, and this answers in one straight pass; a False costs the full check,
    which names the problem. (Traces leave top-level fields out, ``throttleTimeMs``:
    ``validate_fields`` lists those itself.)"""
    env: dict[str, Any] = {"_M": _MISSING, "_names": frozenset(compiled.present), "_uuid": _is_kafka_uuid,
                           "_clean_of": _clean_of, "_version": version}
    lines = ["def clean(d):", "    if d.__class__ is not dict or not _names.issuperset(d): return False"]
    for i, c in enumerate(compiled.present.values()):
        lines.append(f"    v = d.get({c.name!r}, _M)")
        lines.append("    if v is _M: pass")  # required or not: validate_fields lists what is left out
        lines.append(f"    elif v is None: {'pass' if c.nullable else 'return False'}")
        if c.kind == _STRUCT_KIND:
            env[f"_s{i}"] = _compiled(c.fields, version)
        if c.array:
            lines.append("    elif v.__class__ is not list: return False")
            lines.append("    else:")
            lines.append("        for x in v:")
            lines.append(f"            if x is None or not ({_clean_item(c, i, 'x', version)}): return False")
        else:
            lines.append(f"    elif not ({_clean_item(c, i, 'v', version)}): return False")
    lines.append("    return True")
    exec("\n".join(lines), env)  # generated from the schema tables above: no text from a trace
    check: Callable[[Mapping[str, Any]], bool] = env["clean"]
    return check


def _clean_item(c: _Check, i: int, v: str, version: int) -> str:
    """The generated test of one non-null element ``v`` of the field ``c`` (see _clean_check)."""
    if c.kind == _INT_KIND:
        return f"{v}.__class__ is int and {c.lo} <= {v} <= {c.hi}"
    if c.kind == _STRING_KIND or c.kind == _BYTES_KIND:
        return f"{v}.__class__ is str"
    if c.kind == _UUID_KIND:
        return f"{v}.__class__ is str and _uuid({v})"
    if c.kind == _BOOL_KIND:
        return f"{v}.__class__ is bool"
    if c.kind == _FLOAT_KIND:
        return f"({v}.__class__ is int or {v}.__class__ is float)"
    # a nested struct must be whole: a required field left out of it is a finding
    whole = "".join(f" and {name!r} in {v}" for name, n in _compiled(c.fields, version).present.items()
                    if n.required)
    return f"{v}.__class__ is dict and _clean_of(_s{i}, _version)({v}){whole}"


def _compiled(schema: Sequence[FieldSchema], version: int) -> _Compiled:
    key = (id(schema), version)
    entry = _COMPILED.get(key)
    if entry is None or entry.schema is not schema:
        checks = {}
        for f in schema:
            if not f.present_in(version):
                continue
            t = f.element_type
            lo, hi = _INT_RANGES.get(t, (0, 0))
            kind = _INT_KIND if t in _INT_RANGES else _KINDS.get(t, _STRUCT_KIND)
            checks[f.name] = _Check(f.name, not f.tagged_in(version), f.nullable_in(version), f.is_array,
                                    kind, t, lo, hi, f.fields)
        entry = _COMPILED[key] = _Compiled(schema, checks, [])
    return entry


def _clean_of(compiled: _Compiled, version: int) -> Callable[[Mapping[str, Any]], bool]:
    if not compiled.clean:
        compiled.clean.append(_clean_check(compiled, version))
    return compiled.clean[0]


_UUIDS: dict[str, bool] = {}  # memo of _is_kafka_uuid (ids repeat), emptied when full


def _is_kafka_uuid(value: str) -> bool:
    """22 characters of URL-safe base64 that decode to 16 bytes."""
    ok = _UUIDS.get(value)
    if ok is None:
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except ValueError:
            raw = b""
        ok = len(raw) == 16 and len(value) == 22
        if len(_UUIDS) >= 1 << 16:
            _UUIDS.clear()
        _UUIDS[value] = ok
    return ok


def _value_problems(c: _Check, value: Any, path: str, version: int) -> list[str]:
    """As ``_type_problem`` for one non-null element of the field ``c``."""
    kind = c.kind
    if kind == _INT_KIND:
        if value.__class__ is int:  # the usual case; bool is an int subclass, not int
            if c.lo <= value <= c.hi:
                return []
            return [f"field `{path}` = {value} is out of range for {c.type}"]
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"field `{path}` must be an integer ({c.type}), got {type(value).__name__}"]
        if not c.lo <= value <= c.hi:
            return [f"field `{path}` = {value} is out of range for {c.type}"]
        return []
    if kind == _STRING_KIND:
        return [] if isinstance(value, str) else [f"field `{path}` must be a string"]
    if kind == _STRUCT_KIND:
        if not isinstance(value, Mapping):
            return [f"field `{path}` must be an object"]
        return validate_fields(value, c.fields, version, path + ".")
    if kind == _UUID_KIND:
        if not isinstance(value, str):
            return [f"field `{path}` must be a uuid string"]
        if _is_kafka_uuid(value):
            return []
        return [f"field `{path}` = {value!r} is not a Kafka uuid (22-char URL-safe base64)"]
    if kind == _BOOL_KIND:
        return [] if isinstance(value, bool) else [f"field `{path}` must be a boolean"]
    if kind == _FLOAT_KIND:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"field `{path}` must be a number"]
    return [] if isinstance(value, str) else [f"field `{path}` must be a base64 string"]


def validate_fields(
    data: Mapping[str, Any], schema: Sequence[FieldSchema], version: int, prefix: str = ""
) -> list[str]:
    """Unknown fields, missing non-tagged fields, nullability and JSON types, recursively."""
    compiled = _compiled(schema, version)
    clean = compiled.clean
    if (clean[0] if clean else _clean_of(compiled, version))(data):
        if len(data) == len(compiled.present):
            return []
        return [f"missing required field `{prefix}{name}`" for name, c in compiled.present.items()
                if c.required and name not in data]
    findings: list[str] = []
    present = compiled.present
    for name in data:
        if name not in present:
            known = any(f.name == name for f in schema)
            why = f"not in version {version}" if known else "unknown field"
            findings.append(f"field `{prefix}{name}`: {why}")
    for name, c in present.items():
        if name not in data:
            if c.required:
                findings.append(f"missing required field `{prefix}{name}`")
            continue
        value = data[name]
        if value is None:
            if not c.nullable:
                findings.append(f"field `{prefix}{name}` is null but not nullable in version {version}")
        elif c.array:
            if not isinstance(value, list):
                findings.append(f"field `{prefix}{name}` must be an array")
                continue
            for i, item in enumerate(value):
                if item is None:
                    findings.append(f"field `{prefix}{name}[{i}]` is null (array elements are never null)")
                elif c.kind == _INT_KIND and item.__class__ is int and c.lo <= item <= c.hi:
                    continue  # the usual array of partitions: no path built
                else:
                    findings.extend(_value_problems(c, item, f"{prefix}{name}[{i}]", version))
        elif c.kind == _STRING_KIND and value.__class__ is str:
            continue
        else:
            findings.extend(_value_problems(c, value, prefix + name, version))
    return findings


def strip_default_tagged(
    data: Mapping[str, Any], schema: Sequence[FieldSchema], version: int
) -> dict[str, Any]:
    """Drop tagged fields equal to their default (as Kafka's JSON converter does), recursively."""
    out: dict[str, Any] = {}
    by_name = {f.name: f for f in schema}
    for name, value in data.items():
        f = by_name.get(name)
        if f is None:
            out[name] = value
            continue
        if f.tagged_in(version) and value == f.default_value():
            continue
        if f.is_struct and f.fields:
            if f.is_array and isinstance(value, list):
                value = [strip_default_tagged(v, f.fields, version) if isinstance(v, Mapping)
                         else v for v in value]
            elif isinstance(value, Mapping):
                value = strip_default_tagged(value, f.fields, version)
        out[name] = value
    return out


def normalize_release(release: str) -> str:
    r = release.strip().lower()
    if r in ("head", "trunk", "main", "4.4", "4.4.0"):
        return "trunk"
    for known in ("4.1", "4.3"):
        if r == known or r.startswith(known + "."):
            return known
    raise ValueError(f"unknown Kafka release {release!r}; expected one of {RELEASES}")


def record_schema(release: str, record_type: int) -> RecordSchema:
    rel = normalize_release(release)
    try:
        return RECORD_SCHEMAS[rel][record_type]
    except KeyError:
        raise KeyError(f"no schema for record type {record_type} in Kafka {rel}") from None


def key_string_fields(record_type: int) -> tuple[str, ...]:
    """The string fields of a record type's key but its group id (``memberId``, ``regularExpression``):
    the same in every release; none for a type without a schema here."""
    schema = RECORD_SCHEMAS["4.3"].get(record_type)
    if schema is None:
        return ()
    return tuple(f.name for f in schema.key if f.type == "string" and f.name not in ("groupId", "group"))


def written_version(release: str, record_type: int) -> int:
    return record_schema(release, record_type).written_version


def validate_record(record: Mapping[str, Any], release: str) -> list[str]:
    """Findings for a ``{"key": {"type", "data"}, "value": {"version", "data"} | null}`` record.

    Messages are prefixed with ``record <type> <Name>`` and ``key:`` / ``value v<N>:``.
    Record types without a schema here (e.g. offsets, classic or share records) yield no
    findings about their contents.
    """
    rel = normalize_release(release)
    key = record.get("key")
    if not isinstance(key, Mapping):
        return ["record: `key` must be an object"]
    rtype = key.get("type")
    if isinstance(rtype, str) and rtype.lstrip("-").isdigit():
        rtype = int(rtype)
    if not isinstance(rtype, int) or isinstance(rtype, bool):
        return ["record: `key.type` must be an integer"]
    schema = RECORD_SCHEMAS[rel].get(rtype)
    if schema is None:
        return []
    head = f"record {rtype} {schema.name}"
    findings: list[str] = []
    kdata = key.get("data")
    if not isinstance(kdata, Mapping):
        findings.append(f"{head} key: `data` must be an object")
    else:
        findings.extend(f"{head} key: {m}" for m in validate_fields(kdata, schema.key, 0))
    if "value" not in record:
        findings.append(f"{head}: missing `value` (null for a tombstone)")
        return findings
    value = record["value"]
    if value is None:
        return findings
    if not isinstance(value, Mapping):
        findings.append(f"{head}: `value` must be an object or null")
        return findings
    version = value.get("version")
    if isinstance(version, str) and version.isdigit():
        version = int(version)
    if not isinstance(version, int) or isinstance(version, bool):
        findings.append(f"{head}: `value.version` must be an integer")
        return findings
    if not _in(schema.valid_value_versions, version):
        findings.append(
            f"{head}: value version {version} is not valid (valid: {schema.valid_value_versions})"
        )
        return findings
    if version != schema.written_version:
        findings.append(
            f"{head}: value version {version} but Kafka {rel} writes version "
            f"{schema.written_version}"
        )
    vdata = value.get("data")
    if not isinstance(vdata, Mapping):
        findings.append(f"{head} value v{version}: `data` must be an object")
        return findings
    findings.extend(
        f"{head} value v{version}: {m}" for m in validate_fields(vdata, schema.value, version)
    )
    return findings


# ---------------------------------------------------------------------------------------------
# Tables (transcribed from the Kafka JSON schemas)
# ---------------------------------------------------------------------------------------------

_GROUP_KEY: Final = (F('groupId', 'string', '0'),)
_MEMBER_KEY: Final = (*_GROUP_KEY, F('memberId', 'string', '0'))

# Structs that records and messages (model/message_schemas.py) both carry, field for field.
_TOPIC_PARTITIONS: Final = (
    F('topicId', 'uuid', '0+'),
    F('partitions', '[]int32', '0+'),
)
_TASK_IDS: Final = (
    F('subtopologyId', 'string', '0+'),
    F('partitions', '[]int32', '0+'),
)
_KEY_VALUE: Final = (
    F('key', 'string', '0+'),
    F('value', 'string', '0+'),
)
_ENDPOINT: Final = (
    F('host', 'string', '0+'),
    F('port', 'uint16', '0+'),
)
_TASK_ROLES: Final = ('activeTasks', 'standbyTasks', 'warmupTasks')
_STREAMS_ASSIGNMENT: Final = tuple(F(n, '[]TaskIds', '0+', fields=_TASK_IDS) for n in _TASK_ROLES)

_TOPIC_INFO: Final = (
    F('name', 'string', '0+'),
    F('partitions', 'int32', '0+'),
    F('replicationFactor', 'int16', '0+'),
    F('topicConfigs', '[]TopicConfig', '0+', fields=_KEY_VALUE),
)
_PENDING_TASK_ROLES: Final = tuple(r + 'PendingRevocation' for r in _TASK_ROLES)

# 4.3 (KIP-1251): the epoch each partition / task was assigned at, in the entries of 8 and 22.
_ASSIGNMENT_EPOCHS: Final = F(
    'assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0, default='null')
# 4.3 (KIP-1263): in 6 and 20.
_ASSIGNMENT_TIMESTAMP: Final = F(
    'assignmentTimestamp', 'int64', '0+', tagged='0+', tag=0, default='0', ignorable=True)


def _consumer_current_assignment(entry: tuple[FieldSchema, ...]) -> RecordSchema:
    """Record 8, whose ``[]TopicPartitions`` entries are ``entry``."""
    return RecordSchema(8, 'ConsumerGroupCurrentMemberAssignment', '0', 0, key=_MEMBER_KEY, value=(
        F('memberEpoch', 'int32', '0+'),
        F('previousMemberEpoch', 'int32', '0+'),
        F('state', 'int8', '0+'),
        F('assignedPartitions', '[]TopicPartitions', '0+', fields=entry),
        F('partitionsPendingRevocation', '[]TopicPartitions', '0+', fields=entry),
    ))


def _streams_current_assignment(entry: tuple[FieldSchema, ...]) -> RecordSchema:
    """Record 22, whose ``[]TaskIds`` entries are ``entry``."""
    return RecordSchema(22, 'StreamsGroupCurrentMemberAssignment', '0', 0, key=_MEMBER_KEY, value=(
        F('memberEpoch', 'int32', '0+'),
        F('previousMemberEpoch', 'int32', '0+'),
        F('state', 'int8', '0+'),
        *(F(n, '[]TaskIds', '0+', fields=entry) for n in _TASK_ROLES + _PENDING_TASK_ROLES),
    ))


def _appended(records: Mapping[int, RecordSchema], rtype: int, *value: FieldSchema) -> RecordSchema:
    """Record ``rtype`` of ``records`` with ``value`` fields added at the end."""
    return dataclasses.replace(records[rtype], value=records[rtype].value + value)


# Kafka 4.1: every schema.
_RECORDS_4_1: Final[dict[int, RecordSchema]] = {s.type: s for s in (
    RecordSchema(2, 'GroupMetadata', '0-4', 3, key=(F('group', 'string', '0'),), value=(
        F('protocolType', 'string', '0+'),
        F('generation', 'int32', '0+'),
        F('protocol', 'string', '0+', nullable='0+'),
        F('leader', 'string', '0+', nullable='0+'),
        F('currentStateTimestamp', 'int64', '2+', default='-1', ignorable=True),
        F('members', '[]MemberMetadata', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('groupInstanceId', 'string', '3+', nullable='3+', default='null', ignorable=True),
            F('clientId', 'string', '0+'),
            F('clientHost', 'string', '0+'),
            F('rebalanceTimeout', 'int32', '1+', default='-1', ignorable=True),
            F('sessionTimeout', 'int32', '0+'),
            F('subscription', 'bytes', '0+'),
            F('assignment', 'bytes', '0+'),
        )),
    )),
    RecordSchema(3, 'ConsumerGroupMetadata', '0', 0, key=_GROUP_KEY, value=(
        F('epoch', 'int32', '0+'),
        F('metadataHash', 'int64', '0+', tagged='0+', tag=0, default='0'),
    )),
    RecordSchema(4, 'ConsumerGroupPartitionMetadata', '0', 0, key=_GROUP_KEY, value=(
        F('topics', '[]TopicMetadata', '0+', fields=(
            F('topicId', 'uuid', '0+'),
            F('topicName', 'string', '0+'),
            F('numPartitions', 'int32', '0+'),
            F('partitionMetadata', '[]PartitionMetadata', '0+', fields=(
                F('partition', 'int32', '0+'),
                F('racks', '[]string', '0+'),
            )),
        )),
    )),
    RecordSchema(5, 'ConsumerGroupMemberMetadata', '0', 0, key=_MEMBER_KEY, value=(
        F('instanceId', 'string', '0+', nullable='0+'),
        F('rackId', 'string', '0+', nullable='0+'),
        F('clientId', 'string', '0+'),
        F('clientHost', 'string', '0+'),
        F('subscribedTopicNames', '[]string', '0+'),
        F('subscribedTopicRegex', 'string', '0+', nullable='0+'),
        F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
        F('serverAssignor', 'string', '0+', nullable='0+'),
        F('classicMemberMetadata', 'ClassicMemberMetadata', '0+', nullable='0+', tagged='0+',
          tag=0, default='null', fields=(
            F('sessionTimeoutMs', 'int32', '0+'),
            F('supportedProtocols', '[]ClassicProtocol', '0+', fields=(
                F('name', 'string', '0+'),
                F('metadata', 'bytes', '0+'),
            )),
        )),
    )),
    RecordSchema(6, 'ConsumerGroupTargetAssignmentMetadata', '0', 0, key=_GROUP_KEY, value=(
        F('assignmentEpoch', 'int32', '0+'),
    )),
    RecordSchema(7, 'ConsumerGroupTargetAssignmentMember', '0', 0, key=_MEMBER_KEY, value=(
        F('topicPartitions', '[]TopicPartition', '0+', fields=_TOPIC_PARTITIONS),
    )),
    _consumer_current_assignment(_TOPIC_PARTITIONS),
    RecordSchema(16, 'ConsumerGroupRegularExpression', '0', 0,
                 key=(*_GROUP_KEY, F('regularExpression', 'string', '0')), value=(
        F('topics', '[]string', '0+'),
        F('version', 'int64', '0+'),
        F('timestamp', 'int64', '0+'),
    )),
    RecordSchema(17, 'StreamsGroupMetadata', '0', 0, key=_GROUP_KEY, value=(
        F('epoch', 'int32', '0+'),
        F('metadataHash', 'int64', '0+'),
    )),
    RecordSchema(19, 'StreamsGroupMemberMetadata', '0', 0, key=_MEMBER_KEY, value=(
        F('instanceId', 'string', '0+', nullable='0+'),
        F('rackId', 'string', '0+', nullable='0+'),
        F('clientId', 'string', '0+'),
        F('clientHost', 'string', '0+'),
        F('rebalanceTimeoutMs', 'int32', '0+', default='-1'),
        F('topologyEpoch', 'int32', '0+'),
        F('processId', 'string', '0+'),
        F('userEndpoint', 'Endpoint', '0+', nullable='0+', default='null', fields=_ENDPOINT),
        F('clientTags', '[]KeyValue', '0+', fields=_KEY_VALUE),
    )),
    RecordSchema(20, 'StreamsGroupTargetAssignmentMetadata', '0', 0, key=_GROUP_KEY, value=(
        F('assignmentEpoch', 'int32', '0+'),
    )),
    RecordSchema(21, 'StreamsGroupTargetAssignmentMember', '0', 0, key=_MEMBER_KEY,
                 value=_STREAMS_ASSIGNMENT),
    _streams_current_assignment(_TASK_IDS),
    RecordSchema(23, 'StreamsGroupTopology', '0', 0, key=_GROUP_KEY, value=(
        F('epoch', 'int32', '0+'),
        F('subtopologies', '[]Subtopology', '0+', fields=(
            F('subtopologyId', 'string', '0+'),
            F('sourceTopics', '[]string', '0+'),
            F('sourceTopicRegex', '[]string', '0+'),
            F('stateChangelogTopics', '[]TopicInfo', '0+', fields=_TOPIC_INFO),
            F('repartitionSinkTopics', '[]string', '0+'),
            F('repartitionSourceTopics', '[]TopicInfo', '0+', fields=_TOPIC_INFO),
            F('copartitionGroups', '[]CopartitionGroup', '0+', fields=(
                F('sourceTopics', '[]int16', '0+'),
                F('sourceTopicRegex', '[]int16', '0+'),
                F('repartitionSourceTopics', '[]int16', '0+'),
            )),
        )),
    )),
)}


# What Kafka 4.3 changed; everything else is as in the release before.
_RECORDS_4_3: Final[dict[int, RecordSchema]] = {s.type: s for s in (
    _appended(_RECORDS_4_1, 6, _ASSIGNMENT_TIMESTAMP),
    _consumer_current_assignment((*_TOPIC_PARTITIONS, _ASSIGNMENT_EPOCHS)),
    _appended(
        _RECORDS_4_1, 17,
        F('validatedTopologyEpoch', 'int32', '0+', tagged='0+', tag=0, default='-1'),
        F('lastAssignmentConfigs', '[]LastAssignmentConfig', '0+', nullable='0+', tagged='0+',
          tag=1, default='null', fields=_KEY_VALUE),
    ),
    _appended(_RECORDS_4_1, 20, _ASSIGNMENT_TIMESTAMP),
    _streams_current_assignment((*_TASK_IDS, _ASSIGNMENT_EPOCHS)),
)}
_4_3: Final = {**_RECORDS_4_1, **_RECORDS_4_3}

# What Kafka trunk changed; everything else is as in the release before.
_RECORDS_TRUNK: Final[dict[int, RecordSchema]] = {s.type: s for s in (
    _appended(
        _4_3, 17,
        F('storedDescriptionTopologyEpoch', 'int32', '0+', tagged='0+', tag=2, default='-1'),
        F('failedDescriptionTopologyEpoch', 'int32', '0+', tagged='0+', tag=3, default='-1'),
    ),
)}

RECORD_SCHEMAS: Final[dict[str, dict[int, RecordSchema]]] = {
    '4.1': _RECORDS_4_1,
    '4.3': _4_3,
    'trunk': {**_4_3, **_RECORDS_TRUNK},
}
