"""The consumer's embedded protocol (``ConsumerProtocol``): Subscription and Assignment, v0-3.

Classic members carry these as opaque bytes (base64, as Kafka's JSON converters print them);
online migration is where the coordinator reads and writes them
(``ConsumerGroup.fromClassicGroup``, ``classicGroupJoinToConsumerGroup``, ``prepareAssignment``,
``ClassicGroup.fromConsumerGroup``). Formats (``ConsumerProtocolSubscription.json`` /
``ConsumerProtocolAssignment.json``, not flexible): an int16 version, then

- Subscription: topics ``[]string``, userData nullable bytes; v1+ ownedPartitions
  ``[]{topic string, partitions []int32}``; v2+ generationId int32 (default -1); v3+ rackId
  nullable string;
- Assignment (all versions): assignedPartitions ``[]{topic, partitions}``, userData nullable bytes.

A version above 3 is read as 3 (``checkSubscriptionVersion``); a negative one, a short buffer or
a null where none is allowed is Kafka's ``SchemaException`` (:class:`SchemaError` here).
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

HIGHEST_VERSION = 3
TopicPartitions = tuple[tuple[str, tuple[int, ...]], ...]


class SchemaError(ValueError):
    """Kafka's ``SchemaException``: bytes that are not the consumer protocol."""


@dataclass(frozen=True, slots=True)
class Subscription:
    version: int
    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: TopicPartitions = ()
    generation_id: int = -1
    rack_id: str | None = None


@dataclass(frozen=True, slots=True)
class Assignment:
    version: int
    partitions: TopicPartitions
    user_data: bytes | None = None


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def _take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise SchemaError("Buffer underflow while parsing consumer protocol")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def int16(self) -> int:
        value: int = struct.unpack(">h", self._take(2))[0]
        return value

    def int32(self) -> int:
        value: int = struct.unpack(">i", self._take(4))[0]
        return value

    def string(self, nullable: bool = False) -> str | None:
        n = self.int16()
        if n < 0:
            if nullable:
                return None
            raise SchemaError("non-nullable field was serialized as null")
        return self._take(n).decode("utf-8")

    def bytes_(self) -> bytes | None:
        n = self.int32()
        return None if n < 0 else self._take(n)

    def length(self) -> int:
        n = self.int32()
        if n < 0:
            raise SchemaError("non-nullable array was serialized as null")
        return n

    def topic_partitions(self) -> TopicPartitions:
        out = []
        for _ in range(self.length()):
            topic = self.string()
            assert topic is not None
            out.append((topic, tuple(self.int32() for _ in range(self.length()))))
        return tuple(out)


def _b64(data: str | bytes) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise SchemaError(f"not base64: {exc}") from None


def read_version(data: str | bytes) -> int:
    """``ConsumerProtocol.deserializeVersion`` (not clamped)."""
    return _Reader(_b64(data)).int16()


def _check_version(version: int, what: str) -> int:
    if version < 0:
        raise SchemaError(f"Unsupported {what} version: {version}")
    return min(version, HIGHEST_VERSION)


def decode_subscription(data: str | bytes) -> Subscription:
    r = _Reader(_b64(data))
    version = _check_version(r.int16(), "subscription")
    topics = []
    for _ in range(r.length()):
        topic = r.string()
        assert topic is not None
        topics.append(topic)
    user_data = r.bytes_()
    owned: TopicPartitions = r.topic_partitions() if version >= 1 else ()
    generation = r.int32() if version >= 2 else -1
    rack = r.string(nullable=True) if version >= 3 else None
    return Subscription(version, tuple(topics), user_data, owned, generation, rack)


def decode_assignment(data: str | bytes) -> Assignment:
    r = _Reader(_b64(data))
    version = _check_version(r.int16(), "assignment")
    partitions = r.topic_partitions()
    return Assignment(version, partitions, r.bytes_())


class _Writer:
    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def int16(self, v: int) -> None:
        self.parts.append(struct.pack(">h", v))

    def int32(self, v: int) -> None:
        self.parts.append(struct.pack(">i", v))

    def string(self, s: str | None) -> None:
        if s is None:
            self.int16(-1)
            return
        raw = s.encode("utf-8")
        self.int16(len(raw))
        self.parts.append(raw)

    def bytes_(self, b: bytes | None) -> None:
        if b is None:
            self.int32(-1)
            return
        self.int32(len(b))
        self.parts.append(b)

    def topic_partitions(self, tps: Iterable[tuple[str, Iterable[int]]]) -> None:
        entries = [(t, list(ps)) for t, ps in tps]
        self.int32(len(entries))
        for topic, parts in entries:
            self.string(topic)
            self.int32(len(parts))
            for p in parts:
                self.int32(p)

    def b64(self) -> str:
        return base64.b64encode(b"".join(self.parts)).decode("ascii")


def encode_assignment(partitions: Iterable[tuple[str, Iterable[int]]], version: int,
                      user_data: bytes | None = None) -> str:
    """``ConsumerProtocol.serializeAssignment(assignment, version)``, base64 as Kafka prints it."""
    w = _Writer()
    w.int16(_check_version(version, "assignment"))
    w.topic_partitions(partitions)
    w.bytes_(user_data)
    return w.b64()


def encode_subscription(topics: Iterable[str], version: int = HIGHEST_VERSION, *,
                        owned: Mapping[str, Iterable[int]] | None = None, user_data: bytes | None = None,
                        generation_id: int = -1, rack_id: str | None = None) -> str:
    """``ConsumerProtocol.serializeSubscription``: topics sorted, owned partitions sorted by topic then partition."""
    version = _check_version(version, "subscription")
    w = _Writer()
    w.int16(version)
    names = sorted(topics)
    w.int32(len(names))
    for t in names:
        w.string(t)
    w.bytes_(user_data)
    if version >= 1:
        w.topic_partitions((t, sorted(ps)) for t, ps in sorted((owned or {}).items()))
    if version >= 2:
        w.int32(generation_id)
    if version >= 3:
        w.string(rack_id)
    return w.b64()
