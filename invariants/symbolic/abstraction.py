"""Refinement: the executable model, abstracted onto :class:`ConcreteState`, against the Z3 relation.

:class:`ConsumerRefinement` watches one consumer group of a running
:class:`~kgspec.model.sim.simulator.Simulator`. Around every coordinator step (a heartbeat
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
from typing import Any

from kgspec.invariants.symbolic.concrete import (
    ConcreteState,
    NotEnabled,
    apply,
    epoch_ok,
    failing_invariants,
    initial,
    step_satisfies_transition,
)
from kgspec.invariants.symbolic.invariants import for_protocol

Tasks = frozenset[str]
_LEAVE_EPOCHS = (-1, -2)
_STATES = {0: "STABLE", 1: "UNREVOKED", 2: "UNRELEASED"}
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

    def __init__(self, sim: Any, group_id: str, topics: dict[str, int], *,
                 check_z3: bool = True, check_invariants: bool = True) -> None:
        self.sim = sim
        self.gid = group_id
        self.tasks = tuple(_task(t, p) for t in sorted(topics) for p in range(topics[t]))
        self.topics = dict(topics)
        self.check_z3 = check_z3
        self.check_invariants = check_invariants
        self.invariants = [i.name for i in for_protocol("consumer")]
        self.names: dict[str, str] = {}  # member id -> abstract name
        self.clients: dict[str, Any] = {}  # member id -> latest client object
        self.inflight: dict[int, tuple[int, dict[str, Any]]] = {}  # id(client) -> (corr, request)
        self.state: ConcreteState = initial("consumer", (), self.tasks)
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
            pre = self._before(request)
            result = handle(api_key, api_version, request, **kw)
            self.inflight = {k: v for k, v in self.inflight.items() if v[1] is not request}
            self._after(pre, "call", request=request, response=result.response)
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
            name = topics.name_of(topic_id)
            if name is None:
                raise AbstractionError(f"topic id {topic_id} is not in the metadata")
            out.update(_task(name, p) for p in parts)
        return frozenset(out)

    def _subscribed(self, member_id: str) -> Tasks:
        client = self.clients.get(member_id)
        topics: Iterable[str] = client.topics if client is not None else ()
        return frozenset(_task(t, p) for t in topics for p in range(self.topics.get(t, 0)))

    def _client_view(self, member_id: str, extra: dict[str, dict[str, Any]]) -> tuple[int, Tasks]:
        client = self.clients.get(member_id)
        request = extra.get(member_id)
        if request is None and client is not None:
            sent = self.inflight.get(id(client))
            if sent is not None and sent[0] == client.in_flight:
                request = sent[1]
        if request is not None:
            if request["memberEpoch"] in _LEAVE_EPOCHS:
                return 0, frozenset()
            owned = request.get("topicPartitions")
            if owned is None:  # unchanged since the last full report
                return request["memberEpoch"], self._tasks_of(getattr(client, "last_sent_owned", None) or {})
            return request["memberEpoch"], self._tasks_of({e["topicId"]: e["partitions"] for e in owned})
        if client is None or not client.alive or client.state not in _IN_GROUP:
            return 0, frozenset()
        return client.epoch, self._tasks_of(client.owned)

    def abstract(self, extra: dict[str, dict[str, Any]]) -> ConcreteState:
        """The model's state (coordinator group + simulated clients) as a ConcreteState."""
        group = self.sim.coordinator.groups.get(self.gid)
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
            if m.state not in _STATES:
                raise AbstractionError(f"member {mid} is in state {m.state}")
            if m.member_epoch != -2:
                s.epoch[a] = m.member_epoch
            s.prev_epoch[a] = m.previous_member_epoch
            s.mstate[a] = _STATES[m.state]
            s.assigned["act"][a] = self._tasks_of(m.assigned)
            s.pending["act"][a] = self._tasks_of(m.pending_revocation)
            for t in s.held("act", a):
                holders[t].append(a)
        if group is not None:
            for mid, target in group.target.items():
                if mid in self.names:
                    s.target["act"][self.names[mid]] = self._tasks_of(target)
            for t in self.tasks:
                s.epoch_owner[t] = None
            for t, owners in holders.items():
                if owners:
                    s.epoch_owner[t] = owners[0]
            indexed = self._tasks_of(group.partition_epochs)
            orphans = indexed - {t for t, o in holders.items() if o}
            if orphans:
                raise AbstractionError(f"partition epochs without a holder: {sorted(orphans)}")
            unindexed = {t for t, o in holders.items() if o} - indexed
            for t in unindexed:  # a held partition with no epoch: the abstract map has no entry
                s.epoch_owner[t] = None
        for mid, a in self.names.items():
            s.client_epoch[a], s.owned["act"][a] = self._client_view(mid, extra)
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
            s.epoch[a] = s.prev_epoch[a] = s.client_epoch[a] = 0
            s.mstate[a] = "STABLE"
            s.subscribed[a] = self._subscribed(by_name[a])
            s.last_assigned[a] = empty
            for r in s.roles:
                for fld in (s.assigned, s.pending, s.target, s.owned):
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
                acts += [{"action": "bump"}] * bumps
                if post.assignment_epoch != pre.assignment_epoch:
                    acts.append(self._recompute(post))
                acts.append({"action": "heartbeat", "member": x, "response": "lost"})
        else:
            for firing in info["firings"]:
                if not firing.records:
                    continue
                m = self.names[firing.timer.member_id]
                action = {"consumer-session": "session_timeout",
                          "consumer-rebalance": "rebalance_timeout"}.get(firing.timer.kind, firing.timer.kind)
                acts.append({"action": action, "member": m})
        return acts + self._client_acts(self._run(pre, acts), post)

    @staticmethod
    def _recompute(post: ConcreteState) -> dict[str, Any]:
        target = {m: sorted(ts) for m, ts in post.target["act"].items() if ts}
        return {"action": "recompute", "assignment_epoch": post.assignment_epoch, "target": target}

    def _run(self, s: ConcreteState, acts: list[dict[str, Any]]) -> ConcreteState:
        for a in acts:
            try:
                s = apply(s, a)
            except NotEnabled:
                return s  # reported by _check
        return s

    @staticmethod
    def _client_acts(s: ConcreteState, post: ConcreteState) -> list[dict[str, Any]]:
        """Client-local actions taking each client of ``s`` to its view in ``post``."""
        acts: list[dict[str, Any]] = []
        for m in s.members:
            ce0, o0 = s.client_epoch[m], s.owned["act"][m]
            ce1, o1 = post.client_epoch[m], post.owned["act"][m]
            if (ce0, o0) == (ce1, o1):
                continue
            if ce1 == 0 and not o1:
                if m not in s.joined:
                    acts.append({"action": "zombie_heartbeat", "member": m})
                elif m not in s.away and not epoch_ok(s, m, None):
                    acts.append({"action": "heartbeat_fenced", "member": m})
                else:
                    acts.append({"action": "client_release", "member": m, "owned": [], "client_epoch": 0})
                continue
            if ce1 != ce0:
                acts.append({"action": "client_receive", "member": m, "client_epoch": ce1})
            if o1 != o0:
                name = "client_release" if o1 <= o0 else "client_reconcile"
                acts.append({"action": name, "member": m, "owned": sorted(o1)})
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
    return {m for m in s.members if m in s.joined or s.client_epoch[m] or s.owned["act"][m]}


def project(s: ConcreteState, members: set[str]) -> ConcreteState:
    """``s`` restricted to ``members``. Sound for checking when the members left out are
    neither in the group nor have a client that owns anything or has an epoch: every action
    frames them and no invariant mentions them (they hold, own and are targeted nothing)."""
    keep = tuple(m for m in s.members if m in members)
    if keep == s.members:
        return s
    out = copy.copy(s)
    out.members = keep
    for name in ("epoch", "prev_epoch", "client_epoch", "mstate", "subscribed", "last_assigned"):
        setattr(out, name, {m: v for m, v in getattr(s, name).items() if m in members})
    for name in ("assigned", "pending", "target", "owned"):
        setattr(out, name, {r: {m: v for m, v in d.items() if m in members}
                            for r, d in getattr(s, name).items()})
    return out


def describe_difference(a: ConcreteState, b: ConcreteState) -> str:
    """The fields where two abstract states differ, in words."""
    out = []
    for name in ("group_epoch", "assignment_epoch", "joined", "away", "epoch", "prev_epoch",
                 "client_epoch", "mstate", "subscribed", "assigned", "pending", "target", "owned",
                 "last_assigned", "epoch_owner"):
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            out.append(f"{name}: {x} != {y}")
    return "; ".join(out) or "none"
