"""Driving Connect workers against the model in the draft's notation, recording a contract trace.

``AC0`` is connector A, ``AT1`` task 1 of connector A (draft 'Case Studies'). Every call and
every record is kept as a contract event, so the same scenarios write the golden traces
(``scripts/make_golden_connect.py``).
"""

from __future__ import annotations

from typing import Any

from kgspec.model.connect import ops
from kgspec.model.connect.resources import CONNECTORS, items, label, parse
from kgspec.model.coordinator import Coordinator
from kgspec.model.records import Record
from kgspec.model.step import Decision

HB = ops.CONNECT_GROUP_HEARTBEAT
PREPARE = ops.CONNECT_GROUP_PREPARE_ASSIGNMENT
INSTALL = ops.CONNECT_GROUP_INSTALL_ASSIGNMENT
COMPUTE_ASSIGNMENT = 1000
INVALID_ASSIGNMENT = 1001

# The draft's config topic: AC0, AT1, AT2, BC0, BT1.
CONFIG = {"A": [1, 2], "B": [1]}


def assignor(lo: int = 0, hi: int = 2, reason: int = 0, name: str = "incremental") -> dict[str, Any]:
    return {"name": name, "minimumVersion": lo, "maximumVersion": hi, "reason": reason, "version": hi,
            "metadata": None}


def ct(*labels: str) -> list[dict[str, Any]]:
    """``ct("AC0", "AT1")`` -> the draft's ConnectorsAndTasks JSON."""
    connectors = sorted(x[0] for x in labels if x[1] == "C")
    tasks = sorted((x[0], int(x[2:])) for x in labels if x[1] == "T")
    return [{"connectors": connectors, "tasks": [{"connector": c, "task": t} for c, t in tasks]}]


def names(value: Any) -> list[str]:
    """ConnectorsAndTasks JSON (or a response's assignment) -> sorted labels."""
    if isinstance(value, dict):
        value = value["connectorsAndTasks"]
    return sorted(label(x) for x in items(parse(value)))


class Cluster:
    """One coordinator, one Connect group ``g``, a clock and the trace written so far."""

    def __init__(self, profile: str = "kip", configs: dict[str, Any] | None = None, group: str = "g") -> None:
        self.coord = Coordinator(profile, configs)
        self.group = group
        self.now = 0
        self.events: list[dict[str, Any]] = []
        self.correlation = 0

    # --- time and input --------------------------------------------------------------------

    def at(self, t: int) -> None:
        for firing in self.coord.advance(t):
            self._records(firing.records, firing.timer.deadline_ms)
        self.now = t

    def configure(self, connectors: dict[str, list[int]]) -> list[Record]:
        records = ops.configure(self.coord, self.group, connectors)
        self._records(records, self.now)
        return records

    def load(self, records: list[Record], now: int) -> None:
        """Start from records, then a coordinator takes over (the contract's failover tick re-arms timers)."""
        self.coord.apply(records)
        self._records(records, now)
        self.coord.failover(now)
        self.events.append({"tsMs": now, "tick": {"coordinatorFailover": True}})
        self.now = now

    # --- calls ---------------------------------------------------------------------------------

    def call(self, api: str, request: dict[str, Any], client: str = "") -> Decision:
        result = self.coord.handle(api, 0, request, now=self.now, client_id=client)
        self.correlation += 1
        assert result.response is not None
        self.events.append({"tsMs": self.now, "requestHeader": {"requestApiKeyName": api, "requestApiVersion": 0,
                                                                "clientId": client, "correlationId": self.correlation},
                            "request": request, "response": result.response})
        self._records(result.records, self.now)
        return result

    def hb(self, member: str, epoch: int, owned: list[dict[str, Any]] | None = None, *,
           assignors: list[dict[str, Any]] | None = None, rebalance_timeout: int = 60000,
           **extra: Any) -> dict[str, Any]:
        """A heartbeat; a join (epoch 0) sends every field, as the draft requires."""
        request: dict[str, Any] = {
            "groupId": self.group, "memberId": member, "memberEpoch": epoch, "instanceId": None,
            "rebalanceTimeoutMs": rebalance_timeout if epoch == 0 else -1, "serverAssignor": None,
            "clientAssignors": assignors if assignors is not None else ([assignor()] if epoch == 0 else None),
            "connectorsAndTasks": owned if owned is not None else (ct() if epoch == 0 else None),
        }
        request.update(extra)
        response = self.call(HB, request, member).response
        assert response is not None
        return response

    def prepare(self, member: str, epoch: int) -> dict[str, Any]:
        response = self.call(PREPARE, {"groupId": self.group, "memberId": member, "memberEpoch": epoch},
                             member).response
        assert response is not None
        return response

    def install(self, member: str, epoch: int, group_epoch: int, target: dict[str, list[str]],
                error: int = 0) -> dict[str, Any]:
        members = [{"memberId": m, "connectorsAndTasks": ct(*labels), "version": 2, "metadata": None}
                   for m, labels in target.items()]
        response = self.call(INSTALL, {"groupId": self.group, "memberId": member, "memberEpoch": epoch,
                                       "groupEpoch": group_epoch, "error": error, "members": members},
                             member).response
        assert response is not None
        return response

    # --- views -----------------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The draft's listing: group epoch and members, target epoch and assignment, members' epochs."""
        group = self.coord.connect_groups[self.group]
        return {
            "group": (group.group_epoch, sorted(group.members)),
            "target": (group.assignment_epoch,
                       {m: sorted(label(x) for x in items(t.resources)) for m, t in sorted(group.target.items())}),
            "members": {m: (w.member_epoch, sorted(label(x) for x in items(w.assigned)))
                        for m, w in sorted(group.members.items())},
        }

    def _records(self, records: list[Record], ts: int) -> None:
        for r in records:
            self.events.append({"tsMs": ts, "record": r.to_json()})


def connector_count(value: Any) -> int:
    return len(parse(value).get(CONNECTORS, {}))
