"""Random rolling upgrades of a classic Connect group (seed 001's migration, profile kip).

Classic workers behave as Connect's ``WorkerCoordinator`` does: each keeps a local snapshot of
what it runs, reports it as the ``allocation`` of its JoinGroup, and applies a SyncGroup's
assignment as a change set (``revoked`` removed, ``assignment`` added); a heartbeat answered
REBALANCE_IN_PROGRESS makes it rejoin. W3, on the draft's protocol, heartbeats with what it holds
and may leave (the run stops once the group is classic again). After every step: the Connect invariants hold, no two workers *run* the same
connector or task, and the records written so far replay to the same groups.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from kgspec.invariants.connect import group_problems
from kgspec.model.connect.resources import from_items, items, parse
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.migration.connect_protocol import decode_connect_assignment
from kgspec.model.records import Record

from tests.helpers import golden_script

MAKE = golden_script("make_golden_connect_migration")
W1, W2 = "W1-00000000-0000-4000-8000-000000000001", "W2-00000000-0000-4000-8000-000000000002"
ACTIONS = st.lists(st.sampled_from(["hb1", "hb2", "join1", "join2", "sync1", "sync2", "w3", "wait", "leave3"]),
                   max_size=25)


class Worker:
    def __init__(self, member_id: str, runs: set[tuple[str, str, int]]) -> None:
        self.member_id, self.runs, self.generation = member_id, runs, 1
        self.joined = False  # a JoinGroup answered, its SyncGroup not yet
        self.removed = False  # the coordinator removed it: a zombie from then on, out of the run

    def res(self) -> Any:
        return from_items(self.runs)


def _step(r: Any, workers: dict[str, Worker], w3: dict[str, Any], action: str, ts: int) -> None:
    if action in ("hb1", "hb2", "join1", "join2", "sync1", "sync2"):
        w = workers[W1 if action.endswith("1") else W2]
        if w.removed:
            return
        if action.startswith("hb"):
            r.heartbeat(ts, w.member_id, w.generation, client_id=w.member_id[:2])
        elif action.startswith("join"):
            response = r.connect_join(ts, w.member_id, w.member_id[:2], w.res())["response"]
            if response["errorCode"] == 0:
                w.generation, w.joined = response["generationId"], True
        elif w.joined:
            response = r.connect_sync(ts, w.member_id, w.generation, w.member_id[:2])["response"]
            if response["errorCode"] == 0:
                a = decode_connect_assignment(response["assignment"])
                w.runs = (w.runs - items(a.revoked)) | items(a.assigned)
                w.joined = False
    elif action == "w3" and w3["epoch"] >= 0:
        response = r.hb(ts, "W3", w3["epoch"], from_items(w3["runs"]))["response"]
        if response["errorCode"] in (0, int(Errors.COMPUTE_ASSIGNMENT)):
            w3["epoch"] = response["memberEpoch"]
            if response["assignment"] is not None:
                w3["runs"] = items(parse(response["assignment"]["connectorsAndTasks"]))
    elif action == "leave3" and w3["epoch"] >= 0:
        r.hb(ts, "W3", -1)
        w3["epoch"], w3["runs"] = -1, set()


@settings(max_examples=100, deadline=None)
@given(actions=ACTIONS)
def test_random_rolling_upgrade_keeps_the_invariants_and_replays(actions: list[str]) -> None:
    r = MAKE.scenario(upto="converted")
    workers = {W1: Worker(W1, items(MAKE.res("AC0", "AT1", "AT2"))), W2: Worker(W2, items(MAKE.res("BC0", "BT1")))}
    w3: dict[str, Any] = {"epoch": 1, "runs": set()}
    ts = 7100
    for action in actions:
        if "g" not in r.coord.connect_groups:
            break  # classic again (W3 left or was fenced): classic rules from here, tested elsewhere
        ts += 3000 if action == "wait" else 100
        _step(r, workers, w3, action, ts)
        group = r.coord.connect_groups.get("g")
        assert group_problems(group) == []
        # A worker removed by the coordinator (its session ran out) keeps running what it had
        # (Connect's cooperative client revokes only when told): a zombie, out of the run.
        members = group.members if group is not None else {}
        for w in workers.values():
            w.removed = w.removed or w.member_id not in members
        running = [x for w in workers.values() if not w.removed for x in w.runs] + \
            (list(w3["runs"]) if "W3" in members else [])
        assert len(running) == len(set(running)), f"two workers run one connector or task: {sorted(running)}"
        fresh = Coordinator("kip")
        fresh.apply(Record.from_json(e["record"]) for e in r.events if "record" in e)
        assert fresh.snapshot()["connectGroups"] == r.coord.snapshot()["connectGroups"]
        assert fresh.snapshot()["classicGroups"].keys() == r.coord.snapshot()["classicGroups"].keys()
    if "g" in r.coord.connect_groups:
        _settle(r, workers, w3, ts)


def _settle(r: Any, workers: dict[str, Worker], w3: dict[str, Any], ts: int) -> None:
    """Liveness: well-behaved workers (heartbeat; rejoin and sync when told) converge to the
    target within a few rounds, each running exactly its target."""
    for _ in range(4):
        for w in workers.values():
            if "g" not in r.coord.connect_groups or w.removed:
                continue
            ts += 100
            if w.joined or r.heartbeat(ts, w.member_id, w.generation, client_id=w.member_id[:2])["response"][
                    "errorCode"] == int(Errors.REBALANCE_IN_PROGRESS):
                for action in ("join", "sync"):
                    ts += 10
                    _step(r, workers, w3, action + ("1" if w.member_id == W1 else "2"), ts)
        if w3["epoch"] >= 0 and "g" in r.coord.connect_groups:
            ts += 100
            _step(r, workers, w3, "w3", ts)
    group = r.coord.connect_groups.get("g")
    if group is None or group.group_epoch != group.assignment_epoch:
        return  # a new target is due (W3 computes it): convergence to the installed one is what is checked
    assert group.state() == "STABLE"
    for w in workers.values():
        if not w.removed:
            assert w.runs == items(group.target_of(w.member_id).resources)
    if "W3" in group.members:
        assert w3["runs"] == items(group.target_of("W3").resources)
