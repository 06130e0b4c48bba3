"""Kafka's topic hash and group metadata hash (KIP-1101), bit-exact.

Source (identical byte layout on 4.1, 4.3 and trunk):
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/Utils.java``
(``computeGroupHash`` 4.3:453 / 4.1:367, ``computeTopicHash`` 4.3:491 / 4.1:405) and
``modern/ModernGroup.java:computeMetadataHash`` (4.3:375) /
``streams/StreamsGroup.java:computeMetadataHash`` (4.3:659).

Kafka hashes with hash4j 0.22.0 ``Hashing.xxh3_64().hashStream()``. A hash4j stream is plain
seedless XXH3-64 over the bytes that the ``put*`` calls append:

* ``putByte(b)``   -> 1 byte
* ``putInt(i)``    -> 4 bytes, little-endian
* ``putLong(l)``   -> 8 bytes, little-endian
* ``putString(s)`` -> ``putChars(s)`` (each UTF-16 code unit, 2 bytes little-endian) followed by
  ``putInt(s.length())`` (the number of UTF-16 code units).
  (hash4j ``AbstractHashStream.putString``: ``putChars(s); putInt(s.length());``)

Topic hash layout (``computeTopicHash``)::

    putByte(0)                                  # TOPIC_HASH_MAGIC_BYTE
    putLong(topicId.mostSignificantBits)
    putLong(topicId.leastSignificantBits)
    putString(topicName)
    putInt(partitionCount)
    for i in 0 .. partitionCount-1:
        putInt(i)
        for rack in sorted(racks of partition i):   # one entry per replica whose broker has a
            putInt(len(rack)); putString(rack)      # rack; duplicates are kept
    -> getAsLong()                              # signed int64

A topic absent from the metadata image hashes to 0 (``computeTopicHash``), but
``computeMetadataHash`` *filters out* topics missing from the image before calling
``computeGroupHash``: they contribute nothing (not a 0 entry).

Group hash layout (``computeGroupHash``): 0 if the map is empty; otherwise ``putLong(topicHash)``
for each entry sorted by topic name (Java ``String.compareTo``: UTF-16 code-unit order).
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import xxhash
from kgspec.model.javaorder import java_str_key

TOPIC_HASH_MAGIC_BYTE = 0x00
"""``Utils.TOPIC_HASH_MAGIC_BYTE``."""

ZERO_UUID_STRING = "AAAAAAAAAAAAAAAAAAAAAA"
"""``Uuid.ZERO_UUID.toString()`` (new Uuid(0L, 0L))."""

ONE_UUID_STRING = "AAAAAAAAAAAAAAAAAAAAAQ"
"""``Uuid.ONE_UUID.toString()`` (== ``Uuid.METADATA_TOPIC_ID``)."""

_INT64 = 1 << 64
_URL_B64 = re.compile(r"[A-Za-z0-9_-]*={0,2}")


def to_signed64(value: int) -> int:
    """Interpret the low 64 bits of ``value`` as a Java ``long``."""
    value &= _INT64 - 1
    return value - _INT64 if value >= 1 << 63 else value


# --------------------------------------------------------------------------------------------
# Kafka Uuid (org.apache.kafka.common.Uuid)
# --------------------------------------------------------------------------------------------


def uuid_from_kafka_string(s: str) -> bytes:
    """``Uuid.fromString``: URL-safe base64 (no padding) -> 16 bytes (msb long first, big-endian).

    Raises ``ValueError`` with Kafka's messages for too-long input / wrong decoded length.
    """
    if len(s) > 24:
        raise ValueError(
            f"Input string with prefix `{s[:24]}` is too long to be decoded as a base64 UUID"
        )
    if not _URL_B64.fullmatch(s):
        raise ValueError(f"Input string `{s}` is not valid URL-safe base64")
    padded = s.rstrip("=") + "=" * (-len(s.rstrip("=")) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
    except ValueError as exc:  # binascii.Error is a ValueError
        raise ValueError(f"Input string `{s}` is not valid base64: {exc}") from exc
    if len(raw) != 16:
        raise ValueError(
            f"Input string `{s}` decoded as {len(raw)} bytes, which is not equal to the "
            "expected 16 bytes of a base64-encoded UUID"
        )
    return raw


def kafka_uuid_string(b: bytes) -> str:
    """``Uuid.toString``: 16 bytes -> 22-char URL-safe base64 without padding."""
    if len(b) != 16:
        raise ValueError(f"a Kafka Uuid is 16 bytes, got {len(b)}")
    return base64.urlsafe_b64encode(b).decode("ascii").rstrip("=")


def uuid_bits(topic_id: str | bytes) -> tuple[int, int]:
    """(mostSignificantBits, leastSignificantBits) as signed Java longs."""
    raw = uuid_from_kafka_string(topic_id) if isinstance(topic_id, str) else topic_id
    if len(raw) != 16:
        raise ValueError(f"a Kafka Uuid is 16 bytes, got {len(raw)}")
    msb, lsb = struct.unpack(">qq", raw)
    return msb, lsb


def deterministic_topic_id(name: str) -> str:
    """A stable topic id for ``name`` (OURS, not Kafka's: Kafka assigns random ids).

    First 16 bytes of SHA-256(b"kgspec-topic-id:" + UTF-8 name). Mirrors ``Uuid.randomUuid``'s
    constraints: never ZERO_UUID / ONE_UUID and the printed form never starts with ``-``
    (if it would, the input is re-hashed with a counter suffix).
    """
    counter = 0
    while True:
        salt = b"" if counter == 0 else f"#{counter}".encode()
        raw = hashlib.sha256(b"kgspec-topic-id:" + name.encode("utf-8") + salt).digest()[:16]
        s = kafka_uuid_string(raw)
        if s not in (ZERO_UUID_STRING, ONE_UUID_STRING) and not s.startswith("-"):
            return s
        counter += 1


# --------------------------------------------------------------------------------------------
# hash4j HashStream64 byte layout
# --------------------------------------------------------------------------------------------


class HashStream:
    """Byte-accumulating equivalent of hash4j ``Hashing.xxh3_64().hashStream()``."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = bytearray()

    def put_byte(self, v: int) -> HashStream:
        self._buf += struct.pack("<B", v & 0xFF)
        return self

    def put_int(self, v: int) -> HashStream:
        self._buf += struct.pack("<I", v & 0xFFFFFFFF)
        return self

    def put_long(self, v: int) -> HashStream:
        self._buf += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
        return self

    def put_chars(self, s: str) -> HashStream:
        self._buf += s.encode("utf-16-le", "surrogatepass")
        return self

    def put_string(self, s: str) -> HashStream:
        self.put_chars(s)
        return self.put_int(java_string_length(s))

    def data(self) -> bytes:
        return bytes(self._buf)

    def get_as_long(self) -> int:
        return to_signed64(xxhash.xxh3_64_intdigest(bytes(self._buf)))


def java_string_length(s: str) -> int:
    """``String.length()``: number of UTF-16 code units."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


# --------------------------------------------------------------------------------------------
# Kafka hash functions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicMetadata:
    """What ``computeTopicHash`` reads from the metadata image for one topic.

    ``partition_racks[i]`` is the list of racks of partition ``i``'s replicas (one entry per
    replica whose broker has a rack; duplicates kept; unsorted is fine). Missing entries mean
    no racks (the model's default).
    """

    topic_id: str
    name: str
    partition_count: int
    partition_racks: Sequence[Sequence[str]] = field(default_factory=tuple)

    def racks(self, partition: int) -> Sequence[str]:
        if partition < len(self.partition_racks):
            return self.partition_racks[partition]
        return ()


def topic_hash_bytes(
    topic_id: str | bytes,
    name: str,
    partition_count: int,
    partition_racks: Sequence[Sequence[str]] = (),
) -> bytes:
    """The exact byte string that Kafka's ``computeTopicHash`` feeds to XXH3."""
    msb, lsb = uuid_bits(topic_id)
    h = HashStream().put_byte(TOPIC_HASH_MAGIC_BYTE).put_long(msb).put_long(lsb)
    h.put_string(name).put_int(partition_count)
    for i in range(partition_count):
        h.put_int(i)
        racks = partition_racks[i] if i < len(partition_racks) else ()
        for rack in sorted(racks, key=java_str_key):
            h.put_int(java_string_length(rack)).put_string(rack)
    return h.data()


def compute_topic_hash(
    topic_id: str | bytes,
    name: str,
    partition_count: int,
    partition_racks: Sequence[Sequence[str]] = (),
) -> int:
    """``Utils.computeTopicHash`` for a topic present in the image (signed int64).

    Without racks the partition ids are streamed in chunks: time is linear in the partition
    count but memory is constant (the bytes of a whole topic are never built)."""
    if partition_racks:
        data = topic_hash_bytes(topic_id, name, partition_count, partition_racks)
        return to_signed64(xxhash.xxh3_64_intdigest(data))
    msb, lsb = uuid_bits(topic_id)
    head = HashStream().put_byte(TOPIC_HASH_MAGIC_BYTE).put_long(msb).put_long(lsb)
    head.put_string(name).put_int(partition_count)
    if partition_count <= _HASH_CHUNK:
        return to_signed64(xxhash.xxh3_64_intdigest(head.data() + _ints(0, max(partition_count, 0))))
    stream = xxhash.xxh3_64(head.data())
    for start in range(0, partition_count, _HASH_CHUNK):
        stream.update(_ints(start, min(start + _HASH_CHUNK, partition_count)))
    return to_signed64(stream.intdigest())


_HASH_CHUNK = 1 << 16


def _ints(start: int, stop: int) -> bytes:
    """``putInt(i)`` for i in [start, stop): little-endian int32s."""
    return struct.pack(f"<{stop - start}I", *range(start, stop))


def compute_topic_hash_in(topic_name: str, topics: Mapping[str, TopicMetadata]) -> int:
    """``Utils.computeTopicHash(topicName, image)``: 0 when the topic is not in the image."""
    meta = topics.get(topic_name)
    if meta is None:
        return 0
    return compute_topic_hash(meta.topic_id, meta.name, meta.partition_count,
                              meta.partition_racks)


def compute_group_hash(topic_hashes: Mapping[str, int]) -> int:
    """``Utils.computeGroupHash``: 0 for an empty map, else XXH3 of the topic hashes (as
    little-endian longs) in topic-name order."""
    if not topic_hashes:
        return 0
    h = HashStream()
    for name in sorted(topic_hashes, key=java_str_key):
        h.put_long(topic_hashes[name])
    return h.get_as_long()


def compute_metadata_hash(
    subscribed_topic_names: Iterable[str],
    topics: Mapping[str, TopicMetadata],
    topic_hash_cache: dict[str, int] | None = None,
) -> int:
    """``ModernGroup.computeMetadataHash`` / ``StreamsGroup.computeMetadataHash``.

    Subscribed (consumer) or required (streams) topics that are missing from ``topics`` are
    skipped; if none remain the result is 0. ``topic_hash_cache`` mirrors the coordinator's
    per-shard topic-hash cache (filled on miss).
    """
    per_topic: dict[str, int] = {}
    for name in set(subscribed_topic_names):
        if name not in topics:
            continue
        if topic_hash_cache is not None and name in topic_hash_cache:
            per_topic[name] = topic_hash_cache[name]
            continue
        value = compute_topic_hash_in(name, topics)
        if topic_hash_cache is not None:
            topic_hash_cache[name] = value
        per_topic[name] = value
    return compute_group_hash(per_topic)


def topic_metadata(name: str, partition_count: int, topic_id: str | None = None,
                   partition_racks: Sequence[Sequence[str]] = ()) -> TopicMetadata:
    """Convenience constructor; ``topic_id`` defaults to :func:`deterministic_topic_id`."""
    return TopicMetadata(topic_id or deterministic_topic_id(name), name, partition_count,
                         tuple(tuple(r) for r in partition_racks))


__all__ = [
    "ONE_UUID_STRING",
    "TOPIC_HASH_MAGIC_BYTE",
    "ZERO_UUID_STRING",
    "HashStream",
    "TopicMetadata",
    "compute_group_hash",
    "compute_metadata_hash",
    "compute_topic_hash",
    "compute_topic_hash_in",
    "deterministic_topic_id",
    "java_string_length",
    "kafka_uuid_string",
    "to_signed64",
    "topic_hash_bytes",
    "topic_metadata",
    "uuid_bits",
    "uuid_from_kafka_string",
]
