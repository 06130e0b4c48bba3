"""The one version table: every API the model answers, its protocol and versions per profile.

Each protocol declares its own APIs in its folder's ``apis.py`` (``model/api.py`` says how);
this module assembles them, with the router's own ListGroups. The model (``Coordinator.decide``
checks a call's version here), the trace checker, the Spark replay and the simulator read this
table; nothing else spells a version range. A range can grow with a profile: ``since`` lists
(version, profile flag) pairs, e.g. StreamsGroupHeartbeat v1 exists only where
``streams_v1_apis`` (KAFKA-18652 and KIP-1331, trunk) holds.

Facts: Kafka's ``clients/src/main/resources/common/message/*Request.json`` ``validVersions``
on each release branch (docs/kafka-facts.md); the Connect draft's APIs have no Kafka key and
answer UNSUPPORTED_VERSION themselves (model/connect/ops.py), so they are not listed here.
"""

from __future__ import annotations

from kgspec.model.api import Api
from kgspec.model.classic import apis as classic
from kgspec.model.classic.apis import (
    DESCRIBE_GROUPS,
    HEARTBEAT,
    JOIN_GROUP,
    LEAVE_GROUP,
    SYNC_GROUP,
)
from kgspec.model.consumer import apis as consumer
from kgspec.model.consumer.apis import CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT
from kgspec.model.group_configs import apis as group_configs
from kgspec.model.group_configs.apis import DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS
from kgspec.model.offsets import apis as offsets
from kgspec.model.offsets.apis import DELETE_GROUPS, OFFSET_COMMIT, OFFSET_DELETE, OFFSET_FETCH
from kgspec.model.profiles import Profile
from kgspec.model.streams import apis as streams
from kgspec.model.streams.apis import STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT

__all__ = [
    "APIS",
    "API_KEYS_BY_NAME",
    "CONSUMER_GROUP_DESCRIBE",
    "CONSUMER_GROUP_HEARTBEAT",
    "DELETE_GROUPS",
    "DESCRIBE_CONFIGS",
    "DESCRIBE_GROUPS",
    "HEARTBEAT",
    "INCREMENTAL_ALTER_CONFIGS",
    "JOIN_GROUP",
    "LEAVE_GROUP",
    "LIST_GROUPS",
    "OFFSET_COMMIT",
    "OFFSET_DELETE",
    "OFFSET_FETCH",
    "STREAMS_GROUP_DESCRIBE",
    "STREAMS_GROUP_HEARTBEAT",
    "SYNC_GROUP",
    "Api",
    "version_range",
]

LIST_GROUPS = 16  # the router's own: it lists every protocol's groups (model/listing.py)


def _table(*declared: tuple[Api, ...]) -> dict[int, Api]:
    table: dict[int, Api] = {}
    for apis in declared:
        for api in apis:
            if api.key in table:
                raise ValueError(f"API {api.key} is declared twice ({table[api.key].name}, {api.name})")
            table[api.key] = api
    return table


APIS: dict[int, Api] = _table(classic.APIS, consumer.APIS, streams.APIS, offsets.APIS, group_configs.APIS,
                              (Api(LIST_GROUPS, "LIST_GROUPS", "ListGroups", "admin", (0, 5)),))

API_KEYS_BY_NAME: dict[str, int] = {api.name: api.key for api in APIS.values()}


def version_range(api_key: int, profile: Profile) -> tuple[int, int]:
    """The versions of ``api_key`` the model answers under ``profile`` (KeyError: not modelled)."""
    return versions_for(profile)[api_key]


_BY_PROFILE: dict[str, dict[int, tuple[int, int]]] = {}


def versions_for(profile: Profile) -> dict[int, tuple[int, int]]:
    """Every modelled API's versions under ``profile``, computed once per profile (by name: a
    profile's hash walks all its fields)."""
    table = _BY_PROFILE.get(profile.name)
    if table is None:
        table = _BY_PROFILE[profile.name] = {key: api.range(profile) for key, api in APIS.items()}
    return table
