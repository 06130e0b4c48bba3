"""``kgspec check``: replay traces against the model and report where they depart.

Each group is checked on its own, in file order, against its own :class:`Coordinator`
(topic and tick events reach every group). For every call the model computes the
response it would give; the response observed in the trace is compared field by field
(:mod:`kgspec.conformance.compare`). Legal choices the protocol leaves open are adopted
from the trace: a coordinator-generated member id, and a different ``uniform`` target
that still meets the assignor's guarantees. Records in the trace are compared with the
records the model writes; a trace of records alone is replayed and checked against the
invariants, as Kafka's own replay checks them.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Final

from kgspec.conformance.call_invariants import observed_call_problems, observed_epoch_problems
from kgspec.conformance.classic import CLASSIC_API_NAMES, CLASSIC_APIS, ClassicChecks
from kgspec.conformance.compare import (
    Diff,
    check_streams_heartbeat,
    classic_describe_differences,
    describe_differences,
    format_set,
    heartbeat_differences,
    normalize_record_value,
    streams_describe_differences,
    streams_request_problem,
)
from kgspec.conformance.connect import CONNECT_API_NAMES, CONNECT_RECORD_TYPES, ConnectChecks
from kgspec.conformance.connection import client_host
from kgspec.conformance.events import Event, Malformed, ReadItem, Skipped
from kgspec.conformance.findings import Finding, GroupSummary, InputSummary, Report
from kgspec.conformance.invariant_hooks import (
    ObservedTarget,
    member_epoch_values,
    member_epochs,
    member_record_problems,
    record_invariant_problems,
)
from kgspec.conformance.listing import ListingChecks
from kgspec.conformance.retarget import adopt_observed_target
from kgspec.conformance.shapes import MESSAGES, call_shape_problem
from kgspec.invariants.catalogue import NO_DOUBLE_OWNERSHIP, REPLAY
from kgspec.invariants.client import ClientLedger
from kgspec.invariants.streams import ReplayedStateProblems
from kgspec.model.apis import APIS, version_range
from kgspec.model.classic.describe import DESCRIBE_GROUPS
from kgspec.model.config import unknown_config_names
from kgspec.model.consumer import ops as consumer_ops
from kgspec.model.consumer.group import OwnershipConflict
from kgspec.model.consumer.heartbeat import steady_timer_ops
from kgspec.model.consumer.member import STATE_NAMES
from kgspec.model.consumer.records import CONSUMER_RECORD_TYPES, ReplayError
from kgspec.model.coordinator import CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT, Coordinator
from kgspec.model.errors import error_name
from kgspec.model.listing import LIST_GROUPS
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.profiles import DEFAULT_PROFILE, PROFILES, Profile, get_profile
from kgspec.model.record_schemas import key_string_fields
from kgspec.model.records import (
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    GROUP_METADATA,
    Record,
)
from kgspec.model.step import NO_CHOICES, Choices
from kgspec.model.streams.ops import STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT
from kgspec.model.streams.records import STREAMS_RECORD_TYPES
from kgspec.model.timers import Timer

# The heartbeats compared here (the describes, listings and classic calls have their own paths);
# their versions come from the one table (model/apis.py).
HEARTBEATS = frozenset({CONSUMER_GROUP_HEARTBEAT, STREAMS_GROUP_HEARTBEAT})
API_NAMES = {"CONSUMER_GROUP_HEARTBEAT": CONSUMER_GROUP_HEARTBEAT, "CONSUMER_GROUP_DESCRIBE": CONSUMER_GROUP_DESCRIBE,
             "STREAMS_GROUP_HEARTBEAT": STREAMS_GROUP_HEARTBEAT, "STREAMS_GROUP_DESCRIBE": STREAMS_GROUP_DESCRIBE,
             "DESCRIBE_GROUPS": DESCRIBE_GROUPS, "LIST_GROUPS": LIST_GROUPS, **CLASSIC_API_NAMES}
MAX_FINDINGS_PER_GROUP = 200


def api_of(call: Event) -> int | None:
    """A call's API key: its number, or the key of the name it gives (None: neither known).
    (``feed`` inlines this on its hot path.)"""
    return call.api_key if call.api_key is not None else API_NAMES.get(call.api_name or "")


TARGET_RECORD_TYPES = frozenset({6, 7})  # target-assignment metadata and member
# record type -> the type of group it belongs to (Connect's records aside)
_RECORD_GROUP_TYPES: Final = {**dict.fromkeys(CONSUMER_RECORD_TYPES, "consumer"),
                              **dict.fromkeys(STREAMS_RECORD_TYPES, "streams"), GROUP_METADATA: "classic"}
# record type -> its key's other string fields (the group id is checked first, for every type)
_KEY_STRINGS: Final = {t: key_string_fields(t) for t in _RECORD_GROUP_TYPES}


@dataclass(slots=True)
class _Group:
    coord: Coordinator
    summary: GroupSummary
    last_ts: float | None = None
    expected_records: deque[tuple[int, Record]] = field(default_factory=deque)
    saw_calls: bool = False
    saw_records: bool = False
    findings: int = 0
    # member id -> assignment epoch at which its response was observed (its target is fixed)
    pinned: dict[str, int] = field(default_factory=dict)
    # --clients: what each client was given and has reported (invariants/client.py)
    clients: ClientLedger = field(default_factory=ClientLedger)
    # calls and records: the target the trace's own records build (checked as replay checks it)
    observed_target: ObservedTarget = field(default_factory=ObservedTarget)
    saw_target_metadata: bool = False  # record replay: the coordinator's assignment epoch is known
    # Bumped whenever the group's model may have changed (records applied, timers fired,
    # topics, failover): steady answers cached at an older generation are stale.
    generation: int = 0
    steady: dict[str, _Steady] = field(default_factory=dict)  # member id -> cached steady heartbeat
    streams_state: ReplayedStateProblems = field(default_factory=ReplayedStateProblems)  # record replay
    # Typed by a describe only (an admin call names any type's group): the group's first call
    # or record of its own gives it its type.
    typed_by_describe: bool = False


@dataclass(slots=True)
class _Steady:
    """A steady heartbeat the model answered on its fast path with no records (see _steady_hit)."""

    request: dict[str, Any]
    response: dict[str, Any]
    version: int | None
    client_id: str | None
    connection: str | None
    generation: int
    session_timer: Timer  # what the fast path re-armed, ``delay`` after the call
    delay: int


class TraceChecker:
    """Checks one trace file; feed it items in order, then call :meth:`finish`."""

    def __init__(self, path: str, report: Report, *, profile: str | None = None,
                 configs: dict[str, Any] | None = None, clients: bool = False,
                 mutants: Mutants = NONE, steady_cache: bool = True) -> None:
        self.path = path
        self.report = report
        self.input = InputSummary(path)
        report.inputs.append(self.input)
        self.profile_override = profile
        self.profile = profile or DEFAULT_PROFILE
        self.configs: dict[str, Any] = dict(configs or {})
        self.clients = clients
        self.mutants = mutants
        self.steady_cache = steady_cache
        self.steady_hits = 0  # heartbeats answered from the cache (tests check it is exercised)
        self.groups: dict[str, _Group] = {}
        # Cluster-wide topic state: name -> (topic id, partitions); new groups start from it.
        self.topics: dict[str, tuple[str, int]] = {}
        self.last_tick: float | None = None
        self._first = True
        self.classic = ClassicChecks(self)  # classic calls, parked responses (conformance/classic.py)
        self.connect = ConnectChecks(self)  # the Connect draft's calls and records (conformance/connect.py)
        self.listing = ListingChecks(self)  # ListGroups (conformance/listing.py)

    # --- feeding -------------------------------------------------------------------------

    def feed_all(self, items: Iterable[ReadItem]) -> None:
        feed = self.feed
        for item in items:
            feed(item)

    def feed(self, item: ReadItem) -> None:
        if type(item) is Event and not self._first:
            kind = item.kind
            if kind == "call" or kind == "record":  # the common cases first
                counts = self.input
                if not item.same_line:
                    counts.lines += 1
                counts.events += 1
                if kind == "record":
                    self._record(item)
                    return
                api = item.api_key
                if api is None:
                    api = API_NAMES.get(item.api_name or "")
                if api == CONSUMER_GROUP_HEARTBEAT and self.steady_cache:
                    gid = item.request.get("groupId")
                    cached = self.groups.get(gid) if type(gid) is str else None
                    if cached is not None and cached.steady and self._steady_hit(cached, item):
                        return
                self._call(item, api)
                return
        if not getattr(item, "same_line", False):  # several events may share one input line
            self.input.lines += 1
        first, self._first = self._first, False
        if isinstance(item, Malformed):
            self._finding(None, Finding(self.path, item.line, None, "malformed", item.message, item.field))
            return
        if isinstance(item, Skipped):
            return
        self.input.events += 1
        kind = item.kind
        if kind == "header":
            if first:
                self._header(item)
            return
        if kind == "topic":
            self._topic(item)
        elif kind == "tick":
            self._tick(item)
        elif kind == "call":  # the first item: no group, so no steady answer yet
            self._call(item, api_of(item))
        elif kind == "record":
            self._record(item)

    def finish(self) -> None:
        for gid, g in self.groups.items():
            self.classic.finish(g)
            if g.saw_records and g.expected_records:
                line, record = g.expected_records[0]
                self._finding(g, Finding(
                    self.path, line, gid, "response-mismatch",
                    f"the model writes {record.describe()} (and {len(g.expected_records) - 1} more) "
                    "that the trace does not show", "record", record.to_json(), None))
            self.report.groups.append(g.summary)

    # --- events --------------------------------------------------------------------------------

    def _header(self, event: Event) -> None:
        body = event.body
        profile = body.get("profile", DEFAULT_PROFILE)
        if self.profile_override is None:
            if profile not in PROFILES:
                self._finding(None, Finding(self.path, event.line, None, "unsupported",
                                            f"profile {profile!r} is not modelled (known: {', '.join(sorted(PROFILES))})",
                                            "header.profile"))
            else:
                self.profile = profile
        configs = body.get("configs") or {}
        unknown = unknown_config_names(configs)
        if unknown:
            self._finding(None, Finding(self.path, event.line, None, "unsupported",
                                        f"configs not modelled: {', '.join(unknown)}", "header.configs"))
        self.configs.update({k: v for k, v in configs.items() if k not in unknown})

    def _topic(self, event: Event) -> None:
        body = event.body
        name = body["name"]
        ts = _ts(event)
        for g in self.groups.values():
            self._advance(g, ts, event.line)
        if body.get("deleted"):
            self.topics.pop(name, None)
            for g in self.groups.values():
                g.generation += 1
                g.coord.delete_topic(name)
        else:
            self.topics[name] = (body["topicId"], int(body["partitions"]))
            for g in self.groups.values():
                g.generation += 1
                g.coord.update_topic(name, body["topicId"], int(body["partitions"]))

    def _tick(self, event: Event) -> None:
        ts = _ts(event)
        failover = bool(event.body.get("coordinatorFailover"))  # an extension of the tick event
        for g in self.groups.values():
            if self._advance(g, ts, event.line) and failover:
                g.generation += 1
                g.coord.failover(int(ts))

    def _group(self, group_id: str, gtype: str, *, from_describe: bool = False) -> _Group:
        g = self.groups.get(group_id)
        if g is None:
            coord = Coordinator(self.profile, self.configs, self.mutants)
            for name, (tid, parts) in self.topics.items():
                coord.update_topic(name, tid, parts)
            g = _Group(coord, GroupSummary(group_id, gtype), typed_by_describe=from_describe)
            self.groups[group_id] = g
        elif g.typed_by_describe and not from_describe:
            g.summary.type = gtype
            g.typed_by_describe = False
        return g

    def _advance(self, g: _Group, ts: float, line: int) -> bool:
        """Move the group's clock; False (and a finding) when time goes backwards."""
        if g.last_ts is not None and ts < g.last_ts:
            self._finding(g, Finding(self.path, line, g.summary.group_id, "malformed",
                                     f"time goes backwards for group {g.summary.group_id}: "
                                     f"tsMs {_num(ts)} after {_num(g.last_ts)}", "tsMs"))
            return False
        g.last_ts = ts
        # A group that has seen classic calls (online migration too) may hold parked responses.
        firings = self.classic.advance(g, int(ts)) if g.summary.group_id in self.classic.groups \
            else g.coord.advance(int(ts))
        for firing in firings:
            g.generation += 1
            for record in firing.records:
                g.expected_records.append((line, record))
        return True

    def _call(self, event: Event, api: int | None) -> None:
        """A call the steady cache did not answer (``feed`` asks it first).

        A request or response of the wrong shape (an ``assignment`` that is a list, say) makes
        comparing it fail; the schema then names the field and the call becomes a ``malformed``
        finding. A failure the schema cannot explain is the checker's or the model's, and is raised.
        """
        try:
            self._compare_call(event, api)
        except (AttributeError, TypeError, KeyError, ValueError):
            version = event.api_version if event.api_version is not None else 1
            problem = call_shape_problem(self.profile, api, version, event.request, event.response)
            field_name: str | None
            if problem is not None:
                field_name, message = problem
            elif api is None and event.api_name in CONNECT_API_NAMES:
                # The Connect draft's messages have no schema table: name what failed instead.
                exc = sys.exc_info()[1]
                field_name = None
                message = f"the {event.api_name} call has a value of the wrong type ({type(exc).__name__}: {exc})"
            else:
                raise
            g = self.groups.get(event.group_id) if event.group_id is not None else None
            self._finding(g, Finding(self.path, event.line, event.group_id, "malformed", message, field_name))

    def _compare_call(self, event: Event, api: int | None) -> None:
        gid = event.group_id
        if api is not None and api in DESCRIBES:
            self._describe(event, api)
            return
        if api == LIST_GROUPS:
            self.listing.handle(event)
            return
        if gid is None:
            if (api is not None and api in MESSAGES) or event.api_name in CONNECT_API_NAMES:
                self._finding(None, Finding(self.path, event.line, None, "malformed",
                                            "request has no string `groupId`", "request.groupId"))
            else:  # an API of several groups or none (OffsetFetch's batch, DeleteGroups, ...)
                name = event.api_name or f"API {api}"
                self._finding(None, Finding(self.path, event.line, None, "unsupported",
                                            f"{name} calls are not modelled yet", "requestHeader.requestApiKey"))
            return
        if api is None and event.api_name in CONNECT_API_NAMES:
            g = self._group(gid, "connect")
            g.summary.events += 1
            self.connect.handle(g, event, event.api_name)
            return
        g = self._group(gid, "streams" if api == STREAMS_GROUP_HEARTBEAT else
                        "classic" if api in CLASSIC_APIS else "consumer")
        g.summary.events += 1
        if api in CLASSIC_APIS:
            # The classic model keeps request fields (instance ids, protocols) for later calls: a
            # mistyped one must not reach it. (Consumer and streams requests are checked below.)
            version = event.api_version if event.api_version is not None else 0
            problem = call_shape_problem(self.profile, api, version, event.request, None)
            if problem is not None:
                self._finding(g, Finding(self.path, event.line, gid, "malformed", problem[1], problem[0]))
                return
            self.classic.handle(g, event, api)
            return
        if api not in HEARTBEATS:
            name = MESSAGES.get(api or -1, event.api_name or f"API {api}")
            g.summary.incomplete = True
            self._finding(g, Finding(self.path, event.line, gid, "unsupported",
                                     f"{name} calls are not modelled yet", "requestHeader.requestApiKey"))
            return
        version = event.api_version if event.api_version is not None else 1
        low, high = version_range(api, get_profile(self.profile))
        if not low <= version <= high:
            g.summary.incomplete = True
            self._finding(g, Finding(self.path, event.line, gid, "unsupported",
                                     f"{MESSAGES[api]} v{version} is not modelled (v{low}-v{high})",
                                     "requestHeader.requestApiVersion"))
            return
        if api == STREAMS_GROUP_HEARTBEAT:
            problem = streams_request_problem(event.request)
        else:
            problem = _request_problem(event.request)
        if problem is not None:
            self._finding(g, Finding(self.path, event.line, gid, "malformed", problem[1], problem[0]))
            return
        if not self._advance(g, _ts(event), event.line):
            return
        g.saw_calls = True
        if api == STREAMS_GROUP_HEARTBEAT:
            self._streams_heartbeat(g, event, version)
            return
        self._heartbeat(g, event, version)

    def _choices(self, g: _Group) -> Choices:
        """The legal choices the checker makes for a group's calls by default (none; a peer's
        allow-list may choose its targets)."""
        return NO_CHOICES

    def _steady_hit(self, g: _Group, event: Event) -> bool:
        """Answer a repeated steady heartbeat from the cache; False: take the full path.

        Sound because the model's answer to a heartbeat is a function of the request, the
        API version, the client id and host, the group's state (changed only by records,
        timers, topics and failover, each of which bumps ``generation``) and, on the fast
        path, the clock only through the metadata-refresh deadline, re-read here. A hit does
        what the fast path does: the same response, no records, the session timer re-armed.
        """
        req = event.request
        member_id = req.get("memberId")
        entry = g.steady.get(member_id) if type(member_id) is str else None
        # A request log's repeated calls share their request and response objects (the reader's
        # CallMemo): identity settles those comparisons without walking the dicts.
        if entry is None or entry.generation != g.generation \
                or (req is not entry.request and req != entry.request) \
                or (event.response is not entry.response and event.response != entry.response) \
                or event.api_version != entry.version \
                or event.client_id != entry.client_id or event.connection != entry.connection:
            return False
        ts = event.ts_ms
        last = g.last_ts
        if ts is None or (last is not None and ts < last):
            return False  # the full path reports it
        coord = g.coord
        timers = coord.timers
        now = int(ts)
        if timers.maybe_due(now):
            self._advance(g, ts, event.line)
            if entry.generation != g.generation:
                return False  # timers fired; the full path runs at the same time (advancing again is a no-op)
        else:
            g.last_ts = ts
        coord.now = now
        summary = g.summary
        group = coord.groups.get(summary.group_id)
        if group is None or consumer_ops.metadata_expired(coord, group):
            return False
        timers.schedule(_timer_at(entry.session_timer, now + entry.delay))
        summary.events += 1
        g.saw_calls = True
        self.steady_hits += 1
        if self.clients:
            self._check_client(g, event, event.response)
        return True

    def _remember_steady(self, g: _Group, event: Event, version: int, kwargs: dict[str, Any]) -> None:
        """Cache a heartbeat the model answers on its fast path (checked without side effects)."""
        req = event.request
        member_id = req.get("memberId")
        if not isinstance(member_id, str) or not member_id or req.get("memberEpoch", 0) <= 0 \
                or g.summary.type != "consumer":
            return
        now = kwargs["now"]
        ops = steady_timer_ops(g.coord, req, kwargs["client_id"], kwargs["client_host"], now)
        if ops is None or len(ops) != 1 or ops[0][0] != "schedule" or not isinstance(ops[0][1], Timer):
            return  # not the fast path, or it changed more than the one session timer
        timer = ops[0][1]
        g.steady[member_id] = _Steady(req, event.response, event.api_version, event.client_id, event.connection,
                                      g.generation, timer, timer.deadline_ms - now)

    def _streams_heartbeat(self, g: _Group, event: Event, version: int) -> None:
        g.generation += 1

        for kind, field_name, message, exp, got in check_streams_heartbeat(
                g.coord, g.summary.group_id, g.pinned, event.request, event.response, version,
                int(_ts(event)), event.client_id or "", client_host(event.connection), g.expected_records,
                event.line, classify=not g.summary.diverged):
            self._finding(g, Finding(self.path, event.line, g.summary.group_id, kind, message, field_name, exp, got))

    def _heartbeat(self, g: _Group, event: Event, version: int) -> None:
        coord, req, obs = g.coord, event.request, event.response
        gid = g.summary.group_id
        member_id = req.get("memberId") or ""
        choices = self._choices(g)
        if member_id == "" and obs.get("errorCode", 0) == 0 and isinstance(obs.get("memberId"), str):
            choices = replace(choices, member_id=obs["memberId"])  # coordinator-generated: any id is legal
        kwargs: dict[str, Any] = {"now": int(_ts(event)), "client_id": event.client_id or "",
                                  "client_host": client_host(event.connection)}
        result = coord.decide(CONSUMER_GROUP_HEARTBEAT, version, req, choices=choices, **kwargs)
        assert result.response is not None
        try:
            diffs = heartbeat_differences(result.response, obs)
        except (AttributeError, TypeError, KeyError, ValueError):
            # The trace's copy of the answer is mistyped (``_call`` reports it as malformed); the
            # coordinator did answer, so the model keeps in step with it.
            coord.commit(result)
            if result.records:
                g.generation += 1
            raise
        if diffs and [d[0] for d in diffs] == ["assignment"] and obs.get("errorCode", 0) == 0:
            adopted = adopt_observed_target(coord, g.pinned, gid, req, version, kwargs, result, obs, choices)
            if adopted is not None:
                result, diffs = adopted, []
        before = _member_view(coord, gid, member_id) if diffs else None
        # Only while the group conformed is the model's state the trace's: then name the invariant.
        classify = bool(diffs) and not g.summary.diverged
        broken = observed_call_problems(coord.groups.get(gid), member_id, req, obs) if classify else []
        epochs_before = member_epochs(coord, gid, member_id) if classify else None
        coord.commit(result)
        if result.records:
            g.generation += 1
        elif not diffs and self.steady_cache and version == event.api_version:
            self._remember_steady(g, event, version, kwargs)
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
        if self.clients:
            self._check_client(g, event, response)
        if diffs:
            after = _member_view(coord, gid, mid)
            names = {tid: n for n, (tid, _) in self.topics.items()}
            for name, exp, got in diffs:
                exp_j, got_j = (format_set(exp, names), format_set(got, names)) if name == "assignment" else (exp, got)
                message = _explain(name, exp, got, result.explain, before, after, member_id or mid)
                self._finding(g, Finding(self.path, event.line, gid, "response-mismatch", message, name,
                                         exp_j, got_j, {"before": before, "after": after,
                                                        "why": list(result.explain)}))
            for invariant, message in broken:
                self._finding(g, Finding(self.path, event.line, gid, "invariant", message, invariant))

    def _describe(self, event: Event, api: int) -> None:
        """ConsumerGroupDescribe, StreamsGroupDescribe or DescribeGroups: each named group's
        answer, compared."""
        d = DESCRIBES[api]
        label, differences, show = d.label, d.differences, d.show
        gids = event.request.get(d.ids_field)
        if not isinstance(gids, list) or not all(isinstance(x, str) for x in gids):
            self._finding(None, Finding(self.path, event.line, None, "malformed",
                                        f"`request.{d.ids_field}` must be a list of strings",
                                        f"request.{d.ids_field}"))
            return
        version = d.version(event.api_version, get_profile(self.profile))
        if version is None:
            self._finding(None, Finding(self.path, event.line, None, "unsupported",
                                        f"{label} v{event.api_version} is not modelled "
                                        "(v{}-v{})".format(*version_range(api, get_profile(self.profile))),
                                        "requestHeader.requestApiVersion"))
            return
        ts = _ts(event)
        expected_groups = []
        for gid in gids:
            g = self._group(gid, d.gtype, from_describe=True)
            g.summary.events += 1
            if not self._advance(g, ts, event.line):
                return
            r = g.coord.handle(api, version, {d.ids_field: [gid]}, now=int(ts))
            assert r.response is not None
            expected_groups.extend(r.response["groups"])
        for name, exp, got in differences({"groups": expected_groups}, event.response):
            gid = name.split("[", 1)[1].split("]", 1)[0] if "[" in name else (gids[0] if gids else None)
            if isinstance(exp, frozenset) or isinstance(got, frozenset):
                exp, got = show(exp), show(got)
            self._finding(self.groups.get(gid or ""), Finding(
                self.path, event.line, gid, "response-mismatch", f"{label}: {name} should be {exp!r}, not {got!r}",
                name.split(".")[-1] if "." in name else name, exp, got))

    def _record(self, event: Event) -> None:
        try:
            record = Record.from_json(event.body)
        except ValueError as exc:
            self._finding(None, Finding(self.path, event.line, event.group_id, "malformed", str(exc), "record"))
            return
        key = record.key  # event.group_id, from the parsed key
        gid = key.get("groupId", key.get("group"))
        if not isinstance(gid, str):
            self._finding(None, Finding(self.path, event.line, None, "malformed",
                                        "record key has no groupId", "record.key.data.groupId"))
            return
        if record.type in CONNECT_RECORD_TYPES:
            g = self._group(gid, "connect")
            g.summary.events += 1
            self.connect.record(g, event, record)
            return
        gtype = _RECORD_GROUP_TYPES.get(record.type)
        if gtype is None:
            g = self._group(gid, "consumer")
            g.summary.events += 1
            g.summary.incomplete = True
            self._finding(g, Finding(self.path, event.line, gid, "unsupported",
                                     f"{record.name} records are not modelled yet", "record.key.type"))
            return
        g = self._group(gid, gtype)
        g.summary.events += 1
        for name in _KEY_STRINGS[record.type]:  # the key schema's strings (the invariants sort member ids)
            value = key.get(name)
            if value is not None and type(value) is not str:
                self._finding(g, Finding(self.path, event.line, gid, "malformed", f"record key {name} must be a string",
                                         f"record.key.data.{name}"))
                return
        if not self._advance(g, float(event.ts_ms) if event.ts_ms is not None else 0.0, event.line):  # _ts
            return
        g.saw_records = True
        if g.saw_calls:
            self._compare_record(g, event, record)
        else:
            self._replay_record(g, event, record)

    def _compare_record(self, g: _Group, event: Event, observed: Record) -> None:
        gid = g.summary.group_id
        queue = g.expected_records
        if not queue:
            self._finding(g, Finding(self.path, event.line, gid, "response-mismatch",
                                     f"the trace shows {observed.describe()} but the model writes nothing here",
                                     "record", None, observed.to_json()))
            if observed.type in TARGET_RECORD_TYPES:
                for name, message in g.observed_target.observe(observed):
                    self._finding(g, Finding(self.path, event.line, gid, "invariant", message, name))
            return
        # Kafka writes target-assignment members in HashMap order; match within the run.
        index = 0
        if observed.type == queue[0][1].type and observed.key != queue[0][1].key:
            for i, (_, candidate) in enumerate(queue):
                if candidate.type != observed.type:
                    break
                if candidate.key == observed.key:
                    index = i
                    break
        _, expected = queue[index]
        del queue[index]
        same = (expected.type == observed.type and expected.key == observed.key
                and normalize_record_value(expected.value) == normalize_record_value(observed.value))
        if not same:
            self._finding(g, Finding(self.path, event.line, gid, "response-mismatch",
                                     f"expected {expected.describe()}, the trace shows {observed.describe()}",
                                     "record", expected.to_json(), observed.to_json()))
        if observed.type in TARGET_RECORD_TYPES:
            for name, message in g.observed_target.observe(observed):
                self._finding(g, Finding(self.path, event.line, gid, "invariant", message, name))

    def _replay_record(self, g: _Group, event: Event, record: Record) -> None:
        gid = g.summary.group_id
        rtype = record.type
        member_id = record.key.get("memberId") if rtype == CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT else None
        epochs_before = member_epoch_values(g.coord, gid, member_id) \
            if isinstance(member_id, str) and record.value is not None and g.saw_target_metadata else None
        g.generation += 1
        try:
            g.coord.replay(record)
        except OwnershipConflict as exc:
            self._finding(g, Finding(self.path, event.line, gid, "invariant", str(exc), NO_DOUBLE_OWNERSHIP))
            return
        except (ReplayError, KeyError, TypeError, ValueError) as exc:
            self._finding(g, Finding(self.path, event.line, gid, "invariant",
                                     f"Kafka's replay would reject {record.describe()}: {exc}", REPLAY))
            return
        problems = record_invariant_problems(g.coord, gid, record) \
            if rtype == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA else []  # the only one it checks
        if rtype == GROUP_METADATA:
            problems += self.classic.record(g, record)
        if epochs_before is not None:
            assert isinstance(member_id, str)
            problems += member_record_problems(epochs_before, g.coord, gid, member_id)
        if rtype == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA and record.value is not None:
            g.saw_target_metadata = True
        for name, message in problems:
            self._finding(g, Finding(self.path, event.line, gid, "invariant", message, name))
        if rtype in STREAMS_RECORD_TYPES:
            for name, message in g.streams_state.problems(g.coord.streams_groups.get(gid), record, g.generation):
                self._finding(g, Finding(self.path, event.line, gid, "invariant", message, name))

    def _check_client(self, g: _Group, event: Event, response: dict[str, Any]) -> None:
        """Client-side rules (invariants/client.py), judged on what the trace shows."""
        for p in g.clients.observe(event.request, event.response):
            self._finding(g, Finding(self.path, event.line, g.summary.group_id, "client", p.message,
                                     "topicPartitions", format_set(p.given), format_set(p.reported)))

    def _finding(self, g: _Group | None, finding: Finding) -> None:
        if g is not None:
            if finding.kind in ("malformed", "unsupported"):
                g.summary.incomplete = True
            else:
                g.summary.diverged = True
            g.findings += 1
            if g.findings > MAX_FINDINGS_PER_GROUP:
                return
            if g.findings == MAX_FINDINGS_PER_GROUP:
                finding.message += f" (further findings for this group are not listed; limit {MAX_FINDINGS_PER_GROUP})"
        self.report.findings.append(finding)


def _sorted_tasks(tasks: frozenset[tuple[str, int]] | None) -> list[tuple[str, int]]:
    return sorted(tasks or [])


@dataclass(frozen=True)
class _DescribeApi:
    """How one describe API is checked: the type of a group it creates, its label, how responses
    are compared and a set shown, the request's list of ids, and its versions."""

    gtype: str
    label: str
    differences: Callable[[dict[str, Any], dict[str, Any]], list[Diff]]
    show: Callable[[Any], Any]
    ids_field: str
    api_key: int

    def version(self, observed: int | None, profile: Profile) -> int | None:
        """The version the model answers; None when the trace's is not modelled. A call
        without one is v0, as the classic calls are."""
        version = observed if observed is not None else 0
        return version if APIS[self.api_key].supports(profile, version) else None


# the describe APIs; `kgspec conform` routes a describe to each group its ids field names
DESCRIBES: Final[dict[int, _DescribeApi]] = {
    CONSUMER_GROUP_DESCRIBE: _DescribeApi("consumer", "ConsumerGroupDescribe", describe_differences, format_set,
                                          "groupIds", CONSUMER_GROUP_DESCRIBE),
    STREAMS_GROUP_DESCRIBE: _DescribeApi("streams", "StreamsGroupDescribe", streams_describe_differences,
                                         _sorted_tasks, "groupIds", STREAMS_GROUP_DESCRIBE),
    DESCRIBE_GROUPS: _DescribeApi("classic", "DescribeGroups", classic_describe_differences, lambda x: x,
                                  "groups", DESCRIBE_GROUPS),
}


_SET_TIMER_FIELDS: Final = tuple(getattr(Timer, name).__set__ for name in Timer.__slots__)


def _timer_at(timer: Timer, deadline_ms: int) -> Timer:
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


def _ts(event: Event) -> float:
    return float(event.ts_ms) if event.ts_ms is not None else 0.0


def _num(x: float) -> Any:
    return int(x) if float(x).is_integer() else x


def _request_problem(req: dict[str, Any]) -> tuple[str, str] | None:
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


def _member_view(coord: Coordinator, gid: str, member_id: str) -> dict[str, Any] | None:
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


def _explain(name: str, exp: Any, got: Any, why: list[str], before: dict[str, Any] | None,
             after: dict[str, Any] | None, member_id: str) -> str:
    if name == "errorCode":
        head = f"the coordinator must answer {error_name(exp)} ({exp}), not {error_name(got)} ({got})"
    elif name == "assignment":
        head = f"member {member_id} must be given {format_set(exp)}, not {format_set(got)}"
    else:
        head = f"{name} must be {exp!r}, not {got!r}"
    reasons = [w for w in why if w]
    revoking = after if after is not None and after["state"] == "UNREVOKED_PARTITIONS" else None
    if revoking is not None and name == "memberEpoch":
        reasons.insert(0, f"member {member_id} is still revoking {revoking['pendingRevocation']}, "
                          f"so its epoch must stay {revoking['memberEpoch']}")
    return head + (": " + "; ".join(reasons) if reasons else "")


def check_items(path: str, items: Iterator[ReadItem], report: Report, **options: Any) -> None:
    checker = TraceChecker(path, report, **options)
    checker.feed_all(items)
    checker.finish()
