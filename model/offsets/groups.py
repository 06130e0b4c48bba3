"""DeleteGroups (API 42) and the expiry of offsets and groups: Kafka's ``GroupCoordinatorShard``
``deleteGroups`` / ``cleanupGroupMetadata`` with ``OffsetMetadataManager.deleteAllOffsets`` /
``cleanupExpiredOffsets`` and ``GroupMetadataManager.maybeDeleteGroup`` (4.1-trunk alike).

Each group's own checks and tombstones come from the protocol that owns its id
(``validate_delete_group``, ``delete_group_records``, ``is_empty_group``, ``offset_expiry``,
``should_expire``, ``is_subscribed_to_topic`` of ``model/protocol.py``); a simple group (no
owner, ``model/offsets/store.py``) is Kafka's EMPTY classic group without a protocol type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.offsets.records import offset_tombstone
from kgspec.model.records import GROUP_METADATA, Record
from kgspec.model.shards import by_shard
from kgspec.model.step import Decision
from kgspec.model.timers import Timer

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, ExpiryBase

EXPIRE_TIMER = "offsets-expire-group-metadata"  # the timer kind (the offsets protocol's)
EXPIRE_KEY = "expire-group-metadata"  # GroupCoordinatorShard.GROUP_EXPIRATION_KEY
GROUP_METADATA_VALUE_VERSION = 3  # the classic GroupMetadata record version a tombstone carries


def _simple_group_tombstone(group_id: str) -> Record:
    """``ClassicGroup.createGroupTombstoneRecords`` of a simple group."""
    return Record(GROUP_METADATA, {"group": group_id}, None, GROUP_METADATA_VALUE_VERSION)


def delete_order(coord: Coordinator, group_ids: list[str]) -> list[str]:
    """The order Kafka deletes (and answers) a DeleteGroups request's ids in: ``KafkaApis``
    drops duplicates, ``GroupCoordinatorService.deleteGroups`` splits them by shard
    (``groupsByTopicPartition``) and each shard's list goes through ``new HashSet<>(groupList)``
    (``updateResponseAndGetNonErrorGroupList``) before ``GroupCoordinatorShard.deleteGroups``."""
    shards = by_shard(list(dict.fromkeys(group_ids)), coord.config.int("offsets.topic.num.partitions"))
    order: list[str] = []
    for ids in shards:
        order += java_hashmap_order(ids, max(int(len(ids) / 0.75) + 1, 16))
    return order


def delete_all_offsets(coord: Coordinator, group_id: str) -> list[Record]:
    """``OMM.deleteAllOffsets``: a tombstone per committed offset (the store's order; Kafka's is
    its TimelineHashMap's, one run of one record type, which the checker matches whole), then
    one per partition with only a pending transactional offset."""
    store = coord.offsets
    records = [offset_tombstone(group_id, topic, partition)
               for topic, parts in store.group(group_id).items() for partition in parts]
    # the pending transactional ones too, where no committed offset already has its tombstone
    return records + [offset_tombstone(group_id, topic, partition) for topic, partition in
                      store.pending_partitions(group_id) if store.get(group_id, topic, partition) is None]


def group_exists(coord: Coordinator, group_id: str) -> bool:
    return coord.offsets_owner(group_id) is not None or group_id in coord.offsets.simple_groups


def delete_group(coord: Coordinator, group_id: str) -> list[Record]:
    """One group of ``GroupCoordinatorShard.deleteGroups``: ``validateDeleteGroup`` (an unknown
    id: GroupIdNotFoundException), then the offsets' tombstones, then the group's."""
    owner = coord.offsets_owner(group_id)
    if owner is None:
        if group_id not in coord.offsets.simple_groups:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        return [*delete_all_offsets(coord, group_id), _simple_group_tombstone(group_id)]
    owner.validate_delete_group(coord, group_id)
    return [*delete_all_offsets(coord, group_id), *owner.delete_group_records(coord, group_id)]


def decide_delete_groups(coord: Coordinator, call: Call) -> Decision:
    """DeleteGroups v0-v2: per group NONE, GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP (and the
    records of the deleted ones, in the order of the results). A null id (INVALID_GROUP_ID in
    ``GroupCoordinatorService``) cannot be sent: ``GroupsNames`` is a non-nullable string array."""
    results: list[dict[str, Any]] = []
    records: list[Record] = []
    explain: list[str] = []
    for group_id in delete_order(coord, [str(g) for g in call.request.get("groupsNames") or []]):
        try:
            records += delete_group(coord, group_id)
        except CoordinatorError as exc:
            results.append({"groupId": group_id, "errorCode": int(exc.error)})
            explain.append(f"group {group_id}: {exc.message or exc.error.name}")
            continue
        results.append({"groupId": group_id, "errorCode": 0})
        explain.append(f"group {group_id} deleted")
    return Decision({"throttleTimeMs": 0, "results": results}, records, explain)


# --- expiry ------------------------------------------------------------------------------------


def schedule_expiry(coord: Coordinator, now: int) -> None:
    """``scheduleGroupMetadataExpiration``: the next cleanup, ``offsets.retention.check.interval.ms``
    from now (armed when the coordinator loads, and again after each run)."""
    interval = coord.config.int("offsets.retention.check.interval.ms")
    coord.timers.schedule(Timer(EXPIRE_KEY, now + interval, EXPIRE_TIMER, ""))


def _group_ids(coord: Coordinator) -> list[str]:
    """``groupMetadataManager.groupIds()`` (the model's order: each group's records are its own)."""
    return [*coord.groups, *coord.streams_groups, *coord.classic_groups, *coord.connect_groups,
            *sorted(coord.offsets.simple_groups)]


def _expired(base: ExpiryBase, commit_timestamp: int, expire_timestamp: int | None, now: int,
             retention_ms: int) -> bool:
    """``OffsetExpirationConditionImpl.isOffsetExpired``."""
    if expire_timestamp is not None:  # an OffsetCommit v2-4 retention: the old semantics
        return now >= expire_timestamp
    return now - base(commit_timestamp) >= retention_ms


def cleanup_expired_offsets(coord: Coordinator, group_id: str, now: int, records: list[Record]) -> bool:
    """``OMM.cleanupExpiredOffsets``: tombstones for the expired offsets of the topics the group
    is not subscribed to; whether none is left and no transaction is open on the group (no
    offsets at all counts as all expired)."""
    store = coord.offsets
    stored = store.group(group_id)
    if not stored:
        return not store.has_pending(group_id)
    owner = coord.offsets_owner(group_id)
    base = owner.offset_expiry(coord, group_id) if owner is not None else _from_commit
    if base is None:
        return False
    retention_ms = coord.config.int("offsets.retention.minutes") * 60_000
    all_expired = True
    for topic, parts in stored.items():
        if owner is not None and owner.is_subscribed_to_topic(coord, group_id, topic):
            all_expired = False
            continue
        for partition, c in parts.items():
            # an offset with a pending transactional one is kept until the transaction ends
            if _expired(base, c.commit_timestamp, c.expire_timestamp, now, retention_ms) \
                    and not store.has_pending(group_id, topic, partition):
                records.append(offset_tombstone(group_id, topic, partition))
            else:
                all_expired = False
    return all_expired and not store.has_pending(group_id)


def _from_commit(commit_timestamp: int) -> int:
    return commit_timestamp  # a simple group: retention counts from each commit


def cleanup_group_metadata(coord: Coordinator, now: int) -> tuple[list[Record], str]:
    """``GroupCoordinatorShard.cleanupGroupMetadata``: for each group that may expire, its
    expired offsets, and when none is left and the group is empty, the group
    (``maybeDeleteGroup``); then the next run is armed."""
    records: list[Record] = []
    deleted: list[str] = []
    for group_id in _group_ids(coord):
        owner = coord.offsets_owner(group_id)
        if owner is not None and not owner.should_expire(coord, group_id):
            continue
        before = len(records)
        if cleanup_expired_offsets(coord, group_id, now, records):
            if owner is None:
                records.append(_simple_group_tombstone(group_id))
                deleted.append(group_id)
            elif owner.is_empty_group(coord, group_id):
                records += owner.delete_group_records(coord, group_id)
                deleted.append(group_id)
        if len(records) > before and group_id not in deleted:
            deleted.append(f"{group_id} (offsets only)")
    schedule_expiry(coord, now)
    if not records:
        return records, "offset expiry: nothing expired"
    return records, f"offset expiry: {len(records)} tombstones for " + ", ".join(deleted)


def arm_expiry_since(coord: Coordinator, loaded_at: int, now: int) -> None:
    """The cleanup of a coordinator that loaded its partition at ``loaded_at``, for a model made
    at ``now`` (a checker's session of a group first seen after the load): its next run, on
    the load's phase (``loaded_at`` + k × the interval, the first not before ``now``)."""
    interval = coord.config.int("offsets.retention.check.interval.ms")
    runs = max(1, -(-(now - loaded_at) // interval))
    coord.timers.schedule(Timer(EXPIRE_KEY, loaded_at + runs * interval, EXPIRE_TIMER, ""))
