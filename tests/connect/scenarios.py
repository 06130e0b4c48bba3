"""The Connect draft's three case studies ('Case Studies'), step by step.

Each returns the cluster (with its trace) and the responses and listings at the draft's
checkpoints; ``tests/connect/test_case_studies.py`` pins them, ``scripts/make_golden_connect.py``
writes the traces.
"""

from __future__ import annotations

from typing import Any

from kgspec.model.connect import records as crec
from kgspec.model.connect.group import TargetEntry
from kgspec.model.connect.member import Assignor, ConnectMember
from kgspec.model.connect.resources import config_resources, from_items, to_holdings
from kgspec.model.records import Record

from tests.connect.harness import CONFIG, Cluster, assignor, ct

Checkpoints = dict[str, Any]


def _res(*labels: str) -> dict[str, dict[str, frozenset[int]]]:
    return from_items(("connectors", x[0], 0) if x[1] == "C" else ("tasks", x[0], int(x[2:])) for x in labels)


def empty_group_and_two_workers() -> tuple[Cluster, Checkpoints]:
    """'Empty Group', 'W1 joins the Group', 'W2 joins the Group'."""
    c, out = Cluster(), {}
    c.configure(CONFIG)
    out["w1 join"] = c.hb("W1", 0)
    out["after w1 join"] = c.view()
    c.at(1000)
    out["w1 prepare"] = c.prepare("W1", 0)
    out["w1 install"] = c.install("W1", 0, 1, {"W1": ["AC0", "AT1", "AT2", "BC0", "BT1"]})
    out["target 1"] = c.view()
    c.at(2000)
    out["w1 hb"] = c.hb("W1", 0, ct())
    out["w1 at 1"] = c.view()
    c.at(3000)
    out["w2 join"] = c.hb("W2", 0)
    out["after w2 join"] = c.view()
    c.at(4000)
    out["w1 asked"] = c.hb("W1", 1, ct("AC0", "AT1", "AT2", "BC0", "BT1"))
    out["w1 prepare 2"] = c.prepare("W1", 1)
    out["w1 install 2"] = c.install("W1", 1, 2, {"W1": ["AC0", "AT1", "AT2"], "W2": ["BC0", "BT1"]})
    out["target 2"] = c.view()
    c.at(5000)
    out["w1 revoke"] = c.hb("W1", 1, ct("AC0", "AT1", "AT2", "BC0", "BT1"))
    out["w1 revoking"] = c.view()
    out["w1 ack"] = c.hb("W1", 1, ct("AC0", "AT1", "AT2"))
    out["w1 at 2"] = c.view()
    c.at(6000)
    out["w2 hb"] = c.hb("W2", 1, ct())
    out["final"] = c.view()
    return c, out


def epoch_35() -> list[Record]:
    """'Lets assume epoch is at 35 with 3 workers' as the records a coordinator loads."""
    gid = "g"
    owned = {"W1": ("AC0", "AT1"), "W2": ("BC0", "BT1"), "W3": ("AT2",)}
    target = {mid: TargetEntry(_res(*labels), version=2) for mid, labels in owned.items()}
    records = [crec.connectors_tasks_record(gid, config_resources(CONFIG)), crec.group_metadata_record(gid, 35),
               crec.target_record(gid, 35, 0, -1, target)]
    for joined, (mid, labels) in enumerate(owned.items(), start=1):
        member = ConnectMember(mid, joined_epoch=joined, member_epoch=35, previous_member_epoch=34,
                               client_id=mid, rebalance_timeout_ms=60000,
                               assignors=(Assignor.from_json(assignor()),), assigned=to_holdings(_res(*labels)),
                               version=2)
        records += [crec.member_metadata_record(gid, member), crec.current_assignment_record(gid, member)]
    return records


def _start_at_35() -> Cluster:
    c = Cluster()
    c.load(epoch_35(), 0)
    c.at(30000)
    c.hb("W1", 35, ct("AC0", "AT1"))
    c.hb("W3", 35, ct("AT2"))
    c.at(46000)  # W2's session (45 s from load) expired at 45000
    return c


def worker_leaving() -> tuple[Cluster, Checkpoints]:
    """'Worker Leaving the Group'."""
    c, out = _start_at_35(), {}
    out["w2 kicked"] = c.view()
    out["w3 asked"] = c.hb("W3", 35, ct("AT2"))
    out["w3 prepare"] = c.prepare("W3", 35)
    out["w3 install 36"] = c.install("W3", 35, 36, {"W1": ["AC0", "AT1"], "W3": ["AT2"]})
    out["target 36"] = c.view()
    c.at(47000)
    out["w1 hb 36"] = c.hb("W1", 35, ct("AC0", "AT1"))
    out["w3 hb 36"] = c.hb("W3", 35, ct("AT2"))
    out["at 36"] = c.view()
    c.at(60000)
    # 'The chosen member would trigger another rebalance after delay d ... by updating the reason field'
    out["w3 reason"] = c.hb("W3", 36, assignors=[assignor(reason=1)])
    out["epoch 37"] = c.view()
    out["w3 prepare 37"] = c.prepare("W3", 36)
    out["w3 install 37"] = c.install("W3", 36, 37, {"W1": ["AC0", "AT1", "BC0"], "W3": ["BT1", "AT2"]})
    out["target 37"] = c.view()
    c.at(61000)
    out["w1 hb 37"] = c.hb("W1", 36, ct("AC0", "AT1"))
    out["w3 hb 37"] = c.hb("W3", 36, ct("AT2"))
    out["final"] = c.view()
    return c, out


def worker_bounces() -> tuple[Cluster, Checkpoints]:
    """'Worker Bounces'."""
    c, out = _start_at_35(), {}
    c.hb("W3", 35, ct("AT2"))
    c.prepare("W3", 35)
    c.install("W3", 35, 36, {"W1": ["AC0", "AT1"], "W3": ["AT2"]})
    c.at(47000)
    c.hb("W1", 35, ct("AC0", "AT1"))
    c.hb("W3", 35, ct("AT2"))
    out["at 36"] = c.view()
    c.at(50000)
    out["w2 back with 35"] = c.hb("W2", 35, ct())
    out["w2 rejoins"] = c.hb("W2", 0)
    out["epoch 37"] = c.view()
    out["w3 asked"] = c.hb("W3", 36, ct("AT2"))
    out["w3 prepare"] = c.prepare("W3", 36)
    out["w3 install 37"] = c.install("W3", 36, 37, {"W1": ["AC0", "AT1"], "W2": ["BC0", "BT1"], "W3": ["AT2"]})
    c.at(51000)
    out["w1 hb"] = c.hb("W1", 36, ct("AC0", "AT1"))
    out["w2 hb"] = c.hb("W2", 36, ct())
    out["w3 hb"] = c.hb("W3", 36, ct("AT2"))
    out["final"] = c.view()
    return c, out


SCENARIOS = {"empty_group_and_two_workers": empty_group_and_two_workers, "worker_leaving": worker_leaving,
             "worker_bounces": worker_bounces}
