"""ConsumerGroupHeartbeat calls checked against the model (the consumer part of a check).

For every call the model decides the response it would give; the observed response is compared
field by field (``compare.py``). The legal choices the protocol leaves open are made from the
trace (``Choices``): a coordinator-generated member id, and a different ``uniform`` target that
still meets the assignor's guarantees (``retarget.py``). A heartbeat the model answers on its
steady fast path is cached, so its repeats are answered without the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from kgspec.conformance.call_invariants import observed_call_problems, observed_epoch_problems
from kgspec.conformance.compare import format_set, heartbeat_differences
from kgspec.conformance.connection import client_host
from kgspec.conformance.context import render_partitions
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.invariant_hooks import member_epochs
from kgspec.conformance.retarget import adopt_observed_target
from kgspec.conformance.session import GroupSession, SteadyAnswer, ts_of
from kgspec.conformance.shapes import call_shape_problem
from kgspec.model.apis import CONSUMER_GROUP_HEARTBEAT
from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer.heartbeat import steady_timer_ops
from kgspec.model.consumer.member import STATE_NAMES
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import error_name
from kgspec.model.step import Decision
from kgspec.model.timers import Timer

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker


class ConsumerChecks:
    """The consumer part of one :class:`~kgspec.conformance.checker.TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def steady_hit(self, g: GroupSession, event: Event) -> bool:
        """Answer a repeated steady heartbeat from the cache; False: take the full path.

        Sound because the model's answer to a heartbeat is a function of the request, the
        API version, the client id and host, the group's state and, on the fast path, the
        clock only through the metadata-refresh deadline, re-read here. Of the group's state
        the fast path reads the group, the member and the group's two epochs (compared here):
        the records of other members' heartbeats leave those alone, so they keep the answer
        (``member_scoped``); timers, topics, failover and every other record bump
        ``generation`` and drop it. A hit does what the fast path does: the same response, no
        records, the session timer re-armed.
        """
        req = event.request
        member_id = req.get("memberId")
        if type(member_id) is not str:
            return False
        entry = g.steady.get(member_id)
        if entry is None:
            return False
        group = g.coord.groups.get(g.summary.group_id)
        # A request log's repeated calls share their request and response objects (the reader's
        # CallMemo): identity settles those comparisons without walking the dicts.
        if group is None or entry.generation != g.generation - g.member_scoped or group is not entry.group \
                or group.members.get(member_id) is not entry.member \
                or group.group_epoch != entry.group_epoch or group.assignment_epoch != entry.assignment_epoch \
                or (req is not entry.request and req != entry.request) \
                or (event.response is not entry.response and event.response != entry.response) \
                or event.api_version != entry.version \
                or event.client_id != entry.client_id or event.connection != entry.connection:
            return False
        ts = event.ts_ms
        checker = self.checker
        if g.clock_seq != checker.clock_seq:
            checker.catch_up(g)
        last = g.last_ts
        if ts is None or (last is not None and ts < last):
            return False  # the full path reports it
        coord = g.coord
        timers = coord.timers
        now = int(ts)
        if timers.maybe_due(now):
            checker.advance(g, ts, event.line)
            if entry.generation != g.generation - g.member_scoped:
                return False  # timers fired; the full path runs at the same time (advancing again is a no-op)
        else:
            checker.clock_to(g, ts)
        coord.now = now
        if consumer_ops.metadata_expired(coord, group):
            return False
        timers.schedule(timer_at(entry.session_timer, now + entry.delay))
        checker.answered_from_cache(g, ts)
        if checker.clients:
            self.check_client(g, event, event.response)
        return True

    def remember_steady(self, g: GroupSession, event: Event, version: int, kwargs: dict[str, Any],
                        decided: Decision) -> None:
        """Cache a heartbeat the model answers on its fast path (checked without side effects)."""
        req = event.request
        member_id = req.get("memberId")
        if not isinstance(member_id, str) or not member_id or req.get("memberEpoch", 0) <= 0 \
                or g.summary.type != "consumer":
            return
        now = kwargs["now"]
        # Answered on the fast path just now: it changed only its timers, so deciding again from
        # the committed state would give these same operations.
        ops = decided.timer_ops if decided.fast_path \
            else steady_timer_ops(g.coord, req, kwargs["client_id"], kwargs["client_host"], now)
        if ops is None or len(ops) != 1 or ops[0][0] != "schedule" or not isinstance(ops[0][1], Timer):
            return  # not the fast path, or it changed more than the one session timer
        timer = ops[0][1]
        group = g.coord.groups[g.summary.group_id]  # the fast path answered: the group and member exist
        g.steady[member_id] = SteadyAnswer(req, event.response, event.api_version, event.client_id, event.connection,
                                           g.generation - g.member_scoped, timer, timer.deadline_ms - now, group,
                                           group.members[member_id], group.group_epoch, group.assignment_epoch)

    def heartbeat(self, g: GroupSession, event: Event, version: int) -> None:
        coord, req, obs = g.coord, event.request, event.response
        gid = g.summary.group_id
        member_id = req.get("memberId") or ""
        choices = self.checker.choices(g)
        if member_id == "" and obs.get("errorCode", 0) == 0 and isinstance(obs.get("memberId"), str):
            choices = replace(choices, member_id=obs["memberId"])  # coordinator-generated: any id is legal
        kwargs: dict[str, Any] = {"now": int(ts_of(event)), "client_id": event.client_id or "",
                                  "client_host": client_host(event.connection)}
        result = coord.decide(CONSUMER_GROUP_HEARTBEAT, version, req, choices=choices, **kwargs)
        assert result.response is not None
        shape = call_shape_problem(self.checker.profile, CONSUMER_GROUP_HEARTBEAT, version, None, obs, missing=False)
        if shape is not None:
            # The trace's copy of the answer is mistyped: a malformed finding; the coordinator did
            # answer, so the model keeps in step with it.
            coord.commit(result)
            if result.records:
                g.generation += 1
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "malformed", shape[1], shape[0]))
            return
        diffs = heartbeat_differences(result.response, obs)
        # The assignment differs (a null one too: "unchanged" is an observation), maybe with the
        # epoch (a member that keeps its partitions moves on at once): try a legal other target.
        if diffs and "assignment" in (fields := {d[0] for d in diffs}) and fields <= {"assignment", "memberEpoch"} \
                and obs.get("errorCode", 0) == 0:
            adopted = adopt_observed_target(coord, g.pinned, gid, req, version, kwargs, result, obs, choices)
            if adopted is not None:
                result, diffs = adopted, []
        before = member_view(coord, gid, member_id) if diffs else None
        # Only while the group conformed is the model's state the trace's: then name the invariant.
        classify = bool(diffs) and not g.summary.diverged
        broken = observed_call_problems(coord.groups.get(gid), member_id, req, obs) if classify else []
        epochs_before = member_epochs(coord, gid, member_id) if classify else None
        coord.commit(result)
        if result.records:
            g.generation += 1
            g.member_scoped += 1  # what they change, the cache sees by itself (steady_hit)
        elif not diffs and self.checker.steady_cache and version == event.api_version:
            self.remember_steady(g, event, version, kwargs, result)
        if classify:
            broken += observed_epoch_problems(epochs_before, coord.groups.get(gid), member_id, obs)
        for record in result.records:
            g.expected_records.append((event.line, record))
        response = result.response
        assert response is not None
        mid = response.get("memberId") or member_id
        group = coord.groups.get(gid)
        member = group.members.get(mid) if group is not None and mid else None
        if group is not None and member is not None and member.is_reconciled_to(group.assignment_epoch):
            # Its observed assignment is now its whole target: later adoptions must keep it.
            g.pinned[mid] = group.assignment_epoch
        if self.checker.clients:
            self.check_client(g, event, response)
        if diffs:
            after = member_view(coord, gid, mid)
            names = self.checker.topics.names_by_id()
            for name, exp, got in diffs:
                exp_j, got_j = (format_set(exp, names), format_set(got, names)) if name == "assignment" else (exp, got)
                head, why = explain_parts(name, exp, got, result.explain, after, member_id or mid, names)
                message = head + (": " + "; ".join(why) if why else "")
                self.checker.finding(g, Finding(self.checker.path, event.line, gid, "response-mismatch", message, name,
                                         exp_j, got_j, {"before": before, "after": after, "why": why}))
            for invariant, message in broken:
                self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant", message, invariant))

    def check_client(self, g: GroupSession, event: Event, response: dict[str, Any]) -> None:
        """Client-side rules (invariants/client.py), judged on what the trace shows."""
        for p in g.clients.observe(event.request, event.response):
            self.checker.finding(g, Finding(self.checker.path, event.line, g.summary.group_id, "client", p.message,
                                     "topicPartitions", format_set(p.given), format_set(p.reported)))


_SET_TIMER_FIELDS: Final = tuple(getattr(Timer, name).__set__ for name in Timer.__slots__)


def timer_at(timer: Timer, deadline_ms: int) -> Timer:
    """``Timer(timer.key, deadline_ms, timer.kind, ...)``, built field by field: the frozen
    dataclass's ``__init__`` costs a steady heartbeat more than the rest of its cache hit."""
    moved = object.__new__(Timer)
    key, deadline, kind, group_id, member_id, epoch = _SET_TIMER_FIELDS
    key(moved, timer.key)
    deadline(moved, deadline_ms)
    kind(moved, timer.kind)
    group_id(moved, timer.group_id)
    member_id(moved, timer.member_id)
    epoch(moved, timer.epoch)
    return moved


def request_problem(req: dict[str, Any]) -> tuple[str, str] | None:
    """Shape errors the model cannot even ask Kafka about (missing or mistyped fields)."""
    epoch = req.get("memberEpoch")
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        return "request.memberEpoch", "`request.memberEpoch` must be an integer"
    member_id = req.get("memberId")
    if member_id is not None and not isinstance(member_id, str):
        return "request.memberId", "`request.memberId` must be a string or null"
    names = req.get("subscribedTopicNames")
    if names is not None and (not isinstance(names, list) or not all(isinstance(v, str) for v in names)):
        return "request.subscribedTopicNames", "`request.subscribedTopicNames` must be a list of strings or null"
    tps = req.get("topicPartitions")
    if tps is not None:
        if not isinstance(tps, list):
            return "request.topicPartitions", "`request.topicPartitions` must be a list or null"
        for i, tp in enumerate(tps):
            if not isinstance(tp, dict) or not isinstance(tp.get("topicId"), str) or not isinstance(
                    tp.get("partitions"), list):
                return (f"request.topicPartitions[{i}]",
                        f"`request.topicPartitions[{i}]` needs a string topicId and a list of partitions")
    return None


def member_view(coord: Coordinator, gid: str, member_id: str) -> dict[str, Any] | None:
    group = coord.groups.get(gid)
    member = group.members.get(member_id) if group else None
    if member is None:
        return None
    return {
        "state": STATE_NAMES.get(member.state, str(member.state)),
        "memberEpoch": member.member_epoch,
        "previousMemberEpoch": member.previous_member_epoch,
        "assigned": {t: sorted(p) for t, p in member.assigned.items()},
        "pendingRevocation": {t: sorted(p) for t, p in member.pending_revocation.items()},
        "groupEpoch": group.group_epoch if group else None,
        "assignmentEpoch": group.assignment_epoch if group else None,
    }


def explain(name: str, exp: Any, got: Any, why: list[str], before: dict[str, Any] | None,
             after: dict[str, Any] | None, member_id: str, names: dict[str, str] | None = None) -> str:
    head, reasons = explain_parts(name, exp, got, why, after, member_id, names)
    return head + (": " + "; ".join(reasons) if reasons else "")


def explain_parts(name: str, exp: Any, got: Any, why: list[str], after: dict[str, Any] | None, member_id: str,
                  names: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """What differs, and why the model answers as it does (a reason that only names the expected
    error again is dropped: the head names it)."""
    if name == "errorCode":
        head = f"the coordinator must answer {error_name(exp)} ({exp}), not {error_name(got)} ({got})"
    elif name == "assignment":
        head = (f"member {member_id} must be given {render_partitions(format_set(exp), names)}, "
                f"not {render_partitions(format_set(got), names)}")
    else:
        head = f"{name} must be {exp!r}, not {got!r}"
    reasons = [w for w in why if w and not (name == "errorCode" and isinstance(exp, int) and w == error_name(exp))]
    revoking = after if after is not None and after["state"] == "UNREVOKED_PARTITIONS" else None
    if revoking is not None and name == "memberEpoch":
        reasons.insert(0, f"member {member_id} is still revoking "
                          f"{render_partitions(revoking['pendingRevocation'], names)}, "
                          f"so its epoch must stay {revoking['memberEpoch']}")
    return head, reasons
