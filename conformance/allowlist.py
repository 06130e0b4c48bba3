"""Allow-lists: a peer's known, classified departures from Kafka (``kgspec check --allow``).

An allow-list is a JSON file (``conformance/allowlists/``) of entries. Each entry names
one departure of a peer (librdkafka's mock coordinator, say) from the Kafka release the
trace is checked against, classifies it, says where it comes from, and gives a precise
matcher over a finding and the call it was found on::

    {"id": "leave-null-member-id", "classification": "mock-simplification",
     "description": "...", "source": "...",
     "match": {"api": 68, "kind": "response-mismatch", "fields": ["memberId"],
               "where": {"request.memberEpoch": {"in": [-1, -2]}, "observed": null}},
     "adopt": null}

``where`` maps a dotted path into ``{kind, field, expected, observed, request, response,
event, model}`` (``event`` is the whole trace line; ``model`` the model's view of the member
after the call: ``state``, ``memberEpoch``, ...) to a condition: a JSON value (equality) or
one operator object: ``{"ne": v}``, ``{"in": [..]}``, ``{"gt": n}``, ``{"lt": n}``,
``{"present": bool}``, ``{"samePath": "response.errorCode"}``.

A finding that matches an entry becomes *allowed*: it is reported and counted per entry
but does not fail the check; anything unmatched still fails. Because a real departure
cascades (the model's state drifts from the peer's), an entry may also say how the
checker follows the peer afterwards (``adopt``):

- ``"fence-member"``: the peer fenced the member while answering (librdkafka's mock
  removes a member when it injects FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID); the model
  removes it too, as Kafka does when it fences a member.
- ``"keep-member-epoch"``: the peer left the member where it was (the mock withholds an
  epoch bump while a target partition is unreleased); the model restores the member's
  assignment record from before the call, as if Kafka had not reconciled it yet.
- ``"peer-session-expiry"``: the peer expires sessions late (the mock checks them once a
  second). The model's session timeout is widened by the check period so that it never
  expires a member first, and the member is removed where the trace marks the peer's
  expiry (a ``tick`` with ``peerSessionTimeout: {groupId, memberId}``); each such expiry is
  a finding (field ``sessionExpiryMs``: Kafka's deadline vs the peer's time) the entry allows.
- ``"target:join-order-range"``: the peer's assignor is a range assignor over members in
  join order. The model computes that target instead of Kafka's; every computation where
  the two differ is itself a finding (field ``target``) that the entry allows, so the
  departure is counted, never hidden, and later responses are checked against the
  peer's actual target.

Matching runs inside the checker, call by call (:class:`AllowingChecker`, a subclass of
the unchanged :class:`TraceChecker`), so adoption happens before the next line is checked.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.compare import format_set
from kgspec.conformance.events import Event, ReadItem
from kgspec.conformance.findings import Finding, Report
from kgspec.conformance.session import GroupSession
from kgspec.model.assignors.api import GroupAssignment, GroupSpec
from kgspec.model.consumer import records as rec
from kgspec.model.coordinator import CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.step import NO_CHOICES, Choices, TargetChoice

CLASSIFICATIONS = ("mock-simplification", "client-behaviour", "injected-fault")
ADOPTIONS = (None, "fence-member", "keep-member-epoch", "peer-session-expiry", "target:join-order-range")
SESSION_TIMEOUT = "group.consumer.session.timeout.ms"
# The mock checks sessions once a second: it expires a member up to this much after Kafka.
PEER_SESSION_SLACK_MS = 1100
OPERATORS = ("ne", "in", "gt", "lt", "present", "samePath")
_MISSING = object()

# Allow-lists shipped with kgspec, usable by name: `kgspec check --allow librdkafka-mock`.
BUNDLED = Path(__file__).resolve().parent / "allowlists"


class AllowListError(ValueError):
    """The allow-list file is not valid (the message names the entry and the problem)."""


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    classification: str
    description: str
    source: str
    api: int | None
    kinds: frozenset[str]
    fields: frozenset[str] | None
    where: Mapping[str, Any]
    adopt: str | None = None

    def matches(self, finding: Finding, event: Event | None) -> bool:
        if finding.kind not in self.kinds:
            return False
        if self.fields is not None and finding.field not in self.fields:
            return False
        if self.api is not None and (event is None or event.api_key != self.api):
            return False
        ctx: dict[str, Any] = {"kind": finding.kind, "field": finding.field, "expected": finding.expected,
                               "observed": finding.observed, "model": finding.context.get("after") or {}}
        if event is not None:
            ctx["event"] = event.body
        if event is not None and event.kind == "call":
            ctx.update(request=event.request, response=event.response)
        return all(_holds(_lookup(ctx, path), cond, ctx) for path, cond in self.where.items())


@dataclass(frozen=True, slots=True)
class AllowList:
    path: str
    peer: str
    reference: str
    entries: tuple[Entry, ...]

    @classmethod
    def load(cls, path: str | Path) -> AllowList:
        """Read an allow-list file, or a bundled one by name (``librdkafka-mock``)."""
        if not Path(path).exists() and (BUNDLED / f"{path}.json").is_file():
            path = BUNDLED / f"{path}.json"
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise AllowListError(f"cannot read allow-list {path}: {exc}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("entries"), list):
            raise AllowListError(f"{path}: an allow-list is an object with an `entries` list")
        entries = tuple(_entry(e, i) for i, e in enumerate(raw["entries"]))
        ids = [e.id for e in entries]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise AllowListError(f"{path}: duplicate entry ids {dupes}")
        return cls(str(path), str(raw.get("peer", "")), str(raw.get("reference", "")), entries)

    def match(self, finding: Finding, event: Event | None) -> Entry | None:
        for entry in self.entries:
            if entry.matches(finding, event):
                return entry
        return None


def _entry(raw: Any, index: int) -> Entry:
    where = f"entry {index}"
    if not isinstance(raw, dict):
        raise AllowListError(f"{where}: must be an object")
    for key in ("id", "classification", "description", "source", "match"):
        if key not in raw:
            raise AllowListError(f"{where}: missing `{key}`")
    where = f"entry {raw['id']!r}"
    if raw["classification"] not in CLASSIFICATIONS:
        raise AllowListError(f"{where}: classification must be one of {', '.join(CLASSIFICATIONS)}")
    if raw.get("adopt") not in ADOPTIONS:
        raise AllowListError(f"{where}: adopt must be one of {', '.join(str(a) for a in ADOPTIONS)}")
    match = raw["match"]
    if not isinstance(match, dict) or not match.get("kind"):
        raise AllowListError(f"{where}: `match` needs at least a `kind`")
    kinds = match["kind"] if isinstance(match["kind"], list) else [match["kind"]]
    fields = match.get("fields")
    conditions = match.get("where") or {}
    for path, cond in conditions.items():
        if isinstance(cond, dict) and (len(cond) != 1 or next(iter(cond)) not in OPERATORS):
            raise AllowListError(f"{where}: condition on {path} must be a value or one of {', '.join(OPERATORS)}")
    return Entry(str(raw["id"]), raw["classification"], str(raw["description"]), str(raw["source"]),
                 match.get("api"), frozenset(kinds), frozenset(fields) if fields is not None else None,
                 conditions, raw.get("adopt"))


def _lookup(ctx: Mapping[str, Any], path: str) -> Any:
    value: Any = ctx
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _holds(value: Any, cond: Any, ctx: Mapping[str, Any]) -> bool:
    if not isinstance(cond, dict):
        return value is not _MISSING and _same(value, cond)
    (op, arg), = cond.items()
    if op == "present":
        return (value is not _MISSING) == bool(arg)
    if value is _MISSING:
        return False
    if op == "ne":
        return not _same(value, arg)
    if op == "in":
        return any(_same(value, a) for a in arg)
    if op == "samePath":
        other = _lookup(ctx, arg)
        return other is not _MISSING and _same(value, other)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    return bool(value > arg) if op == "gt" else bool(value < arg)


def _same(a: Any, b: Any) -> bool:
    # JSON equality: 1 == 1.0 but True != 1, null only equals null.
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


# --- the peer's target: range over members in join order ---------------------------------

def join_order_range(spec: GroupSpec, order: list[str], partitions: Mapping[str, int]) -> GroupAssignment:
    """librdkafka mock's range target (``..._target_assignment_calculate_range``).

    Members are walked in join order. Per topic, its subscribers (in that order) get
    contiguous ranges of ``P // n`` partitions; a member gets one more when its index among
    *all* members (not among the topic's subscribers) is below ``P % n``, as the mock does.
    """
    out: dict[str, dict[str, frozenset[int]]] = {m: {} for m in order}
    topics = sorted({t for m in order for t in spec.members[m].subscribed_topic_ids})
    for topic_id in topics:
        count = partitions.get(topic_id, -1)
        if count <= 0:
            continue
        subscribers = [m for m in order if topic_id in spec.members[m].subscribed_topic_ids]
        common, one_more = divmod(count, len(subscribers))
        assigned = 0
        for member in subscribers:
            n = common + (1 if order.index(member) < one_more else 0)
            if n:
                out[member][topic_id] = frozenset(range(assigned, assigned + n))
            assigned += n
    return out


def _join_order(coord: Coordinator, spec: GroupSpec) -> list[str]:
    """Members in the order they joined: the model's member table keeps insertion order."""
    known: list[str] = []
    for group in coord.groups.values():
        known = [m for m in group.members if m in spec.members]
    return known + [m for m in spec.members if m not in known]


# --- the checker -----------------------------------------------------------------------------

@dataclass(slots=True)
class Allowed:
    entry: Entry
    finding: Finding

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry.id, "classification": self.entry.classification, **self.finding.to_json()}


@dataclass(slots=True)
class AllowedReport:
    """What the allow-list absorbed, for the report and the summary line."""

    allowlist: AllowList
    allowed: list[Allowed] = field(default_factory=list)

    def counts(self) -> Counter[str]:
        return Counter(a.entry.id for a in self.allowed)

    def to_json(self) -> dict[str, Any]:
        counts = self.counts()
        return {
            "path": self.allowlist.path,
            "entries": [{"id": e.id, "classification": e.classification, "count": counts.get(e.id, 0)}
                        for e in self.allowlist.entries],
            "allowed": [a.to_json() for a in self.allowed],
        }


class AllowingChecker(TraceChecker):
    """:class:`TraceChecker` that moves findings matching the allow-list aside and adopts
    the peer's state where an allowed entry says how (see the module docstring)."""

    def __init__(self, path: str, report: Report, allowed: AllowedReport, **options: Any) -> None:
        super().__init__(path, report, **options)
        self.allowed = allowed
        self._current: Event | None = None
        self.moves.hold_errors = False  # a peer's coordinator errors are judged call by call
        self.moves.load.enabled = False  # and its moves replayed at their first call (findings are judged per item)
        self._first_finding = len(report.findings)  # this checker's findings follow (--merge: of every input)
        self._pending: list[Finding] = []  # target departures seen while computing
        # While an item is fed: the checker's findings, judged against the list after it (feed).
        self._found: list[tuple[GroupSession | None, Finding]] | None = None
        self._last_heartbeat: dict[tuple[str, str], float] = {}
        self._session_timeout: int | None = None  # Kafka's, before widening for the peer
        # How the checker follows the peer: fixed by the list, so decided once, not per event.
        self._adopts = frozenset(e.adopt for e in allowed.allowlist.entries if e.adopt is not None)
        self._peer_choices: dict[str, Choices] = {}  # group id -> the peer's target, as a choice

    def choices(self, g: GroupSession) -> Choices:
        return self._peer_choices.get(g.summary.group_id, NO_CHOICES)

    def group(self, group_id: str, gtype: str, *, from_describe: bool = False) -> GroupSession:
        if self._session_timeout is None and "peer-session-expiry" in self._adopts:
            self._session_timeout = int(self.configs.get(SESSION_TIMEOUT, 45000))
            self.configs[SESSION_TIMEOUT] = self._session_timeout + PEER_SESSION_SLACK_MS
        g = super().group(group_id, gtype, from_describe=from_describe)
        # once a consumer group (a group first named by a describe may become one later)
        if g.summary.type == "consumer" and group_id not in self._peer_choices \
                and "target:join-order-range" in self._adopts:
            self._peer_choices[group_id] = Choices(target=self._peer_target(g.coord, group_id))
        return g

    def _peer_target(self, coord: Coordinator, group_id: str) -> TargetChoice:
        def override(spec: GroupSpec, assignor: str, computed: GroupAssignment) -> GroupAssignment:
            order = _join_order(coord, spec)
            counts = {t: coord.topics.num_partitions(t) for m in order for t in spec.members[m].subscribed_topic_ids}
            peer = join_order_range(spec, order, counts)
            ours = {m: {t: p for t, p in a.items() if p} for m, a in computed.items()}
            theirs = {m: {t: p for t, p in a.items() if p} for m, a in peer.items()}
            if ours != theirs and self._current is not None:
                names = self.topics.names_by_id()
                self._pending.append(Finding(
                    self.path, self._current.line, group_id, "response-mismatch",
                    f"target assignment: Kafka's {assignor} assignor gives "
                    f"{_render(ours, names)}; the peer's range over members in join order gives "
                    f"{_render(theirs, names)}", "target", _render(ours, names), _render(theirs, names)))
            return peer
        return override

    def finding(self, g: GroupSession | None, finding: Finding) -> None:
        if self._found is None:  # not feeding (finish): listed as any checker's
            super().finding(g, finding)
        else:  # judged against the list once the item is fed (``feed``)
            self._found.append((g, finding))

    def feed(self, item: ReadItem) -> None:
        self._current = item if isinstance(item, Event) else None
        self._pending.clear()
        before = self._member_record()
        found: list[tuple[GroupSession | None, Finding]] = []
        self._found = found
        try:
            super().feed(item)
        finally:
            self._found = None
        # The checker's findings go through ``TraceChecker.finding`` (counted, capped per group)
        # only if the list does not allow them; the peer's own (expiry, target) are listed as they are.
        new: list[tuple[GroupSession | None, Finding, bool]] = [(g, f, True) for g, f in found]
        event = self._current
        if event is not None and event.kind == "call" and event.api_key == CONSUMER_GROUP_HEARTBEAT \
                and "peer-session-expiry" in self._adopts:  # only a peer's expiry reads it
            self._last_heartbeat[(event.group_id or "", str(event.request.get("memberId")))] = float(event.ts_ms or 0)
        expired = event.body.get("peerSessionTimeout") if event is not None and event.kind == "tick" else None
        if isinstance(expired, dict) and self._session_timeout is not None:
            new.extend((None, f, False) for f in self._peer_expiry(
                event, str(expired.get("groupId")), str(expired.get("memberId"))))
        # Dry runs may compute the same target twice: keep one departure per line and group.
        seen: set[tuple[str | None, str]] = set()
        for f in self._pending:
            key = (f.group_id, json.dumps(f.observed, sort_keys=True, default=str))
            if key not in seen:
                seen.add(key)
                new.append((None, f, False))
        fence: set[tuple[str, str]] = set()
        keep = False
        for g, f, checked in new:
            entry = self.allowed.allowlist.match(f, self._current)
            if entry is None:
                if checked:
                    super().finding(g, f)
                else:
                    self.report.findings.append(f)
                continue
            self.allowed.allowed.append(Allowed(entry, f))
            if checked:  # an allowed departure still marks its line and group, but is not counted
                self.mark(g, f)
            if entry.adopt == "fence-member" and self._current is not None and f.group_id:
                fence.add((f.group_id, str(self._current.request.get("memberId") or "")))
            keep = keep or entry.adopt == "keep-member-epoch"
        if keep and before is not None:
            before[0].coord.replay(before[1])
        for gid, member_id in sorted(fence):
            self._fence(gid, member_id)

    def _peer_expiry(self, event: Event | None, group_id: str, member_id: str) -> list[Finding]:
        """The peer expired this member's session: report when Kafka would have, then fence it."""
        g = self.groups.get(group_id)
        if g is not None and g.clock_seq != self.clock_seq:
            self.catch_up(g)  # the tick moved the cluster clock, not (lazily) the group's
        group = g.coord.groups.get(group_id) if g is not None else None
        if event is None or group is None or member_id not in group.members or self._session_timeout is None:
            return []
        last = self._last_heartbeat.get((group_id, member_id))
        deadline = None if last is None else last + self._session_timeout
        self._fence(group_id, member_id)
        return [Finding(self.path, event.line, group_id, "response-mismatch",
                        f"the peer expired member {member_id}'s session at {event.ts_ms}; Kafka expires it "
                        f"{self._session_timeout} ms after its last heartbeat, at {deadline}",
                        "sessionExpiryMs", deadline, event.ts_ms)]

    def _member_record(self) -> tuple[GroupSession, Any] | None:
        """The calling member's assignment record before the call (for ``keep-member-epoch``)."""
        event = self._current
        if (event is None or event.kind != "call" or event.api_key != CONSUMER_GROUP_HEARTBEAT
                or "keep-member-epoch" not in self._adopts):
            return None
        gid, mid = event.group_id, event.request.get("memberId")
        g = self.groups.get(gid or "")
        group = g.coord.groups.get(gid or "") if g is not None else None
        member = group.members.get(mid) if group is not None and isinstance(mid, str) else None
        if g is None or group is None or member is None:
            return None
        return g, rec.current_assignment_record(group.group_id, member, g.coord.profile)

    def _fence(self, group_id: str, member_id: str) -> None:
        """The peer removed the member: so does the model (a leave writes Kafka's fencing records)."""
        g = self.groups.get(group_id)
        group = g.coord.groups.get(group_id) if g is not None else None
        if g is None or group is None or member_id not in group.members or self._current is None:
            return
        g.coord.handle(CONSUMER_GROUP_HEARTBEAT, 1, {
            "groupId": group_id, "memberId": member_id, "memberEpoch": -1, "instanceId": None, "rackId": None,
            "rebalanceTimeoutMs": -1, "subscribedTopicNames": None, "subscribedTopicRegex": None,
            "serverAssignor": None, "topicPartitions": None}, now=int(self._current.ts_ms or 0),
            choices=self.choices(g))
        g.pinned.pop(member_id, None)

    def finish(self) -> None:
        super().finish()
        failing = {f.group_id for f in self.report.findings[self._first_finding:]
                   if f.kind not in ("malformed", "unsupported")}
        for g in self.groups.values():
            g.summary.diverged = g.summary.group_id in failing


def _render(assignment: GroupAssignment, names: Mapping[str, str]) -> dict[str, Any]:
    return {m: format_set(frozenset((t, p) for t, ps in a.items() for p in ps), dict(names))
            for m, a in sorted(assignment.items())}
