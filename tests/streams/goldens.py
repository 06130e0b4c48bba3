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

    def beat(self, ts: int, **fields: Any) -> dict[str, Any]:  # ``choices=`` records another legal answer
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


ONE_STATEFUL = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["input"], "sourceTopicRegex": [],
     "stateChangelogTopics": [_topic("app-0-changelog")], "repartitionSinkTopics": [],
     "repartitionSourceTopics": [], "copartitionGroups": []}]}


def not_ready_kept_target(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """4.3: the source topic grows past its changelog (NotReady) inside the assignment interval, so
    the heartbeat that finds it keeps the last target, computed while ready: m-b is granted 0_1
    (line 9); the next computation (NotReady: an empty target) revokes everything."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 0}, records, mutants)
    rec.topic(0, "input", 2)
    rec.topic(0, "app-0-changelog", 2)
    a, b = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p2")
    a.join(1000, ONE_STATEFUL)      # target epoch 2: 0_0, 0_1 on m-a
    b.join(2500, ONE_STATEFUL)      # target epoch 3 at 2500: 0_1 moves to m-b once m-a releases it
    a.beat(2600)                    # revokes 0_1
    a.beat(2700)                    # released: epoch 3
    rec.topic(3000, "input", 3)     # the changelog (2 partitions) no longer fits
    b.beat(3100)                    # NotReady, group epoch 4; inside the interval: the epoch-3 target
    a.beat(3600)                    # target epoch 4, computed NotReady: empty; 0_0 revoked
    b.beat(3700)                    # 0_1 revoked
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


STATELESS = {"epoch": 0, "subtopologies": [
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
    a.join(1000, STATELESS)
    b.join(1100, STATELESS)
    rec.next_choices = _seed_target(A=[1, 2, 3], B=[4, 5, 6], C=[7, 8, 9])
    c.join(1200, STATELESS)                     # A(#0): T1 T2 T3, B(#0): T4 T5 T6, C(#0): T7 T8 T9
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
    c.join(8000, {**STATELESS, "epoch": 1})     # bumps the group's topology epoch to 1
    for ts in (9000, 10000, 11000):
        for i, x in enumerate((a, b, c)):
            x.beat(ts + 10 * i)
    b.leave(12000)                                # B shut down: A may not take its tasks
    for ts in (13000, 14000):                     # A(#0): T2 T3 T7, C(#1): T1 T4 T9 T5 T6 T8 (the rule)
        a.beat(ts)
        c.beat(ts + 10)
    b = Client(rec, "B", "pB")
    rec.next_choices = _seed_target(A=[2, 3, 7], B=[1, 4, 9], C=[5, 6, 8])
    b.join(15000, {**STATELESS, "epoch": 1})    # B(#1): T1 T4 T9, C(#1): T5 T6 T8
    for ts in (16000, 17000, 18000):
        for i, x in enumerate((a, b, c)):
            x.beat(ts + 10 * i)
    return rec


def _keep_b(specs: Any, subs: Any, replicas: int, computed: TaskAssignment) -> TaskAssignment:
    """Another legal sticky target for m-c's arrival: m-a gives up 0_1 (Kafka's: m-b gives up 0_3)."""
    return TaskAssignment({"m-a": {"0": frozenset({0})}, "m-b": {"0": frozenset({2, 3})}, "m-c": {"0": frozenset({1})}},
                          {m: {} for m in computed.standby})


def sticky_unchanged(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """Issue #21 A.3: m-c's join is answered ASSIGNMENT_DELAYED (the 1 s interval); m-b's next heartbeat
    computes the target. In this recording the target is another legal one, in which m-b keeps both
    its tasks: its answer is the new epoch with activeTasks null ("unchanged"), m-a revokes 0_1."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 0}, records, mutants)
    rec.topic(0, "input", 4)
    a, b, c = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p2"), Client(rec, "m-c", "p3")
    a.join(1000, STATELESS)
    a.beat(1100)
    b.join(2500, STATELESS)
    a.beat(2600)                    # revokes 0_2, 0_3
    b.beat(2700)
    a.beat(2800)
    b.beat(2900)                    # granted 0_2, 0_3
    c.join(3000, STATELESS)         # ASSIGNMENT_DELAYED until 3500
    b.beat(4100, choices=Choices(task_target=_keep_b))  # epoch 4, activeTasks null
    a.beat(4200)                    # revokes 0_1
    a.beat(4300)
    c.beat(4400)                    # granted 0_1
    return rec


def trunk_current_tasks(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """kafka-trunk: the assignor sees members' current tasks (KAFKA-20790), not their targets. m-c joins
    while m-a still holds all four tasks and m-b none of its target {0_2, 0_3}: trunk hands 0_2 and 0_3
    out afresh (m-b 0_3, m-c 0_2; equal loads, process p2 first); 4.3 keeps 0_2 with m-b.
    Kafka trunk @ 06d492d81361 answered every call alike (the oracle's check mode)."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 0, "group.streams.assignment.interval.ms": 0},
                    records, mutants, "kafka-trunk")
    rec.topic(0, "input", 4)
    a, b, c = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p3"), Client(rec, "m-c", "p2")
    a.join(1000, STATELESS)
    a.beat(1100)
    b.join(2000, STATELESS)         # target m-a {0_0, 0_1}, m-b {0_2, 0_3}; m-a still holds all four
    c.join(2100, STATELESS)         # computed again before m-a revokes
    b.beat(2200)
    a.beat(2300)                    # revokes 0_2, 0_3
    a.beat(2400)
    b.beat(2500)                    # 0_3
    c.beat(2600)                    # 0_2
    return rec


def lost_assignment(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """docs/upstream.md, finding 1: the response that carries m-a's first tasks (epoch 2, 0_0 and 0_1) is
    lost; the client's retry carries its full state (no tasks) at epoch 1, Kafka accepts it and answers
    epoch 2 with activeTasks null, and every later answer is null too: m-a never learns its tasks.
    Kafka 4.3 @ 0157ac7cf2c6 answered every call alike (the oracle's check mode)."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 2000}, records, mutants)
    rec.topic(0, "input", 2)
    a = Client(rec, "m-a", "p1")
    a.join(1000, STATELESS)                                  # ASSIGNMENT_DELAYED, epoch 1
    rec.tick(3000)                                           # the initial delay ends
    rec.streams_heartbeat(3100, "m-a", 1)                    # epoch 2, 0_0 and 0_1: lost on the way back
    none: list[Any] = []
    a.beat(4100, activeTasks=none, standbyTasks=none, warmupTasks=none)  # retry: full state, old epoch
    a.beat(5100, activeTasks=None, standbyTasks=None, warmupTasks=None)  # epoch 2, null again
    a.beat(6100, activeTasks=None, standbyTasks=None, warmupTasks=None)
    return rec


def member_order(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """Two members of one process compete for a task: Kafka's tie-break is the order of its
    memberSpecs HashMap, filled by walking the group's members (a TimelineHashMap). The ids of m-b1
    and m-b2 share a HashMap bucket, and the TimelineHashMap walks m-b2 first although m-b1 joined
    first, so m-b2 gets the task. Kafka 4.3 @ 0157ac7cf2c6 answered every call alike (the oracle)."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 2000}, records, mutants)
    rec.topic(0, "input", 2)
    a = Client(rec, "c70b53bf-64d0-b50f-658c-6762df7142dc", "p-a")
    b1 = Client(rec, "98466a92-1f7e-a79c-11e7-60a5a6d5b30a", "p-b")
    b2 = Client(rec, "e6c648e7-deed-a8b2-3927-f7d64375d034", "p-b")
    for ts, c in ((1000, a), (1100, b1), (1200, b2)):
        c.join(ts, STATELESS)
    rec.tick(3000)
    a.beat(3100)                    # computes the first target: one task for p-a, one for p-b
    b1.beat(3200)
    b2.beat(3300)                   # m-b2 gets the task
    a.beat(3400)
    return rec


def endpoint_missing_topic(mutants: frozenset[str] = frozenset(), records: bool = False,
                           profile: str = "kafka-trunk") -> TraceRecorder:
    """docs/upstream.md, finding 3: with a source topic missing, building partitionsByUserEndpoint throws
    (Optional.get() on the unconfigured subtopologies): m-a, which declares a userEndpoint, cannot join
    (UNKNOWN_SERVER_ERROR, no message) while m-b, without one, gets MISSING_SOURCE_TOPICS; once the
    topic exists both run; when it is deleted again, every heartbeat that needs endpoint information
    fails, m-b's too. Kafka trunk @ 06d492d81361 and 4.3 @ 0157ac7cf2c6 answered every call alike."""
    rec = _recorder({"group.streams.initial.rebalance.delay.ms": 0}, records, mutants, profile)
    a, b = Client(rec, "m-a", "p1"), Client(rec, "m-b", "p2")
    endpoint = {"host": "localhost", "port": 8080}
    b.join(1000, MISSING)                                    # MISSING_SOURCE_TOPICS
    a.join(1500, MISSING, userEndpoint=endpoint)             # UNKNOWN_SERVER_ERROR
    a.join(2000, MISSING, userEndpoint=endpoint)             # and on every retry
    b.beat(2100)
    rec.topic(2500, "absent", 2)
    a.join(3000, MISSING, userEndpoint=endpoint)             # ready: joins, with the endpoint map
    b.beat(3100, endpointInformationEpoch=0)
    a.beat(3200, userEndpoint=endpoint, endpointInformationEpoch=1)
    b.beat(3300, endpointInformationEpoch=1)
    rec.delete_topic(4000, "absent")
    b.beat(4100, endpointInformationEpoch=1)                 # UNKNOWN_SERVER_ERROR without an endpoint of its own
    a.beat(4200, userEndpoint=endpoint, endpointInformationEpoch=1)
    return rec


def endpoint_missing_topic_43(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    return endpoint_missing_topic(mutants, records, "kafka-4.3")


ONE_STORE = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["input"], "sourceTopicRegex": [],
     "stateChangelogTopics": [_topic("app-0-changelog")], "repartitionSinkTopics": [],
     "repartitionSourceTopics": [], "copartitionGroups": []}]}


def kip_highly_available(mutants: frozenset[str] = frozenset(), records: bool = False,
                         profile: str = "kip", configs: dict[str, Any] | None = None) -> TraceRecorder:
    """kip, seed 002 "Assignment": a stateful topology gets the highly_available assignor. m-a, m-b,
    m-c own 0_0, 0_2, 0_1 (assigned once the changelog exists). Both others report state of 0_0
    (dormant): m-b offset 15000 of end 15050 (lag 50 < acceptable.recovery.lag 10000: caught up),
    m-c offset 20000 of end 40000 (lag 20000). m-a leaves. Sticky ranks by offset sum and gives 0_0
    to m-c; highly_available gives it to m-b, the caught-up member, and m-c warms it up."""
    rec = _recorder({"group.streams.num.warmup.replicas": 1, "group.streams.initial.rebalance.delay.ms": 0,
                     **(configs or {})}, records, mutants, profile)
    rec.topic(0, "input", 3)
    clients = [Client(rec, m, p) for m, p in (("m-a", "p1"), ("m-b", "p2"), ("m-c", "p3"))]
    for i, x in enumerate(clients):
        x.join(1000 + 10 * i, ONE_STORE)                        # NOT_READY: no changelog yet
    rec.topic(1500, "app-0-changelog", 3)
    for i, x in enumerate(clients):
        x.beat(2000 + 10 * i)                                  # ready: a balanced target, no owners
    a, b, c = clients
    b.beat(3000, taskOffsets=[{"subtopologyId": "0", "partition": 0, "offset": 15000}],
           taskEndOffsets=[{"subtopologyId": "0", "partition": 0, "offset": 15050}])
    c.beat(3010, taskOffsets=[{"subtopologyId": "0", "partition": 0, "offset": 20000}],
           taskEndOffsets=[{"subtopologyId": "0", "partition": 0, "offset": 40000}])
    a.leave(4000)
    b.beat(4100)                                               # the new target: 0_0 to m-b, warm-up on m-c
    c.beat(4200)
    c.beat(5100)
    return rec


def kip_highly_available_sticky(mutants: frozenset[str] = frozenset(), records: bool = False) -> TraceRecorder:
    """The same with ``group.streams.assignor.name`` = sticky: m-c gets 0_0 as active."""
    return kip_highly_available(mutants, records, configs={"group.streams.assignor.name": "sticky"})


SCENARIOS: dict[str, Callable[..., TraceRecorder]] = {
    "member_order.jsonl": member_order,
    "lost_assignment.jsonl": lost_assignment,
    "trunk_endpoint_missing_topic.jsonl": endpoint_missing_topic,
    "endpoint_missing_topic.jsonl": endpoint_missing_topic_43,
    "trunk_current_tasks.jsonl": trunk_current_tasks,
    "sticky_unchanged.jsonl": sticky_unchanged,
    "standby_rebalance.jsonl": standby_rebalance,
    "not_ready.jsonl": not_ready,
    "not_ready_kept_target.jsonl": not_ready_kept_target,
    "trunk_static.jsonl": trunk_static,
    "kip_warmup.jsonl": kip_warmup,
    "kip_rolling_bounce.jsonl": kip_rolling_bounce,
    "kip_highly_available.jsonl": kip_highly_available,
}
# kip_warmup_records: the seed's records (docs/kip.md "Records"): 18 beside 23, 17 with the epoch
# alone, and the warm-up in the target record 21.
RECORDED = {"standby_rebalance_records.jsonl": standby_rebalance, "kip_warmup_records.jsonl": kip_warmup}


def write_all() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, make in SCENARIOS.items():
        make().write(GOLDEN / name)
    for name, make in RECORDED.items():
        make(records=True).write(GOLDEN / name)


if __name__ == "__main__":
    write_all()
