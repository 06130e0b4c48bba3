"""The offsets component's APIs, with their versions (``model/api.py``).

Facts: ``clients/src/main/resources/common/message/OffsetCommitRequest.json`` ``validVersions``
"2-10", ``OffsetFetchRequest.json`` "1-10", ``OffsetDeleteRequest.json`` "0" and
``DeleteGroupsRequest.json`` "0-2", the same on 4.1, 4.2, 4.3 and trunk (v0/v1 of
OffsetCommit and v0 of OffsetFetch were removed in 4.0, KIP-896). docs/kafka-facts.md.
"""

from __future__ import annotations

from kgspec.model.api import Api

OFFSET_COMMIT, OFFSET_FETCH, OFFSET_DELETE = 8, 9, 47
DELETE_GROUPS = 42

APIS = (
    Api(OFFSET_COMMIT, "OFFSET_COMMIT", "OffsetCommit", "offsets", (2, 10)),
    Api(OFFSET_FETCH, "OFFSET_FETCH", "OffsetFetch", "offsets", (1, 10)),
    Api(OFFSET_DELETE, "OFFSET_DELETE", "OffsetDelete", "offsets", (0, 0)),  # OffsetDeleteRequest.json "0"
    Api(DELETE_GROUPS, "DELETE_GROUPS", "DeleteGroups", "offsets", (0, 2)),  # DeleteGroupsRequest.json "0-2"
)
