"""The Connect draft (profile kip) behind the one protocol interface (``model/protocol.py``).

Its APIs have no Kafka key (the draft names them), and its calls are applied as they go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.connect import ops
from kgspec.model.connect.assignment import install, prepare
from kgspec.model.connect.heartbeat import heartbeat
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.protocol import ProtocolDefaults
from kgspec.model.step import Decision

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator, ExpiryBase
    from kgspec.model.records import Record
    from kgspec.model.timers import Timer


class ConnectProtocol(ProtocolDefaults):
    """The draft's groups assign connectors and tasks, not partitions (no topic metadata to
    follow); the computation's soft state starts over in ``on_loaded`` (nothing to unload)."""

    name = "connect"
    apis: frozenset[int | str] = frozenset(ops.CONNECT_APIS)
    applied_as_they_go: frozenset[int | str] = frozenset(ops.CONNECT_APIS)
    record_types = frozenset(ops.CONNECT_RECORD_TYPES)
    timer_kinds = ops.CONNECT_TIMER_KINDS

    def handle(self, coord: Coordinator, call: Call) -> Decision:
        """One Connect call (always applied: no dry run)."""
        api, request, now = call.api_key, call.request, call.now
        if not coord.profile.kip_text:
            return Decision({"errorCode": int(Errors.UNSUPPORTED_VERSION),
                             "errorMessage": f"{api} is not an API of {coord.profile.name} (the Connect draft "
                                             "is modelled only under profile kip)"})
        if call.version != 0:
            return Decision({"errorCode": int(Errors.UNSUPPORTED_VERSION),
                             "errorMessage": f"{api} has only version 0 (draft: validVersions 0)"})
        if api == ops.CONNECT_GROUP_HEARTBEAT:
            return heartbeat(coord, request, now, call.client_id, call.client_host)
        if api == ops.CONNECT_GROUP_PREPARE_ASSIGNMENT:
            return prepare(coord, request, now)
        if api == ops.CONNECT_GROUP_INSTALL_ASSIGNMENT:
            return install(coord, request, now)
        raise ValueError(f"{api} is not a Connect API")

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        return ops.fire_timer(coord, timer)

    def replay(self, coord: Coordinator, record: Record) -> None:
        ops.replay(coord, record)

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        ops.on_loaded(coord, now)

    # The Connect draft keeps its workers' offsets in its own topic (__worker_offsets): a group of
    # workers commits no consumer offsets, so an offset call finds no group of that id (kgspec's
    # reading of the draft, docs/offsets.md).
    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a group that commits offsets.")

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a group that commits offsets.")

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a group that commits offsets.")

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool:
        return False

    # DeleteGroups (kgspec's reading: the draft says nothing): as a consumer group's, a group
    # with workers is NON_EMPTY_GROUP, an empty one goes with the tombstones of its records.
    def validate_delete_group(self, coord: Coordinator, group_id: str) -> None:
        if coord.connect_groups[group_id].members:
            raise CoordinatorError(Errors.NON_EMPTY_GROUP)

    def delete_group_records(self, coord: Coordinator, group_id: str) -> list[Record]:
        return ops.delete_group_records(coord, group_id)

    def is_empty_group(self, coord: Coordinator, group_id: str) -> bool:
        return not coord.connect_groups[group_id].members

    def offset_expiry(self, coord: Coordinator, group_id: str) -> ExpiryBase | None:
        return None  # no consumer offsets

    def should_expire(self, coord: Coordinator, group_id: str) -> bool:
        return False  # workers are not the offsets' business: the cleanup timer leaves them alone


PROTOCOL = ConnectProtocol()
