"""StreamsGroupHeartbeat calls checked against the model (the streams part of a check).

The model decides the response; the observed one is compared (``compare.py``). A different legal
sticky assignment is adopted when the observed tasks keep the assignor's guarantees
(``model/streams/alternatives.py``), as a choice given to a second, equally pure decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.conformance.compare import format_tasks, streams_heartbeat_differences, task_set
from kgspec.conformance.connection import client_host
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.session import GroupSession, ts_of
from kgspec.conformance.shapes import call_shape_problem
from kgspec.invariants.epochs import EPOCH_FENCING
from kgspec.invariants.streams import response_problems
from kgspec.invariants.streams_group import streams_epoch_fencing
from kgspec.model.apis import STREAMS_GROUP_HEARTBEAT
from kgspec.model.step import Choices
from kgspec.model.streams.alternatives import swap_towards
from kgspec.model.streams.configure import UnexpectedServerError
from kgspec.model.streams.heartbeat import owned_tasks
from kgspec.model.streams.member import ACTIVE, ROLE_FIELDS, STANDBY
from kgspec.model.streams.standing import standing_alternative

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker


class StreamsChecks:
    """The streams part of one :class:`~kgspec.conformance.checker.TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def heartbeat(self, g: GroupSession, event: Event, version: int) -> None:
        g.generation += 1
        # A response the schema refuses is not compared (``mangled``: its field and why).
        mangled = call_shape_problem(self.checker.profile, STREAMS_GROUP_HEARTBEAT, version, None, event.response, missing=False)
        for kind, field_name, message, exp, got in run_heartbeat(
                g.coord, g.summary.group_id, g.pinned, event.request, event.response, version,
                int(ts_of(event)), event.client_id or "", client_host(event.connection), g.expected_records,
                event.line, classify=not g.summary.diverged, mangled=mangled):
            self.checker.finding(g, Finding(self.checker.path, event.line, g.summary.group_id, kind, message, field_name, exp, got))


def _observed_or_held(observed: Any, member: Any, role: str) -> frozenset[tuple[str, int]]:
    """The tasks a response gives in ``role``; for null, the ones the member already holds."""
    if observed is not None:
        return task_set(observed) or frozenset()
    held = {} if member is None else member.assigned.get(role, {})
    return frozenset((sid, p) for sid, parts in held.items() for p in parts)


def run_heartbeat(coord: Any, gid: str, pinned: dict[str, int], req: dict[str, Any],
                  obs: dict[str, Any], version: int, now: int, client_id: str, client_host: str,
                  expected_records: Any, line: int,
                  classify: bool = True,
                  mangled: tuple[str, str] | None = None) -> list[tuple[str, str, str, Any, Any]]:
    """Run one StreamsGroupHeartbeat against the model; (kind, field, message, expected, observed).

    A different legal sticky assignment is adopted when the observed tasks keep the assignor's
    guarantees (``model/streams/alternatives.py``); the model then continues from it.
    ``classify``: the group conformed so far, so the model's member is the trace's and an
    accepted heartbeat the model fences also names ``epoch-fencing`` (as a consumer's does).
    """

    kwargs: dict[str, Any] = {"now": now, "client_id": client_id, "client_host": client_host}
    member_id = req.get("memberId") or ""
    group = coord.streams_groups.get(gid)
    member = group.members.get(member_id) if group is not None else None
    before = None if member is None else {r: {s: dict(p) for s, p in h.items()} for r, h in member.assigned.items()}
    before_pending = None if member is None else member.pending_revocation
    before_epoch = None if member is None else member.member_epoch
    result = coord.decide(88, version, req, **kwargs)
    if mangled is not None:
        # The trace's copy of the answer is mistyped: a malformed finding; the coordinator did
        # answer, so the model keeps in step with it.
        coord.commit(result)
        expected_records.extend((line, record) for record in result.records)
        return [("malformed", mangled[0], mangled[1], None, None)]
    diffs = streams_heartbeat_differences(result.response, obs)
    # Before commit: ``member`` is the model's member as the call found it.
    fenced = streams_epoch_fencing(member, req, obs) if classify and diffs and obs.get("errorCode", 0) == 0 else []
    task_fields = {"activeTasks", "standbyTasks"}
    fields = {d[0] for d in diffs}
    # A null task list is an observation ("unchanged": the member keeps what it holds), and a member
    # that keeps its tasks moves to the new epoch at once, so the epoch may differ as well.
    if fields & task_fields and fields <= task_fields | {"warmupTasks", "memberEpoch"} and obs.get("errorCode", 0) == 0:
        wanted_a, wanted_s = (_observed_or_held(obs.get(f), member, role)
                              for f, role in (("activeTasks", ACTIVE), ("standbyTasks", STANDBY)))
        computes = any(r.type == 20 for r in result.records)
        if computes:
            def override(specs: Any, subs: Any, replicas: int, computed: Any) -> Any:
                candidate = swap_towards(list(specs), list(subs), replicas, computed, member_id,
                                         wanted_a, wanted_s, set())
                return computed if candidate is None else candidate

            retry = coord.decide(88, version, req, choices=Choices(task_target=override), **kwargs)
            if not streams_heartbeat_differences(retry.response, obs):
                retry.explain.append("adopted the trace's sticky assignment (it meets the assignor's guarantees)")
                result, diffs = retry, []
        elif coord.profile.kip_text and group is not None and member is not None:
            # kip: the seed's target is "something like this": adopt the standing target the answer shows.
            answered = {m for m, epoch in pinned.items() if epoch == group.assignment_epoch}
            standing = standing_alternative(group, member_id, wanted_a, wanted_s, answered)
            if standing is not None:
                retry = coord.decide(88, version, req, choices=Choices(task_current_target=standing), **kwargs)
                if not streams_heartbeat_differences(retry.response, obs):
                    retry.explain.append("adopted the trace's target (seed 002: any assignment keeping its rules)")
                    result, diffs = retry, []
    coord.commit(result)
    for record in result.records:
        expected_records.append((line, record))
    findings: list[tuple[str, str, str, Any, Any]] = []
    why = "; ".join(w for w in result.explain if w)
    for name, exp, got in diffs:
        if isinstance(exp, frozenset) or isinstance(got, frozenset):
            exp, got = format_tasks(exp), format_tasks(got)
        findings.append(("response-mismatch", name,
                         f"{name} must be {exp!r}, not {got!r}" + (f": {why}" if why else ""), exp, got))
    findings.extend(("invariant", EPOCH_FENCING, message, None, None) for message in fenced)
    if obs.get("errorCode", 0) == 0 and result.response.get("errorCode", 0) == 0:
        observed_tasks = None
        if all(obs.get(f) is not None for f in ("activeTasks", "standbyTasks")):
            observed_tasks = {}
            for role, f in ROLE_FIELDS.items():
                grouped: dict[str, set[int]] = {}
                for sid, p in task_set(obs.get(f)) or frozenset():
                    grouped.setdefault(sid, set()).add(p)
                observed_tasks[role] = {s: frozenset(ps) for s, ps in grouped.items()}
        group_after = coord.streams_groups.get(gid)
        m_after = group_after.members.get(member_id) if group_after is not None else None
        pid = m_after.process_id if m_after is not None else (req.get("processId") or "")
        try:
            owned = owned_tasks(req)
        except UnexpectedServerError:  # a subtopology twice in one role (Kafka's call fails too)
            owned = None
        if m_after is not None and m_after.state == 2:  # UNREVOKED_TASKS after the call (per the model)
            before_pending, before_epoch = m_after.pending_revocation, m_after.member_epoch
        for name, message in response_problems(group_after, member_id, pid, before, before_pending, before_epoch,
                                               observed_tasks, obs.get("memberEpoch"), owned):
            findings.append(("invariant", name, message, None, None))
    if result.response.get("errorCode", 0) == 0 and gid in coord.streams_groups:
        pinned[member_id] = coord.streams_groups[gid].assignment_epoch
    return findings
