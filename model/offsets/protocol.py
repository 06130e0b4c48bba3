"""The offsets component behind the one protocol interface (``model/protocol.py``).

It owns OffsetCommit, OffsetFetch and OffsetDelete and the offset records (key types 0 and 1), and no group:
a commit's or fetch's member check goes to the protocol that owns the group id
(``Coordinator.offsets_owner``: ``validate_offset_commit`` / ``validate_offset_fetch``). It
imports no group protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.offsets import ops
from kgspec.model.offsets.apis import OFFSET_COMMIT, OFFSET_DELETE, OFFSET_FETCH
from kgspec.model.offsets.records import OFFSET_RECORD_TYPES, committed_from_record
from kgspec.model.protocol import ProtocolDefaults
from kgspec.model.records import ReplayError
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator
    from kgspec.model.records import Record


class OffsetsProtocol(ProtocolDefaults):
    name = "offsets"
    apis: frozenset[int | str] = frozenset({OFFSET_COMMIT, OFFSET_FETCH, OFFSET_DELETE})
    record_types = OFFSET_RECORD_TYPES
    # No timers: offset expiry is not modelled yet (docs/offsets.md).

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        if call.api_key == OFFSET_COMMIT:
            return ops.decide_commit(coord, call)
        if call.api_key == OFFSET_DELETE:
            return ops.decide_delete(coord, call)
        return ops.decide_fetch(coord, call)

    def replay(self, coord: Coordinator, record: Record) -> None:
        """``OMM.replay`` (non-transactional batches): a value puts the offset (creating a simple
        group when no group has the id), a tombstone removes it."""
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
        store.put(gid, topic, partition, committed_from_record(record))

    # Topic changes: onTopicsDeleted's offset tombstones are not modelled yet; offsets are hard
    # state, rebuilt by replay (nothing to re-arm or unload).

    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int) -> CommitValidator | None:
        raise AssertionError("the offsets component owns no group")

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
        raise AssertionError("the offsets component owns no group")

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        raise AssertionError("the offsets component owns no group")

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool:
        raise AssertionError("the offsets component owns no group")


PROTOCOL = OffsetsProtocol()
