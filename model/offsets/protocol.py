"""The offsets component behind the one protocol interface (``model/protocol.py``).

It owns OffsetCommit, OffsetFetch, OffsetDelete, DeleteGroups, TxnOffsetCommit and the end
markers of transactions (WriteTxnMarkers), the offset records (key types 0 and 1) and the cleanup
timer of offset expiry (``model/offsets/groups.py``), and no group:
a commit's or fetch's member check goes to the protocol that owns the group id
(``Coordinator.offsets_owner``: ``validate_offset_commit`` / ``validate_offset_fetch``). It
imports no group protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.offsets import groups, ops, txn
from kgspec.model.offsets.apis import (
    DELETE_GROUPS,
    OFFSET_COMMIT,
    OFFSET_DELETE,
    OFFSET_FETCH,
    TXN_OFFSET_COMMIT,
    WRITE_TXN_MARKERS,
)
from kgspec.model.offsets.records import OFFSET_RECORD_TYPES, committed_from_record
from kgspec.model.protocol import ProtocolDefaults
from kgspec.model.records import NO_PRODUCER_ID, ReplayError
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator, ExpiryBase
    from kgspec.model.records import Record
    from kgspec.model.timers import Timer


class OffsetsProtocol(ProtocolDefaults):
    name = "offsets"
    apis: frozenset[int | str] = frozenset({OFFSET_COMMIT, OFFSET_FETCH, OFFSET_DELETE, DELETE_GROUPS,
                                            TXN_OFFSET_COMMIT, WRITE_TXN_MARKERS})
    record_types = OFFSET_RECORD_TYPES
    timer_kinds = frozenset({groups.EXPIRE_TIMER})

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        if call.api_key == OFFSET_COMMIT:
            return ops.decide_commit(coord, call)
        if call.api_key == OFFSET_DELETE:
            return ops.decide_delete(coord, call)
        if call.api_key == DELETE_GROUPS:
            return groups.decide_delete_groups(coord, call)
        if call.api_key == TXN_OFFSET_COMMIT:
            return txn.decide_txn_commit(coord, call)
        if call.api_key == WRITE_TXN_MARKERS:
            return txn.decide_markers(coord, call)
        return ops.decide_fetch(coord, call)

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        return groups.cleanup_group_metadata(coord, timer.deadline_ms)

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        """``GroupCoordinatorShard.onLoaded``: the cleanup timer is armed when a coordinator
        loads its partition (a fresh ``Coordinator`` arms it only when told it loaded)."""
        groups.schedule_expiry(coord, now)

    def replay(self, coord: Coordinator, record: Record) -> None:
        """``OMM.replay``: a value puts the offset (creating a simple group when no group has the
        id), pending when its batch is transactional; a tombstone removes it and the pending ones."""
        key = record.key
        gid, topic, partition = key.get("group"), key.get("topic"), key.get("partition")
        if not isinstance(gid, str) or not isinstance(topic, str) or type(partition) is not int:
            raise ReplayError(f"{record.name} key needs a string group and topic and an int partition")
        store = coord.offsets
        if record.value is None:
            store.remove(gid, topic, partition)
            return
        if coord.offsets_owner(gid) is None:
            store.simple_groups.add(gid)
        if record.producer_id != NO_PRODUCER_ID:  # a transactional batch: pending until its marker
            store.put_pending(record.producer_id, gid, topic, partition, committed_from_record(record))
            return
        store.put(gid, topic, partition, committed_from_record(record))

    # Topic changes: onTopicsDeleted's offset tombstones are not modelled yet; offsets are hard
    # state, rebuilt by replay (nothing to re-arm or unload).

    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
        raise AssertionError("the offsets component owns no group")

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
        raise AssertionError("the offsets component owns no group")

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        raise AssertionError("the offsets component owns no group")

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool:
        raise AssertionError("the offsets component owns no group")

    def validate_delete_group(self, coord: Coordinator, group_id: str) -> None:
        raise AssertionError("the offsets component owns no group")

    def delete_group_records(self, coord: Coordinator, group_id: str) -> list[Record]:
        raise AssertionError("the offsets component owns no group")

    def is_empty_group(self, coord: Coordinator, group_id: str) -> bool:
        raise AssertionError("the offsets component owns no group")

    def offset_expiry(self, coord: Coordinator, group_id: str) -> ExpiryBase | None:
        raise AssertionError("the offsets component owns no group")


PROTOCOL = OffsetsProtocol()
