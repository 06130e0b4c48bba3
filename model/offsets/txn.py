"""TxnOffsetCommit (API 28, v0-v5) and the transaction end markers (WriteTxnMarkers, API 27).

TxnOffsetCommit (``KafkaApis.handleTxnOffsetCommitRequest`` then
``GroupCoordinatorService.commitTransactionalOffsets`` and ``OMM.commitTransactionalOffset``,
4.1-trunk):

1. the broker's topic checks: an unknown topic name, or a partition the topic does not have,
   is UNKNOWN_TOPIC_OR_PARTITION; nothing left → the coordinator is not asked;
2. "" as group id → INVALID_GROUP_ID for every forwarded partition (``isGroupIdNotEmpty``);
3. ``validateTransactionalOffsetCommit``: a group no one owns is accepted with a negative
   generation (a simple group), else ILLEGAL_GENERATION; an owned group's
   ``validateOffsetCommit(..., isTransactional=true)``; STALE_MEMBER_EPOCH becomes
   ILLEGAL_GENERATION (the v0-v5 vocabulary);
4. per partition in request order: metadata longer than ``offset.metadata.max.bytes`` →
   OFFSET_METADATA_TOO_LARGE; else the per-partition validator (its STALE_MEMBER_EPOCH fails the
   whole request as ILLEGAL_GENERATION); else NONE and an OffsetCommit record (value v4, no topic
   id, no expiry) in a transactional batch of the request's producer id.

A coordinator error (2, 3, 4) is every forwarded partition's error; the broker's own errors stay
(the service answers ``getErrorResponse(request, error)`` of the forwarded topics, merged into
the broker's). The topic id the validator gets: 4.3 resolves it from the metadata image (an
unknown topic with a validator → ILLEGAL_GENERATION); 4.2 and trunk below v6 pass the zero id
(so KIP-1251's older-epoch commits find no partition and fail). Not modelled: the producer
checks of the transactional append (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH,
INVALID_TXN_STATE, TRANSACTION_ABORTABLE: the log's business), authorization.

The offsets stay pending (``OffsetStore.pending``) until the transaction's end marker: a
WriteTxnMarkers call for the group's ``__consumer_offsets`` partition (``completeTransaction`` →
``replayEndTransactionMarker``) commits or aborts them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.offsets.ops import metadata_too_large, validate_commit
from kgspec.model.offsets.records import ZERO_UUID, Committed, offset_record
from kgspec.model.shards import GROUP_METADATA_TOPIC, partition_for
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator


def generation_of(request: dict[str, Any], version: int) -> int:
    """v3+ ``GenerationId`` (trunk's converter names it ``generationIdOrMemberEpoch``); -1 before."""
    if version < 3:
        return -1
    return int(request.get("generationId", request.get("generationIdOrMemberEpoch", -1)))


def validate_txn_commit(coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                        generation: int, version: int) -> CommitValidator | None:
    """``OMM.validateTransactionalOffsetCommit``."""
    try:
        return validate_commit(coord, group_id, member_id, instance_id, generation, version, transactional=True)
    except CoordinatorError as exc:
        if exc.error == Errors.STALE_MEMBER_EPOCH:
            raise CoordinatorError(Errors.ILLEGAL_GENERATION, exc.message) from exc
        raise


def decide_txn_commit(coord: Coordinator, call: Call) -> Decision:
    req, version = call.request, call.version
    group_id = req["groupId"]
    producer_id = int(req.get("producerId", -1))
    member_id = (req.get("memberId") or "") if version >= 3 else ""
    instance_id = req.get("groupInstanceId") if version >= 3 else None
    generation = generation_of(req, version)
    topics = coord.topics
    out: list[dict[str, Any]] = []
    forwarded: list[tuple[str, int, dict[str, Any], dict[str, Any]]] = []  # name, partition, request, response
    for topic in req.get("topics") or []:
        name = topic.get("name")
        entry: dict[str, Any] = {"name": name, "partitions": []}
        out.append(entry)
        info = topics.by_name(name)
        for p in topic.get("partitions") or []:
            index = int(p["partitionIndex"])
            response = {"partitionIndex": index, "errorCode": 0}
            entry["partitions"].append(response)
            if info is None or not 0 <= index < info.partitions:
                response["errorCode"] = int(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                forwarded.append((info.name, index, p, response))
    if not forwarded:
        return Decision({"throttleTimeMs": 0, "topics": out}, [], ["no partition reached the coordinator"])
    explain: list[str] = []
    records = []
    try:
        if not group_id:
            raise CoordinatorError(Errors.INVALID_GROUP_ID)
        validator = validate_txn_commit(coord, group_id, member_id, instance_id, generation, version)
        max_bytes = coord.config.int("offset.metadata.max.bytes")
        resolves = coord.profile.txn_commit_resolves_topic_id
        for name, index, p, response in forwarded:
            metadata = p.get("committedMetadata")
            if metadata_too_large(metadata, max_bytes, f"{name}-{index}", response, explain):
                continue
            if validator is not None:
                info = topics.by_name(name) if resolves else None
                topic_id = info.topic_id if info is not None else ZERO_UUID
                if resolves and info is None:
                    raise CoordinatorError(Errors.ILLEGAL_GENERATION, f"topic {name} is not in the metadata image")
                try:
                    validator(name, topic_id, index)
                except CoordinatorError as exc:
                    if exc.error == Errors.STALE_MEMBER_EPOCH:
                        raise CoordinatorError(Errors.ILLEGAL_GENERATION, exc.message) from exc
                    raise
            leader_epoch = int(p.get("committedLeaderEpoch", -1)) if version >= 2 else -1
            committed = Committed(int(p["committedOffset"]), leader_epoch if leader_epoch >= 0 else -1,
                                  metadata or "", call.now, None, ZERO_UUID)
            record = offset_record(group_id, name, index, committed)
            record.producer_id = producer_id
            records.append(record)
    except CoordinatorError as exc:
        for _, _, _, response in forwarded:
            response["errorCode"] = int(exc.error)
        return Decision({"throttleTimeMs": 0, "topics": out}, [], [*explain, exc.message or exc.error.name], exc)
    explain.append(f"pending in producer {producer_id}'s transaction until its end marker")
    return Decision({"throttleTimeMs": 0, "topics": out}, records, explain)


# --- WriteTxnMarkers ---------------------------------------------------------------------------


def decide_markers(coord: Coordinator, call: Call) -> Decision:
    """``KafkaApis.handleWriteTxnMarkersRequest``: for each marker, each ``__consumer_offsets``
    partition goes to ``completeTransaction`` (its pending offsets committed or dropped); the
    model answers NONE for every partition (a data partition's marker append, and a coordinator
    not ready, are not its business). The change is the marker's replay, run at commit."""
    num_partitions = coord.config.int("offsets.topic.num.partitions")
    answers: list[dict[str, Any]] = []
    ends: list[tuple[int, bool, frozenset[int]]] = []
    explain: list[str] = []
    for marker in call.request.get("markers") or []:
        producer_id, committed = int(marker["producerId"]), bool(marker["transactionResult"])
        topics = []
        shards: set[int] = set()
        for topic in marker.get("topics") or []:
            indexes = [int(i) for i in topic.get("partitionIndexes") or []]
            topics.append({"name": topic.get("name"), "partitions": [
                {"partitionIndex": i, "errorCode": 0} for i in indexes]})
            if topic.get("name") == GROUP_METADATA_TOPIC:
                shards.update(indexes)
        answers.append({"producerId": producer_id, "topics": topics})
        if shards:
            ends.append((producer_id, committed, frozenset(shards)))
            explain.append(f"producer {producer_id}: {'COMMIT' if committed else 'ABORT'} on "
                           f"{GROUP_METADATA_TOPIC} {sorted(shards)}")

    def apply() -> None:
        for producer_id, committed, shards in ends:
            coord.offsets.end_transaction(producer_id, committed, _on_shards(shards, num_partitions))

    return Decision({"markers": answers}, [], explain, effects=[apply] if ends else [])


def _on_shards(shards: frozenset[int], num_partitions: int) -> Callable[[str], bool]:
    """Whether a group's ``__consumer_offsets`` partition is one of ``shards``."""
    return lambda group_id: partition_for(group_id, num_partitions) in shards
