"""``kgspec check``: replay traces against the model and report where they depart.

This module is the router. Each group is checked on its own, in file order, against its own
:class:`~kgspec.model.coordinator.Coordinator` in a :class:`~kgspec.conformance.session.GroupSession`
(topic metadata is one shared image; a topic event reaches only the groups it concerns, a tick
only the groups with something due). The router reads the header, keeps the topics and
the clock, creates sessions, caps the findings per group, and hands each call or record to the
checks of its protocol: ``consumer.py``, ``streams.py``, ``classic.py``, ``connect.py``,
``describes.py``, ``listing.py`` and ``records.py``. Every check runs the same loop: the model
decides (``Coordinator.decide``, with the legal choices the trace shows), the decision is
compared with the trace (``compare.py``, pure), and the decision is committed.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kgspec.conformance.classic import CLASSIC_API_NAMES, CLASSIC_APIS, ClassicChecks
from kgspec.conformance.compare import streams_request_problem
from kgspec.conformance.connect import CONNECT_API_NAMES, ConnectChecks
from kgspec.conformance.consumer import ConsumerChecks, request_problem
from kgspec.conformance.describes import DESCRIBES, DescribeChecks
from kgspec.conformance.events import Event, Malformed, ReadItem, Skipped
from kgspec.conformance.findings import (
    EVENTS,
    MALFORMED,
    SKIPPED,
    Finding,
    GroupSummary,
    InputSummary,
    Report,
)
from kgspec.conformance.group_configs import GROUP_CONFIG_APIS, GroupConfigChecks
from kgspec.conformance.listing import ListingChecks
from kgspec.conformance.moves import CoordinatorMoves
from kgspec.conformance.offsets import OFFSET_APIS, OffsetChecks
from kgspec.conformance.records import RecordChecks
from kgspec.conformance.session import (
    MAX_FINDINGS_PER_GROUP,
    MAX_MEMBERS_PER_GROUP,
    GroupSession,
    num,
    ts_of,
)
from kgspec.conformance.shapes import MESSAGES, call_shape_problem
from kgspec.conformance.streams import StreamsChecks
from kgspec.model.apis import (
    API_KEYS_BY_NAME,
    CONSUMER_GROUP_HEARTBEAT,
    LIST_GROUPS,
    STREAMS_GROUP_HEARTBEAT,
    versions_for,
)
from kgspec.model.assignors.api import PartitionAssignor
from kgspec.model.classic.apis import HEARTBEAT as CLASSIC_HEARTBEAT
from kgspec.model.config import startup_problem, unknown_config_names
from kgspec.model.coordinator import Coordinator, TimerStorm
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.offsets.groups import arm_expiry_since
from kgspec.model.profiles import DEFAULT_PROFILE, PROFILES, get_profile
from kgspec.model.step import NO_CHOICES, Choices
from kgspec.model.streams.task_api import TaskAssignor
from kgspec.model.topics import MAX_PARTITIONS, TopicsImage

__all__ = ["API_NAMES", "DESCRIBES", "TraceChecker", "api_of", "check_items"]

# The heartbeats compared here (the describes, listings and classic calls have their own paths);
# their versions come from the one table (model/apis.py).
HEARTBEATS = frozenset({CONSUMER_GROUP_HEARTBEAT, STREAMS_GROUP_HEARTBEAT})
API_NAMES = {**API_KEYS_BY_NAME, **CLASSIC_API_NAMES}


def api_of(call: Event) -> int | None:
    """A call's API key: its number, or the key of the name it gives (None: neither known).
    (``feed`` inlines this on its hot path.)"""
    return call.api_key if call.api_key is not None else API_NAMES.get(call.api_name or "")


class TraceChecker:
    """Checks one trace file; feed it items in order, then call :meth:`finish`."""

    def __init__(self, path: str, report: Report, *, profile: str | None = None,
                 configs: dict[str, Any] | None = None, clients: bool = False,
                 mutants: Mutants = NONE, steady_cache: bool = True,
                 assignors: dict[str, PartitionAssignor] | None = None,
                 task_assignors: dict[str, TaskAssignor] | None = None) -> None:
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
        self.assignors = assignors  # registered assignors (kgspec.plugins), None: the built-ins
        self.task_assignors = task_assignors
        self.steady_hits = 0  # heartbeats answered from the cache (tests check it is exercised)
        self.groups: dict[str, GroupSession] = {}
        # Topic metadata is the broker's: one image shared by every group's model.
        self.topics = TopicsImage()
        self._by_follow_key: list[GroupSession] = []  # the image's follower keys -> sessions
        # Cluster events (topics, ticks) move one clock; a group's own clock catches up with it
        # when the group is next touched (advance). Groups with a timer or a parked call due are
        # woken at the cluster event itself, from a heap of (deadline, creation order, group id).
        self.clock: float | None = None  # the last cluster event's time
        self.clock_seq = 0  # how many cluster events moved the clock
        self.loaded_at: int | None = None  # the last coordinatorFailover tick: the offsets' cleanup keeps its phase
        self.high: float | None = None  # the latest time any group's clock has reached
        self._wakes: list[tuple[float, int, str]] = []
        self._first = True
        self.classic = ClassicChecks(self)  # classic calls, parked responses (conformance/classic.py)
        self.connect = ConnectChecks(self)  # the Connect draft's calls and records (conformance/connect.py)
        self.listing = ListingChecks(self)  # ListGroups (conformance/listing.py)
        self.consumer = ConsumerChecks(self)  # ConsumerGroupHeartbeat (conformance/consumer.py)
        self._steady_hit = self.consumer.steady_hit  # bound once: feed asks it for most heartbeats
        self._classic_hit = self.classic.steady_hit  # classic Heartbeats likewise (conformance/classic_steady.py)
        self.streams = StreamsChecks(self)  # StreamsGroupHeartbeat (conformance/streams.py)
        self.describes = DescribeChecks(self)  # the three describes (conformance/describes.py)
        self.records = RecordChecks(self)  # coordinator records (conformance/records.py)
        self.offsets = OffsetChecks(self)  # OffsetCommit, OffsetFetch (conformance/offsets.py)
        self.moves = CoordinatorMoves(self)  # coordinator moves in broker logs (conformance/moves.py)
        self._trials = self.moves.load.trials  # moves whose load time is being adopted (conformance/load_time.py)
        # Sees each finding first (kgspec check: adds the event's context, streams it, applies
        # --group/--since/--first); False drops the finding, as if never found.
        self.listener: Callable[[GroupSession | None, Finding], bool] | None = None
        self.group_configs = GroupConfigChecks(self)  # GROUP resources' configs (conformance/group_configs.py)

    # --- feeding -------------------------------------------------------------------------

    def feed_all(self, items: Iterable[ReadItem]) -> None:
        feed = self.feed
        for item in items:
            feed(item)

    def feed(self, item: ReadItem) -> None:
        if self._trials:
            self.moves.load.before(item)
        if type(item) is Event and not self._first:
            kind = item.kind
            if kind == "call" or kind == "record":  # the common cases first
                counts = self.input
                if not item.same_line:  # InputSummary.open(item.line, EVENTS), inline
                    counts.lines += 1
                    counts.events += 1
                    counts.line = item.line
                    counts.bucket = EVENTS
                elif counts.bucket == SKIPPED:
                    counts.join(EVENTS)
                if kind == "record":
                    self.records.record(item)
                    return
                api = item.api_key
                if api is None:
                    api = API_NAMES.get(item.api_name or "")
                if api == CONSUMER_GROUP_HEARTBEAT and self.steady_cache:
                    gid = item.request.get("groupId")
                    cached = self.groups.get(gid) if type(gid) is str else None
                    if cached is not None and cached.steady and self._steady_hit(cached, item):
                        return
                elif api == CLASSIC_HEARTBEAT and self.steady_cache:
                    gid = item.request.get("groupId")
                    cached = self.groups.get(gid) if type(gid) is str else None
                    if cached is not None and self._classic_hit(cached, item):
                        return
                self._call(item, api)
                return
        bucket = MALFORMED if isinstance(item, Malformed) else SKIPPED if isinstance(item, Skipped) else EVENTS
        if not getattr(item, "same_line", False):  # several events may share one input line
            self.input.open(item.line, bucket)
        else:
            self.input.join(bucket)
        first, self._first = self._first, False
        if isinstance(item, Malformed):
            self.finding(None, Finding(self.path, item.line, None, "malformed", item.message, item.field))
            return
        if isinstance(item, Skipped):
            return
        kind = item.kind
        if self.moves.held and (kind == "tick" or kind == "topic"):
            self.moves.settle()
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
            self.records.record(item)

    def finish(self) -> None:
        self.moves.settle()
        self.input.line = -1  # what is found from here on moves no line between buckets
        for gid, g in self.groups.items():
            if g.clock_seq != self.clock_seq:
                self.catch_up(g)
            self.classic.finish(g)
            if g.saw_records and g.expected_records:
                line, record = g.expected_records[0]
                self.finding(g, Finding(
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
                self.finding(None, Finding(self.path, event.line, None, "unsupported",
                                            f"profile {profile!r} is not modelled (known: {', '.join(sorted(PROFILES))})",
                                            "header.profile"))
            else:
                self.profile = profile
        configs = body.get("configs") or {}
        unknown = unknown_config_names(configs, self.profile)
        given = unknown_config_names(self.configs, self.profile)  # --config, now the profile is known
        if given:
            self.finding(None, Finding(self.path, event.line, None, "unsupported",
                                        f"--config not modelled under {self.profile}: {', '.join(given)}",
                                        "header.profile"))
            for name in given:
                del self.configs[name]
        if unknown:
            self.finding(None, Finding(self.path, event.line, None, "unsupported",
                                        f"configs not modelled: {', '.join(unknown)}", "header.configs"))
        known = {k: v for k, v in configs.items() if k not in unknown}
        problem = startup_problem({**self.configs, **known}, get_profile(self.profile).assignment_batching)
        if problem is not None:  # checking goes on with the configs as given
            self.finding(None, Finding(self.path, event.line, None, "unsupported",
                                        f"Kafka refuses to start with these configs: {problem[1]}",
                                        f"header.configs.{problem[0]}"))
        self.configs.update(known)

    def _topic(self, event: Event) -> None:
        body = event.body
        name = body["name"]
        deleted = bool(body.get("deleted"))
        if not deleted and int(body["partitions"]) > MAX_PARTITIONS:
            self.finding(None, Finding(self.path, event.line, None, "unsupported",
                                        f"topic {name} has {body['partitions']} partitions: beyond the "
                                        f"model's bound of {MAX_PARTITIONS} (the event is ignored)", "topic.partitions"))
            return
        ts = ts_of(event)
        timely = self._cluster_time(ts, event.line)
        image = self.topics
        if deleted:
            info = image.delete(name)
            if info is None:
                return
            new_topic = False
        else:
            topic_id, partitions = body["topicId"], int(body["partitions"])
            previous = image.upsert(name, topic_id, partitions)
            if previous is not None and previous.partitions == partitions and previous.topic_id == topic_id:
                return
            new_topic = previous is None
        # onMetadataUpdate: only the groups subscribed to the topic (or, for a new topic, with a
        # regex it may match) are told; the others' models would do nothing with it.
        sessions = self._by_follow_key
        for key, _ in image.concerned(name, new_topic):
            g = sessions[key]
            if timely:
                self.advance(g, ts, event.line)
            g.generation += 1
            g.coord.topics_changed({name}, new_topic)
            self._rewake(g)

    def _tick(self, event: Event) -> None:
        ts = ts_of(event)
        failover = bool(event.body.get("coordinatorFailover"))  # an extension of the tick event
        if not self._cluster_time(ts, event.line) or not failover:
            return
        self.loaded_at = int(ts)
        for g in self.groups.values():  # a new coordinator loads every group
            self.advance(g, ts, event.line)
            g.generation += 1
            g.coord.failover(int(ts))
            self._rewake(g)

    def _cluster_time(self, ts: float, line: int) -> bool:
        """A cluster event (topic, tick) at ``ts``: the groups with something due by then are
        advanced (in creation order, before the event changes anything) and the clock moves;
        False (one finding for the line) when some group's clock is already past ``ts``."""
        high = self.high
        if high is not None and ts < high:
            self.finding(None, Finding(self.path, line, None, "malformed",
                                        f"time goes backwards: tsMs {num(ts)} after {num(high)} "
                                        "(the event's time is ignored)", "tsMs"))
            return False
        wakes = self._wakes
        if wakes and wakes[0][0] <= ts:
            groups = self.groups
            due: list[GroupSession] = []
            while wakes and wakes[0][0] <= ts:
                deadline, _, gid = heapq.heappop(wakes)
                g = groups[gid]
                if g.wake == deadline:  # the group's live entry (others are stale)
                    g.wake = None
                    due.append(g)
            due.sort(key=lambda s: s.order)
            for g in due:
                self.advance(g, ts, line)
                self._rewake(g)
        self.clock = ts
        self.clock_seq += 1
        if self.groups:
            self.high = ts
        return True

    def wake(self, g: GroupSession, deadline: float) -> None:
        """Something of ``g``'s is due at ``deadline`` (a timer, a parked call): queue the group."""
        if g.wake is None or deadline < g.wake:
            g.wake = deadline
            wakes = self._wakes
            heapq.heappush(wakes, (deadline, g.order, g.summary.group_id))
            if len(wakes) > 4 * len(self.groups) + 64:  # stale entries: keep memory O(groups)
                self._wakes = [(s.wake, s.order, gid) for gid, s in self.groups.items() if s.wake is not None]
                heapq.heapify(self._wakes)

    def _rewake(self, g: GroupSession) -> None:
        """Queue ``g`` under its earliest deadline after it was advanced or changed."""
        earliest = g.coord.timers.earliest()
        if earliest is not None:
            self.wake(g, earliest)
        parked = self.classic.earliest(g)
        if parked is not None:
            self.wake(g, parked)

    def group(self, group_id: str, gtype: str, *, from_describe: bool = False) -> GroupSession:
        g = self.groups.get(group_id)
        if g is None:
            coord = Coordinator(self.profile, self.configs, self.mutants, topics=self.topics,
                                assignors=self.assignors, task_assignors=self.task_assignors)
            g = GroupSession(coord, GroupSummary(group_id, gtype), typed_by_describe=from_describe,
                             order=len(self.groups), clock_seq=self.clock_seq)
            self.groups[group_id] = g
            key = coord.follow_topics()
            assert key == len(self._by_follow_key)
            self._by_follow_key.append(g)
            coord.watch_timers(lambda deadline: self.wake(g, deadline))
            if self.loaded_at is not None:  # a group first seen after a load: the cleanup runs for it too
                arm_expiry_since(coord, self.loaded_at, int(self.clock or self.loaded_at))
        elif g.typed_by_describe and not from_describe:
            g.summary.type = gtype
            g.typed_by_describe = False
        return g

    def catch_up(self, g: GroupSession) -> None:
        """Bring the group's clock to the cluster events since it was last touched (nothing of
        its was due by then, or it would have been woken: only the clock moves)."""
        g.clock_seq = self.clock_seq
        clock = self.clock
        if clock is not None and (g.last_ts is None or g.last_ts < clock):
            g.last_ts = clock
            if g.coord.now < clock:
                g.coord.now = int(clock)

    def clock_to(self, g: GroupSession, ts: float) -> None:
        """Move the group's clock to ``ts`` when nothing of its is due (``advance`` without the
        timers): what a steady cache's answer does between two calls."""
        g.last_ts = ts
        if self.high is None or ts > self.high:
            self.high = ts
        g.coord.now = int(ts)

    def answered_from_cache(self, g: GroupSession, ts: float) -> None:
        """What a call a steady cache answered leaves behind, as the full path would: one event of
        the group, its last call (where ``moves.py`` starts a move's window), the hit counted."""
        g.summary.events += 1
        g.saw_calls = True
        g.last_call = ts
        self.steady_hits += 1

    def advance(self, g: GroupSession, ts: float, line: int) -> bool:
        """Move the group's clock; False (and a finding) when time goes backwards."""
        if g.clock_seq != self.clock_seq:
            self.catch_up(g)
        if g.last_ts is not None and ts < g.last_ts:
            self.finding(g, Finding(self.path, line, g.summary.group_id, "malformed",
                                     f"time goes backwards for group {g.summary.group_id}: "
                                     f"tsMs {num(ts)} after {num(g.last_ts)}", "tsMs"))
            return False
        if g.retired:
            return False
        if g.last_ts is None and ts < g.coord.now:  # the group's first event: any epoch, negative too
            g.coord.now = int(ts)
        g.last_ts = ts
        if self.high is None or ts > self.high:
            self.high = ts
        # A group that has seen classic calls (online migration too) may hold parked responses.
        try:
            firings = self.classic.advance(g, int(ts)) if g.summary.group_id in self.classic.groups \
                else g.coord.advance(int(ts))
        except TimerStorm as exc:  # a documented limit (docs/checking.md): the group is not followed further
            g.retire()
            self.finding(g, Finding(self.path, line, g.summary.group_id, "unsupported",
                                    f"the model cannot follow group {g.summary.group_id} further ({exc}); "
                                    "its later events are not checked", "tsMs"))
            return False
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
            gid = event.group_id  # a property: read once
            if gid is not None and gid in self.groups:
                self.bound_members(self.groups[gid], event.line)
        except (AttributeError, TypeError, KeyError, ValueError):
            version = event.api_version if event.api_version is not None else 1
            connect = api is None and event.api_name in CONNECT_API_NAMES
            problem = call_shape_problem(self.profile, event.api_name if connect else api, version,
                                         event.request, event.response)
            field_name: str | None
            if problem is not None:
                field_name, message = problem
            elif connect:
                # Outside profile kip the draft's schemas are not read: name what failed instead.
                exc = sys.exc_info()[1]
                field_name = None
                message = f"the {event.api_name} call has a value of the wrong type ({type(exc).__name__}: {exc})"
            else:
                raise
            g = self.groups.get(event.group_id) if event.group_id is not None else None
            self.finding(g, Finding(self.path, event.line, event.group_id, "malformed", message, field_name))

    def bound_members(self, g: GroupSession, line: int) -> None:
        """A documented limit (docs/checking.md): a group of more than ``MAX_MEMBERS_PER_GROUP``
        members is not followed further (the model's cost per event grows with the group)."""
        gid = g.summary.group_id
        members = g.coord.member_count(gid)
        if members > MAX_MEMBERS_PER_GROUP and not g.retired:
            g.retire()
            self.finding(g, Finding(self.path, line, gid, "unsupported",
                                    f"group {gid} has {members} members, more than the checker follows "
                                    f"({MAX_MEMBERS_PER_GROUP}); its later events are not checked", "memberId"))

    def _compare_call(self, event: Event, api: int | None) -> None:
        gid = event.group_id
        if api is not None and api in DESCRIBES:
            self.describes.describe(event, api)
            return
        if api == LIST_GROUPS:
            self.listing.handle(event)
            return
        if api in OFFSET_APIS:  # OffsetFetch v8+ names several groups
            self.offsets.handle(event, api)
            return
        if api in GROUP_CONFIG_APIS:  # IncrementalAlterConfigs, DescribeConfigs: any resources
            self.group_configs.handle(event, api)
            return
        if gid is None:
            if (api is not None and api in MESSAGES) or event.api_name in CONNECT_API_NAMES:
                self.finding(None, Finding(self.path, event.line, None, "malformed",
                                            "request has no string `groupId`", "request.groupId"))
            else:  # an API of several groups or none (OffsetFetch's batch, DeleteGroups, ...)
                name = event.api_name or f"API {api}"
                self.finding(None, Finding(self.path, event.line, None, "unsupported",
                                            f"{name} calls are not modelled yet", "requestHeader.requestApiKey"))
            return
        if self.moves.call(event, api, gid):
            return
        if api is None and event.api_name in CONNECT_API_NAMES:
            g = self.group(gid, "connect")
            g.summary.events += 1
            self.connect.handle(g, event, event.api_name)
            return
        g = self.group(gid, "streams" if api == STREAMS_GROUP_HEARTBEAT else
                        "classic" if api in CLASSIC_APIS else "consumer")
        g.summary.events += 1
        if api in CLASSIC_APIS:
            # The classic model keeps request fields (instance ids, protocols) for later calls: a
            # mistyped one must not reach it. (Consumer and streams requests are checked below.)
            version = event.api_version if event.api_version is not None else 0
            problem = call_shape_problem(self.profile, api, version, event.request, None, every_field=True)
            if problem is not None:
                self.finding(g, Finding(self.path, event.line, gid, "malformed", problem[1], problem[0]))
                return
            self.classic.handle(g, event, api)
            return
        if api not in HEARTBEATS:
            name = MESSAGES.get(api or -1, event.api_name or f"API {api}")
            g.summary.incomplete = True
            self.finding(g, Finding(self.path, event.line, gid, "unsupported",
                                     f"{name} calls are not modelled yet", "requestHeader.requestApiKey"))
            return
        version = event.api_version if event.api_version is not None else 1
        low, high = versions_for(get_profile(self.profile))[api]
        if not low <= version <= high:
            g.summary.incomplete = True
            self.finding(g, Finding(self.path, event.line, gid, "unsupported",
                                     f"{MESSAGES[api]} v{version} is not modelled (v{low}-v{high})",
                                     "requestHeader.requestApiVersion"))
            return
        if api == STREAMS_GROUP_HEARTBEAT:
            problem = streams_request_problem(event.request)
        else:
            problem = request_problem(event.request)
        if problem is None:  # a value the schema refuses (Infinity for an int32, ...) never reaches the model
            problem = call_shape_problem(self.profile, api, version, event.request, None)
        if problem is not None:
            self.finding(g, Finding(self.path, event.line, gid, "malformed", problem[1], problem[0]))
            return
        if not self.advance(g, ts_of(event), event.line):
            return
        g.saw_calls = True
        if api == STREAMS_GROUP_HEARTBEAT:
            self.streams.heartbeat(g, event, version)
            return
        self.consumer.heartbeat(g, event, version)

    def choices(self, g: GroupSession) -> Choices:
        """The legal choices the checker makes for a group's calls by default (none; a peer's
        allow-list may choose its targets)."""
        return NO_CHOICES

    def finding(self, g: GroupSession | None, finding: Finding) -> None:
        """Report a finding: it marks its line and group (``mark``) and is listed, up to
        ``MAX_FINDINGS_PER_GROUP`` per group. A group whose load time is being adopted holds it."""
        if self._trials and g is not None and self.moves.load.hold(g, finding):
            return
        if self.listener is not None and not self.listener(g, finding):
            return
        self.mark(g, finding)
        if g is not None:
            g.findings += 1
            if g.findings > MAX_FINDINGS_PER_GROUP:
                return
            if g.findings == MAX_FINDINGS_PER_GROUP:
                finding.message += f" (further findings for this group are not listed; limit {MAX_FINDINGS_PER_GROUP})"
        self.report.add(finding)

    def mark(self, g: GroupSession | None, finding: Finding) -> None:
        """What a finding says of its line (a malformed one is no event) and of its group's
        verdict, whether it is listed or not."""
        if finding.kind == "malformed" and finding.line == self.input.line:
            self.input.join(MALFORMED)  # the checker found the line malformed: it is no event
        if g is not None:
            if finding.kind in ("malformed", "unsupported"):
                g.summary.incomplete = True
            else:
                g.summary.diverged = True


def check_items(path: str, items: Iterator[ReadItem], report: Report, **options: Any) -> None:
    checker = TraceChecker(path, report, **options)
    checker.feed_all(items)
    checker.finish()
