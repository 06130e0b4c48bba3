"""The one interface every group protocol plugs in through.

A protocol is a folder of ``model/`` (consumer, streams, classic, connect) whose ``protocol.py``
declares what it owns — its APIs (keys in the version table ``model/apis.py``, or names for
the Connect draft's key-less APIs), its record types and its timer kinds — and implements the
four things the coordinator asks of it:

- ``decide(coord, call)``: one RPC as a :class:`~kgspec.model.step.Decision`, changing nothing
  (the calls Kafka answers by mutating groups in memory — classic JoinGroup, SyncGroup,
  Heartbeat, LeaveGroup and the Connect draft's — are listed in ``applied_as_they_go`` and
  go to ``handle``, which applies them);
- ``fire(coord, timer)``: a timer of one of its kinds fired: the records it writes and why;
- ``replay(coord, record)``: load one of its records (the only way hard state changes);
- ``on_loaded(coord, now)``: a coordinator took over: re-arm timers from the loaded state;

plus ``metadata_changed(coord, names, new_topic)`` when topics change (``followed_topics(coord)``:
the names whose change concerns its groups, and whether a new topic may match a regex),
``unload(coord, now)`` when the coordinator fails over (``onUnloaded``: in-memory progress is
lost), and the checks Kafka's groups make of offset calls (``Group.validateOffsetCommit`` /
``validateOffsetFetch``): ``validate_offset_commit`` and ``validate_offset_fetch``, asked by the
offsets component (``model/offsets/``) of the protocol that owns the group id
(``Coordinator.offsets_owner``). The coordinator
(``model/coordinator.py``) only routes by API, record type and timer kind, and commits.
Protocols never import each other: what crosses protocols (online migration) is the routing
rule ``model/migration/rules.py``, reached through ``coord.migration``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from kgspec.model.step import NO_CHOICES, Choices

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.records import Record
    from kgspec.model.step import Decision
    from kgspec.model.timers import Timer


# Kafka's CommitPartitionValidator: (topic name, topic id, partition) -> None, or CoordinatorError.
CommitValidator = Callable[[str, str, int], None]
# Kafka's OffsetExpirationCondition's base timestamp: an offset's commit timestamp -> the time its
# retention counts from (``OffsetExpirationConditionImpl.baseTimestamp``).
ExpiryBase = Callable[[int], int]


class Call:
    """One RPC as the coordinator receives it (a plain slotted class: one is made per call)."""

    __slots__ = ("api_key", "choices", "client_host", "client_id", "now", "request", "version")

    def __init__(self, api_key: int | str, version: int, request: dict[str, Any], now: int,
                 client_id: str = "", client_host: str = "/127.0.0.1", choices: Choices = NO_CHOICES) -> None:
        self.api_key = api_key  # a Kafka API key, or the name of a key-less draft API
        self.version = version
        self.request = request
        self.now = now
        self.client_id = client_id
        self.client_host = client_host
        self.choices = choices


class GroupProtocol(Protocol):
    name: str
    apis: frozenset[int | str]
    record_types: frozenset[int]
    timer_kinds: frozenset[str]
    applied_as_they_go: frozenset[int | str]  # APIs answered by ``handle``, never decided

    def decide(self, coord: Coordinator, call: Call) -> Decision: ...

    def handle(self, coord: Coordinator, call: Call) -> Decision: ...

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]: ...

    def replay(self, coord: Coordinator, record: Record) -> None: ...

    def on_loaded(self, coord: Coordinator, now: int) -> None: ...

    def metadata_changed(self, coord: Coordinator, names: Iterable[str], new_topic: bool) -> None: ...

    def followed_topics(self, coord: Coordinator) -> tuple[set[str], bool]: ...

    def unload(self, coord: Coordinator, now: int) -> None: ...

    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
        """``Group.validateOffsetCommit`` of a group this protocol owns (``transactional``: a
        TxnOffsetCommit's): a CoordinatorError fails the whole commit; a validator checks each
        partition (None: NO_OP)."""
        ...

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
        """``Group.validateOffsetFetch`` of a group this protocol owns (CoordinatorError: the
        group's error in the response)."""
        ...

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        """``Group.validateOffsetDelete`` (CoordinatorError: the OffsetDelete's top-level error)."""
        ...

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool:
        """``Group.isSubscribedToTopic``: OffsetDelete answers GROUP_SUBSCRIBED_TO_TOPIC for it,
        and offset expiry keeps its offsets."""
        ...

    def validate_delete_group(self, coord: Coordinator, group_id: str) -> None:
        """``Group.validateDeleteGroup`` (CoordinatorError: the group's DeleteGroups error)."""
        ...

    def delete_group_records(self, coord: Coordinator, group_id: str) -> list[Record]:
        """``createGroupTombstoneRecords`` then ``cancelTimers`` (through ``coord.timers``, so
        inside a step the cancels are the decision's): the tombstones that delete the group."""
        ...

    def is_empty_group(self, coord: Coordinator, group_id: str) -> bool:
        """``Group.isEmpty``: offset expiry deletes an empty group whose offsets are all gone."""
        ...

    def offset_expiry(self, coord: Coordinator, group_id: str) -> ExpiryBase | None:
        """``Group.offsetExpirationCondition`` (None: its offsets do not expire now)."""
        ...

    def should_expire(self, coord: Coordinator, group_id: str) -> bool:
        """``Group.shouldExpire``: whether the cleanup timer looks at the group at all."""
        ...


class ProtocolDefaults:
    """What a protocol that does not need a part of the interface does there: a protocol class
    derives from this and writes only what is its own."""

    name: str
    applied_as_they_go: frozenset[int | str] = frozenset()  # every call decided, then committed
    record_types: frozenset[int] = frozenset()
    timer_kinds: frozenset[str] = frozenset()

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        raise ValueError(f"{self.name} calls apply as they go: no dry run")

    def handle(self, coord: Coordinator, call: Call) -> Decision:
        raise NotImplementedError(f"{self.name} calls are decided, then committed")

    def fire(self, coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
        raise ValueError(f"{self.name} arms no timers ({timer.kind})")

    def on_loaded(self, coord: Coordinator, now: int) -> None:
        pass  # no timers to re-arm

    def metadata_changed(self, coord: Coordinator, names: Iterable[str], new_topic: bool) -> None:
        pass  # its groups do not follow topic metadata

    def followed_topics(self, coord: Coordinator) -> tuple[set[str], bool]:
        return set(), False

    def unload(self, coord: Coordinator, now: int) -> None:
        pass  # nothing in memory beside what the records rebuild and soft state (dropped)

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        pass  # Kafka's default Group.validateOffsetDelete: no check

    def should_expire(self, coord: Coordinator, group_id: str) -> bool:
        return True  # Kafka's default Group.shouldExpire


class GroupRules(Protocol):
    """The module of a group-owning protocol that holds its groups' offset and deletion rules
    (``model/consumer/offsets.py``, ``model/streams/commits.py``, ``model/classic/offsets.py``):
    the functions of :class:`GroupProtocol`'s group parts, without the protocol object."""

    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None: ...

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None: ...

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool: ...

    def validate_delete_group(self, coord: Coordinator, group_id: str) -> None: ...

    def delete_group_records(self, coord: Coordinator, group_id: str) -> list[Record]: ...

    def is_empty_group(self, coord: Coordinator, group_id: str) -> bool: ...

    def offset_expiry(self, coord: Coordinator, group_id: str) -> ExpiryBase | None: ...


class OwnsGroups(ProtocolDefaults):
    """A protocol whose groups commit offsets and can be deleted: those parts of the interface
    are its ``rules`` module's functions of the same names."""

    rules: GroupRules  # the module, set by the subclass

    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
        return self.rules.validate_offset_commit(coord, group_id, member_id, instance_id, epoch, api_version,
                                                 transactional)

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
        self.rules.validate_offset_fetch(coord, group_id, member_id, epoch)

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool:
        return self.rules.is_subscribed_to_topic(coord, group_id, topic)

    def validate_delete_group(self, coord: Coordinator, group_id: str) -> None:
        self.rules.validate_delete_group(coord, group_id)

    def delete_group_records(self, coord: Coordinator, group_id: str) -> list[Record]:
        return self.rules.delete_group_records(coord, group_id)

    def is_empty_group(self, coord: Coordinator, group_id: str) -> bool:
        return self.rules.is_empty_group(coord, group_id)

    def offset_expiry(self, coord: Coordinator, group_id: str) -> ExpiryBase | None:
        return self.rules.offset_expiry(coord, group_id)
