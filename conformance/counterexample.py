"""Counterexamples as contract traces: replay a BMC trace through the mutated executable model.

A counterexample found with ``run_bmc(..., replayable=True)`` is a script the executable
model can follow event by event (see :func:`kgspec.invariants.symbolic.bmc.realizable`). :func:`export_trace` turns it
into ConsumerGroupHeartbeat calls and ticks, runs them through a
:class:`~kgspec.model.coordinator.Coordinator` *with the mutant switched on* (the abstract
targets are imposed through ``Choices.target``; they are legal ``uniform`` targets), and
writes the mutant's responses as a ``kgspec-trace/1`` file. ``kgspec check`` replays that
file against the unmutated model, which answers differently where the mutant departs.

Each abstract step maps to one event: a join (or static replacement) with the recompute
and heartbeat that follow it is one heartbeat with epoch 0; a recompute is the heartbeat
after it; ``heartbeat_lost`` is a call whose response the simulated client ignores;
``session_timeout`` / ``rebalance_timeout`` are ticks at times chosen (by Z3, difference
logic) so that exactly that member's timer is due; ``failover`` is a tick marked
``coordinatorFailover`` (the mutant's replay drops member tombstones, as the simulator's
does). A ConsumerGroupDescribe closes the trace, so a departure that no heartbeat response
shows (a target, a member that should be gone) is visible on its line.

While replaying, every heartbeat's outcome (epoch, state, assigned partitions) is compared
with the abstract step's: the mutated model must reproduce the counterexample
(``ExportedTrace.mismatches`` lists where it does not).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3
from kgspec.invariants.symbolic.abstraction import CONSUMER_STATES, STREAMS_STATES
from kgspec.invariants.symbolic.bmc import Counterexample
from kgspec.invariants.symbolic.concrete import ConcreteState, apply, initial
from kgspec.model.consumer.group import OwnershipConflict
from kgspec.model.consumer.records import CONSUMER_RECORD_TYPES
from kgspec.model.coordinator import CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.hashing import kafka_uuid_string
from kgspec.model.mutants import Mutants
from kgspec.model.step import NO_CHOICES, Choices
from kgspec.model.streams.member import ROLE_FIELDS

from kgspec.sim.trace import header_event, write_trace

GROUP = "g"
TOPIC = "t"
TOPIC_ID = kafka_uuid_string(bytes(range(1, 17)))
START_MS = 1000
SESSION_MS = 45000
REBALANCE_MS = 30000  # what members send unless a rebalance timeout must fire sooner
CONFIGS = {"group.consumer.assignment.interval.ms": 0, "group.consumer.assignors": "range"}
_HEARTBEATS = ("heartbeat", "heartbeat_lost", "heartbeat_stale")
# member metadata, target member, current assignment (consumer 5, 7, 8; streams 19, 21, 22)
_MEMBER_TOMBSTONES = frozenset({5, 7, 8, 19, 21, 22})


@dataclass
class ExportedTrace:
    protocol: str
    mutant: str | None
    invariant: str
    events: list[dict[str, Any]] = field(default_factory=list)
    step_lines: list[int] = field(default_factory=list)  # line of the event realizing each step
    probe_line: int = 0  # the closing Describe
    mismatches: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. the mutated model's replay rejecting its records

    def write(self, path: str | Path) -> None:
        write_trace(self.events, path)


class _Events:
    """Calls, one group, grouped into the model's heartbeats."""

    def __init__(self, steps: list[dict[str, Any]]) -> None:
        self.steps = steps
        # event index -> abstract step indexes it realizes
        self.groups: list[list[int]] = []
        # event index -> the ``duplicate`` steps just before it (the network copies a request;
        # no event of its own)
        self.copies: dict[int, list[int]] = {}
        i = 0
        while i < len(steps):
            a = steps[i]["action"]
            if a == "duplicate":
                self.copies.setdefault(len(self.groups), []).append(i)
                i += 1
            elif a in ("join", "replace", "recompute"):
                j = i + 1
                while steps[j]["action"] != "heartbeat":
                    j += 1
                self.groups.append(list(range(i, j + 1)))
                i = j + 1
            else:
                self.groups.append([i])
                i += 1


def _instances(steps: list[dict[str, Any]]) -> dict[str, str]:
    """Instance ids: members that leave with -2 or are replaced are static from their join."""
    inst: dict[str, str] = {}
    for s in steps:
        if s["action"] in ("static_leave", "replace"):
            inst.setdefault(s["member"], f"instance-{s['member']}")
        if s["action"] == "replace":
            inst[s["new_member"]] = inst[s["member"]]
    return inst


def _member_ids(cex: Counterexample, states: list[ConcreteState],
                instance: dict[str, str]) -> dict[str, str] | None:
    """Member ids (and through them instance ids) ordered so that Kafka's ``range`` assignor,
    which is deterministic and not sticky, computes each target of the counterexample: with
    one task per topic the first member in range order (static members by instance id, then
    dynamic ones by member id) gets it. None when no order does (then the targets are
    imposed, and the checker must accept them as ``range`` output, which it will not)."""
    key = {m: instance.get(m, m) for m in cex.instance.members}
    keys = sorted(set(key.values()))
    before: dict[str, set[str]] = {k: set() for k in keys}  # k -> keys that must come after k
    static = {instance[m] for m in instance}
    for k in static:
        before[k] |= {x for x in keys if x not in static}
    for i, step in enumerate(cex.steps):
        if step["action"] != "recompute":
            continue
        post = states[i + 1]
        for task in post.tasks:
            owners = [m for m in post.members if task in post.target["act"][m]]
            if owners:
                before[key[owners[0]]] |= {key[x] for x in post.joined if key[x] != key[owners[0]]}
    order: list[str] = []
    ready = sorted(k for k in keys if not any(k in after for after in before.values()))
    while ready:
        k = ready.pop(0)
        order.append(k)
        for x in sorted(before[k]):
            before[k].discard(x)
            if not any(x in after for after in before.values()):
                ready.append(x)
    if len(order) != len(keys):
        return None
    rank = {k: f"{chr(ord('a') + i)}-" for i, k in enumerate(order)}
    return {m: rank[key[m]] + m for m in cex.instance.members}


def _states(cex: Counterexample) -> list[ConcreteState]:
    inst = cex.instance
    s = initial(cex.protocol, inst.members, inst.tasks, inst.processes, cex.process_of)
    out = [s]
    for step in cex.steps:
        s = apply(s, step, cex.mutant)
        out.append(s)
    return out


def _schedule(cex: Counterexample, groups: list[list[int]], states: list[ConcreteState]) -> tuple[list[int], dict[str, int]]:
    """Event times and per-member rebalance timeouts such that exactly the timers the trace
    fires are due at its timeout ticks, and no other timer fires (difference logic, Z3)."""
    steps = cex.steps
    if not any(steps[g[0]]["action"] in ("session_timeout", "rebalance_timeout") for g in groups):
        return [START_MS + k for k in range(len(groups) + 1)], {}
    opt = z3.Solver()
    t = [z3.Int(f"t{k}") for k in range(len(groups) + 1)]
    rebalance = {m: z3.Int(f"r_{m}") for m in cex.instance.members}
    opt.add(t[0] >= START_MS, *[t[k + 1] >= t[k] + 1 for k in range(len(groups))],
            *[r >= 1 for r in rebalance.values()], *[r <= 2**31 - 1 for r in rebalance.values()])
    session: dict[str, Any] = {}  # member -> deadline term
    rebal: dict[str, Any] = {}
    for k, g in enumerate([*groups, []]):
        due_now: set[tuple[str, str]] = set()
        if g:
            first = steps[g[0]]
            if first["action"] == "session_timeout":
                due_now.add(("session", first["member"]))
            elif first["action"] == "rebalance_timeout":
                due_now.add(("rebalance", first["member"]))
        for kind, timers in (("session", session), ("rebalance", rebal)):
            for m, deadline in timers.items():
                opt.add(deadline <= t[k] if (kind, m) in due_now else deadline > t[k])
        if not g:
            break
        for i in g:
            step, pre, post = steps[i], states[i], states[i + 1]
            a, m = step["action"], str(step.get("member", ""))
            if a in ("leave", "session_timeout", "rebalance_timeout", "replace"):
                session.pop(m, None)
                rebal.pop(m, None)
            elif a in _HEARTBEATS and m:
                session[m] = t[k] + SESSION_MS
                changed = (pre.epoch[m], pre.mstate[m], pre.assigned, pre.pending) != (
                    post.epoch[m], post.mstate[m], post.assigned, post.pending)
                if post.mstate[m] == "UNREVOKED" and changed:
                    rebal[m] = t[k] + rebalance[m]
                elif post.mstate[m] != "UNREVOKED":
                    rebal.pop(m, None)
    if opt.check() != z3.sat:
        raise ValueError("no event times fire exactly the trace's timers")
    model = opt.model()
    times = [model.eval(x, model_completion=True).as_long() for x in t]
    rto = {m: model.eval(r, model_completion=True).as_long() for m, r in rebalance.items()}
    return times, rto


class _Replay:
    """The mutated coordinator and the simulated clients following the script."""

    def __init__(self, cex: Counterexample, profile: str, rto: dict[str, int],
                 states: list[ConcreteState]) -> None:
        self.cex = cex
        self.mutants = Mutants({cex.mutant}) if cex.mutant else Mutants()
        self.profile = profile
        instance = _instances(cex.steps)
        ordered = _member_ids(cex, states, instance)
        # range computes the targets itself when the ids order it so; else they are imposed
        self.impose = ordered is None or self.mutants.active("assignor-double-assign")
        self.ids = ordered or {m: m for m in cex.instance.members}
        self.instance = {m: self.ids[m].split("-")[0] + "-" + i if ordered else i
                         for m, i in instance.items()}
        self.coord = self._coordinator()
        # The counterexample's targets, imposed as the coordinator's choice (legal uniform targets).
        self.choices = Choices(target=self._override)
        self.records: list[Any] = []
        self.rto = rto
        self.epoch: dict[str, int] = dict.fromkeys(cex.instance.members, 0)
        self.owned: dict[str, list[int]] = {m: [] for m in cex.instance.members}
        self.corr = 0
        self.target: dict[str, list[str]] | None = None
        self.notes: list[str] = []
        self.copies: dict[str, tuple[int, Any]] = {}

    @property
    def configs(self) -> dict[str, Any]:
        return dict(CONFIGS)

    def topic_events(self) -> list[dict[str, Any]]:
        return [{"tsMs": 0, "topic": {"name": TOPIC, "topicId": TOPIC_ID,
                                      "partitions": len(self.cex.instance.tasks)}}]

    def _coordinator(self) -> Coordinator:
        coord = Coordinator(self.profile, self.configs, self.mutants)
        for event in self.topic_events():
            topic = event["topic"]
            coord.update_topic(topic["name"], topic["topicId"], topic["partitions"])
        return coord

    def probe(self, now: int) -> dict[str, Any]:
        """A closing Describe: the group as the coordinator holds it."""
        return self.call(CONSUMER_GROUP_DESCRIBE, 1, {"groupIds": [GROUP], "includeAuthorizedOperations": False},
                         now, "probe")

    def outcome(self, m: str) -> tuple[int, str, Any] | None:
        """(epoch, state, assigned tasks) of member ``m`` in the model, if it is a member."""
        group = self.coord.groups.get(GROUP)
        member = group.members.get(self.ids[m]) if group is not None else None
        if member is None:
            return None
        tasks = self.cex.instance.tasks
        return (member.member_epoch, CONSUMER_STATES.get(member.state, "UNKNOWN"),
                sorted(tasks[p] for parts in member.assigned.values() for p in parts))

    def _override(self, spec: Any, assignor: str, computed: dict[str, dict[str, frozenset[int]]]) -> dict[str, dict[str, frozenset[int]]]:
        if self.target is None or not self.impose:
            return computed
        tasks = self.cex.instance.tasks
        out: dict[str, dict[str, frozenset[int]]] = {}
        owner: dict[str, str] = {}
        for m, ts in self.target.items():
            mine = []
            for task in ts:
                # assignor-double-assign adds the second owner itself (after the override)
                if self.mutants.active("assignor-double-assign") and task in owner:
                    continue
                owner[task] = m
                mine.append(tasks.index(task))
            out[self.ids[m]] = {TOPIC_ID: frozenset(mine)} if mine else {}
        return out

    def heartbeat(self, m: str, epoch: int, now: int, joining: bool) -> dict[str, Any]:
        joining = joining or epoch == 0  # a join retried after a lost response: owns nothing yet
        request: dict[str, Any] = {
            "groupId": GROUP, "memberId": self.ids[m], "memberEpoch": epoch,
            "instanceId": self.instance.get(m), "rackId": None,
            "rebalanceTimeoutMs": self.rto.get(m, REBALANCE_MS) if epoch >= 0 else -1,
            "subscribedTopicNames": [TOPIC] if epoch >= 0 else None, "subscribedTopicRegex": None,
            "serverAssignor": None,
            "topicPartitions": ([] if joining else [{"topicId": TOPIC_ID, "partitions": sorted(self.owned[m])}])
            if epoch >= 0 else None,
        }
        return self.call(CONSUMER_GROUP_HEARTBEAT, 1, request, now, f"client-{m}")

    def call(self, api_key: int, version: int, request: dict[str, Any], now: int, client: str) -> dict[str, Any]:
        self.advance(now)
        result = self.coord.decide(api_key, version, request, now=now, client_id=client, choices=self.choices)
        try:
            self.coord.commit(result)
        except OwnershipConflict as exc:
            # The mutant's answer stands; Kafka's replay would reject its records (addPartitionEpochs).
            self.notes.append(f"{client}: the model's own replay rejects the records: {exc}")
        self.records += result.records
        self.corr += 1
        assert result.response is not None
        return {"tsMs": now, "requestHeader": {"requestApiKey": api_key, "requestApiVersion": version,
                                               "clientId": client, "correlationId": self.corr},
                "request": request, "response": result.response}

    def advance(self, now: int) -> None:
        for firing in self.coord.advance(now):
            self.records += firing.records

    def failover(self, now: int) -> None:
        self.advance(now)
        records = self.records
        if self.mutants.active("replay-drops-tombstone"):
            records = [r for r in records if not (r.value is None and r.type in _MEMBER_TOMBSTONES)]
        fresh = self._coordinator()
        self.choices = NO_CHOICES  # the reloaded coordinator computes its own targets
        fresh.apply(records)
        fresh.on_loaded(now)
        self.coord = fresh

    def adopt(self, m: str, response: dict[str, Any]) -> None:
        self.epoch[m] = int(response["memberEpoch"])
        assignment = response.get("assignment") or {"topicPartitions": []}
        self.owned[m] = sorted(p for tp in assignment["topicPartitions"] for p in tp["partitions"])

    def forget(self, m: str) -> None:
        self.epoch[m], self.owned[m] = 0, []

    def keep_copy(self, m: str) -> None:
        """The network keeps a copy of the request ``m`` sends now (epoch, owned tasks)."""
        self.copies[m] = (self.epoch[m], copy.deepcopy(self._owned_of(m)))

    def _owned_of(self, m: str) -> Any:
        return self.owned[m]

    def _set_owned(self, m: str, owned: Any) -> None:
        self.owned[m] = owned

    def stale(self, m: str, now: int) -> dict[str, Any]:
        """The kept copy reaches the coordinator: the same request again, after newer ones."""
        epoch, sent = self.copies[m]
        current = self._owned_of(m)
        self._set_owned(m, sent)
        try:
            return self.heartbeat(m, epoch, now, False)
        finally:
            self._set_owned(m, current)


def export_trace(cex: Counterexample, profile: str = "kafka-4.3") -> ExportedTrace:
    """Replay ``cex`` (a realizable counterexample) through the mutated model."""
    out = ExportedTrace(cex.protocol, cex.mutant, cex.invariant)
    states = _states(cex)
    script = _Events(cex.steps)
    groups = script.groups
    times, rto = _schedule(cex, groups, states)
    rp: _Replay = (_StreamsReplay if cex.protocol == "streams" else _Replay)(cex, profile, rto, states)
    out.events.append(header_event(profile, rp.configs))
    out.events += rp.topic_events()
    out.step_lines = [0] * len(cex.steps)
    for k, g in enumerate(groups):
        now = times[k]
        for i in script.copies.get(k, []):
            rp.keep_copy(cex.steps[i]["member"])
        first = cex.steps[g[0]]
        a, m = first["action"], first.get("member", "")
        event: dict[str, Any]
        if a in ("session_timeout", "rebalance_timeout"):
            rp.advance(now)
            event = {"tsMs": now, "tick": {}}
        elif a == "failover":
            rp.failover(now)
            event = {"tsMs": now, "tick": {"coordinatorFailover": True}}
        elif a in ("leave", "static_leave"):
            event = rp.heartbeat(m, -1 if a == "leave" else -2, now, False)
            rp.forget(m)
        elif a in ("heartbeat_fenced", "zombie_heartbeat"):
            event = rp.heartbeat(m, rp.epoch[m], now, False)
            rp.forget(m)
        elif a == "heartbeat_stale":  # the copy, delivered late; nobody reads the response
            event = rp.stale(m, now)
            _compare(rp, first, event["response"], g[0], out.mismatches)
        else:
            last = cex.steps[g[-1]]
            hb_member = last["member"]
            rec = next((cex.steps[i] for i in g if cex.steps[i]["action"] == "recompute"), None)
            rp.target = rec["target"] if rec is not None else None
            joining = a in ("join", "replace")
            event = rp.heartbeat(hb_member, 0 if joining else rp.epoch[hb_member], now, joining)
            rp.target = None
            _compare(rp, last, event["response"], g[-1], out.mismatches)
            if last.get("response") == "delivered" and event["response"]["errorCode"] == 0:
                rp.adopt(hb_member, event["response"])
        out.events.append(event)
        for i in [*g, *script.copies.get(k, [])]:
            out.step_lines[i] = len(out.events)
    rp.advance(times[-1])
    out.events.append(rp.probe(times[-1]))
    out.probe_line = len(out.events)
    out.notes = rp.notes
    return out


def _compare(rp: _Replay, step: dict[str, Any], response: dict[str, Any], index: int,
             mismatches: list[str]) -> None:
    """The mutated model must land where the abstract step says."""
    expected = step.get("result")
    if expected is None:
        return
    got = rp.outcome(step["member"])
    if got is None or response.get("errorCode") != 0:
        mismatches.append(f"step {index + 1}: the heartbeat was not accepted ({response.get('errorCode')})")
        return
    assigned = expected["assigned"]
    want = (expected["epoch"], expected["state"],
            {r: sorted(v) for r, v in assigned.items() if v} if isinstance(assigned, dict) else sorted(assigned))
    if got != want:
        mismatches.append(f"step {index + 1}: the model has {got}, the counterexample {want}")


assert 5 in CONSUMER_RECORD_TYPES  # the tombstone filter above reads consumer record types


STREAMS_TOPIC = "s"
STREAMS_TOPIC_ID = kafka_uuid_string(bytes(range(17, 33)))
CHANGELOG = f"{GROUP}-store-changelog"
CHANGELOG_ID = kafka_uuid_string(bytes(range(33, 49)))


class _StreamsReplay(_Replay):
    """StreamsGroupHeartbeat (API 88) for the streams instance: one subtopology ``0`` reading
    topic ``s`` (one partition per abstract task), stateful (a pre-created changelog) only when
    standbys matter; the sticky assignor computes the targets (the counterexample's are sticky)."""

    def __init__(self, cex: Counterexample, profile: str, rto: dict[str, int],
                 states: list[ConcreteState]) -> None:
        self.standbys = 1 if cex.mutant == "standby-on-active-process" else 0
        super().__init__(cex, profile, rto, states)
        self.ids = {m: m for m in cex.instance.members}
        self.impose = False
        self.tasks_owned: dict[str, dict[str, list[int]]] = {m: {} for m in cex.instance.members}

    @property
    def configs(self) -> dict[str, Any]:
        return {"group.streams.assignment.interval.ms": 0, "group.streams.initial.rebalance.delay.ms": 0,
                "group.streams.num.standby.replicas": self.standbys, "group.streams.num.warmup.replicas": 0}

    def topic_events(self) -> list[dict[str, Any]]:
        n = len(self.cex.instance.tasks)
        events = [{"tsMs": 0, "topic": {"name": STREAMS_TOPIC, "topicId": STREAMS_TOPIC_ID, "partitions": n}}]
        if self.standbys:
            events.append({"tsMs": 0, "topic": {"name": CHANGELOG, "topicId": CHANGELOG_ID, "partitions": n}})
        return events

    def _topology(self) -> dict[str, Any]:
        changelogs = [{"name": CHANGELOG, "partitions": 0, "replicationFactor": 0, "topicConfigs": []}] \
            if self.standbys else []
        return {"epoch": 0, "subtopologies": [{
            "subtopologyId": "0", "sourceTopics": [STREAMS_TOPIC], "sourceTopicRegex": [],
            "stateChangelogTopics": changelogs, "repartitionSinkTopics": [], "repartitionSourceTopics": [],
            "copartitionGroups": []}]}

    def heartbeat(self, m: str, epoch: int, now: int, joining: bool) -> dict[str, Any]:
        request: dict[str, Any] = {
            "groupId": GROUP, "memberId": m, "memberEpoch": epoch, "endpointInformationEpoch": -1,
            "instanceId": None, "rackId": None, "rebalanceTimeoutMs": -1, "topology": None,
            "activeTasks": None, "standbyTasks": None, "warmupTasks": None, "processId": None,
            "userEndpoint": None, "clientTags": None, "taskOffsets": None, "taskEndOffsets": None,
            "shutdownApplication": False,
        }
        if joining or epoch == 0:  # a join, or its retry after a lost response: the full request
            request.update({"topology": self._topology(), "rebalanceTimeoutMs": self.rto.get(m, REBALANCE_MS),
                            "processId": self.cex.process_of[m], "clientTags": [],
                            "activeTasks": [], "standbyTasks": [], "warmupTasks": []})
        elif epoch >= 0:
            for role, name in ROLE_FIELDS.items():
                parts = self.tasks_owned[m].get(role, [])
                request[name] = [{"subtopologyId": "0", "partitions": parts}] if parts else []
        return self.call(88, 0, request, now, f"client-{m}")

    def probe(self, now: int) -> dict[str, Any]:
        return self.call(89, 0, {"groupIds": [GROUP], "includeAuthorizedOperations": False}, now, "probe")

    def adopt(self, m: str, response: dict[str, Any]) -> None:
        self.epoch[m] = int(response["memberEpoch"])
        if any(response.get(name) is None for _, name in ROLE_FIELDS.items()):
            return  # unchanged
        self.tasks_owned[m] = {role: sorted(p for e in response[name] for p in e["partitions"])
                               for role, name in ROLE_FIELDS.items()}

    def forget(self, m: str) -> None:
        self.epoch[m], self.tasks_owned[m] = 0, {}

    def _owned_of(self, m: str) -> Any:
        return self.tasks_owned[m]

    def _set_owned(self, m: str, owned: Any) -> None:
        self.tasks_owned[m] = owned

    def outcome(self, m: str) -> tuple[int, str, Any] | None:
        group = self.coord.streams_groups.get(GROUP)
        member = group.members.get(m) if group is not None else None
        if member is None:
            return None
        tasks = self.cex.instance.tasks
        assigned = {role: sorted(tasks[p] for parts in member.assigned.get(role, {}).values() for p in parts)
                    for role, _ in ROLE_FIELDS.items()}
        return (member.member_epoch, STREAMS_STATES.get(member.state, "UNKNOWN"),
                {r: v for r, v in assigned.items() if v})
