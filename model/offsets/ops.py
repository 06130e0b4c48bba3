"""OffsetCommit, OffsetFetch and OffsetDelete as decisions (``KafkaApis`` + ``OffsetMetadataManager``, 4.1-trunk).

OffsetCommit (``KafkaApis.handleOffsetCommitRequest`` then ``OMM.commitOffset``):

1. per topic, as the broker checks it from its metadata: v10 an unknown topic id gives every
   partition UNKNOWN_TOPIC_ID; below v10 an unknown name UNKNOWN_TOPIC_OR_PARTITION; a partition
   the topic does not have (no leader) UNKNOWN_TOPIC_OR_PARTITION. Nothing left: the
   coordinator is not asked (the group is never checked);
2. ``OMM.validateOffsetCommit``: a group no one owns is accepted with a negative epoch (a
   "simple" group is created), else GROUP_ID_NOT_FOUND (v9+) / ILLEGAL_GENERATION (v2-8); an
   owned group is validated by its protocol (``validate_offset_commit`` of
   ``model/protocol.py``), which may hand back a per-partition validator (KIP-1251);
3. per partition in request order: metadata longer than ``offset.metadata.max.bytes``
   (``String.length()``) is OFFSET_METADATA_TOO_LARGE for that partition; else the validator
   runs, and a failure there fails the whole request; else NONE and one OffsetCommit record.

A coordinator error (step 2, or a validator's) is ``OffsetCommitRequest.getErrorResponse``:
every partition of the request gets it, the broker's own errors included, and nothing is written.

OffsetFetch (``KafkaApis.handleOffsetFetchRequest`` then ``OMM.fetchOffsets`` /
``fetchAllOffsets``), per group: v10 listed topics with an unknown id answer UNKNOWN_TOPIC_ID
(offset -1); a group no one owns answers "no offset" for every listed partition (an empty list
for all topics) without an error; an owned group is validated by its protocol
(``validate_offset_fetch``) and an error there is the group's error with no topics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.offsets.records import ZERO_UUID, Committed, offset_record, offset_tombstone
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator

DEFAULT_RETENTION_TIME = -1  # OffsetCommitRequest.DEFAULT_RETENTION_TIME
INVALID_OFFSET = -1
NO_LEADER_EPOCH = -1


def _topic_key(version: int, name: str | None, topic_id: str | None) -> dict[str, Any]:
    return {"topicId": topic_id} if version >= 10 else {"name": name}


def metadata_too_large(metadata: str | None, max_bytes: int, where: str, response: dict[str, Any],
                       explain: list[str]) -> bool:
    """OFFSET_METADATA_TOO_LARGE for a partition whose metadata is longer than
    ``offset.metadata.max.bytes`` (``String.length()``), as OffsetCommit and TxnOffsetCommit check it."""
    if metadata is None or len(metadata) <= max_bytes:
        return False
    response["errorCode"] = int(Errors.OFFSET_METADATA_TOO_LARGE)
    explain.append(f"{where}: metadata of {len(metadata)} characters > offset.metadata.max.bytes {max_bytes}")
    return True


def validate_commit(coord: Coordinator, group_id: str, member_id: str, instance_id: str | None, epoch: int,
                    version: int, transactional: bool = False) -> CommitValidator | None:
    """``OMM.validateOffsetCommit`` (``validateTransactionalOffsetCommit`` when ``transactional``,
    whose versions are all below 9): the validator to run per partition (None: NO_OP)."""
    owner = coord.offsets_owner(group_id)
    if owner is not None:
        return owner.validate_offset_commit(coord, group_id, member_id, instance_id, epoch, version, transactional)
    if epoch < 0:
        return None  # an EMPTY (simple) group accepts it; a new one is created when the records replay
    if group_id in coord.offsets.simple_groups:
        # ClassicGroup.validateOffsetCommit, generation >= 0: validateMember finds no member (a
        # simple group has none, static or not)
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID)
    if version >= 9:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
    raise CoordinatorError(Errors.ILLEGAL_GENERATION)


def decide_commit(coord: Coordinator, call: Call) -> Decision:
    req, version = call.request, call.version
    group_id = req["groupId"]
    member_id = req.get("memberId") or ""
    epoch = int(req.get("generationIdOrMemberEpoch", -1))
    instance_id = req.get("groupInstanceId") if version >= 7 else None
    retention = int(req.get("retentionTimeMs", DEFAULT_RETENTION_TIME)) if version <= 4 else DEFAULT_RETENTION_TIME
    topics = coord.topics
    resolves = coord.profile.offset_commit_resolves_topic_id
    # (response topic, partitions in order); partition entries are filled as they are decided
    out: list[dict[str, Any]] = []
    # name, stored topic id, partition, request partition, response entry
    forwarded: list[tuple[str, str, int, dict[str, Any], dict[str, Any]]] = []
    for topic in req.get("topics") or []:
        name, topic_id = topic.get("name"), topic.get("topicId")
        entry = {**_topic_key(version, name, topic_id), "partitions": []}
        out.append(entry)
        info = topics.by_id(topic_id) if version >= 10 else topics.by_name(name)
        if info is None:
            error = Errors.UNKNOWN_TOPIC_ID if version >= 10 else Errors.UNKNOWN_TOPIC_OR_PARTITION
            entry["partitions"] = [{"partitionIndex": p["partitionIndex"], "errorCode": int(error)}
                                   for p in topic.get("partitions") or []]
            continue
        stored_id = info.topic_id if version >= 10 or resolves else ZERO_UUID
        for p in topic.get("partitions") or []:
            index = int(p["partitionIndex"])
            response = {"partitionIndex": index, "errorCode": 0}
            entry["partitions"].append(response)
            if not 0 <= index < info.partitions:
                response["errorCode"] = int(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                forwarded.append((info.name, stored_id, index, p, response))
    if not forwarded:
        return Decision({"throttleTimeMs": 0, "topics": out}, [], ["no partition reached the coordinator"])
    explain: list[str] = []
    records = []
    try:
        validator = validate_commit(coord, group_id, member_id, instance_id, epoch, version)
        max_bytes = coord.config.int("offset.metadata.max.bytes")
        expire = None if retention == DEFAULT_RETENTION_TIME else call.now + retention
        for name, stored_id, index, p, response in forwarded:
            metadata = p.get("committedMetadata")
            if metadata_too_large(metadata, max_bytes, f"{name}-{index}", response, explain):
                continue
            if validator is not None:
                validator(name, stored_id, index)
            leader_epoch = int(p.get("committedLeaderEpoch", -1)) if version >= 6 else -1
            committed = Committed(int(p["committedOffset"]), leader_epoch if leader_epoch >= 0 else -1,
                                  metadata if metadata is not None else "", call.now, expire, stored_id)
            records.append(offset_record(group_id, name, index, committed))
    except CoordinatorError as exc:
        # OffsetCommitRequest.getErrorResponse: every partition of the request, nothing written
        for entry in out:
            for response in entry["partitions"]:
                response["errorCode"] = int(exc.error)
        return Decision({"throttleTimeMs": 0, "topics": out}, [], [*explain, exc.message or exc.error.name], exc)
    return Decision({"throttleTimeMs": 0, "topics": out}, records, explain)


# --- OffsetFetch -------------------------------------------------------------------------------


def _no_offset(index: int, error: Errors = Errors.NONE) -> dict[str, Any]:
    return {"partitionIndex": index, "committedOffset": INVALID_OFFSET, "committedLeaderEpoch": NO_LEADER_EPOCH,
            "metadata": "", "errorCode": int(error)}


def _offset(index: int, c: Committed) -> dict[str, Any]:
    return {"partitionIndex": index, "committedOffset": c.offset, "committedLeaderEpoch": c.leader_epoch,
            "metadata": c.metadata, "errorCode": 0}


def _unstable(index: int) -> dict[str, Any]:
    return _no_offset(index, Errors.UNSTABLE_OFFSET_COMMIT)


def fetch_group(coord: Coordinator, group: dict[str, Any], version: int, require_stable: bool = False) -> dict[str, Any]:
    """One group of an OffsetFetch (the v8+ ``groups[]`` entry shape; v1-7 normalised to it).
    ``require_stable`` (v7+): a partition with a pending transactional offset answers
    UNSTABLE_OFFSET_COMMIT (without it the pending offsets are not seen)."""
    group_id = group["groupId"]
    member_id = group.get("memberId") if version >= 9 else None
    epoch = int(group.get("memberEpoch", -1)) if version >= 9 else -1
    requested = group.get("topics")
    topics = coord.topics
    exists = True
    owner = coord.offsets_owner(group_id)
    if owner is not None:
        try:
            owner.validate_offset_fetch(coord, group_id, member_id, epoch)
        except CoordinatorError as exc:
            if exc.error != Errors.GROUP_ID_NOT_FOUND:
                return {"groupId": group_id, "topics": [], "errorCode": int(exc.error)}
            exists = False  # a dead classic group: GroupIdNotFoundException, answered "no offsets"
    elif group_id not in coord.offsets.simple_groups:
        exists = False  # GroupIdNotFoundException: no offsets, no error
    stored = coord.offsets.group(group_id) if exists else {}
    out: list[dict[str, Any]] = []
    if requested is None:  # all topics
        for name, parts in stored.items():
            info = topics.by_name(name)
            if version >= 10 and info is None:
                continue  # a topic whose id cannot be found is left out
            key = _topic_key(version, name, info.topic_id if info is not None else None)
            out.append({**key, "partitions": [
                _unstable(p) if require_stable and coord.offsets.has_pending(group_id, name, p) else _offset(p, c)
                for p, c in parts.items()]})
        return {"groupId": group_id, "topics": out, "errorCode": 0}
    for topic in requested:
        if version >= 10:
            topic_id = topic.get("topicId")
            info = topics.by_id(topic_id)
            if info is None:
                out.append({"topicId": topic_id, "partitions": [_no_offset(int(i), Errors.UNKNOWN_TOPIC_ID)
                                                                for i in topic.get("partitionIndexes") or []]})
                continue
            name, requested_id = info.name, topic_id
        else:
            name, requested_id = topic.get("name"), ZERO_UUID
        parts = stored.get(name, {})
        entries = []
        for i in topic.get("partitionIndexes") or []:
            c = parts.get(int(i))
            if require_stable and exists and coord.offsets.has_pending(group_id, name, int(i)):
                entries.append(_unstable(int(i)))
            elif c is None or (c.topic_id != ZERO_UUID and requested_id != ZERO_UUID and c.topic_id != requested_id):
                entries.append(_no_offset(int(i)))
            else:
                entries.append(_offset(int(i), c))
        out.append({**_topic_key(version, name, requested_id), "partitions": entries})
    return {"groupId": group_id, "topics": out, "errorCode": 0}


def decide_fetch(coord: Coordinator, call: Call) -> Decision:
    req, version = call.request, call.version
    stable = version >= 7 and bool(req.get("requireStable", False))
    if version >= 8:
        return Decision({"throttleTimeMs": 0, "groups": [fetch_group(coord, g, version, stable)
                                                         for g in req.get("groups") or []]})
    one = fetch_group(coord, {"groupId": req["groupId"], "topics": req.get("topics")}, version, stable)
    response: dict[str, Any] = {"throttleTimeMs": 0, "topics": one["topics"]}
    if version >= 2:
        response["errorCode"] = one["errorCode"]
    elif one["errorCode"]:  # v1 has no group-level error: every partition carries it
        for topic in req.get("topics") or []:
            response["topics"].append({"name": topic.get("name"), "partitions": [
                _no_offset(int(i), Errors(one["errorCode"])) for i in topic.get("partitionIndexes") or []]})
    return Decision(response)


# --- OffsetDelete ------------------------------------------------------------------------------


def decide_delete(coord: Coordinator, call: Call) -> Decision:
    """``KafkaApis.handleOffsetDeleteRequest`` then ``OMM.deleteOffsets`` (4.3).

    The broker answers unknown topics and partitions without a leader UNKNOWN_TOPIC_OR_PARTITION
    and asks the coordinator even when nothing is left (the group is checked anyway). An empty
    group id is INVALID_GROUP_ID (``isGroupIdNotEmpty``); a group no one has (a simple group aside)
    GROUP_ID_NOT_FOUND; then the owner's ``validateOffsetDelete``. Such an error is the response's
    top-level error, with no topics (``OffsetDeleteRequest.getErrorResponse``). Per topic: one the
    group is subscribed to answers GROUP_SUBSCRIBED_TO_TOPIC for each partition; otherwise NONE,
    and a tombstone for each partition with a committed offset.
    """
    req = call.request
    group_id = req["groupId"]
    topics = coord.topics
    out: list[dict[str, Any]] = []
    forwarded: list[tuple[str, list[dict[str, Any]]]] = []
    for topic in req.get("topics") or []:
        name = topic.get("name")
        info = topics.by_name(name)
        parts = [int(p["partitionIndex"]) for p in topic.get("partitions") or []]
        if info is None:
            out.append({"name": name, "partitions": [
                {"partitionIndex": p, "errorCode": int(Errors.UNKNOWN_TOPIC_OR_PARTITION)} for p in parts]})
            continue
        entry = {"name": name, "partitions": [
            {"partitionIndex": p, "errorCode": 0 if 0 <= p < info.partitions else int(Errors.UNKNOWN_TOPIC_OR_PARTITION)}
            for p in parts]}
        out.append(entry)
        valid = [r for r in entry["partitions"] if r["errorCode"] == 0]
        if valid:
            forwarded.append((name, valid))
    try:
        if not group_id:
            raise CoordinatorError(Errors.INVALID_GROUP_ID)
        owner = coord.offsets_owner(group_id)
        if owner is None:
            if group_id not in coord.offsets.simple_groups:
                raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        else:
            owner.validate_offset_delete(coord, group_id)
    except CoordinatorError as exc:
        return Decision({"throttleTimeMs": 0, "errorCode": int(exc.error), "topics": []}, [],
                        [exc.message or exc.error.name], exc)
    records = []
    for name, partitions in forwarded:
        if owner is not None and owner.is_subscribed_to_topic(coord, group_id, name):
            for response in partitions:
                response["errorCode"] = int(Errors.GROUP_SUBSCRIBED_TO_TOPIC)
            continue
        for response in partitions:
            index = response["partitionIndex"]
            if coord.offsets.get(group_id, name, index) is not None or coord.offsets.has_pending(group_id, name, index):
                records.append(offset_tombstone(group_id, name, index))
    return Decision({"throttleTimeMs": 0, "errorCode": 0, "topics": out}, records)
