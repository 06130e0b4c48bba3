"""Golden streams traces, recorded by driving the model with ``TraceRecorder``.

``python -m tests.streams.goldens`` rewrites ``tests/golden/streams/``. Each scenario can also be
recorded with a mutant switched on: the trace then shows the seeded bug, and ``kgspec check`` must
reject it at the first line where it departs from the golden.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgspec.conformance.recorder import TraceRecorder
from kgspec.model.mutants import Mutants
from kgspec.model.step import Choices
from kgspec.model.streams.assignor import TaskAssignment

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "streams"


def _topic(name: str) -> dict[str, Any]:
    return {"name": name, "partitions": 0, "replicationFactor": 0, "topicConfigs": []}


STATEFUL = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["input"], "sourceTopicRegex": [],
     "stateChangelogTopics": [_topic("app-0-changelog")], "repartitionSinkTopics": ["app-rep"],
     "repartitionSourceTopics": [], "copartitionGroups": []},
    {"subtopologyId": "1", "sourceTopics": [], "sourceTopicRegex": [], "stateChangelogTopics": [],
     "repartitionSinkTopics": [], "repartitionSourceTopics": [_topic("app-rep")], "copartitionGroups": []},
]}
MISSING = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["absent"], "sourceTopicRegex": [], "stateChangelogTopics": [],
     "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}

TASK_FIELDS = ("activeTasks", "standbyTasks", "warmupTasks")


class Client:
    """A well-behaved streams client: reports what it was last given."""

    def __init__(self, rec: TraceRecorder, member: str, process: str) -> None:
        self.rec, self.member, self.process = rec, member, process
        self.epoch = 0
        self.owned: dict[str, Any] = {f: [] for f in TASK_FIELDS}

    def _apply(self, response: dict[str, Any]) -> dict[str, Any]:
        if response["errorCode"] == 0:
            self.epoch = response["memberEpoch"]
            for f in TASK_FIELDS:
                if response.get(f) is not None:
                    self.owned[f] = response[f]
        return response

    def join(self, ts: int, topology: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return self._apply(self.rec.streams_join(ts, self.member, topology, self.process, **fields))

    def beat(self, ts: int, **fields: Any) -> dict[str, Any]:
        return self._apply(self.rec.streams_heartbeat(ts, self.member, self.epoch, **{**self.owned, **fields}))

    def leave(self, ts: int, epoch: int = -1, **fields: Any) -> dict[str, Any]:
        return self.rec.streams_heartbeat(ts, self.member, epoch, **fields)


def _recorder(configs: dict[str, Any], records: bool, mutants: frozenset[str],
              profile: str = "kafka-4.3") -> TraceRecorder:
    rec = TraceRecorder(profile, configs, records=records)
    rec.coord.mutants = Mutants(mutants)
    return rec


def standby_rebalance(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """Three members on two processes, one standby replica, initial delay, a join that moves
    tasks (revocation), a leave, and a describe."""
    rec = _recorder({"group.streams.num.standby.replicas": 1, "group.streams.initial.rebalance.delay.ms": 2000},
                    records, mutants)
    rec.topic(0, "input", 4)
    rec.topic(0, "app-0-changelog", 4)
    rec.topic(0, "app-rep", 4)
    a, b, c = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p1"), Client(rec, "m-c", "p2")
    a.join(1000, STATEFUL)          # ASSIGNMENT_DELAYED, epoch 1
    b.join(1500, STATEFUL)
    rec.tick(3000)                  # the initial delay ends
    a.beat(3100)                    # computes the first target
    b.beat(3200)
    a.beat(4500)
    b.beat(4600)
    c.join(6000, STATEFUL)          # new process: tasks move, standbys spread
    a.beat(6100)
    b.beat(6200)
    c.beat(6300)
    a.beat(7500)
    b.beat(7600)
    c.beat(7700)
    a.beat(9000)
    b.beat(9100)
    c.beat(9200)
    rec.call(9300, "admin", {"groupIds": ["g"], "includeAuthorizedOperations": False}, api_key=89, version=0)
    b.leave(10000)
    a.beat(11500)
    c.beat(11600)
    a.beat(13000)
    c.beat(13100)                   # its standbys 0_1, 0_3 were revoked; the actives wait for the index
    a.beat(14500)
    c.beat(14600)                   # now granted as actives
    rec.call(14700, "admin", {"groupIds": ["g"], "includeAuthorizedOperations": False}, api_key=89, version=0)
    return rec


def not_ready(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """A source topic is missing: MISSING_SOURCE_TOPICS, NotReady, no tasks; then it appears."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 0}, records, mutants)
    a = Client(rec, "m-a", "p1")
    a.join(1000, MISSING)
    a.beat(2000)
    rec.topic(2500, "absent", 2)
    a.beat(3000)
    a.beat(4000)
    return rec


def trunk_static(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """kafka-trunk: static members on two processes with one standby; a temporary leave (-2) and a
    rejoin under a new member id (replacement, no bump); reported task offsets; the active owner
    leaves and the standby holder is promoted in place; a describe with the offsets."""
    rec = _recorder({"group.streams.num.standby.replicas": 1, "group.streams.initial.rebalance.delay.ms": 0},
                    records, mutants, "kafka-trunk")
    rec.topic(0, "input", 2)
    rec.topic(0, "app-0-changelog", 2)
    rec.topic(0, "app-rep", 2)
    a, b = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p2")
    a.join(1000, STATEFUL, instanceId="i-a", client_id="app")
    b.join(1100, STATEFUL, instanceId="i-b", client_id="app")
    for ts in (2000, 2100, 3000, 3100, 4000, 4100):
        (a if ts % 1000 == 0 else b).beat(ts, instanceId="i-a" if ts % 1000 == 0 else "i-b", client_id="app")
    b.beat(4500, instanceId="i-b", client_id="app",
           taskOffsets=[{"subtopologyId": "0", "partition": 0, "offset": 40}],
           taskEndOffsets=[{"subtopologyId": "0", "partition": 0, "offset": 42}])
    a.leave(5000, -2, instanceId="i-a", client_id="app")     # temporary leave: only record 22 at -2
    a2 = Client(rec, "m-a2", "p1")
    a2.join(6000, STATEFUL, instanceId="i-a", client_id="app")  # replaces m-a, inherits its tasks
    a2.beat(7000, instanceId="i-a", client_id="app")
    b.beat(7100, instanceId="i-b", client_id="app")
    a2.leave(8000, instanceId="i-a", client_id="app")          # -1: fenced, epoch bump
    b.beat(9000, instanceId="i-b", client_id="app")            # standbys promoted in place
    b.beat(10000, instanceId="i-b", client_id="app")
    rec.call(10100, "admin", {"groupIds": ["g"], "includeAuthorizedOperations": False}, api_key=89, version=0)
    return rec


def kip_warmup(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """kip: a stateful task moving to a new process is warmed up first and promoted once its lag is
    below acceptable.recovery.lag; a join with an older topology epoch is STREAMS_TOPOLOGY_FENCED."""
    rec = _recorder({"group.streams.num.warmup.replicas": 1, "group.streams.initial.rebalance.delay.ms": 0},
                    records, mutants, "kip")
    rec.topic(0, "input", 3)
    rec.topic(0, "app-0-changelog", 3)
    rec.topic(0, "app-rep", 3)
    a, b = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p2")
    a.join(1000, {**STATEFUL, "epoch": 1})
    b.join(1100, {**STATEFUL, "epoch": 1})                   # gets a warm-up, m-a keeps the actives
    a.beat(2000)
    b.beat(2100, taskOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 10}],
           taskEndOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 50000}])  # lag 49990: no step
    for ts in (3000, 3100, 4000, 4100):
        (a if ts % 1000 == 0 else b).beat(ts)
    b.beat(5000, taskOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 49990}],
           taskEndOffsets=[{"subtopologyId": "0", "partition": 2, "offset": 50000}])  # lag 10: a step
    a.beat(5100)                                              # revokes 0_2
    a.beat(6000)
    b.beat(6100)                                              # the warm-up becomes the active task
    b.beat(6200)
    Client(rec, "m-c", "p3").join(7000, STATEFUL)             # topology epoch 0 < 1
    return rec


STATELESS_9 = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["input"], "sourceTopicRegex": [], "stateChangelogTopics": [],
     "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}


def _seed_target(**members: list[int]) -> Choices:
    """The coordinator's choice of a target: the seed's listing, T<n> = partition n - 1."""
    assignment = TaskAssignment({m: {"0": frozenset(t - 1 for t in ts)} for m, ts in members.items()},
                                {m: {} for m in members})
    return Choices(task_target=lambda _specs, _subs, _replicas, _computed: assignment)


def kip_rolling_bounce(mutants: frozenset[str] = frozenset(), records: bool = False,
                       profile: str = "kip") -> TraceRecorder:
    """Seed 002 "Topology updates", Example, with the seed's own values: a rolling bounce to topology
    epoch 1 with three one-thread clients A, B, C and nine stateless tasks T1..T9 (subtopology 0,
    partitions 0..8). Where the seed lists an assignment ("something like this") the coordinator
    here picks it (``Choices.task_target``); the rest follows from the rules: from C's rejoin on, A
    and B (epoch 0) get no new task, so when B is down all of B's tasks go to C."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 0}, records, mutants, profile)
    rec.topic(0, "input", 9)
    a, b, c = Client(rec, "A", "pA"), Client(rec, "B", "pB"), Client(rec, "C", "pC")
    a.join(1000, STATELESS_9)
    b.join(1100, STATELESS_9)
    rec.next_choices = _seed_target(A=[1, 2, 3], B=[4, 5, 6], C=[7, 8, 9])
    c.join(1200, STATELESS_9)                     # A(#0): T1 T2 T3, B(#0): T4 T5 T6, C(#0): T7 T8 T9
    for ts in (2000, 3000):
        for i, x in enumerate((a, b, c)):
            x.beat(ts + 10 * i)
    c.leave(5000)                                 # C shut down to update its topology
    rec.next_choices = _seed_target(A=[1, 2, 3, 7], B=[4, 5, 6, 8, 9])
    a.beat(6000)                                  # A(#0): T1 T2 T3 T7, B(#0): T4 T5 T6 T8 T9
    b.beat(6010)
    a.beat(7000)
    b.beat(7010)
    c = Client(rec, "C", "pC")
    rec.next_choices = _seed_target(A=[2, 3, 7], B=[5, 6, 8], C=[1, 4, 9])
    c.join(8000, {**STATELESS_9, "epoch": 1})     # bumps the group's topology epoch to 1
    for ts in (9000, 10000, 11000):
        for i, x in enumerate((a, b, c)):
            x.beat(ts + 10 * i)
    b.leave(12000)                                # B shut down: A may not take its tasks
    for ts in (13000, 14000):                     # A(#0): T2 T3 T7, C(#1): T1 T4 T9 T5 T6 T8 (the rule)
        a.beat(ts)
        c.beat(ts + 10)
    b = Client(rec, "B", "pB")
    rec.next_choices = _seed_target(A=[2, 3, 7], B=[1, 4, 9], C=[5, 6, 8])
    b.join(15000, {**STATELESS_9, "epoch": 1})    # B(#1): T1 T4 T9, C(#1): T5 T6 T8
    for ts in (16000, 17000, 18000):
        for i, x in enumerate((a, b, c)):
            x.beat(ts + 10 * i)
    return rec


SCENARIOS: dict[str, Callable[..., TraceRecorder]] = {
    "standby_rebalance.jsonl": standby_rebalance,
    "not_ready.jsonl": not_ready,
    "trunk_static.jsonl": trunk_static,
    "kip_warmup.jsonl": kip_warmup,
    "kip_rolling_bounce.jsonl": kip_rolling_bounce,
}
RECORDED = {"standby_rebalance_records.jsonl": standby_rebalance}


def write_all() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, make in SCENARIOS.items():
        make().write(GOLDEN / name)
    for name, make in RECORDED.items():
        make(records=True).write(GOLDEN / name)


if __name__ == "__main__":
    write_all()
