"""Classic-protocol members of a consumer group (and, under kip, of a streams group): their
``ClassicMemberMetadata``, bytes, and the checks of their classic calls.

A member "uses the classic protocol" iff its member record (5; 19 for streams) carries the
tagged ``classicMemberMetadata`` (``ConsumerGroupMember.useClassicProtocol``): the session
timeout of its JoinGroup and its protocol list (name, metadata) in request order. The checks of
the classic calls are written once here for both group types (``mixed.py``, ``streams_mixed.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kgspec.model.classic.member import Protocols
from kgspec.model.errors import CoordinatorError, Errors, throw_if_instance_id_is_fenced
from kgspec.model.javaorder import int_hashset_order, uuid_hashmap_order
from kgspec.model.migration.protocol import TopicPartitions, encode_assignment

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

CONSUMER_PROTOCOL_TYPE = "consumer"  # ConsumerProtocol.PROTOCOL_TYPE


class ClassicCapable(Protocol):
    """A consumer or streams group member, as the classic calls see it."""

    @property
    def member_id(self) -> str: ...
    @property
    def member_epoch(self) -> int: ...
    @property
    def classic_member_metadata(self) -> dict[str, Any] | None: ...


M = TypeVar("M", bound=ClassicCapable)
M_co = TypeVar("M_co", bound=ClassicCapable, covariant=True)


class MixedGroup(Protocol[M_co]):
    @property
    def group_id(self) -> str: ...
    @property
    def members(self) -> Mapping[str, M_co]: ...
    def member_or_throw(self, member_id: str) -> M_co: ...
    def static_member(self, instance_id: str | None) -> M_co | None: ...


def classic_metadata(session_timeout_ms: int, protocols: Protocols) -> dict[str, Any]:
    return {"sessionTimeoutMs": session_timeout_ms,
            "supportedProtocols": [{"name": n, "metadata": m} for n, m in protocols]}


def uses_classic(member: ClassicCapable) -> bool:
    return member.classic_member_metadata is not None


def session_timeout(member: ClassicCapable) -> int:
    meta = member.classic_member_metadata
    assert meta is not None
    return int(meta["sessionTimeoutMs"])


def protocols(member: ClassicCapable) -> Protocols:
    meta = member.classic_member_metadata
    assert meta is not None
    return tuple((p["name"], p.get("metadata") or "") for p in meta.get("supportedProtocols") or [])


def first_protocol(member: ClassicCapable) -> tuple[str, str]:
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


# --- the classic calls' checks, for consumer groups and (kip) streams groups ---------------------


def supports_protocols(members: Iterable[ClassicCapable], protocol_type: str, names: set[str]) -> bool:
    """``supportsClassicProtocols``: type "consumer" and a name every classic member lists."""
    if protocol_type != CONSUMER_PROTOCOL_TYPE:
        return False
    classic = [protocols(m) for m in members if uses_classic(m)]
    if not classic:
        return bool(names)
    return any(all(name in {n for n, _ in ps} for ps in classic) for name in names)


def calling_member_or_throw(group: MixedGroup[M], req: Mapping[str, Any], version: int) -> M:
    """The member a SyncGroup or Heartbeat request comes from: ``validateConsumerGroupMember``
    (``groupInstanceId`` from v3), ``throwIfMemberDoesNotUseClassicProtocol``, then its generation."""
    member_id: str = req.get("memberId") or ""
    instance_id: str | None = req.get("groupInstanceId") if version >= 3 else None
    generation = int(req["generationId"])  # a request without one fails on that first
    if instance_id is None:
        member = group.member_or_throw(member_id)
    else:
        found = group.static_member(instance_id)
        if found is None:
            raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member with instance id {instance_id} is not a "
                                   f"member of group {group.group_id}.")
        throw_if_instance_id_is_fenced(found, member_id, instance_id)
        member = found
    if not uses_classic(member):
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, f"Member {member.member_id} does not use the classic protocol.")
    if member.member_epoch != generation:
        raise CoordinatorError(Errors.ILLEGAL_GENERATION, f"The request generation id {generation} is not equal to "
                               f"the member epoch {member.member_epoch} of member {member.member_id}.")
    return member


def check_sync_protocol(member_id: str, protocol_type: str | None, protocol_name: str | None, name: str) -> None:
    """``throwIfClassicProtocolIsNotSupported``: a SyncGroup's protocol type and name (v5+, else None)
    against "consumer" and the protocol its JoinGroup was answered with."""
    if protocol_type is not None and protocol_type != CONSUMER_PROTOCOL_TYPE:
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"The protocol type {protocol_type} from "
                               f"member {member_id} request is not equal to the group protocol type consumer.")
    if protocol_name is not None and protocol_name != name:
        raise CoordinatorError(Errors.INCONSISTENT_GROUP_PROTOCOL, f"The protocol name {protocol_name} from "
                               f"member {member_id} request is not equal to the protocol name {name} returned "
                               "in the join response.")


def rebalance_in_progress(group_id: str, member_id: str) -> CoordinatorError:
    return CoordinatorError(Errors.REBALANCE_IN_PROGRESS, f"A new rebalance is triggered in group {group_id} "
                            f"and member {member_id} should rejoin to catch up.")


def leaving_members(group: MixedGroup[M], identities: list[tuple[str, str | None, str | None]],
                    ) -> tuple[list[dict[str, Any]], list[M]]:
    """A LeaveGroup's per-member answers and the members it removes (Kafka's HashSet: a member
    named twice leaves once)."""
    answers: list[dict[str, Any]] = []
    leaving: dict[str, M] = {}
    for member_id, instance_id, _reason in identities:
        if instance_id is None:
            found = group.members.get(member_id)
            error = 0 if found is not None else int(Errors.UNKNOWN_MEMBER_ID)
        else:
            found = group.static_member(instance_id)
            error = (int(Errors.UNKNOWN_MEMBER_ID) if found is None else
                     int(Errors.FENCED_INSTANCE_ID) if member_id != "" and found.member_id != member_id else 0)
        answers.append({"memberId": member_id, "groupInstanceId": instance_id, "errorCode": error})
        if error == 0 and found is not None:
            leaving[found.member_id] = found
    return answers, list(leaving.values())
