"""Classic-protocol members of a consumer group: their ``ClassicMemberMetadata`` and bytes.

A consumer group member "uses the classic protocol" iff its record 5 carries the tagged
``classicMemberMetadata`` (``ConsumerGroupMember.useClassicProtocol``): the session timeout of
its JoinGroup and its protocol list (name, metadata) in request order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.classic.member import Protocols
from kgspec.model.consumer.member import ConsumerMember
from kgspec.model.javaorder import int_hashset_order, uuid_hashmap_order
from kgspec.model.migration.protocol import TopicPartitions, encode_assignment

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

CONSUMER_PROTOCOL_TYPE = "consumer"  # ConsumerProtocol.PROTOCOL_TYPE


def classic_metadata(session_timeout_ms: int, protocols: Protocols) -> dict[str, Any]:
    return {"sessionTimeoutMs": session_timeout_ms,
            "supportedProtocols": [{"name": n, "metadata": m} for n, m in protocols]}


def uses_classic(member: ConsumerMember) -> bool:
    return member.classic_member_metadata is not None


def session_timeout(member: ConsumerMember) -> int:
    return session_timeout_of(member.classic_member_metadata)


def protocols(member: ConsumerMember) -> Protocols:
    return protocols_of(member.classic_member_metadata)


# The same for any member type that carries the metadata (streams members under kip).
def session_timeout_of(meta: dict[str, Any] | None) -> int:
    assert meta is not None
    return int(meta["sessionTimeoutMs"])


def protocols_of(meta: dict[str, Any] | None) -> Protocols:
    assert meta is not None
    return tuple((p["name"], p.get("metadata") or "") for p in meta.get("supportedProtocols") or [])


def supports_protocols(member_protocols: list[Protocols], protocol_type: str, names: set[str]) -> bool:
    """``supportsClassicProtocols``: type "consumer" and a name every classic member lists."""
    if protocol_type != CONSUMER_PROTOCOL_TYPE:
        return False
    if not member_protocols:
        return bool(names)
    return any(all(name in {n for n, _ in ps} for ps in member_protocols) for name in names)


def first_protocol(member: ConsumerMember) -> tuple[str, str]:
    """``supportedClassicProtocols().get().iterator().next()``: the JoinGroup's first protocol."""
    return protocols(member)[0]


def topic_ids(coord: Coordinator, tps: TopicPartitions) -> dict[str, frozenset[int]]:
    """``toTopicPartitionMap``: names to ids; topics missing from the metadata image are dropped."""
    out: dict[str, set[int]] = {}
    for name, parts in tps:
        tid = coord.topics.id_of(name)
        if tid is not None:
            out.setdefault(tid, set()).update(parts)
    return {t: frozenset(p) for t, p in out.items()}


def serialize(coord: Coordinator, assignment: dict[str, Any], version: int) -> str:
    """``serializeAssignment(toConsumerProtocolAssignment(map, image), version)``: topic ids the
    image no longer knows are dropped; topics and partitions in Java ``HashMap``/``HashSet`` order."""
    entries = []
    for tid in uuid_hashmap_order(t for t, p in assignment.items()):
        name = coord.topics.name_of(tid)
        if name is not None:
            entries.append((name, int_hashset_order(assignment[tid])))
    return encode_assignment(entries, version)
