"""One broker that is its own group coordinator: the model answers every group call.

Sans socket: the server (:mod:`.server`) reads frames, asks :meth:`Broker.serve` what to do
with each call, and sends what comes back. The group APIs go through the same loop as
``kgspec check``: timers due by the server's clock fire first (``Coordinator.advance``), then
``Coordinator.decide`` and ``commit`` (the classic calls, which Kafka applies to in-memory groups
as they go, through ``handle``); the versions served are the model's own table
(``model/apis.py``). The data APIs (Metadata, Produce, Fetch, ListOffsets, ...) are the broker's
own, over in-memory logs (:mod:`.data`, :mod:`.logs`). Everything the coordinator serves goes to the trace
(:mod:`.trace`), which checks it live.
"""

from __future__ import annotations

import base64
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Final

from kgspec.model.apis import APIS, versions_for
from kgspec.model.coordinator import BY_API, Coordinator, TimerStorm
from kgspec.model.errors import CoordinatorError
from kgspec.model.hashing import deterministic_topic_id
from kgspec.model.profiles import get_profile
from kgspec.model.step import NO_CHOICES, Choices

from .codec import Request, kio_versions
from .data import (
    API_VERSIONS,
    CREATE_TOPICS,
    DATA_VERSIONS,
    FETCH,
    FIND_COORDINATOR,
    LIST_OFFSETS,
    METADATA,
    PRODUCE,
    DataPlane,
)
from .faults import Faults
from .options import Options
from .trace import FindingSink, ServedTrace

JOIN_GROUP: Final = 11
CONSUMER_GROUP_HEARTBEAT: Final = 68
STREAMS_GROUP_HEARTBEAT: Final = 88
UNSUPPORTED_VERSION: Final = 35
NOT_COORDINATOR: Final = 16
# Modelled APIs the server does not advertise: TxnOffsetCommit and WriteTxnMarkers need a
# transaction coordinator (InitProducerId, AddOffsetsToTxn, EndTxn), which it does not run; the
# config APIs are modelled for GROUP resources only, and a client's TOPIC or BROKER resources would
# go unanswered.
NOT_SERVED: Final = frozenset({27, 28, 32, 44})
class Clock:
    """The server's clock in integer milliseconds (wall-clock epoch, moving monotonically);
    ``skip`` moves it forward (the ``clock`` fault)."""

    def __init__(self, source: Callable[[], float] = time.monotonic, start_ms: int | None = None) -> None:
        self._source = source
        self._t0 = source()
        self._base = int(time.time() * 1000) if start_ms is None else start_ms
        self._skipped = 0

    def now(self) -> int:
        return self._base + self._skipped + int((self._source() - self._t0) * 1000)

    def skip(self, ms: int) -> None:
        self._skipped += ms


@dataclass(slots=True)
class Conn:
    """One client connection: Kafka's connection id (``<broker>-<client>-<n>``) and client host."""

    id: str
    host: str


@dataclass(slots=True)
class Outcome:
    """What to do with one call: send ``response`` (a model JSON object or kio entity), after
    ``delay_ms``; or nothing yet (``parked``: the model answers later; ``wait_ms``: a Fetch that
    waits for data); or nothing at all (``drop``; ``close`` the connection)."""

    response: Any = None
    parked: int | None = None
    wait_ms: int = 0
    delay_ms: int = 0
    drop: bool = False
    close: bool = False


@dataclass(slots=True)
class Stats:
    calls: Counter[str] = field(default_factory=Counter)
    group_calls: int = 0
    faults: int = 0
    notes: list[str] = field(default_factory=list)


class Broker:
    def __init__(self, options: Options, clock: Clock, trace_out: IO[str] | None, on_finding: FindingSink,
                 note: Callable[[str], None] = lambda _: None) -> None:
        self.options = options
        self.clock = clock
        profile = get_profile(options.profile)
        self.coord = Coordinator(profile, options.configs)
        self.note = note
        self.stats = Stats()
        self.faults = Faults(options.faults)
        self.data = DataPlane(options.broker_configs, self.create_topic)
        self.group_versions = {k: v for k, v in versions_for(profile).items() if k in APIS and k not in NOT_SERVED}
        self.versions = _served(self.group_versions)
        self.address = self.data.address = (options.host, options.port)
        self.trace = ServedTrace({"header": {"format": "kgspec-trace/1", "profile": profile.name,
                                             "configs": dict(options.configs)}},
                                 trace_out, profile=profile.name, configs=options.configs,
                                 clients=options.clients, on_finding=on_finding)
        self._completed: list[tuple[int, dict[str, Any]]] = []
        now = clock.now()
        for name, partitions in options.topics.items():
            self.create_topic(name, partitions, now)

    def set_address(self, host: str, port: int) -> None:
        self.address = self.data.address = (host, port)

    # --- time ----------------------------------------------------------------------------

    def advance(self, now: int | None = None) -> None:
        """Fire the coordinator's timers due by ``now`` (the server's clock), tracing their records."""
        now = self.clock.now() if now is None else now
        now = max(now, self.coord.now)
        try:
            firings = self.coord.advance(now)
        except TimerStorm as exc:  # the model cannot go on; say so rather than spin
            self.note(f"the model cannot follow its timers: {exc}")
            raise
        for firing in firings:
            for record in firing.records:
                self.trace.add({"tsMs": firing.timer.deadline_ms, "record": record.to_json()})
        self._collect()

    def next_deadline(self) -> int | None:
        return self.coord.timers.earliest()

    def completed(self) -> list[tuple[int, dict[str, Any]]]:
        """Parked calls the model answered since the last call: (call id, response)."""
        out, self._completed = self._completed, []
        return out

    def _collect(self) -> None:
        for completion in self.coord.take_completed():
            self.trace.answer(completion.call.call_id, completion.response, completion.completed_ms)
            self._completed.append((completion.call.call_id, completion.response))

    # --- one call ------------------------------------------------------------------------

    def serve(self, conn: Conn, req: Request) -> Outcome:
        api = req.api_key
        self.stats.calls[APIS[api].label if api in APIS else req.api_name] += 1
        if req.body is None or api not in self.versions or not self._in_range(api, req.api_version):
            return Outcome(self._unsupported(req))
        body = req.json() if api != PRODUCE else None
        group = body.get("groupId") if body is not None else None
        rule = self.faults.take(api, req.client_id, group if isinstance(group, str) else None)
        delay = 0
        if rule is not None:
            self.stats.faults += 1
            if rule.action == "error":
                return Outcome(_error_response(api, req, rule.error))
            if rule.action == "close":
                return Outcome(close=True)
            if rule.action == "clock":
                self.clock.skip(rule.advance_ms)
            elif rule.action == "failover":
                self.failover()
            delay = rule.delay_ms if rule.action == "delay" else 0
        if api in self.group_versions:
            assert body is not None
            outcome = self._group_call(conn, req, body)
        else:
            outcome = self._data_call(req, body)
        outcome.delay_ms = delay
        outcome.drop = outcome.drop or (rule is not None and rule.action == "drop")
        return outcome

    def _in_range(self, api: int, version: int) -> bool:
        low, high = self.versions[api]
        return low <= version <= high

    def _unsupported(self, req: Request) -> Any:
        if req.api_key == API_VERSIONS:
            # ApiVersionsRequest.getErrorResponse (KIP-511): v0's shape, listing ApiVersions' own versions
            low, high = self.versions[API_VERSIONS]
            return {"errorCode": UNSUPPORTED_VERSION, "apiKeys": [{"apiKey": API_VERSIONS, "minVersion": low,
                                                                   "maxVersion": high}]}
        return _error_response(req.api_key, req, UNSUPPORTED_VERSION)

    def _group_call(self, conn: Conn, req: Request, body: dict[str, Any]) -> Outcome:
        api, version = req.api_key, req.api_version
        now = max(self.clock.now(), self.coord.now)
        self.advance(now)
        self.stats.group_calls += 1
        coord = self.coord
        protocol = BY_API.get(api)
        try:
            if protocol is not None and api in protocol.applied_as_they_go:
                decision = coord.handle(api, version, body, now=now, client_id=req.client_id,
                                        client_host=conn.host, choices=self._choices(api, body, req.client_id))
            else:
                decision = coord.decide(api, version, body, now=now, client_id=req.client_id,
                                        client_host=conn.host, choices=self._choices(api, body, req.client_id))
                coord.commit(decision)
        except CoordinatorError as exc:  # a path the model does not cover: answered, not traced
            self.note(f"{APIS[api].label} from {req.client_id}: not modelled ({exc.message or exc.error.name}); "
                      f"answered {exc.error.name}, left out of the trace")
            return Outcome(_error_response(api, req, int(exc.error)))
        event: dict[str, Any] = {
            "tsMs": now,
            "requestHeader": {"requestApiKey": api, "requestApiVersion": version, "clientId": req.client_id,
                              "correlationId": req.correlation_id, "requestApiKeyName": APIS[api].name},
            "request": body,
            "connection": conn.id,
        }
        if decision.response is None:
            assert decision.pending is not None
            self.trace.park(decision.pending, event)
        else:
            event["response"] = decision.response
            self.trace.add(event)
        for record in decision.records:
            self.trace.add({"tsMs": now, "record": record.to_json()})
        self._collect()
        if decision.response is None:
            return Outcome(parked=decision.pending)
        return Outcome(decision.response)

    def _choices(self, api: int, body: dict[str, Any], client_id: str) -> Choices:
        """The member id Kafka would draw, should the call need one (randomness stays out of the
        model: it is an input): for a classic member ``groupInstanceId-UUID`` when static, else
        ``clientId-UUID`` (``ClassicGroup.generateMemberId``); a Kafka Uuid otherwise."""
        if api == JOIN_GROUP:
            prefix = body.get("groupInstanceId") or client_id
            return Choices(member_id=f"{prefix}-{uuid.uuid4()}")
        if api in (CONSUMER_GROUP_HEARTBEAT, STREAMS_GROUP_HEARTBEAT):
            return Choices(member_id=base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))
        return NO_CHOICES

    def failover(self) -> None:
        """The coordinator moves: it reloads from its records; parked calls are answered
        NOT_COORDINATOR (their lines are left out of the trace) and the trace says so."""
        now = max(self.clock.now(), self.coord.now)
        self.advance(now)
        for call_id in self.trace.parked():
            self.trace.abandon(call_id)
            self._completed.append((call_id, {"errorCode": NOT_COORDINATOR}))
        self.coord.take_completed()
        self.coord.classic_outbox.completed.clear()
        self.coord.failover(now)
        self.trace.add({"tsMs": now, "tick": {"coordinatorFailover": True}})
        self.note("coordinator failover: groups reloaded from their records")

    def shutdown(self) -> None:
        """The end: timers due by now fire, a final tick, the trace's end check."""
        now = max(self.clock.now(), self.coord.now)
        self.advance(now)
        self.trace.add({"tsMs": now, "tick": {}})
        self.trace.finish()

    # --- the broker's own APIs ------------------------------------------------------------

    def _data_call(self, req: Request, body: dict[str, Any] | None) -> Outcome:
        api = req.api_key
        data = self.data
        if api == PRODUCE:
            produced: Any = req.body
            response, failed = data.produce(produced)
            if int(produced.acks) == 0:  # KafkaApis.handleProduceRequest: no response; on an error, the socket closes
                return Outcome(close=True) if failed else Outcome(drop=True)
            return Outcome(response)
        assert body is not None
        if api == API_VERSIONS:
            return Outcome({"errorCode": 0, "apiKeys": self._api_keys()})
        if api == METADATA:
            return Outcome(data.metadata(req.api_version, body))
        if api == FIND_COORDINATOR:
            return Outcome(data.find_coordinator(body))
        if api == CREATE_TOPICS:
            return Outcome(data.create_topics(body))
        if api == FETCH:
            fetched = data.fetch(body, final=False)
            if fetched is None:
                return Outcome(wait_ms=int(body.get("maxWaitMs") or 0))
            return Outcome(fetched)
        if api == LIST_OFFSETS:
            return Outcome(data.list_offsets(body))
        raise AssertionError(f"API {api} is advertised but not served")

    def _api_keys(self) -> list[dict[str, int]]:
        return [{"apiKey": k, "minVersion": lo, "maxVersion": hi} for k, (lo, hi) in sorted(self.versions.items())]

    def create_topic(self, name: str, partitions: int, now: int | None = None) -> str:
        """A topic in the broker's logs and the coordinator's metadata image (and the trace)."""
        now = max(self.clock.now() if now is None else now, self.coord.now)
        self.advance(now)
        topic_id = deterministic_topic_id(name)
        count = self.data.add_topic(name, partitions)
        self.coord.update_topic(name, topic_id, count)
        self.trace.add({"tsMs": now, "topic": {"name": name, "topicId": topic_id, "partitions": count}})
        return topic_id


def _served(group_versions: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """Every API served and its versions: the model's (or the broker's own) within kio's schemas."""
    out: dict[int, tuple[int, int]] = {}
    for api, (low, high) in {**DATA_VERSIONS, **group_versions}.items():
        kio = kio_versions(api)
        if kio is None:
            continue
        lo, hi = max(low, kio[0]), min(high, kio[1])
        if lo <= hi:
            out[api] = (lo, hi)
    return out


def _error_response(api: int, req: Request, code: int) -> dict[str, Any]:
    """An error answer to any call: the top-level error code, and the same code on each group,
    topic or partition the request names where the response has no top-level one."""
    body = req.json() if req.body is not None and api != PRODUCE else {}
    out: dict[str, Any] = {"errorCode": code}
    if api == FIND_COORDINATOR and body.get("coordinatorKeys"):
        out["coordinators"] = [{"key": k, "nodeId": -1, "host": "", "port": -1, "errorCode": code}
                               for k in body["coordinatorKeys"]]
    if api == 8:  # OffsetCommit: per partition
        out["topics"] = [{"name": t.get("name"), "partitions": [
            {"partitionIndex": p.get("partitionIndex"), "errorCode": code} for p in t.get("partitions") or []]}
            for t in body.get("topics") or []]
    if api == 9 and body.get("groups"):  # OffsetFetch v8+: per group
        out["groups"] = [{"groupId": g.get("groupId"), "topics": [], "errorCode": code} for g in body["groups"]]
    if api == 15:  # DescribeGroups: per group
        out["groups"] = [{"groupId": g, "errorCode": code} for g in body.get("groups") or []]
    if api in (69, 89):  # ConsumerGroupDescribe, StreamsGroupDescribe: per group
        out["groups"] = [{"groupId": g, "errorCode": code} for g in body.get("groupIds") or []]
    if api == 13 and body.get("members"):  # LeaveGroup v3+
        out["members"] = []
    return out
