"""The classic Connect protocol's embedded bytes (protocol type ``connect``), read and written.

A classic Connect worker's JoinGroup lists up to three protocols, most preferred first
(``IncrementalCooperativeConnectProtocol.metadataRequest``): ``sessioned`` (version 2),
``compatible`` (1), ``default`` (0, eager) — ``ConnectProtocolCompatibility``. Formats (Kafka's
old-style types, big-endian: STRING = int16 length + UTF-8, NULLABLE_BYTES = int32 length or -1,
arrays = int32 count or -1):

- WorkerState v0 (``ConnectProtocol``): version int16, url STRING, config-offset int64;
- WorkerState v1/v2: the same, then ``allocation`` NULLABLE_BYTES — the worker's current
  assignment as an Assignment v1/v2 (null when it holds nothing);
- Assignment v0: version, error int16, leader STRING, leader-url STRING, config-offset int64,
  assignment [connector STRING, tasks [int32]] (task -1 = the connector itself,
  ``CONNECTOR_TASK``);
- Assignment v1/v2: v0's fields (assignment nullable), then revoked (same shape, nullable) and
  delay int32.

Bytes are base64 strings, as Kafka's JSON converters print them (``model/migration/protocol.py``).
Anything that does not parse is a :class:`~kgspec.model.migration.protocol.SchemaError`.
"""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass, field

from kgspec.model.connect.resources import CONNECTORS, TASKS, Resources, from_items, items
from kgspec.model.migration.protocol import SchemaError

CONNECT_PROTOCOL_TYPE = "connect"  # ConnectProtocol's JoinGroup protocol type
PROTOCOL_VERSIONS = {"default": 0, "compatible": 1, "sessioned": 2}  # ConnectProtocolCompatibility
CONNECTOR_TASK = -1


@dataclass(frozen=True, slots=True)
class WorkerState:
    version: int
    url: str
    config_offset: int
    allocation: Resources | None = None  # v1+: what the worker holds (None: nothing / v0)


@dataclass(frozen=True, slots=True)
class ConnectAssignment:
    version: int
    error: int = 0
    leader: str = ""
    leader_url: str = ""
    config_offset: int = 0
    assigned: Resources = field(default_factory=lambda: from_items([]))
    revoked: Resources = field(default_factory=lambda: from_items([]))
    delay: int = 0


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise SchemaError("truncated Connect protocol bytes")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def int16(self) -> int:
        return int(struct.unpack(">h", self.take(2))[0])

    def int32(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def int64(self) -> int:
        return int(struct.unpack(">q", self.take(8))[0])

    def string(self) -> str:
        n = self.int16()
        if n < 0:
            raise SchemaError("null where a Connect protocol string is required")
        try:
            return self.take(n).decode("utf-8")
        except UnicodeDecodeError:
            raise SchemaError("a Connect protocol string is not UTF-8") from None

    def connector_assignments(self, nullable: bool) -> Resources:
        count = self.int32()
        if count < 0:
            if not nullable:
                raise SchemaError("null connector assignment array")
            return from_items([])
        found: list[tuple[str, str, int]] = []
        for _ in range(count):
            name = self.string()
            n = self.int32()
            for _ in range(max(n, 0)):
                task = self.int32()
                found.append((CONNECTORS, name, 0) if task == CONNECTOR_TASK else (TASKS, name, task))
        return from_items(found)


def _bytes(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise SchemaError("not base64") from None


def _string(value: str) -> bytes:
    raw = value.encode("utf-8")
    return struct.pack(">h", len(raw)) + raw


def _connector_assignments(res: Resources) -> bytes:
    by_connector: dict[str, list[int]] = {}
    for role, name, index in sorted(items(res)):
        by_connector.setdefault(name, []).append(CONNECTOR_TASK if role == CONNECTORS else index)
    out = struct.pack(">i", len(by_connector))
    for name in sorted(by_connector):
        tasks = sorted(by_connector[name])
        out += _string(name) + struct.pack(">i", len(tasks)) + b"".join(struct.pack(">i", t) for t in tasks)
    return out


def _read_assignment(r: _Reader) -> ConnectAssignment:
    version = r.int16()
    if version < 0:
        raise SchemaError(f"Unsupported Connect assignment version: {version}")
    error, leader, leader_url, offset = r.int16(), r.string(), r.string(), r.int64()
    if version == 0:
        return ConnectAssignment(0, error, leader, leader_url, offset, r.connector_assignments(False))
    assigned = r.connector_assignments(True)
    revoked = r.connector_assignments(True)
    return ConnectAssignment(version, error, leader, leader_url, offset, assigned, revoked, r.int32())


def decode_worker_state(data: str) -> WorkerState:
    """A JoinGroup protocol's metadata."""
    r = _Reader(_bytes(data))
    version = r.int16()
    if version < 0:
        raise SchemaError(f"Unsupported subscription version: {version}")
    url, offset = r.string(), r.int64()
    if version == 0:
        return WorkerState(0, url, offset)
    n = r.int32()
    allocation = None if n < 0 else _read_assignment(_Reader(r.take(n))).assigned
    return WorkerState(version, url, offset, allocation)


def decode_connect_assignment(data: str) -> ConnectAssignment:
    return _read_assignment(_Reader(_bytes(data)))


def encode_assignment(a: ConnectAssignment) -> bytes:
    out = struct.pack(">hh", a.version, a.error) + _string(a.leader) + _string(a.leader_url)
    out += struct.pack(">q", a.config_offset) + _connector_assignments(a.assigned)
    if a.version >= 1:
        out += _connector_assignments(a.revoked) + struct.pack(">i", a.delay)
    return out


def encode_connect_assignment(a: ConnectAssignment) -> str:
    return base64.b64encode(encode_assignment(a)).decode("ascii")


def encode_worker_state(state: WorkerState) -> str:
    out = struct.pack(">h", state.version) + _string(state.url) + struct.pack(">q", state.config_offset)
    if state.version >= 1:
        if state.allocation is None or not items(state.allocation):
            out += struct.pack(">i", -1)  # serializeAssignment: an empty assignment is null
        else:
            alloc = encode_assignment(ConnectAssignment(state.version, assigned=state.allocation))
            out += struct.pack(">i", len(alloc)) + alloc
    return base64.b64encode(out).decode("ascii")


def protocol_version(name: str) -> int:
    """``ConnectProtocolCompatibility.compatibility``'s version of a protocol name."""
    if name not in PROTOCOL_VERSIONS:
        raise SchemaError(f"Unknown Connect protocol compatibility mode: {name}")
    return PROTOCOL_VERSIONS[name]
