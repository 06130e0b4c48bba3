"""Online migration as a routing rule between the protocols (``coord.migration``).

Where a call of one protocol meets a group of another (a ConsumerGroupHeartbeat to a classic
group, a JoinGroup to a consumer group, the last modern member leaving a group whose other
members speak classic), Kafka's ``GroupMetadataManager`` hands the call to its migration code.
The protocols ask this rule instead of importing each other: it is the only place that knows
more than one protocol, and the coordinator installs it as ``coord.migration``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.migration import (
    connect_downgrade,
    connect_mixed,
    connect_upgrade,
    downgrade,
    mixed,
    streams_downgrade,
    streams_mixed,
    streams_upgrade,
    upgrade,
)
from kgspec.model.migration.protocol import SchemaError, decode_subscription

if TYPE_CHECKING:
    from kgspec.model.classic.group import ClassicGroup
    from kgspec.model.classic.join import JoinRequest
    from kgspec.model.connect.group import ConnectGroup
    from kgspec.model.connect.member import ConnectMember
    from kgspec.model.consumer.group import ConsumerGroup
    from kgspec.model.consumer.member import ConsumerMember
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.migration.downgrade import Effects
    from kgspec.model.records import Record
    from kgspec.model.streams.group import StreamsGroup
    from kgspec.model.streams.member import StreamsMember
    from kgspec.model.streams.topology import Topology


class Migration:
    """The hand-overs between protocols, each named after the Kafka path it models."""

    # --- consumer <-> classic (model/migration/upgrade.py, downgrade.py, mixed.py) -----------

    def consumer_group_for_heartbeat(self, coord: Coordinator, classic: ClassicGroup, create: bool,
                                     records: list[Record], effects: Effects, now: int) -> ConsumerGroup:
        """A ConsumerGroupHeartbeat to a classic group: the online upgrade."""
        return upgrade.group_for_heartbeat(coord, classic, create, records, effects, now)

    def fence_consumer_members(self, coord: Coordinator, group: ConsumerGroup, members: list[ConsumerMember],
                               effects: Effects, now: int, trigger: str = "fenced") -> list[Record]:
        """``consumerGroupFenceMembers``: a downgrade to classic when it is valid; ``trigger`` is the
        members' lifecycle transition (``fenced`` or ``left``)."""
        return downgrade.fence(coord, group, members, effects, now, trigger)

    def classic_join_to_consumer_group(self, coord: Coordinator, group: ConsumerGroup, req: JoinRequest,
                                       now: int) -> Any:
        return mixed.join(coord, group, req, now)

    def delete_empty_consumer_group(self, coord: Coordinator, group: ConsumerGroup) -> list[Record]:
        return mixed.delete_empty_consumer_group(coord, group)

    # --- streams <-> classic (streams_upgrade.py, streams_downgrade.py, streams_mixed.py) ------

    def streams_group_for_join(self, coord: Coordinator, classic: ClassicGroup, records: list[Record],
                               effects: Effects, now: int, topology: Topology | None) -> StreamsGroup:
        """A StreamsGroupHeartbeat join to a classic group: offline (empty) or, under kip, online."""
        return streams_upgrade.group_for_join(coord, classic, records, effects, now, topology)

    def fence_streams_members(self, coord: Coordinator, group: StreamsGroup, members: list[StreamsMember],
                              effects: Effects, now: int, trigger: str = "fenced") -> list[Record]:
        """``streamsGroupFenceMember``: under kip, a downgrade to classic when it is valid."""
        return streams_downgrade.fence(coord, group, members, effects, now, trigger)

    def classic_join_to_streams_group(self, coord: Coordinator, group: StreamsGroup, req: JoinRequest,
                                      now: int) -> Any:
        return streams_mixed.join(coord, group, req, now)

    def delete_empty_streams_group(self, coord: Coordinator, group: StreamsGroup) -> list[Record]:
        return streams_downgrade.delete_empty_group(coord, group)

    # --- Connect draft <-> classic Connect groups (kip: connect_upgrade, connect_downgrade, connect_mixed)

    def connect_records_for_join(self, coord: Coordinator, classic: ClassicGroup, joining: ConnectMember,
                                 epoch: int, effects: Effects, now: int) -> list[Record]:
        """A ConnectGroupHeartbeat to a classic group: the records converting it (seed 001)."""
        return connect_upgrade.group_records_for_join(coord, classic, joining, epoch, effects, now)

    def connect_downgrade_records(self, coord: Coordinator, group: ConnectGroup, leaving: list[str],
                                  effects: Effects) -> list[Record] | None:
        """The last worker on the draft's protocol leaving: the records switching back, or None."""
        return connect_downgrade.downgrade_records(coord, group, leaving, effects)

    def classic_join_to_connect_group(self, coord: Coordinator, group: ConnectGroup, req: JoinRequest,
                                      now: int) -> Any:
        return connect_mixed.join(coord, group, req, now)

    def delete_empty_connect_group(self, coord: Coordinator, group: ConnectGroup) -> list[Record]:
        return connect_downgrade.delete_empty_group(coord, group)

    # --- offsets: the topics a classic consumer group subscribes to ---------------------------

    def classic_subscribed_topics(self, group: ClassicGroup) -> set[str] | None:
        """``ClassicGroup.computeSubscribedTopics`` (4.3 l.1155) for a ``consumer`` group: the
        members' subscriptions under the selected protocol; None when unknown (no protocol yet,
        or a subscription that does not parse). Kafka parses only the v0 prefix; this decoder
        also refuses versions it does not know (then None)."""
        if not len(group.members):
            return set()
        if group.protocol_name is None:
            return None
        topics: set[str] = set()
        try:
            for member in group.members.values():
                topics.update(decode_subscription(member.metadata(group.protocol_name)).topics)
        except (SchemaError, ValueError):
            return None
        return topics

    # --- any classic call to a modern group ---------------------------------------------------

    def classic_call_to_modern_group(self, coord: Coordinator, group_id: str, api: str, args: tuple[Any, ...],
                                     now: int) -> Any:
        """A classic call (``api``: join, sync, heartbeat, leave) to a consumer group, or to a
        non-empty streams group under online migration (kip): the mixed group's outcome. None: no
        such group (Kafka answers a streams group otherwise as an unknown group)."""
        consumer = coord.groups.get(group_id)
        if consumer is not None:
            return getattr(mixed, api)(coord, consumer, *args, now)
        connect = coord.connect_groups.get(group_id)
        if connect is not None and connect.members and coord.profile.connect_online_migration:
            return getattr(connect_mixed, api)(coord, connect, *args, now)
        streams = coord.streams_groups.get(group_id)
        if streams is None or not streams.members or not coord.profile.streams_online_migration:
            return None
        return getattr(streams_mixed, api)(coord, streams, *args, now)


MIGRATION = Migration()
