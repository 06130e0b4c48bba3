"""Kafka topic / group metadata hash (KIP-1101).

Kafka's own tests (group-coordinator/src/test/.../UtilsTest.java on 4.3) use a random topic
id and compare ``Utils.computeTopicHash`` against a re-computation with hash4j, so they have no
literal numbers. The literal values below were produced by running the Kafka 4.3 layout in Java
against hash4j 0.22.0 (the version Kafka 4.1/4.3 pin in gradle/dependencies.gradle), compiled
from the hash4j sources at tag v0.22.0. The independent layout tests rebuild the byte string by
hand with ``struct`` + ``xxhash``.
"""

from __future__ import annotations

import struct

import pytest
import xxhash
from kgspec.model.hashing import (
    ONE_UUID_STRING,
    ZERO_UUID_STRING,
    TopicMetadata,
    compute_group_hash,
    compute_metadata_hash,
    compute_topic_hash,
    compute_topic_hash_in,
    deterministic_topic_id,
    kafka_uuid_string,
    to_signed64,
    topic_hash_bytes,
    uuid_bits,
    uuid_from_kafka_string,
)

FOO_ID = "7BbTbY6TQyeLjaXr3zE1qA"
BAR_ID = "QDg8eKviR36GEprlWL08Pw"
FOO_RACKS = [["rack1", "rack0"], ["rack2", "rack1"]]  # MetadataImageBuilder.addRacks() shape

# Values computed by Java (Kafka 4.3 Utils layout + hash4j 0.22.0).
JAVA_FOO_NORACK = 1695546079767283096
JAVA_FOO_RACKS = -2968294500850462660
JAVA_BAR_NORACK = -2267150257216071741  # bar, 3 partitions
JAVA_ZERO_UNICODE = -8974174770195198220
JAVA_GROUP_FOO_BAR = -3942851557170348499
JAVA_GROUP_FOO = -6133700370254989833
JAVA_GROUP_123_456 = 1482712172080382793  # {"bar": 123, "foo": 456}
JAVA_EMPTY_STREAM = 3244421341483603138


def _put_string(s: str) -> bytes:
    units = s.encode("utf-16-le", "surrogatepass")
    return units + struct.pack("<i", len(units) // 2)


def _manual_topic_bytes(topic_id: str, name: str, n: int, racks: list[list[str]]) -> bytes:
    raw = uuid_from_kafka_string(topic_id)
    msb, lsb = struct.unpack(">qq", raw)
    out = struct.pack("<b", 0) + struct.pack("<q", msb) + struct.pack("<q", lsb)
    out += _put_string(name) + struct.pack("<i", n)
    for i in range(n):
        out += struct.pack("<i", i)
        for rack in sorted(racks[i]) if i < len(racks) else []:
            out += struct.pack("<i", len(rack)) + _put_string(rack)
    return out


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def test_java_cross_check_values() -> None:
    assert compute_topic_hash(FOO_ID, "foo", 2) == JAVA_FOO_NORACK
    assert compute_topic_hash(FOO_ID, "foo", 2, FOO_RACKS) == JAVA_FOO_RACKS
    assert compute_topic_hash(BAR_ID, "bar", 3) == JAVA_BAR_NORACK
    assert compute_group_hash({"foo": JAVA_FOO_NORACK, "bar": JAVA_BAR_NORACK}) == (
        JAVA_GROUP_FOO_BAR
    )
    assert compute_group_hash({"foo": JAVA_FOO_NORACK}) == JAVA_GROUP_FOO
    assert compute_group_hash({"bar": 123, "foo": 456}) == JAVA_GROUP_123_456


def test_java_cross_check_utf16_and_java_sort_order() -> None:
    # Supplementary characters: hash4j hashes UTF-16 code units and String.length() counts
    # code units; Collections.sort orders "r\U0001F600" (surrogate 0xD83D) before "r\uffff".
    value = compute_topic_hash(
        ZERO_UUID_STRING, "t\u00e9st-\U0001f600", 1, [["r\U0001f600", "r\uffff", "a", "a"]]
    )
    assert value == JAVA_ZERO_UNICODE


def test_empty_stream_is_plain_xxh3() -> None:
    assert _signed(xxhash.xxh3_64_intdigest(b"")) == JAVA_EMPTY_STREAM


def test_manual_layout_matches() -> None:
    for tid, name, n, racks in [
        (FOO_ID, "foo", 2, FOO_RACKS),
        (FOO_ID, "foo", 2, []),
        (BAR_ID, "bar", 3, [[], ["z", "a", "m"]]),
    ]:
        manual = _manual_topic_bytes(tid, name, n, racks)
        assert topic_hash_bytes(tid, name, n, racks) == manual
        assert compute_topic_hash(tid, name, n, racks) == _signed(xxhash.xxh3_64_intdigest(manual))


def test_group_hash_manual_layout() -> None:
    expected = _signed(xxhash.xxh3_64_intdigest(struct.pack("<qq", 123, 456)))
    assert compute_group_hash({"foo": 456, "bar": 123}) == expected


# ---- the UtilsTest cases (4.3) ----------------------------------------------------------------


def test_non_existing_topic_name() -> None:
    topics = {"foo": TopicMetadata(FOO_ID, "foo", 2, FOO_RACKS)}
    assert compute_topic_hash_in("unknown", topics) == 0


def _variant(magic: int = 0, lsb_first: bool = False, partition_order: tuple[int, ...] = (0, 1),
             rack_swap: bool = False) -> int:
    msb, lsb = uuid_bits(FOO_ID)
    racks = {0: ["rack0", "rack1"], 1: ["rack1", "rack2"]}
    if rack_swap:
        racks[0] = ["rack1", "rack0"]
    out = struct.pack("<b", magic)
    out += struct.pack("<qq", lsb, msb) if lsb_first else struct.pack("<qq", msb, lsb)
    out += _put_string("foo") + struct.pack("<i", 2)
    for p in partition_order:
        out += struct.pack("<i", p)
        for r in racks[p]:
            out += struct.pack("<i", len(r)) + _put_string(r)
    return _signed(xxhash.xxh3_64_intdigest(out))


def test_compute_topic_hash_and_negative_variants() -> None:
    result = compute_topic_hash(FOO_ID, "foo", 2, FOO_RACKS)
    assert result == _variant()
    assert result != _variant(magic=1)
    assert result != _variant(lsb_first=True)
    assert result != _variant(partition_order=(1, 0))
    assert result != _variant(rack_swap=True)


@pytest.mark.parametrize(
    ("tid", "name", "n", "racks"),
    [
        (BAR_ID, "foo", 2, FOO_RACKS),  # different topic id
        (FOO_ID, "bar", 2, FOO_RACKS),  # different topic name
        (FOO_ID, "foo", 1, FOO_RACKS),  # different partitions
        (FOO_ID, "foo", 2, []),  # different racks
    ],
)
def test_compute_topic_hash_with_different_field(
    tid: str, name: str, n: int, racks: list[list[str]]
) -> None:
    assert compute_topic_hash(tid, name, n, racks) != compute_topic_hash(FOO_ID, "foo", 2,
                                                                         FOO_RACKS)


def test_group_hash_empty_is_zero() -> None:
    assert compute_group_hash({}) == 0


def test_group_hash_order_independent() -> None:
    assert compute_group_hash({"bar": 123, "foo": 456}) == compute_group_hash(
        {"foo": 456, "bar": 123}
    )


def test_group_hash_same_key_different_value() -> None:
    assert compute_group_hash({"bar": 123, "foo": 456}) != compute_group_hash(
        {"bar": 456, "foo": 123}
    )


# ---- computeMetadataHash -------------------------------------------------------------------


def test_metadata_hash_skips_missing_topics() -> None:
    topics = {
        "foo": TopicMetadata(FOO_ID, "foo", 2),
        "bar": TopicMetadata(BAR_ID, "bar", 3),
    }
    assert compute_metadata_hash([], topics) == 0
    assert compute_metadata_hash(["missing"], topics) == 0
    assert compute_metadata_hash(["foo", "missing"], topics) == JAVA_GROUP_FOO
    assert compute_metadata_hash(["bar", "foo", "foo"], topics) == JAVA_GROUP_FOO_BAR
    cache: dict[str, int] = {}
    assert compute_metadata_hash(["foo", "bar"], topics, cache) == JAVA_GROUP_FOO_BAR
    assert cache == {"foo": JAVA_FOO_NORACK, "bar": JAVA_BAR_NORACK}


# ---- Uuid helpers ------------------------------------------------------------------------------


def test_uuid_round_trip_and_constants() -> None:
    assert uuid_from_kafka_string(ZERO_UUID_STRING) == bytes(16)
    assert uuid_from_kafka_string(ONE_UUID_STRING) == bytes(15) + b"\x01"
    assert kafka_uuid_string(bytes(16)) == ZERO_UUID_STRING
    raw = bytes(range(16))
    s = kafka_uuid_string(raw)
    assert len(s) == 22
    assert uuid_from_kafka_string(s) == raw
    assert uuid_bits(ONE_UUID_STRING) == (0, 1)
    msb, _ = uuid_bits(b"\xff" * 16)
    assert msb == -1


def test_uuid_errors() -> None:
    with pytest.raises(ValueError, match="too long"):
        uuid_from_kafka_string("A" * 25)
    with pytest.raises(ValueError, match="decoded as 15 bytes"):
        uuid_from_kafka_string("A" * 20)
    with pytest.raises(ValueError, match="not valid"):
        uuid_from_kafka_string("A+" * 11)


def test_deterministic_topic_id() -> None:
    a = deterministic_topic_id("foo")
    assert a == deterministic_topic_id("foo")
    assert a != deterministic_topic_id("bar")
    assert len(a) == 22
    assert not a.startswith("-")
    assert a not in (ZERO_UUID_STRING, ONE_UUID_STRING)


def test_to_signed64() -> None:
    assert to_signed64((1 << 64) - 1) == -1
    assert to_signed64(1 << 63) == -(1 << 63)
    assert to_signed64(5) == 5
