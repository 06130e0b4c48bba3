"""The offsets component behind the one protocol interface (``model/protocol.py``).

It owns OffsetCommit, OffsetFetch and OffsetDelete and the offset records (key types 0 and 1), and no group:
a commit's or fetch's member check goes to the protocol that owns the group id
(``Coordinator.offsets_owner``: ``validate_offset_commit`` / ``validate_offset_fetch``). It
imports no group protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgspec.model.offsets import ops
from kgspec.model.offsets.apis import OFFSET_COMMIT, OFFSET_DELETE, OFFSET_FETCH
from kgspec.model.offsets.records import OFFSET_RECORD_TYPES, committed_from_record
from kgspec.model.records import ReplayError
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator
    from kgspec.model.records import Record
    from kgspec.model.timers import Timer


class OffsetsProtocol:
    name = "offsets"
    apis: frozenset[int | str] = frozenset({OFFSET_COMMIT, OFFSET_FETCH, OFFSET_DELETE})
    record_types = OFFSET_RECORD_TYPES
    timer_kinds: frozenset[str] = frozenset()  # offset expiry is not modelled yet (docs/offsets.md)
    applied_as_they_go: frozenset[int | str] = frozenset()

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        if call.api_key == OFFSET_COMMIT:
            return ops.decide_commit(coord, call)
        if call.api_key == OFFSET_DELETE:
            return ops.decide_delete(coord, call)
        return ops.decide_fetch(coord, call)

    def handle(self, coord: Coordinator, call: Call) -> Decision:
        raise NotImplementedError("offset calls are decided, then committed")

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        raise ValueError(f"the offsets component arms no timers ({timer.kind})")

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

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        pass

    def metadata_changed(self, coord: Coordinator, names: Iterable[str], new_topic: bool) -> None:
        pass  # onTopicsDeleted's offset tombstones are not modelled yet

    def followed_topics(self, coord: Coordinator) -> tuple[set[str], bool]:
        return set(), False  # committed offsets outlive topic changes (expiry is not modelled yet)

    def unload(self, coord: Coordinator, now: int) -> None:
        pass  # offsets are hard state: rebuilt by replay

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
