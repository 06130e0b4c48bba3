"""Write the golden classic traces under tests/golden/classic/ (run once; commit the output).

Each scenario follows GroupMetadataManagerTest cases (Kafka 4.3); the responses come from the
model. A parked JoinGroup/SyncGroup is written at its arrival with the response it got
later and ``totalTimeMs`` (the contract's delayed responses). tests/classic/test_check_classic.py
pins the values Kafka's tests assert in them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgspec.conformance.writers.request_log import API_KEY_NAMES
from kgspec.model.classic import seed_choices
from kgspec.model.coordinator import Coordinator
from kgspec.model.message_schemas import field_names

from kgspec.sim.trace import write_trace

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "classic"
RANGE = [{"name": "range", "metadata": "AAE="}]
API_SCHEMAS = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup"}


def _fields_of_version(request: dict[str, Any], schema: str, version: int) -> dict[str, Any]:
    """Only the fields the request version has, as a client of that version sends it."""
    top = field_names("4.3", schema, version)
    out = {k: v for k, v in request.items() if k in top}
    if "members" in out and schema == "LeaveGroupRequest":
        nested = field_names("4.3", schema, version, "members")
        out["members"] = [{k: v for k, v in m.items() if k in nested} for m in out["members"]]
    return out


class ClassicRecorder:
    def __init__(self, configs: dict[str, Any] | None = None, *, records: bool = True,
                 profile: str = "kafka-4.3") -> None:
        # Kafka's ids are <client or instance id>-<UUID>; fixed suffixes keep the goldens stable.
        self.coord = Coordinator(profile, configs,
                                 member_ids=lambda n: f"00000000-0000-4000-8000-{n + 1:012d}")
        self.events: list[dict[str, Any]] = [
            {"header": {"format": "kgspec-trace/1", "profile": profile, "configs": dict(configs or {})}}]
        self.records = records
        self.parked: dict[int, dict[str, Any]] = {}
        self._correlation = 0

    def _settle(self) -> None:
        for c in self.coord.take_completed():
            event = self.parked.pop(c.call.call_id)
            event["response"] = c.response
            event["totalTimeMs"] = c.completed_ms - c.call.arrived_ms

    def _time(self, ts: int) -> None:
        for firing in self.coord.advance(ts):
            self._records(firing.timer.deadline_ms, firing.records)
        self._settle()

    def _records(self, ts: int, records: list[Any]) -> None:
        if self.records:
            self.events.extend({"tsMs": ts, "record": r.to_json()} for r in records)

    def tick(self, ts: int) -> None:
        self._time(ts)
        self.events.append({"tsMs": ts, "tick": {}})

    def call(self, ts: int, api: int, version: int, request: dict[str, Any], client_id: str,
             seed_fields: dict[str, Any] | None = None) -> dict[str, Any]:
        if api in API_SCHEMAS:  # the new protocols' heartbeats are recorded as given
            request = _fields_of_version(request, API_SCHEMAS[api] + "Request", version)
        request.update(seed_fields or {})  # fields only the seeds define (kip: seed 003's joinReason)
        self._time(ts)
        result = self.coord.handle(api, version, request, now=ts, client_id=client_id)
        self._correlation += 1
        event: dict[str, Any] = {
            "tsMs": ts, "requestHeader": {"requestApiKey": api, "requestApiVersion": version, "clientId": client_id,
                                          "correlationId": self._correlation, "requestApiKeyName": API_KEY_NAMES[api]},
            "request": request, "response": result.response}
        self.events.append(event)
        if result.response is None:
            assert result.pending is not None
            self.parked[result.pending] = event
        self._records(ts, result.records)
        self._settle()
        return event

    def join(self, ts: int, member_id: str = "", *, client_id: str = "client", version: int = 9,
             instance_id: str | None = None, protocols: list[dict[str, str]] | None = None,
             session: int = 10_000, rebalance: int = 60_000, reason: str | None = None,
             join_reason: str | None = None) -> dict[str, Any]:
        return self.call(ts, 11, version, {
            "groupId": "g", "sessionTimeoutMs": session, "rebalanceTimeoutMs": rebalance, "memberId": member_id,
            "groupInstanceId": instance_id, "protocolType": "consumer", "protocols": protocols or RANGE,
            "reason": reason}, client_id, None if join_reason is None else {"joinReason": join_reason})

    def sync(self, ts: int, member_id: str, generation: int, *, client_id: str = "client", version: int = 5,
             assignments: dict[str, str] | None = None, instance_id: str | None = None,
             protocol_name: str = "range") -> dict[str, Any]:
        return self.call(ts, 14, version, {
            "groupId": "g", "generationId": generation, "memberId": member_id, "groupInstanceId": instance_id,
            "protocolType": "consumer", "protocolName": protocol_name,
            "assignments": [{"memberId": m, "assignment": a} for m, a in (assignments or {}).items()]}, client_id)

    def heartbeat(self, ts: int, member_id: str, generation: int, *, client_id: str = "client", version: int = 4,
                  instance_id: str | None = None) -> dict[str, Any]:
        return self.call(ts, 12, version, {"groupId": "g", "generationId": generation, "memberId": member_id,
                                           "groupInstanceId": instance_id}, client_id)

    def leave(self, ts: int, members: list[tuple[str, str | None]], *, client_id: str = "client",
              version: int = 5) -> dict[str, Any]:
        request: dict[str, Any] = {"groupId": "g", "members": [
            {"memberId": m, "groupInstanceId": i, "reason": "shutting down"} for m, i in members]} \
            if version >= 3 else {"groupId": "g", "memberId": members[0][0]}
        return self.call(ts, 13, version, request, client_id)

    def write(self, path: Path) -> None:
        assert not self.parked, "a call is still parked at the end of the scenario"
        write_trace(self.events, path)


def join_sync() -> ClassicRecorder:
    """testJoinGroupUnknownMemberNewGroup, the initial delay, testSyncGroupFollowerAfterLeader, a leave."""
    r = ClassicRecorder()
    a = r.join(0, client_id="c1")["response"]["memberId"]
    b = r.join(100, client_id="c2")["response"]["memberId"]
    ja = r.join(200, a, client_id="c1")
    r.join(300, b, client_id="c2")
    r.heartbeat(1000, a, 0, client_id="c1")  # PREPARING: REBALANCE_IN_PROGRESS
    r.tick(6300)  # the delay was extended once (b joined during it): the join completes at 6200
    leader = ja["response"]["leader"]
    follower = b if leader == a else a
    gen = ja["response"]["generationId"]
    r.sync(6300, follower, gen, client_id="c2")
    r.sync(6400, leader, gen, client_id="c1", assignments={leader: "AAAB", follower: "AAAC"})
    r.heartbeat(9000, leader, gen, client_id="c1")
    r.heartbeat(9000, follower, gen, client_id="c2")
    r.heartbeat(9100, follower, gen - 1, client_id="c2")  # ILLEGAL_GENERATION
    r.leave(12_000, [(follower, None)], client_id="c2")
    r.join(12_100, leader, client_id="c1")  # the remaining member completes the join at once
    r.sync(12_200, leader, gen + 1, client_id="c1", assignments={leader: "AAAD"})
    r.leave(13_000, [(leader, None)], client_id="c1", version=2)  # the group becomes EMPTY
    r.tick(14_000)
    return r


def static_membership() -> ClassicRecorder:
    """testStaticMemberRejoinAsFollowerWithUnknownMemberId, ...WithLeaderIdAndUnknownMemberId,
    testStaticMembersValidBatchLeaveGroup, FENCED_INSTANCE_ID."""
    r = ClassicRecorder()
    j1 = r.join(0, client_id="c1", instance_id="i1")
    j2 = r.join(0, client_id="c2", instance_id="i2")
    r.tick(6000)
    m1, m2 = j1["response"]["memberId"], j2["response"]["memberId"]
    r.sync(6000, m1, 1, client_id="c1", instance_id="i1", assignments={m1: "AAAB", m2: "AAAC"})
    r.sync(6000, m2, 1, client_id="c2", instance_id="i2")
    n2 = r.join(7000, client_id="c2", instance_id="i2")["response"]["memberId"]  # replaced, no rebalance
    r.heartbeat(7100, m2, 1, client_id="c2", instance_id="i2")  # FENCED_INSTANCE_ID
    r.sync(7200, n2, 1, client_id="c2", instance_id="i2")
    r.join(7300, client_id="c1", instance_id="i1", version=8)  # the leader replaced (v8: old leader id)
    r.leave(8000, [("", "i2"), ("", "unknown")], client_id="admin")
    r.tick(9000)
    return r


def timeouts() -> ClassicRecorder:
    """testClassicGroupMemberSessionTimeout, testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers,
    testHeartbeatExpirationShouldRemovePendingMember (calls only)."""
    r = ClassicRecorder(records=False)
    a = r.join(0, client_id="c1")["response"]["memberId"]
    b = r.join(0, client_id="c2")["response"]["memberId"]
    ja = r.join(0, a, client_id="c1")
    r.join(0, b, client_id="c2")
    r.tick(6000)
    leader = ja["response"]["leader"]
    follower = b if leader == a else a
    r.sync(6000, leader, 1, client_id="c1" if leader == a else "c2", assignments={})
    for t in range(9000, 66_000, 9000):  # the follower heartbeats but never syncs
        r.heartbeat(t, leader, 1)
        r.heartbeat(t, follower, 1)
    r.tick(66_000)  # pending sync expired: the follower is removed, the leader must rejoin
    r.heartbeat(66_100, leader, 1)
    r.join(66_200, leader)
    r.join(70_000, client_id="late")  # a pending member that never comes back
    r.tick(80_001)  # its session (10 s) ran out
    return r


def old_versions() -> ClassicRecorder:
    """Version quirks: v0 (no rebalance timeout), v3 (no MEMBER_ID_REQUIRED), v6 protocolName,
    v4 SyncGroup without protocol fields, v0 Heartbeat and LeaveGroup."""
    r = ClassicRecorder()
    j = r.join(0, client_id="old", version=0, rebalance=-1)
    r.tick(3000)
    m = j["response"]["memberId"]
    r.sync(3000, m, 1, version=0, assignments={m: "AAAB"})
    r.heartbeat(4000, m, 1, version=0)
    r.join(5000, "nobody", version=6)
    r.leave(6000, [(m, None)], version=0)
    r.leave(6100, [(m, None)], version=3)
    return r


def kip_join_reason() -> ClassicRecorder:
    """kip, seed 003: the leader's BLIND rejoin with unchanged protocols keeps the generation (Kafka
    would rebalance); a follower's TOPIC_METADATA_CHANGE rebalances to generation 2."""
    r = ClassicRecorder(profile="kip", records=False)
    a = r.join(0, client_id="c1")["response"]["memberId"]
    b = r.join(100, client_id="c2")["response"]["memberId"]
    ja = r.join(200, a, client_id="c1")
    r.join(300, b, client_id="c2")
    r.tick(6300)
    leader = ja["response"]["leader"]
    follower = b if leader == a else a
    r.sync(6300, follower, 1, client_id="c2")
    r.sync(6400, leader, 1, client_id="c1", assignments={leader: "AAAB", follower: "AAAC"})
    r.join(7000, leader, client_id="c1", join_reason="blind")          # no rebalance: generation 1
    r.heartbeat(7100, follower, 1, client_id="c2")                      # still STABLE: no error
    fj = r.join(8000, follower, client_id="c2", join_reason="topic_metadata_change")  # rebalances
    r.heartbeat(8100, leader, 1, client_id="c1")                        # REBALANCE_IN_PROGRESS
    r.join(8200, leader, client_id="c1", join_reason="blind")           # completes the join phase
    gen = fj["response"]["generationId"]
    r.sync(8300, follower, gen, client_id="c2")
    r.sync(8400, leader, gen, client_id="c1", assignments={leader: "AAAD", follower: "AAAE"})
    return r


def kip_choices() -> ClassicRecorder:
    """kip, seed 004: "the coordinator randomly selects a leader" and, with no agreement in preference,
    a protocol "is chosen randomly": here b leads (Kafka: a, the first to join) and roundrobin is
    chosen (Kafka's vote: range, 2 to 1)."""
    r = ClassicRecorder(profile="kip", records=False)
    prefs = {"c1": ["range", "roundrobin"], "c2": ["roundrobin", "range"], "c3": ["range", "roundrobin"]}
    protos = {c: [{"name": n, "metadata": "AAE=" if n == "range" else "AAI="} for n in p] for c, p in prefs.items()}
    ids = {c: r.join(i * 100, client_id=c, protocols=protos[c])["response"]["memberId"] for i, c in enumerate(prefs)}
    calls = {c: r.join(1000 + i * 100, ids[c], client_id=c, protocols=protos[c]) for i, c in enumerate(prefs)}
    seed_choices.note(r.coord.classic_groups["g"], 1, ids["c2"], "roundrobin")  # the coordinator's pick
    r.tick(7000)
    leader = calls["c1"]["response"]["leader"]
    r.sync(7000, ids["c1"], 1, client_id="c1", protocol_name="roundrobin")
    r.sync(7100, ids["c3"], 1, client_id="c3", protocol_name="roundrobin")
    r.sync(7200, leader, 1, client_id="c2", protocol_name="roundrobin",
           assignments={m: f"AAA{i}" for i, m in enumerate(ids.values())})
    for i, c in enumerate(prefs):
        r.heartbeat(8000 + i * 100, ids[c], 1, client_id=c)
    return r


def kip_rolling_upgrade() -> ClassicRecorder:
    """kip, seed 004 "Rolling Upgrades (Consumer)", its four phases with its values: A, B and C on
    (round-robin, 0); A, then B, then C upgraded to list (round-robin, 1) first. The coordinator
    keeps (round-robin, 0) "since it must choose a version supported by all members" until C's
    upgrade "allows the coordinator to update the group's protocol". A (strategy, version) pair is
    a protocol name here (the JoinGroup protocol is a name and its metadata; the metadata is the
    version as an int16)."""
    r = ClassicRecorder(profile="kip", records=False)
    v0 = {"name": "round-robin-v0", "metadata": "AAA="}
    v1 = {"name": "round-robin-v1", "metadata": "AAE="}
    names = ("A", "B", "C")
    ids = {c: r.join(i * 100, client_id=c, protocols=[v0])["response"]["memberId"] for i, c in enumerate(names)}
    protocols = {c: [v0] for c in names}
    calls = {c: r.join(1000 + i * 100, ids[c], client_id=c, protocols=protocols[c]) for i, c in enumerate(names)}
    r.tick(7000)  # phase 1: generation 1, (round-robin, 0)
    ts, generation = 7000, 1
    for upgraded in (None, "A", "B", "C"):
        if upgraded is not None:  # phases 2-4: the upgraded member rejoins, the others are told to rejoin
            protocols[upgraded] = [v1, v0]
            ts += 1000
            calls = {upgraded: r.join(ts, ids[upgraded], client_id=upgraded, protocols=protocols[upgraded])}
            for c in names:
                if c != upgraded:
                    ts += 100
                    r.heartbeat(ts, ids[c], generation, client_id=c)  # REBALANCE_IN_PROGRESS
                    calls[c] = r.join(ts + 50, ids[c], client_id=c, protocols=protocols[c])
            generation += 1
        answer = calls["A"]["response"]
        leader, protocol = answer["leader"], answer["protocolName"]
        for c in names:
            ts += 100
            r.sync(ts, ids[c], generation, client_id=c, protocol_name=protocol,
                   assignments=dict.fromkeys(ids.values(), "AAAA") if ids[c] == leader else None)
    for i, c in enumerate(names):
        r.heartbeat(ts + 1000 + i * 100, ids[c], generation, client_id=c)
    return r


SCENARIOS = {"join_sync": join_sync, "static_membership": static_membership, "timeouts": timeouts,
             "old_versions": old_versions, "kip_join_reason": kip_join_reason, "kip_choices": kip_choices,
             "kip_rolling_upgrade": kip_rolling_upgrade}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        scenario().write(OUT / f"{name}.jsonl")
        print(f"wrote {OUT / name}.jsonl")


if __name__ == "__main__":
    main()
