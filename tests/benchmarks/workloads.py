"""Generated workloads for the cost benchmarks (issue #19): traces recorded by driving the model.

``big_group``: one consumer group of ``members`` well-behaved clients on one topic of two
partitions per member. They join within one heartbeat interval (5 s), then heartbeat every 5 s,
reporting what they own, for ``rounds`` intervals; then a tenth of them leave and rejoin (a
rebalance), and everyone heartbeats for ``rounds`` more intervals. The assignment interval is
Kafka's default (1 s), so the target is recomputed at most once a second whatever the size.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
from pathlib import Path
from typing import Any

from kgspec.conformance.recorder import TraceRecorder, owned
from kgspec.conformance.writers import write_request_log
from kgspec.conformance.writers.request_log import API_KEY_NAMES
from kgspec.model.coordinator import Coordinator

from kgspec.sim.trace import header_event, write_trace

HEARTBEAT_INTERVAL_MS = 5000


def big_group(path: Path, members: int, rounds: int = 3, profile: str = "kafka-4.3") -> int:
    """Write the trace to ``path``; return its number of events (header excluded)."""
    recorder = TraceRecorder(profile)
    recorder.topic(0, "t", 2 * members)
    step = max(1, HEARTBEAT_INTERVAL_MS // members)
    ts = 1
    epochs: dict[str, int] = {}
    given: dict[str, list[dict[str, Any]]] = {}
    ids = [f"m{i:05d}-0000000000000" for i in range(members)]  # 22 characters, as clients' ids

    def beat(mid: str) -> None:
        nonlocal ts
        if mid not in epochs:
            resp = recorder.join(ts, mid, ["t"])
        else:
            resp = recorder.heartbeat(ts, mid, epochs[mid], topicPartitions=given.get(mid, []))
        epochs[mid] = resp["memberEpoch"]
        if resp["assignment"] is not None:
            given[mid] = owned(resp)
        ts += step

    for _ in range(rounds + 1):
        for mid in ids:
            beat(mid)
    for mid in ids[::10]:
        recorder.heartbeat(ts, mid, -1)
        del epochs[mid]
        given.pop(mid, None)
        ts += step
    for _ in range(rounds + 1):
        for mid in ids:
            beat(mid)
    recorder.write(path)
    return len(recorder.events) - 1


# --- classic churn ------------------------------------------------------------------------------
# ``classic_churn``: ``groups`` classic groups of ``members`` Java-like consumers (JoinGroup v9,
# SyncGroup v5, Heartbeat v4, LeaveGroup v5; heartbeat.interval.ms 3 s, session.timeout.ms 45 s).
# Members join (MEMBER_ID_REQUIRED, then again with the id), the leader syncs the assignment,
# everyone heartbeats; about every 30 s per group a member leaves or crashes, and a new one joins
# at the next change, so the others learn of the rebalance from a heartbeat
# (REBALANCE_IN_PROGRESS), rejoin and sync again. Parked JoinGroup/SyncGroup calls are written at
# their arrival with the response they got later and ``totalTimeMs``, as the contract asks.

CLASSIC_HEARTBEAT_MS = 3000
CLASSIC_SESSION_MS = 45_000
CLASSIC_REBALANCE_MS = 60_000
CLASSIC_CHURN_MEAN_MS = 30_000
_PROTOCOLS = [{"name": "range", "metadata": "AAE="}]


class _ClassicClient:
    __slots__ = ("generation", "group", "leader", "member_id", "members", "name", "state")

    def __init__(self, name: str, group: str) -> None:
        self.name, self.group = name, group
        self.member_id = ""
        self.generation = -1
        self.state = "new"  # new -> join -> sync -> stable; "waiting" while parked; "gone"
        self.leader = False
        self.members: list[str] = []


class _ClassicChurn:
    """The clients and the coordinator's model that answers them (a trace that conforms)."""

    def __init__(self, profile: str, seed: int) -> None:
        self.rng = random.Random(seed)
        ids = (f"{n:08x}-0000-4000-8000-000000000000" for n in itertools.count(1))
        self.coord = Coordinator(profile, {}, member_ids=lambda _: next(ids))
        self.events: list[dict[str, Any]] = [header_event(profile, {})]
        self.clients: dict[str, _ClassicClient] = {}
        self.parked: dict[int, tuple[dict[str, Any], _ClassicClient, int]] = {}
        self.agenda: list[tuple[int, int, str, str]] = []  # (at, seq, kind, client or group)
        self.seq = itertools.count()
        self.now = 0
        self.correlation = 0
        # A request log orders the calls of one arrival ms by completion, and a parked call
        # completes later than others: the call after a parked one arrives a ms later.
        self.after_parked: int | None = None

    def push(self, at: int, kind: str, who: str) -> None:
        heapq.heappush(self.agenda, (at, next(self.seq), kind, who))

    def advance(self, ts: int) -> None:
        self.coord.advance(ts)
        self.now = max(self.now, ts)
        for c in self.coord.take_completed():
            event, client, api = self.parked.pop(c.call.call_id)
            event["response"] = c.response
            event["totalTimeMs"] = c.completed_ms - c.call.arrived_ms
            self.reply(client, api, c.response)

    def call(self, client: _ClassicClient, api: int, version: int, request: dict[str, Any]) -> None:
        if self.after_parked is not None and self.now <= self.after_parked:
            self.now = self.after_parked + 1
        self.after_parked = None
        self.advance(self.now)
        result = self.coord.handle(api, version, request, now=self.now, client_id=client.name)
        self.correlation += 1
        event: dict[str, Any] = {
            "tsMs": self.now, "requestHeader": {"requestApiKey": api, "requestApiVersion": version,
                                                "clientId": client.name, "correlationId": self.correlation,
                                                "requestApiKeyName": API_KEY_NAMES[api]},
            "request": request, "response": result.response}
        self.events.append(event)
        if result.response is None:
            assert result.pending is not None
            self.parked[result.pending] = (event, client, api)
            client.state = "waiting"
            self.after_parked = self.now
        else:
            self.reply(client, api, result.response)
        self.advance(self.now)  # completions this call caused (a leader's sync, a last join)

    def reply(self, client: _ClassicClient, api: int, response: dict[str, Any]) -> None:
        if client.state == "gone":
            return
        error = response["errorCode"]
        later = self.now + self.rng.randint(1, 20)
        if api == 11 and error == 79:
            client.member_id, client.state = response["memberId"], "join"
        elif api == 11 and error == 0:
            client.generation, client.state = response["generationId"], "sync"
            client.leader = response["leader"] == client.member_id
            client.members = [m["memberId"] for m in response["members"]]
        elif error == 0 and api in (12, 14):
            client.state, later = "stable", self.now + CLASSIC_HEARTBEAT_MS
        elif error == 25:  # UNKNOWN_MEMBER_ID: start over
            client.member_id, client.state = "", "new"
        else:  # REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, ...: rejoin
            client.state = "join"
        self.push(later, "act", client.name)

    def act(self, client: _ClassicClient) -> None:
        group = {"groupId": client.group}
        if client.state in ("new", "join"):
            self.call(client, 11, 9, {**group, "sessionTimeoutMs": CLASSIC_SESSION_MS,
                                      "rebalanceTimeoutMs": CLASSIC_REBALANCE_MS, "memberId": client.member_id,
                                      "groupInstanceId": None, "protocolType": "consumer",
                                      "protocols": _PROTOCOLS, "reason": None})
        elif client.state == "sync":
            assignments = [{"memberId": m, "assignment": f"AAE{i:04d}"} for i, m in enumerate(client.members)] \
                if client.leader else []
            self.call(client, 14, 5, {**group, "generationId": client.generation, "memberId": client.member_id,
                                      "groupInstanceId": None, "protocolType": "consumer",
                                      "protocolName": "range", "assignments": assignments})
        elif client.state == "stable":
            self.call(client, 12, 4, {**group, "generationId": client.generation, "memberId": client.member_id,
                                      "groupInstanceId": None})

    def churn(self, group: str, target: int) -> None:
        live = [c for c in self.clients.values() if c.group == group and c.state != "gone"]
        if len(live) < target:
            self.spawn(group)
            return
        # Only a stable member leaves or crashes: Kafka never answers the parked SyncGroup of a member
        # removed meanwhile (removeMemberAndUpdateClassicGroup completes the join future only), and
        # a client with a call in flight heartbeats (Java's heartbeat thread), which these do not.
        stable = [c for c in live if c.state == "stable"]
        if not stable:
            return
        victim = self.rng.choice(stable)
        if self.rng.random() < 0.7:
            self.call(victim, 13, 5, {"groupId": group, "members": [
                {"memberId": victim.member_id, "groupInstanceId": None, "reason": "the consumer is being closed"}]})
        victim.state = "gone"  # a crash: its session runs out

    def spawn(self, group: str) -> None:
        client = _ClassicClient(f"{group}-c{len(self.clients)}", group)
        self.clients[client.name] = client
        self.push(self.now, "act", client.name)


def classic_churn(path: Path, groups: int, members: int = 5, duration_ms: int = 120_000, seed: int = 0,
                  profile: str = "kafka-4.3") -> int:
    """Write the classic churn trace (native) to ``path``; return its number of events."""
    sim = _ClassicChurn(profile, seed)
    for g in range(groups):
        for _ in range(members):
            sim.push(sim.rng.randint(0, 1000), "spawn", f"group-{g}")
        sim.push(int(sim.rng.expovariate(1 / CLASSIC_CHURN_MEAN_MS)), "churn", f"group-{g}")
    while sim.agenda and sim.agenda[0][0] <= duration_ms:
        at, _, kind, who = heapq.heappop(sim.agenda)
        sim.advance(max(at, sim.now))  # a call may have moved a ms past its agenda time
        if kind == "spawn":
            sim.spawn(who)
        elif kind == "churn":
            sim.churn(who, members)
            sim.push(at + 1 + int(sim.rng.expovariate(1 / CLASSIC_CHURN_MEAN_MS)), "churn", who)
        elif sim.clients[who].state not in ("gone", "waiting"):
            sim.act(sim.clients[who])
    # Nobody calls any more: the parked calls complete (rebalance and session timeouts).
    for c in sim.clients.values():
        c.state = "gone"
    end = max(duration_ms, sim.now) + 2 * CLASSIC_REBALANCE_MS
    sim.advance(end)
    while sim.parked and end < duration_ms + 3_600_000:  # a new member's join waits up to 5 minutes
        end += CLASSIC_REBALANCE_MS
        sim.advance(end)
    sim.events.append({"tsMs": end, "tick": {}})
    assert not sim.parked, "a call is still parked at the end of the run"
    write_trace(sim.events, path)
    return len(sim.events) - 1


def as_request_log(native: Path, out: Path) -> Path:
    """The native trace's calls as Kafka's request log (``kgspec simulate --format request-log``)."""
    with native.open(encoding="utf-8") as fh, out.open("w", encoding="utf-8") as sink:
        write_request_log((json.loads(line) for line in fh), sink)
    return out
