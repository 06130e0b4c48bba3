"""Refinement: the executable model, abstracted onto :class:`ConcreteState`, against the Z3 relation.

:class:`ConsumerRefinement` watches one consumer group of a running
:class:`~kgspec.sim.simulator.Simulator`. Around every coordinator step (a heartbeat
handled, timers fired; a failover reloads a coordinator that must abstract to the same
state) it maps the model's state to a :class:`ConcreteState` (the *abstraction function*
:meth:`ConsumerRefinement.abstract`), builds the abstract actions the step took *from what
the step did* (the request, the response, the timers that fired), and checks that

* the actions, run one after the other through :func:`concrete.apply`, end exactly in the
  abstraction of the post-state,
* every one of them satisfies the Z3 transition relation
  (:func:`concrete.step_satisfies_transition`), and
* every state reached satisfies every invariant the proofs use (core and auxiliary).

Between coordinator steps the simulated clients act on their own (a response arrives, a
reconciliation finishes, a client crashes or leaves): those changes are checked the same
way, as the client-local actions ``client_receive``, ``client_reconcile``,
``client_release`` (or ``heartbeat_fenced`` / ``zombie_heartbeat`` when a fencing error
makes the client drop everything).

The abstraction (docs/proofs.md, "Refinement"):

* members are member ids (named ``m1``, ``m2``... in order of appearance), tasks are
  ``<topic>_<partition>`` over the largest partition counts the run will use, so a topic
  that grows only changes what the group may be assigned, not the task universe;
* coordinator fields come from the group: epochs, state, assigned / pending-revocation
  partitions, the target, and the partition-epoch index (``epoch_owner`` is the member
  holding the partition; an entry that nobody holds is reported);
* a static member after its -2 leave is ``away``; Kafka stores epoch -2, the abstract
  state keeps the epoch it had (a history variable), as it does for members that left;
  ``last_assigned`` is a history variable of the abstract run;
* the client of a member is *what the coordinator will see from it next*: the epoch and
  owned partitions of its request in flight, else its current epoch and owned partitions
  while it is in the group (or preparing to leave), else epoch 0 and nothing;
* every accepted heartbeat is ``heartbeat`` with its response lost at the coordinator step
  (the client has not seen it yet); the client's later receipt is ``client_receive``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kgspec.invariants.symbolic.concrete import (
    ROLE_CODES,
    ConcreteState,
    NotEnabled,
    apply,
    epoch_ok,
    failing_invariants,
    initial,
    step_satisfies_transition,
)
from kgspec.invariants.symbolic.invariants import for_protocol
from kgspec.invariants.symbolic.state import ROLE_NAMES
from kgspec.model.consumer import member as consumer_member
from kgspec.model.streams import member as streams_member
from kgspec.model.streams.member import ROLE_FIELDS

Tasks = frozenset[str]
_LEAVE_EPOCHS = (-1, -2)
#: the model's member-state codes -> the MemberState sort's values (``sorts.MEMBER_STATES``)
CONSUMER_STATES = {consumer_member.STABLE: "STABLE", consumer_member.UNREVOKED_PARTITIONS: "UNREVOKED",
                   consumer_member.UNRELEASED_PARTITIONS: "UNRELEASED"}
STREAMS_STATES = {streams_member.STABLE: "STABLE", streams_member.UNREVOKED_TASKS: "UNREVOKED",
                  streams_member.UNRELEASED_TASKS: "UNRELEASED"}
_PRE_LEAVE = "PREPARE_LEAVING"
_IN_GROUP = frozenset({"JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", _PRE_LEAVE})


class AbstractionError(Exception):
    """The model's state has no abstract counterpart (e.g. an orphan partition epoch)."""


@dataclass
class StepReport:
    """One coordinator step (or client-local segment) and the abstract actions it took."""

    kind: str
    actions: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)


@dataclass
class RefinementStats:
    coordinator_steps: int = 0  # heartbeats handled and timer batches that fired
    stutters: int = 0  # of those, steps with no abstract change
    client_segments: int = 0
    actions: dict[str, int] = field(default_factory=dict)
    states_checked: int = 0


def _task(topic: str, partition: int) -> str:
    return f"{topic}_{partition}"


class ConsumerRefinement:
    """Checks one consumer group of a simulator, step by step, against the Z3 relation."""

    protocol: ClassVar[str] = "consumer"
    states: ClassVar[dict[int, str]] = CONSUMER_STATES
    timer_actions: ClassVar[dict[str, str]] = {"consumer-session": "session_timeout", "consumer-rebalance": "rebalance_timeout"}

    def __init__(self, sim: Any, group_id: str, topics: dict[str, int], *,
                 check_z3: bool = True, check_invariants: bool = True,
                 processes: tuple[str, ...] = ()) -> None:
        self.sim = sim
        self.gid = group_id
        self.tasks = tuple(_task(t, p) for t in sorted(topics) for p in range(topics[t]))
        self.topics = dict(topics)
        self.check_z3 = check_z3
        self.check_invariants = check_invariants
        self.invariants = [i.name for i in for_protocol(self.protocol)]
        self.names: dict[str, str] = {}  # member id -> abstract name
        self.clients: dict[str, Any] = {}  # member id -> latest client object
        self.inflight: dict[int, tuple[int, dict[str, Any]]] = {}  # id(client) -> (corr, request)
        self.handled: dict[int, dict[str, Any]] = {}  # id(request) -> request, every request handled
        self.topic_names: dict[str, str] = {}  # topic id -> name, kept after the topic is deleted
        self.processes = processes
        self.state: ConcreteState = initial(self.protocol, (), self.tasks, processes)
        self.reports: list[StepReport] = []
        self.problems: list[str] = []
        self.stats = RefinementStats()
        self._wrap(sim.coordinator)
        factory: Callable[[], Any] = sim._new_coordinator
        sim._new_coordinator = lambda: self._wrap(factory())

    # --- hooks ---------------------------------------------------------------------------

    def _wrap(self, coord: Any) -> Any:
        handle, advance = coord.handle, coord.advance

        def wrapped_handle(api_key: int, api_version: int, request: dict[str, Any], **kw: Any) -> Any:
            if request.get("groupId") != self.gid or not kw.get("apply", True):
                return handle(api_key, api_version, request, **kw)
            again = self.handled.get(id(request)) is request  # the network delivers a copy again
            pre = self._before(request)
            result = handle(api_key, api_version, request, **kw)
            self.handled[id(request)] = request
            self.inflight = {k: v for k, v in self.inflight.items() if v[1] is not request}
            self._scan()  # a duplicate still queued is what the coordinator sees next
            self._after(pre, "call", request=request, response=result.response, again=again)
            return result

        def wrapped_advance(now: int) -> Any:
            deadline = coord.timers.next_deadline()
            if deadline is None or deadline > now:
                return advance(now)
            pre = self._before(None)
            firings = advance(now)
            mine = [f for f in firings if f.timer.group_id == self.gid]
            self._after(pre, "timers", firings=mine)
            return firings

        coord.handle, coord.advance = wrapped_handle, wrapped_advance
        return coord

    def _before(self, request: dict[str, Any] | None) -> ConcreteState:
        """The abstract pre-state; client-local changes since the last step are checked first."""
        self._scan()
        extra = {request["memberId"]: request} if request is not None and request.get("memberId") else {}
        now = self.abstract(extra)
        if now != self._extended(self.state, now.members):
            self._client_segment(now)
        self.state = now
        return now

    def _after(self, pre: ConcreteState, kind: str, **info: Any) -> None:
        post = self.abstract({})
        pre = self._extended(pre, post.members)
        self.stats.coordinator_steps += 1
        if post == pre:
            self.stats.stutters += 1
            self.state = post
            return
        plan = self._plan(pre, post, kind, info)
        self._check(kind, pre, plan, post)

    def _scan(self) -> None:
        """Requests in the network, so a client's view is what the coordinator will see next."""
        for entry in self.sim._queue:
            if entry[2] == "request":
                client, corr, request = entry[3]
                self.inflight[id(client)] = (corr, request)
        for client in self.sim.clients.values():
            if client.group_id == self.gid:
                self.clients[client.member_id] = client

    # --- the abstraction function ---------------------------------------------------------

    def _name(self, member_id: str) -> str:
        if member_id not in self.names:
            self.names[member_id] = f"m{len(self.names) + 1}"
        return self.names[member_id]

    def _tasks_of(self, holding: dict[str, Any]) -> Tasks:
        topics = self.sim.coordinator.topics
        out: set[str] = set()
        for topic_id, parts in holding.items():
            name = topics.name_of(topic_id) or self.topic_names.get(topic_id)
            if name is None:
                raise AbstractionError(f"topic id {topic_id} is not in the metadata")
            self.topic_names[topic_id] = name  # members may hold a deleted topic's partitions
            out.update(_task(name, p) for p in parts)
        return frozenset(out)

    def _process_of(self, member_id: str) -> str:
        return ""

    def _subscribed(self, member_id: str) -> Tasks:
        client = self.clients.get(member_id)
        topics: Iterable[str] = client.topics if client is not None else ()
        return frozenset(_task(t, p) for t in topics for p in range(self.topics.get(t, 0)))

    def _member_subscription(self, member: Any) -> Tasks:
        """The subscription the coordinator holds for a member (its topics' tasks)."""
        return frozenset(_task(t, p) for t in member.subscribed_topic_names for p in range(self.topics.get(t, 0)))

    @staticmethod
    def _reports_owned(request: dict[str, Any]) -> bool:
        return request.get("topicPartitions") is not None

    def _reported(self, request: dict[str, Any], client: Any) -> dict[str, Tasks]:
        """What a request says the client owns (unchanged since the last report when absent)."""
        owned = request.get("topicPartitions")
        if owned is None:
            return self._holdings(getattr(client, "last_sent_owned", None) or {})
        return self._holdings({e["topicId"]: e["partitions"] for e in owned})

    def _client_view(self, member_id: str, extra: dict[str, dict[str, Any]]) -> tuple[int, dict[str, Tasks]]:
        client = self.clients.get(member_id)
        request = extra.get(member_id)
        if request is None and client is not None:
            sent = self.inflight.get(id(client))
            if sent is not None and sent[0] == client.in_flight:
                request = sent[1]
        if request is not None:
            if request["memberEpoch"] in _LEAVE_EPOCHS:
                return 0, {}
            return request["memberEpoch"], self._reported(request, client)
        if client is None or not client.alive or client.state not in _IN_GROUP:
            return 0, {}
        return client.epoch, self._holdings(client.owned)

    def _group(self) -> Any:
        return self.sim.coordinator.groups.get(self.gid)

    def _holdings(self, holdings: Any) -> dict[str, Tasks]:
        """A member's (or target's) holdings by role code."""
        return {"act": self._tasks_of(holdings)}

    def _indexed(self, group: Any) -> Tasks:
        """Tasks with an entry in the active-ownership index (the partition-epoch map)."""
        return self._tasks_of(group.partition_epochs)

    def _process_maps(self, s: ConcreteState, group: Any) -> None:
        """Streams: the standby / warm-up process maps."""

    def abstract(self, extra: dict[str, dict[str, Any]]) -> ConcreteState:
        """The model's state (coordinator group + simulated clients) as a ConcreteState."""
        group = self._group()
        members = dict(group.members) if group is not None else {}
        for mid in [*self.clients, *members]:
            self._name(mid)
        names = tuple(self.names.values())
        prev = self._extended(self.state, names)
        s = copy.deepcopy(prev)
        if group is not None:
            s.group_epoch, s.assignment_epoch = group.group_epoch, group.assignment_epoch
        s.joined = {self.names[mid] for mid in members}
        s.away = {self.names[mid] for mid, m in members.items() if m.member_epoch == -2}
        for r in s.roles:
            for fld in (s.assigned, s.pending, s.target):
                fld[r] = dict.fromkeys(names, frozenset())
        holders: dict[str, list[str]] = {t: [] for t in self.tasks}
        for mid, m in members.items():
            a = self.names[mid]
            if m.state not in self.states:
                raise AbstractionError(f"member {mid} is in state {m.state}")
            if m.member_epoch != -2:
                s.epoch[a] = m.member_epoch
            s.prev_epoch[a] = m.previous_member_epoch
            s.mstate[a] = self.states[m.state]
            s.subscribed[a] = self._member_subscription(m)
            for r, ts in self._holdings(m.assigned).items():
                s.assigned[r][a] = ts
            for r, ts in self._holdings(m.pending_revocation).items():
                s.pending[r][a] = ts
            for t in s.held("act", a):
                holders[t].append(a)
        if group is not None:
            for mid, target in group.target.items():
                if mid in self.names:
                    for r, ts in self._holdings(target).items():
                        s.target[r][self.names[mid]] = ts
            indexed = self._indexed(group)
            for t in self.tasks:
                # no entry, or a held task with no entry: the abstract map has no entry
                s.epoch_owner[t] = holders[t][0] if holders[t] and t in indexed else None
            orphans = indexed - {t for t, o in holders.items() if o}
            if orphans:
                raise AbstractionError(f"ownership index entries without a holder: {sorted(orphans)}")
            self._process_maps(s, group)
        for mid, a in self.names.items():
            epoch, owned = self._client_view(mid, extra)
            s.client_epoch[a] = epoch
            for r in s.roles:
                s.owned[r][a] = owned.get(r, frozenset())
        return s

    def _extended(self, state: ConcreteState, names: tuple[str, ...]) -> ConcreteState:
        """``state`` over ``names``: new members start as in the initial state."""
        if state.members == names:
            return state
        s = copy.deepcopy(state)
        s.members = names
        empty: Tasks = frozenset()
        by_name = {a: mid for mid, a in self.names.items()}
        for a in names:
            if a in state.members:
                continue
            s.epoch[a] = s.prev_epoch[a] = s.client_epoch[a] = s.dup_epoch[a] = 0
            s.mstate[a] = "STABLE"
            s.subscribed[a] = self._subscribed(by_name[a])
            if s.protocol == "streams":
                s.process_of[a] = self._process_of(by_name[a])
            s.last_assigned[a] = empty
            for r in s.roles:
                for fld in (s.assigned, s.pending, s.target, s.owned, s.dup_owned):
                    fld[r][a] = empty
        return s

    # --- building the abstract actions of a step ------------------------------------------

    def _plan(self, pre: ConcreteState, post: ConcreteState, kind: str,
              info: dict[str, Any]) -> list[dict[str, Any]]:
        acts: list[dict[str, Any]] = []
        bumps = post.group_epoch - pre.group_epoch
        if kind == "call":
            request, response = info["request"], info["response"] or {}
            x = self.names.get(response.get("memberId") or request["memberId"], "")
            ok = response.get("errorCode") == 0
            epoch = request["memberEpoch"]
            if ok and epoch == -1:
                acts.append({"action": "leave", "member": x})
            elif ok and epoch == -2:
                acts.append({"action": "static_leave", "member": x})
            elif ok:
                if x not in pre.joined:
                    replaced = [m for m in sorted(pre.away) if m not in post.joined]
                    if replaced:
                        acts.append({"action": "replace", "member": replaced[0], "new_member": x})
                    else:
                        acts.append({"action": "join", "member": x,
                                     "subscribed": sorted(post.subscribed[x])})
                        bumps -= 1
                else:
                    if x in pre.away:  # the static member's own client is back (same member id)
                        acts.append({"action": "static_return", "member": x})
                    if post.subscribed[x] != pre.subscribed[x]:
                        acts.append({"action": "resubscribe", "member": x, "subscribed": sorted(post.subscribed[x])})
                    if info.get("again"):
                        # a duplicate: the network kept a copy of the request (the client's
                        # view while it was in flight), delivered after the original
                        acts.append({"action": "duplicate", "member": x})
                acts += [{"action": "bump"}] * bumps
                if post.assignment_epoch != pre.assignment_epoch:
                    acts.append(self._recompute(post))
                if any(a["action"] == "resubscribe" for a in acts):
                    # 4.2+: no new target yet: the assignment shrinks to the subscription
                    try:
                        apply(self._run(pre, acts), {"action": "shrink", "member": x})
                        acts.append({"action": "shrink", "member": x})
                    except NotEnabled:
                        pass
                hb: dict[str, Any] = {"action": "heartbeat", "member": x, "response": "lost"}
                if info.get("again") and x in pre.joined and self._reports_owned(request):
                    hb = {"action": "heartbeat_stale", "member": x}
                elif not self._reports_owned(request):
                    hb["reported"] = False
                acts.append(hb)
        else:
            for firing in info["firings"]:
                action = self.timer_actions.get(firing.timer.kind)
                if not firing.records or action is None:
                    continue
                acts.append({"action": action, "member": self.names[firing.timer.member_id]})
                bumps -= 1
            acts += [{"action": "bump"}] * bumps
            if post.assignment_epoch != pre.assignment_epoch:
                acts.append(self._recompute(post))
        return acts + self._client_acts(self._run(pre, acts), post)

    @staticmethod
    def _roles_out(s: ConcreteState, sets: dict[str, Tasks]) -> Any:
        """Task sets by role in the step-dict form (streams: by role name)."""
        if s.protocol == "streams":
            return {ROLE_NAMES[r]: sorted(sets.get(r, frozenset())) for r in s.roles}
        return sorted(sets.get("act", frozenset()))

    def _recompute(self, post: ConcreteState) -> dict[str, Any]:
        target = {m: self._roles_out(post, {r: post.target[r][m] for r in post.roles})
                  for m in post.members if any(post.target[r][m] for r in post.roles)}
        return {"action": "recompute", "assignment_epoch": post.assignment_epoch, "target": target}

    def _run(self, s: ConcreteState, acts: list[dict[str, Any]]) -> ConcreteState:
        for a in acts:
            try:
                s = apply(s, a)
            except NotEnabled:
                return s  # reported by _check
        return s

    def _client_acts(self, s: ConcreteState, post: ConcreteState) -> list[dict[str, Any]]:
        """Client-local actions taking each client of ``s`` to its view in ``post``."""
        acts: list[dict[str, Any]] = []
        for m in s.members:
            ce0, o0 = s.client_epoch[m], {r: s.owned[r][m] for r in s.roles}
            ce1, o1 = post.client_epoch[m], {r: post.owned[r][m] for r in s.roles}
            if (ce0, o0) == (ce1, o1):
                continue
            if ce1 == 0 and not any(o1.values()):
                if m not in s.joined:
                    acts.append({"action": "zombie_heartbeat", "member": m})
                elif m not in s.away and not epoch_ok(s, m, None):
                    acts.append({"action": "heartbeat_fenced", "member": m})
                else:
                    acts.append({"action": "client_release", "member": m,
                                 "owned": self._roles_out(s, {}), "client_epoch": 0})
                continue
            if ce1 != ce0:
                acts.append({"action": "client_receive", "member": m, "client_epoch": ce1})
            if o1 != o0:
                name = "client_release" if all(o1[r] <= o0[r] for r in s.roles) else "client_reconcile"
                acts.append({"action": name, "member": m, "owned": self._roles_out(s, o1)})
        return acts

    def _client_segment(self, now: ConcreteState) -> None:
        pre = self._extended(self.state, now.members)
        self.stats.client_segments += 1
        self._check("client", pre, self._client_acts(pre, now), now)

    # --- checking ---------------------------------------------------------------------------

    def _check(self, kind: str, pre: ConcreteState, plan: list[dict[str, Any]], post: ConcreteState) -> None:
        report = StepReport(kind, plan)
        keep = _active(pre) | _active(post) | {a[k] for a in plan for k in ("member", "new_member") if k in a}
        s = pre
        for k, step in enumerate(plan):
            try:
                nxt = apply(s, step)
            except NotEnabled:
                report.problems.append(f"{step} is not enabled")
                break
            if k == len(plan) - 1:
                nxt = self._with_history(nxt, post)
                if nxt != post:
                    report.problems.append("the actions do not reach the model's state: "
                                           + describe_difference(nxt, post))
                    nxt = post
            if self.check_z3 and not step_satisfies_transition(project(s, keep), step, project(nxt, keep)):
                report.problems.append(f"{step} violates the Z3 transition relation")
            self.stats.actions[step["action"]] = self.stats.actions.get(step["action"], 0) + 1
            self._check_state(project(nxt, keep), report)
            s = nxt
        if not plan:
            report.problems.append("the state changed but no action explains it: "
                                   + describe_difference(pre, post))
        self.reports.append(report)
        self.problems += [f"{kind} step {len(self.reports)}: {p}" for p in report.problems]
        self.state = post

    @staticmethod
    def _with_history(reached: ConcreteState, post: ConcreteState) -> ConcreteState:
        """History variables come from the abstract run; the rest must match the model."""
        post.last_assigned = dict(reached.last_assigned)
        # the network's copies are history too (the run's ``duplicate`` steps)
        post.has_dup, post.dup_epoch = set(reached.has_dup), dict(reached.dup_epoch)
        post.shrinking = set(reached.shrinking)
        post.dup_owned = {r: dict(d) for r, d in reached.dup_owned.items()}
        for m in reached.members:
            if m not in post.joined or m in post.away:
                post.epoch[m] = reached.epoch[m]
                if m not in post.joined:
                    post.prev_epoch[m] = reached.prev_epoch[m]
                    post.mstate[m] = reached.mstate[m]
        return reached

    def _check_state(self, s: ConcreteState, report: StepReport) -> None:
        if not self.check_invariants:
            return
        self.stats.states_checked += 1
        bad = failing_invariants(s, self.invariants)
        if bad:
            report.problems.append(f"invariants violated: {', '.join(bad)}")


def _active(s: ConcreteState) -> set[str]:
    return {m for m in s.members
            if m in s.joined or s.client_epoch[m] or any(s.owned[r][m] for r in s.roles)}


def project(s: ConcreteState, members: set[str]) -> ConcreteState:
    """``s`` restricted to ``members``. Sound for checking when the members left out are
    neither in the group nor have a client that owns anything or has an epoch: every action
    frames them and no invariant mentions them (they hold, own and are targeted nothing)."""
    keep = tuple(m for m in s.members if m in members)
    if keep == s.members:
        return s
    out = copy.copy(s)
    out.members = keep
    out.process_of = {m: p for m, p in s.process_of.items() if m in members}
    out.has_dup = s.has_dup & members
    out.shrinking = s.shrinking & members
    for name in ("epoch", "prev_epoch", "client_epoch", "mstate", "subscribed", "last_assigned", "dup_epoch"):
        setattr(out, name, {m: v for m, v in getattr(s, name).items() if m in members})
    for name in ("assigned", "pending", "target", "owned", "dup_owned"):
        setattr(out, name, {r: {m: v for m, v in d.items() if m in members}
                            for r, d in getattr(s, name).items()})
    return out


def describe_difference(a: ConcreteState, b: ConcreteState) -> str:
    """The fields where two abstract states differ, in words."""
    out = []
    for name in ("group_epoch", "assignment_epoch", "joined", "away", "epoch", "prev_epoch",
                 "client_epoch", "mstate", "subscribed", "assigned", "pending", "target", "owned",
                 "last_assigned", "epoch_owner", "has_dup", "dup_epoch", "dup_owned", "shrinking"):
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            out.append(f"{name}: {x} != {y}")
    return "; ".join(out) or "none"


class StreamsRefinement(ConsumerRefinement):
    """The same check for one streams group: tasks are ``<subtopology>_<partition>``, the
    active-ownership index is ``currentActiveTaskProcessId`` (its entry points at the member
    holding the task as active), standby / warm-up process maps are the group's, and members
    carry their process id (``process_of``). ``topics`` maps subtopology ids to task counts."""

    protocol: ClassVar[str] = "streams"
    states: ClassVar[dict[int, str]] = STREAMS_STATES
    timer_actions: ClassVar[dict[str, str]] = {"streams-session": "session_timeout", "streams-rebalance": "rebalance_timeout"}

    def _group(self) -> Any:
        return self.sim.coordinator.streams_groups.get(self.gid)

    def _holdings(self, holdings: Any) -> dict[str, Tasks]:
        return {code: frozenset(_task(sid, p) for sid, parts in holdings.get(role, {}).items() for p in parts)
                for role, code in ROLE_CODES.items()}

    @staticmethod
    def _reports_owned(request: dict[str, Any]) -> bool:
        return all(request.get(name) is not None for _, name in ROLE_FIELDS.items())

    def _reported(self, request: dict[str, Any], client: Any) -> dict[str, Tasks]:
        if any(request.get(name) is None for _, name in ROLE_FIELDS.items()):
            return self._holdings(getattr(client, "last_sent_owned", None) or {})
        return self._holdings({role: {e["subtopologyId"]: e["partitions"] for e in request[name]}
                               for role, name in ROLE_FIELDS.items()})

    def _indexed(self, group: Any) -> Tasks:
        return frozenset(_task(sid, p) for sid, p in group.active_process)

    def _process_maps(self, s: ConcreteState, group: Any) -> None:
        for t in self.tasks:
            s.standby_procs[t] = frozenset()
            s.warmup_procs[t] = frozenset()
        for (sid, p), procs in group.standby_processes.items():
            s.standby_procs[_task(sid, p)] = frozenset(procs)
        for (sid, p), procs in group.warmup_processes.items():
            s.warmup_procs[_task(sid, p)] = frozenset(procs)

    def _subscribed(self, member_id: str) -> Tasks:
        return frozenset(self.tasks)  # every stream thread runs the whole topology

    def _member_subscription(self, member: Any) -> Tasks:
        return frozenset(self.tasks)

    def _process_of(self, member_id: str) -> str:
        client = self.clients.get(member_id)
        return str(client.process_id) if client is not None else self.processes[0]
