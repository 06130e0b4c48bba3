"""The offsets component's APIs, with their versions (``model/api.py``).

Facts: ``clients/src/main/resources/common/message/OffsetCommitRequest.json`` ``validVersions``
"2-10", ``OffsetFetchRequest.json`` "1-10", ``OffsetDeleteRequest.json`` "0" and
``DeleteGroupsRequest.json`` "0-2" and ``TxnOffsetCommitRequest.json`` "0-5", the same on 4.1, 4.2,
4.3 and the trunk branch (the mirror's HEAD adds TxnOffsetCommit v6, KIP-1319: not modelled);
``WriteTxnMarkersRequest.json`` "1" on 4.1, "1-2" from 4.2 (v0/v1 of
OffsetCommit and v0 of OffsetFetch were removed in 4.0, KIP-896). docs/kafka-facts.md.
"""

from __future__ import annotations

from kgspec.model.api import Api

OFFSET_COMMIT, OFFSET_FETCH, OFFSET_DELETE = 8, 9, 47
DELETE_GROUPS = 42
TXN_OFFSET_COMMIT, WRITE_TXN_MARKERS = 28, 27

APIS = (
    Api(OFFSET_COMMIT, "OFFSET_COMMIT", "OffsetCommit", "offsets", (2, 10)),
    Api(OFFSET_FETCH, "OFFSET_FETCH", "OffsetFetch", "offsets", (1, 10)),
    Api(OFFSET_DELETE, "OFFSET_DELETE", "OffsetDelete", "offsets", (0, 0)),  # OffsetDeleteRequest.json "0"
    Api(DELETE_GROUPS, "DELETE_GROUPS", "DeleteGroups", "offsets", (0, 2)),  # DeleteGroupsRequest.json "0-2"
    Api(TXN_OFFSET_COMMIT, "TXN_OFFSET_COMMIT", "TxnOffsetCommit", "offsets", (0, 5)),
    Api(WRITE_TXN_MARKERS, "WRITE_TXN_MARKERS", "WriteTxnMarkers", "offsets", (1, 1),
        since=((2, "write_txn_markers_v2"),)),
)
