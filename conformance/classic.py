"""``kgspec check`` for classic calls (JoinGroup 11, Heartbeat 12, LeaveGroup 13, SyncGroup 14)
and GroupMetadata records (type 2).

A JoinGroup or SyncGroup may park (``docs/classic.md``): the model then answers later, from
a later call or a timer. The trace shows when Kafka answered: ``tsMs + totalTimeMs``. The
call stays pending until the group's clock passes that time (events at that very time may
still complete it); the model's response must exist by then and is compared as any other.

Compared (contract §2): the error code always; on success the member id, generation,
leader, protocol name and type, ``skipAssignment``, the leader's member list (its count and
its members), the SyncGroup assignment, and LeaveGroup's per-member answers. A
coordinator-generated member id (MEMBER_ID_REQUIRED, or a new static or pre-v4 member) is
adopted from the trace.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgspec.conformance.classic_steady import ClassicSteadyAnswer, steady_answer, steady_hit
from kgspec.conformance.compare import consumer_assignment_key
from kgspec.conformance.connection import client_host
from kgspec.conformance.findings import Finding
from kgspec.invariants.classic import ClassicHistory, join_response_problems, record_problems
from kgspec.model.classic import seed_choices
from kgspec.model.classic.ops import CLASSIC_API_NAMES, CLASSIC_APIS
from kgspec.model.classic.responses import HEARTBEAT, JOIN_GROUP, LEAVE_GROUP, SYNC_GROUP
from kgspec.model.coordinator import TimerStorm
from kgspec.model.errors import CoordinatorError, error_name
from kgspec.model.records import GROUP_METADATA, Record
from kgspec.model.step import NO_CHOICES, Choices, Firing

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker
    from kgspec.conformance.events import Event
    from kgspec.conformance.session import GroupSession
    from kgspec.model.coordinator import Coordinator

API_LABELS = {JOIN_GROUP: "JoinGroup", HEARTBEAT: "Heartbeat", LEAVE_GROUP: "LeaveGroup", SYNC_GROUP: "SyncGroup"}
__all__ = ["CLASSIC_APIS", "CLASSIC_API_NAMES", "ClassicChecks"]


@dataclass(order=True, slots=True)
class _Pending:
    deadline: float
    call_id: int
    event: Event = field(compare=False)
    api: int = field(compare=False)
    explain: list[str] = field(compare=False, default_factory=list)


@dataclass(slots=True)
class _ClassicState:
    """A group's classic calls: parked ones (their answers due later), answers given, history."""

    pending: list[_Pending] = field(default_factory=list)  # a heap by deadline
    answered: dict[int, dict[str, Any]] = field(default_factory=dict)  # call id -> model response
    history: ClassicHistory = field(default_factory=ClassicHistory)
    steady: dict[str, ClassicSteadyAnswer] = field(default_factory=dict)  # member id -> its steady Heartbeat


class ClassicChecks:
    """The classic part of one :class:`TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker
        self.groups: dict[str, _ClassicState] = {}

    def _state(self, group_id: str) -> _ClassicState:
        state = self.groups.get(group_id)
        if state is None:  # (setdefault would build a state, four containers, on every call)
            state = self.groups[group_id] = _ClassicState()
        return state

    # --- time ----------------------------------------------------------------------------

    def advance(self, g: GroupSession, ts: int) -> list[Firing]:
        """Move the group's model to ``ts``, checking each parked call whose answer time passed."""
        state = self.groups.get(g.summary.group_id)
        coord = g.coord
        if state is None or not state.pending or state.pending[0].deadline >= ts:
            # the common step: no parked call to check first
            firings = coord.advance(ts)
            if state is not None and coord.classic_outbox.completed:
                self._collect(g, state)
            return firings
        firings = []
        while state.pending and state.pending[0].deadline < ts:
            p = heapq.heappop(state.pending)
            firings += coord.advance(max(int(p.deadline), coord.now))
            self._collect(g, state)
            self._check_parked(g, state, p)
        firings += coord.advance(ts)
        self._collect(g, state)
        return firings

    def steady_hit(self, g: GroupSession, event: Event) -> bool:
        """A repeated steady Heartbeat answered from the cache (``classic_steady.py``); False: the
        full path."""
        state = self.groups.get(g.summary.group_id)
        return state is not None and bool(state.steady) and steady_hit(self.checker, g, event, state.steady,
                                                                      state.pending)

    def earliest(self, g: GroupSession) -> float | None:
        """The earliest answer time of the group's parked calls (None: none parked)."""
        state = self.groups.get(g.summary.group_id)
        return state.pending[0].deadline if state is not None and state.pending else None

    def finish(self, g: GroupSession) -> None:
        """End of trace: a call still parked must have been answered by its time."""
        state = self.groups.get(g.summary.group_id)
        while state is not None and state.pending and not g.retired:
            p = heapq.heappop(state.pending)
            try:
                firings = g.coord.advance(max(int(p.deadline), g.coord.now))
            except TimerStorm as exc:  # as TraceChecker.advance: the group is not followed further
                g.retire()
                self._report(g, p.event, "unsupported", f"the model cannot follow group {g.summary.group_id} "
                                                        f"further ({exc})", "tsMs")
                return
            for firing in firings:
                for record in firing.records:
                    g.expected_records.append((p.event.line, record))
            self._collect(g, state)
            self._check_parked(g, state, p)

    def _collect(self, g: GroupSession, state: _ClassicState) -> None:
        for completion in g.coord.take_completed():
            state.answered[completion.call.call_id] = completion.response

    def _check_parked(self, g: GroupSession, state: _ClassicState, p: _Pending) -> None:
        response = state.answered.pop(p.call_id, None)
        if response is None:
            total = p.event.total_time_ms or 0
            self._finding(g, p.event, "response-mismatch", "errorCode", None, p.event.response.get("errorCode"),
                          f"{API_LABELS[p.api]}: the trace shows a response {total:g} ms after the request, but "
                          "the model is still waiting (the group is not ready for it yet)", p.explain)
            return
        self._compare(g, p.event, p.api, response, p.explain)

    # --- calls ---------------------------------------------------------------------------

    def handle(self, g: GroupSession, event: Event, api: int) -> None:
        """One classic call event (the checker's ``_call`` has found its group)."""
        version = event.api_version if event.api_version is not None else 0
        low, high = CLASSIC_APIS[api]
        if not low <= version <= high:
            self._report(g, event, "unsupported", f"{API_LABELS[api]} v{version} is not modelled (v{low}-v{high})",
                         "requestHeader.requestApiVersion")
            return
        ts = int(event.ts_ms or 0)
        if not self.checker.advance(g, ts, event.line):
            return
        g.saw_calls = True
        self.call(g, event, api, version, ts, client_host(event.connection))

    def call(self, g: GroupSession, event: Event, api: int, version: int, ts: int, client_host: str) -> None:
        coord = g.coord
        req, obs = event.request, event.response
        state = self._state(g.summary.group_id)
        # In a consumer group each classic member's generation is its own member epoch.
        mixed = g.summary.group_id in coord.groups
        observed_id = obs.get("memberId")
        if api == JOIN_GROUP and _repeats_a_protocol(req.get("protocols")):
            # Kafka counts each copy as a vote of its own and may then find no common protocol;
            # the model does not follow it there.
            g.summary.incomplete = True
            self._report(g, event, "unsupported", "JoinGroup names the same protocol twice (not modelled)",
                         "request.protocols")
            return
        choices = NO_CHOICES
        if api == JOIN_GROUP and not req.get("memberId") and isinstance(observed_id, str) and observed_id \
                and obs.get("errorCode", 0) in (0, 79) and not _is_member(coord, g.summary.group_id, observed_id):
            # coordinator-generated: any new id is legal (one already in the group is not new: Kafka's
            # ids are unique, and adopting it would make one member of two)
            choices = Choices(member_id=observed_id)
        adopt = api == JOIN_GROUP and not mixed and coord.profile.classic_kip_choices and obs.get("errorCode") == 0
        if adopt:
            _note_seed_choice(coord, g.summary.group_id, obs)
        try:
            result = coord.handle(api, version, req, now=ts, client_id=event.client_id or "", client_host=client_host,
                                  choices=choices)
        except CoordinatorError as exc:  # a path the model does not cover (online migration)
            g.summary.incomplete = True
            self._report(g, event, "unsupported", exc.message or exc.error.name,
                                        "requestHeader.requestApiKey")
            return
        if adopt:  # a group this call created: its join completes later
            _note_seed_choice(coord, g.summary.group_id, obs)
        steady = steady_answer(g, event, ts) if api == HEARTBEAT and not result.records \
            and result.response is not None and result.response.get("errorCode") == 0 else None
        if steady is None:
            # Any other call may have changed the group (a mixed group's consumer state too): no
            # stale steady answers. The steady Heartbeat only re-armed its own member's timer.
            g.generation += 1
        for record in result.records:
            g.expected_records.append((event.line, record))
        if api == JOIN_GROUP and not mixed:
            for name, message in join_response_problems(state.history, obs):
                self._report(g, event, "invariant", message, name)
        if result.response is not None:
            differs = self._compare(g, event, api, result.response, result.explain)
            if steady is not None and not differs and self.checker.steady_cache:
                self._remember(g, state, steady)
            return
        assert result.pending is not None
        deadline = ts + (event.total_time_ms or 0)
        heapq.heappush(state.pending, _Pending(deadline, result.pending, event, api, list(result.explain)))
        self.checker.wake(g, deadline)

    def _remember(self, g: GroupSession, state: _ClassicState, answer: ClassicSteadyAnswer) -> None:
        cache = state.steady
        if len(cache) > 2 * g.coord.member_count(g.summary.group_id) + 16:  # departed members' stale answers
            state.steady = cache = {m: a for m, a in cache.items() if a.generation == g.generation}
        cache[answer.request["memberId"]] = answer

    def record(self, g: GroupSession, record: Record) -> list[tuple[str, str]]:
        """Invariants of a replayed GroupMetadata record."""
        if record.type != GROUP_METADATA:
            return []
        return record_problems(self._state(g.summary.group_id).history, record.value)

    def _report(self, g: GroupSession, event: Event, kind: str, message: str, name: str, exp: Any = None,
                got: Any = None) -> None:
        c = self.checker
        c.finding(g, Finding(c.path, event.line, g.summary.group_id, kind, message, name, exp, got))

    # --- comparison ----------------------------------------------------------------------

    def _compare(self, g: GroupSession, event: Event, api: int, expected: dict[str, Any], explain: list[str]) -> bool:
        """Report each difference; True when there was one."""
        mixed = api == SYNC_GROUP and g.summary.group_id in g.coord.groups
        differs = False
        for name, exp, got in differences(api, expected, event.response):
            if mixed and name == "assignment" and consumer_assignment_key(exp) == consumer_assignment_key(got):
                continue  # serialized by the coordinator from a HashMap: the partitions count, not their order
            differs = True
            if name == "errorCode":
                head = f"{API_LABELS[api]}: the coordinator must answer {error_name(exp)} ({exp}), " \
                       f"not {error_name(got) if isinstance(got, int) else got!r} ({got})"
            else:
                head = f"{API_LABELS[api]}: {name} must be {exp!r}, not {got!r}"
            self._finding(g, event, "response-mismatch", name, exp, got, head, explain)
        return differs

    def _finding(self, g: GroupSession, event: Event, kind: str, name: str, exp: Any, got: Any, head: str,
                 explain: list[str]) -> None:
        reasons = [w for w in explain if w]
        message = head + (": " + "; ".join(reasons) if reasons else "")
        self._report(g, event, kind, message, name, exp, got)


def differences(api: int, expected: dict[str, Any], observed: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, expected, observed) for every field that counts (see the module docstring)."""
    if expected.get("errorCode", 0) != observed.get("errorCode", 0):
        return [("errorCode", expected.get("errorCode", 0), observed.get("errorCode"))]
    names: tuple[str, ...] = ()
    if api == JOIN_GROUP:
        if expected.get("errorCode", 0) == 79:
            return []  # the id itself was adopted
        if expected.get("errorCode", 0) != 0:
            return []
        names = ("memberId", "generationId", "leader", "protocolName", "protocolType", "skipAssignment")
    elif api == SYNC_GROUP and expected.get("errorCode", 0) == 0:
        names = ("assignment", "protocolType", "protocolName")
    out = [(n, expected[n], observed.get(n)) for n in names if n in expected and expected[n] != observed.get(n)]
    if api == JOIN_GROUP:
        exp_members = _members(expected.get("members"))
        got_members = _members(observed.get("members"))
        if len(exp_members) != len(got_members):
            out.append(("members", len(exp_members), len(got_members)))
        elif exp_members != got_members:
            out.append(("members", exp_members, got_members))
    if api == LEAVE_GROUP and "members" in expected:
        exp_l = [(m["memberId"], m["groupInstanceId"], m["errorCode"]) for m in expected["members"]]
        got_l = [(m.get("memberId"), m.get("groupInstanceId"), m.get("errorCode"))
                 for m in observed.get("members") or [] if isinstance(m, dict)]
        if exp_l != got_l:
            out.append(("members", exp_l, got_l))
    return out


def _members(members: Any) -> list[tuple[Any, Any, Any]]:
    """The leader's member list as a sorted list (its order is the coordinator's HashMap order)."""
    if not isinstance(members, list):
        return []
    return sorted(((m.get("memberId"), m.get("groupInstanceId"), m.get("metadata")) for m in members
                   if isinstance(m, dict)), key=repr)


def _note_seed_choice(coord: Coordinator, group_id: str, observed: dict[str, Any]) -> None:
    """kip (seed 004): the leader and protocol the trace shows are legal inputs when the seed allows
    them (``model/classic/seed_choices.py`` decides; an illegal pick is left to the comparison)."""
    group = coord.classic_groups.get(group_id)
    generation = observed.get("generationId")
    if group is not None and isinstance(generation, int):
        seed_choices.note(group, generation, observed.get("leader"), observed.get("protocolName"))


def _is_member(coord: Coordinator, group_id: str, member_id: str) -> bool:
    classic = coord.classic_groups.get(group_id)
    if classic is not None and member_id in classic.members:
        return True
    consumer = coord.groups.get(group_id)
    return consumer is not None and member_id in consumer.members


def _repeats_a_protocol(protocols: Any) -> bool:
    names = [p.get("name") for p in protocols if isinstance(p, dict)] if isinstance(protocols, list) else []
    return len(set(names)) != len(names)
