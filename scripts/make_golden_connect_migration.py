"""Write tests/golden/migration/connect_kip.jsonl: seed 001's "Migration To the New Protocol".

    .venv/bin/python scripts/make_golden_connect_migration.py

The section has no worked example, so the trace is built from its sentences with the draft's
case-study configuration (connectors A with tasks 1-2 and B with task 1: AC0 AT1 AT2 BC0 BT1):

1. a classic Connect group forms (JoinGroup protocol type ``connect``, protocols ``sessioned``,
   ``compatible``, ``default``): W1 runs AC0 AT1 AT2, W2 runs BC0 BT1 at generation 1;
2. "When the first worker that supports the new protocol joins the group, the group is converted
   from generic to connect" and "the group epoch starts at the current group generation": W3's
   ConnectGroupHeartbeat converts it (epoch 1), joins (epoch 2) and computes the assignment;
3. "The group coordinator has to trigger it when needed by returning the REBALANCE_IN_PROGRESS
   error in the heartbeat response": W1 and W2 rejoin, their JoinGroup/SyncGroup translated; W1
   gives AT2 up (revoked in its SyncGroup, acknowledged by rejoining) and W3 gets it;
4. "when the last worker supporting the new protocol leaves, the group switches back to the old
   protocol": W3 leaves; the classic group rebalances (REBALANCE_IN_PROGRESS to W1).

Responses and records are the model's (profile ``kip``); tests/migration/test_connect_kip.py pins
the values and checks that the trace conforms.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kgspec.model.connect.ops import (
    CONNECT_GROUP_HEARTBEAT,
    CONNECT_GROUP_INSTALL_ASSIGNMENT,
    CONNECT_GROUP_PREPARE_ASSIGNMENT,
)
from kgspec.model.connect.resources import Resources, from_items, to_json
from kgspec.model.migration.connect_protocol import (
    ConnectAssignment,
    WorkerState,
    encode_connect_assignment,
    encode_worker_state,
)
from make_golden_classic import ClassicRecorder

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "migration" / "connect_kip.jsonl"
CONFIGS: dict[str, Any] = {}


def res(*labels: str) -> Resources:
    """``res("AC0", "AT1")``: the draft's notation as resources."""
    return from_items([("connectors", x[0], 0) if x[1] == "C" else ("tasks", x[0], int(x[2:])) for x in labels])


def protocols(worker: str, owned: Resources) -> list[dict[str, str]]:
    """A Connect worker's JoinGroup protocols (``metadataRequest`` with sessioned enabled)."""
    url = f"http://{worker.lower()}:8083"
    return [{"name": "sessioned", "metadata": encode_worker_state(WorkerState(2, url, 7, owned))},
            {"name": "compatible", "metadata": encode_worker_state(WorkerState(1, url, 7, owned))},
            {"name": "default", "metadata": encode_worker_state(WorkerState(0, url, 7))}]


class ConnectMigrationRecorder(ClassicRecorder):
    def __init__(self) -> None:
        super().__init__(CONFIGS, profile="kip")

    def draft(self, ts: int, api: str, request: dict[str, Any], worker: str) -> dict[str, Any]:
        """A call of the draft's key-less APIs (contract: ``requestApiKeyName`` only)."""
        self._time(ts)
        result = self.coord.handle(api, 0, request, now=ts, client_id=worker)
        self._correlation += 1
        event = {"tsMs": ts, "requestHeader": {"requestApiKeyName": api, "requestApiVersion": 0,
                                               "clientId": worker, "correlationId": self._correlation},
                 "request": request, "response": result.response}
        self.events.append(event)
        self._records(ts, result.records)
        self._settle()
        return event

    def hb(self, ts: int, worker: str, epoch: int, owned: Resources | None = None) -> dict[str, Any]:
        join = epoch == 0
        return self.draft(ts, CONNECT_GROUP_HEARTBEAT, {
            "groupId": "g", "memberId": worker, "memberEpoch": epoch, "instanceId": None,
            "rebalanceTimeoutMs": 60_000 if join else -1, "serverAssignor": None,
            "clientAssignors": [{"name": "incremental", "minimumVersion": 0, "maximumVersion": 2, "reason": 0,
                                 "version": 2, "metadata": None}] if join else None,
            "connectorsAndTasks": to_json(owned if owned is not None else res()) if join or owned is not None
            else None}, worker)

    def connect_join(self, ts: int, member_id: str, worker: str, owned: Resources) -> dict[str, Any]:
        return self.call(ts, 11, 9, {
            "groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000, "memberId": member_id,
            "groupInstanceId": None, "protocolType": "connect", "protocols": protocols(worker, owned),
            "reason": None}, worker)

    def connect_sync(self, ts: int, member_id: str, generation: int, worker: str,
                     assignments: dict[str, str] | None = None) -> dict[str, Any]:
        return self.call(ts, 14, 5, {
            "groupId": "g", "generationId": generation, "memberId": member_id, "groupInstanceId": None,
            "protocolType": "connect", "protocolName": "sessioned",
            "assignments": [{"memberId": m, "assignment": a} for m, a in (assignments or {}).items()]}, worker)


def scenario(*, upto: str = "end", w2_takes_at2: bool = False) -> ConnectMigrationRecorder:
    """``upto``: ``converted`` stops once W3 installed the first target, ``mixed`` before W3
    leaves (the tests start there), ``end`` is the golden. ``w2_takes_at2``: W3 installs AT2 on
    the classic W2 instead (a classic worker waiting for released work)."""
    r = ConnectMigrationRecorder()
    # 1. The classic group: W1 leads (it joins first) and assigns incrementally (v2).
    w1 = r.connect_join(0, "", "W1", res())["response"]["memberId"]
    w2 = r.connect_join(0, "", "W2", res())["response"]["memberId"]
    r.connect_join(0, w1, "W1", res())
    r.connect_join(0, w2, "W2", res())
    r.tick(6000)  # the classic initial rebalance delay, extended once
    given = {w1: res("AC0", "AT1", "AT2"), w2: res("BC0", "BT1")}
    r.connect_sync(6000, w1, 1, "W1", {m: encode_connect_assignment(ConnectAssignment(
        2, leader=w1, leader_url="http://w1:8083", config_offset=7, assigned=work)) for m, work in given.items()})
    r.connect_sync(6000, w2, 1, "W2")
    # 2. W3 on the draft's protocol converts the group, joins and computes the assignment.
    joined = r.hb(7000, "W3", 0)["response"]
    epoch = joined["memberEpoch"]
    r.draft(7000, CONNECT_GROUP_PREPARE_ASSIGNMENT, {"groupId": "g", "memberId": "W3", "memberEpoch": epoch}, "W3")
    target = {w1: res("AC0", "AT1"), w2: res("BC0", "BT1"), "W3": res("AT2")}
    if w2_takes_at2:
        target = {w1: res("AC0", "AT1"), w2: res("AT2", "BC0", "BT1"), "W3": res()}
    r.draft(7000, CONNECT_GROUP_INSTALL_ASSIGNMENT, {
        "groupId": "g", "memberId": "W3", "memberEpoch": epoch, "groupEpoch": 2, "error": 0,
        "members": [{"memberId": m, "connectorsAndTasks": to_json(t), "version": 2, "metadata": None}
                    for m, t in target.items()]}, "W3")
    if upto == "converted":
        return r
    # 3. The classic workers are told to rejoin; W1 revokes AT2, then W3 gets it.
    r.heartbeat(7100, w1, 1, client_id="W1")
    g1 = r.connect_join(7200, w1, "W1", given[w1])["response"]["generationId"]
    r.connect_sync(7300, w1, g1, "W1")
    r.heartbeat(7400, w1, g1, client_id="W1")  # still revoking: rejoin
    g1 = r.connect_join(7500, w1, "W1", res("AC0", "AT1"))["response"]["generationId"]
    r.connect_sync(7600, w1, g1, "W1")
    r.hb(7700, "W3", epoch, res())
    r.heartbeat(7800, w2, 1, client_id="W2")
    g2 = r.connect_join(7900, w2, "W2", given[w2])["response"]["generationId"]
    r.connect_sync(8000, w2, g2, "W2")
    if upto == "mixed":
        return r
    # 4. The last worker on the draft's protocol leaves: a classic group again.
    r.hb(9000, "W3", -1)
    r.heartbeat(9100, w1, g1, client_id="W1")
    return r


def main() -> int:
    scenario().write(OUT)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
