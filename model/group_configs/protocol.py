"""Group configs behind the one protocol interface (``model/protocol.py``).

It owns IncrementalAlterConfigs and DescribeConfigs for GROUP resources and no group, record
type or timer: a group's configs live in the metadata log (KRaft ConfigRecords), not in
``__consumer_offsets``, so they survive a coordinator failover and no replay rebuilds them. The
coordinator keeps them in ``Coordinator.group_configs`` (group id -> the configs the group sets,
as strings); a successful, not validate-only alteration changes them through the decision (a
``SoftSet`` of the coordinator's ``group_configs``, applied at commit). The group protocols read a
group's values through ``Coordinator.group_config_int`` (``values.py``), never from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgspec.model.group_configs.alter import alter_configs
from kgspec.model.group_configs.apis import DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS
from kgspec.model.group_configs.describe import describe_configs
from kgspec.model.protocol import ProtocolDefaults
from kgspec.model.step import Decision, SoftSet

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.protocol import Call, CommitValidator, ExpiryBase
    from kgspec.model.records import Record


class GroupConfigsProtocol(ProtocolDefaults):
    name = "group-configs"
    apis: frozenset[int | str] = frozenset({DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS})

    def decide(self, coord: Coordinator, call: Call) -> Decision:
        if call.api_key == DESCRIBE_CONFIGS:
            results = describe_configs(coord.group_configs, call.request, call.version, coord.config, coord.profile)
            return Decision({"throttleTimeMs": 0, "results": results})
        responses, changes = alter_configs(coord.group_configs, call.request, coord.config, coord.profile)
        decision = Decision({"throttleTimeMs": 0, "responses": responses})
        if changes:
            configs = {**coord.group_configs, **changes}
            decision.soft.append(SoftSet("coordinator", "", "group_configs",
                                         {gid: props for gid, props in configs.items() if props}))
            decision.explain.append("group configs: " + "; ".join(
                f"{gid} {dict(sorted(props.items()))}" for gid, props in sorted(changes.items())))
        return decision

    def replay(self, coord: Coordinator, record: Record) -> None:
        raise AssertionError("group configs have no __consumer_offsets record")

    def validate_offset_commit(self, coord: Coordinator, group_id: str, member_id: str, instance_id: str | None,
                               epoch: int, api_version: int, transactional: bool = False) -> CommitValidator | None:
        raise AssertionError("group configs own no group")

    def validate_offset_fetch(self, coord: Coordinator, group_id: str, member_id: str | None, epoch: int) -> None:
        raise AssertionError("group configs own no group")

    def validate_offset_delete(self, coord: Coordinator, group_id: str) -> None:
        raise AssertionError("group configs own no group")

    def is_subscribed_to_topic(self, coord: Coordinator, group_id: str, topic: str) -> bool:
        raise AssertionError("group configs own no group")

    def validate_delete_group(self, coord: Coordinator, group_id: str) -> None:
        raise AssertionError("group configs own no group")

    def delete_group_records(self, coord: Coordinator, group_id: str) -> list[Record]:
        raise AssertionError("group configs own no group")

    def is_empty_group(self, coord: Coordinator, group_id: str) -> bool:
        raise AssertionError("group configs own no group")

    def offset_expiry(self, coord: Coordinator, group_id: str) -> ExpiryBase | None:
        raise AssertionError("group configs own no group")


PROTOCOL = GroupConfigsProtocol()
