"""ListGroups (API 16, v0-v5): every group the coordinator holds, as
``GroupMetadataManager.listGroups`` lists them (``asListedGroup``), filtered by state and type.

- ``statesFilter`` (v4+) is compared case-insensitively and trimmed; ``typesFilter`` (v5+)
  through ``GroupType.parse`` (case-insensitive, not trimmed): an unknown type matches no
  group, so it lists nothing. An empty filter lists every group.
- ``protocolType`` is the classic group's ("" when it has none), "consumer" for a consumer
  group, "streams" for a streams group; ``groupState`` (v4+) and ``groupType`` (v5+) as Kafka
  prints them.
- Kafka concatenates its shards' lists, each in its ``TimelineHashMap``'s order; the model
  lists by shard, then group id, and the checker judges each listed group whatever its position.
- Connect groups (profile ``kip``): the draft adds a group type ``connect``; the model lists
  them with type and protocol type "connect" (a reading of the draft, which says no more).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.apis import APIS, LIST_GROUPS
from kgspec.model.classic.describe import STATE_NAMES as CLASSIC_STATE_NAMES
from kgspec.model.errors import require_version
from kgspec.model.shards import partition_for
from kgspec.spec.groups import DESCRIBED_NAMES

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

VERSIONS = APIS[LIST_GROUPS].versions


def listed_groups(coord: Coordinator) -> list[dict[str, str]]:
    """``asListedGroup`` of every group, unfiltered: groupId, protocolType, groupState, groupType."""
    listed = [{"groupId": gid, "protocolType": g.protocol_type or "",
               "groupState": CLASSIC_STATE_NAMES[g.state], "groupType": "classic"}
              for gid, g in coord.classic_groups.items()]
    listed += [{"groupId": gid, "protocolType": "consumer", "groupState": DESCRIBED_NAMES[g.state], "groupType": "consumer"}
               for gid, g in coord.groups.items()]
    listed += [{"groupId": gid, "protocolType": "streams", "groupState": DESCRIBED_NAMES[g.state], "groupType": "streams"}
               for gid, g in coord.streams_groups.items()]
    listed += [{"groupId": gid, "protocolType": "connect", "groupState": DESCRIBED_NAMES[g.state()],
                "groupType": "connect"} for gid, g in coord.connect_groups.items()]
    shards = coord.config.int("offsets.topic.num.partitions")
    listed.sort(key=lambda e: (partition_for(e["groupId"], shards), e["groupId"]))
    return listed


def matches(entry: dict[str, str], states: list[str], types: list[str]) -> bool:
    """``listGroups``' combined filter for one listed group."""
    state_ok = not states or entry["groupState"].lower() in {s.lower().strip() for s in states}
    type_ok = not types or entry["groupType"] in {t.lower() for t in types}
    return state_ok and type_ok


def list_groups(coord: Coordinator, request: dict[str, Any], version: int) -> dict[str, Any]:
    require_version(LIST_GROUPS, version, VERSIONS)
    states = list(request.get("statesFilter") or []) if version >= 4 else []
    types = list(request.get("typesFilter") or []) if version >= 5 else []
    groups = [_gated(e, version) for e in listed_groups(coord) if matches(e, states, types)]
    response: dict[str, Any] = {"errorCode": 0, "groups": groups}
    if version >= 1:
        response = {"throttleTimeMs": 0, **response}
    return response


def _gated(entry: dict[str, str], version: int) -> dict[str, str]:
    out = dict(entry)
    if version < 5:
        del out["groupType"]
    if version < 4:
        del out["groupState"]
    return out
