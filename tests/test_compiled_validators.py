"""The compiled validators (``record_schemas.validate_fields``, issue #19) give the findings of
the schema-reading reference (``validate_fields_by_schema``), in the same order, on every call
and record of every golden trace and on copies with one value replaced by one of the wrong
shape or left out, against every message and record schema of every release. (A clean body
is answered by a check generated per schema and version; the others take the full walk.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.shapes import MESSAGES
from kgspec.model.message_schemas import MESSAGE_SCHEMAS
from kgspec.model.record_schemas import (
    RECORD_SCHEMAS,
    RELEASES,
    F,
    validate_fields,
    validate_fields_by_schema,
)

GOLDEN = Path(__file__).parent / "golden"
BODIES_PER_KIND = 6  # distinct bodies per API or record type, version and side (a few seconds)
# One wrong (or right) value of every kind the schemas know.
ODD_VALUES: tuple[Any, ...] = (None, "x", 1.5, True, 2**40, -(2**70), 0, [], {}, [None], ["x"], [1, None],
                               "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAA", {"x": 1})


def golden_bodies() -> Iterator[tuple[int, int, dict[str, Any], str]]:
    """(api or record type, version, body, side) of every golden line: requests, responses,
    record keys and values."""
    for path in sorted(GOLDEN.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            header = event.get("requestHeader")
            if header is not None:
                for side in ("request", "response"):
                    if isinstance(event.get(side), dict):
                        yield header.get("requestApiKey", -1), header.get("requestApiVersion", 0), event[side], side
            record = event.get("record")
            if isinstance(record, dict) and isinstance(record.get("key"), dict):
                rtype = record["key"].get("type", -1)
                yield rtype, 0, record["key"].get("data", {}), "key"
                value = record.get("value")
                if isinstance(value, dict):
                    yield rtype, value.get("version", 0), value.get("data", {}), "value"


def one_value_replaced(data: Any, depth: int = 0) -> Iterator[Any]:
    """Copies of ``data`` with one value (at any depth, first array element) replaced or left out."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield {k: v for k, v in data.items() if k != key}
            for odd in ODD_VALUES:
                yield {**data, key: odd}
            if depth < 3:
                for inner in one_value_replaced(value, depth + 1):
                    yield {**data, key: inner}
        yield {**data, "unknownField": 1}
    elif isinstance(data, list) and data and depth < 3:
        for inner in one_value_replaced(data[0], depth + 1):
            yield [inner, *data[1:]]


def _schemas(kind: int, side: str) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for release in RELEASES:
        if side in ("request", "response"):
            name = MESSAGES.get(kind)
            schema = MESSAGE_SCHEMAS[release].get(f"{name}{side.capitalize()}") if name else None
            if schema is not None:
                out.append(schema.fields)
        else:
            record = RECORD_SCHEMAS[release].get(kind)
            if record is not None:
                out.append(record.key if side == "key" else record.value)
    return out


def test_compiled_and_reference_agree_on_golden_traces() -> None:
    compared = failing = 0
    seen: set[str] = set()
    per_kind: dict[tuple[int, int, str], int] = {}
    for kind, version, body, side in golden_bodies():
        fingerprint = json.dumps([kind, version, side, body], sort_keys=True)
        if fingerprint in seen or per_kind.get((kind, version, side), 0) >= BODIES_PER_KIND:
            continue
        seen.add(fingerprint)
        per_kind[kind, version, side] = per_kind.get((kind, version, side), 0) + 1
        for fields in _schemas(kind, side):
            for data in (body, *one_value_replaced(body)):
                for v in {version, 0}:
                    expected = validate_fields_by_schema(data, fields, v)
                    assert validate_fields(data, fields, v) == expected, (kind, side, v, data)
                    compared += 1
                    failing += bool(expected)
    assert compared > 20_000
    assert failing > 10_000


@pytest.mark.parametrize(("value", "finding"), [
    (True, "field `f` must be an integer (int32), got bool"),
    (2**31, "field `f` = 2147483648 is out of range for int32"),
    (None, "field `f` is null but not nullable in version 0"),
])
def test_compiled_findings_name_the_field(value: Any, finding: str) -> None:
    fields = (F("f", "int32", "0+"),)
    assert validate_fields({"f": value}, fields, 0) == [finding]


def test_a_schema_rebuilt_at_the_same_address_is_recompiled() -> None:
    # The cache is keyed by id(schema): an entry keeps its schema, so a new tuple is never
    # mistaken for an old one that was freed.
    for _ in range(50):
        fields = (F("a", "string", "0+"),)
        assert validate_fields({"a": 1}, fields, 0) == ["field `a` must be a string"]
        fields = (F("a", "int8", "0+"),)
        assert validate_fields({"a": 1}, fields, 0) == []


def test_the_generated_check_passes_clean_bodies_only() -> None:
    """The generated check answers a body alone only when it is clean but for top-level fields
    left out; a value of the wrong type at any depth goes to the full walk, which names it."""
    struct = (F("s", "[]S", "0+", fields=(F("id", "uuid", "0+"), F("p", "[]int32", "0+"))),
              F("t", "int16", "0+"), F("n", "string", "0+", nullable="0+"))
    clean = {"s": [{"id": "AAAAAAAAAAAAAAAAAAAAAA", "p": [1, 2]}], "t": 3, "n": None}
    assert validate_fields(clean, struct, 0) == []
    assert validate_fields({"s": [], "n": "x"}, struct, 0) == ["missing required field `t`"]
    assert validate_fields({**clean, "s": [{"id": "AAAAAAAAAAAAAAAAAAAAAA"}]}, struct, 0) == [
        "missing required field `s[0].p`"]
    assert validate_fields({**clean, "s": [{"id": "AAAAAAAAAAAAAAAAAAAAAA", "p": [1, 2.0]}]}, struct, 0) == [
        "field `s[0].p[1]` must be an integer (int32), got float"]
    assert validate_fields({**clean, "t": 40000}, struct, 0) == ["field `t` = 40000 is out of range for int16"]
