"""A small JSON Schema validator for the tests: the keywords kgspec's schemas use (type,
required, properties, additionalProperties, items, enum, const, minimum). jsonschema is not a
dependency of the project; this is enough to hold reports to their published schema."""

from __future__ import annotations

from typing import Any

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def problems(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, each naming where (``$.findings[0].kind``)."""
    out: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_TYPES[k](value) for k in kinds):
            return [f"{where}: {value!r} is not of type {'/'.join(kinds)}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        out.append(f"{where}: {value!r} is below {schema['minimum']}")
    if isinstance(value, dict):
        out += [f"{where}: {name!r} is required" for name in schema.get("required", []) if name not in value]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in props:
                out += problems(item, props[name], f"{where}.{name}")
            elif extra is False:
                out.append(f"{where}: {name!r} is not allowed")
            elif isinstance(extra, dict):
                out += problems(item, extra, f"{where}.{name}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += problems(item, schema["items"], f"{where}[{i}]")
    return out
