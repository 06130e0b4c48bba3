"""The coordinator: the state of one ``__consumer_offsets`` partition, a router, and commit.

Sans-IO and deterministic. The ways in are

- :meth:`Coordinator.decide` — what one RPC (API key, version, request, client, time, the
  legal choices) would do, as a value (:class:`~kgspec.model.step.Decision`); nothing changes;
- :meth:`Coordinator.commit` — the one mutation: a decision's records replayed, its timer and
  soft-state operations applied, its effects run;
- :meth:`Coordinator.handle` — decide then commit (the classic calls and the Connect draft's,
  which Kafka applies to in-memory groups as it goes, are handled directly);
- :meth:`Coordinator.advance` — time passes: due timers fire, in order;

plus :meth:`update_topic` / :meth:`delete_topic` / :meth:`topics_changed` for metadata and :meth:`replay` /
:meth:`on_loaded` / :meth:`failover` to load records. Each protocol plugs in through
``model/protocol.py``; the coordinator routes by API, record type and timer kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from kgspec.model.apis import (
    APIS,
    CONSUMER_GROUP_DESCRIBE,
    CONSUMER_GROUP_HEARTBEAT,
    LIST_GROUPS,
    STREAMS_GROUP_DESCRIBE,
    STREAMS_GROUP_HEARTBEAT,
    versions_for,
)
from kgspec.model.assignors import ASSIGNORS
from kgspec.model.assignors.api import PartitionAssignor
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.parked import Completion, Outbox
from kgspec.model.classic.protocol import PROTOCOL as CLASSIC
from kgspec.model.config import Config
from kgspec.model.connect.group import ConnectGroup
from kgspec.model.connect.protocol import PROTOCOL as CONNECT
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.protocol import PROTOCOL as CONSUMER
from kgspec.model.errors import CoordinatorError, require_version
from kgspec.model.group_configs.protocol import PROTOCOL as GROUP_CONFIGS
from kgspec.model.group_configs.values import group_int, group_str
from kgspec.model.hashing import compute_group_hash
from kgspec.model.listing import list_groups
from kgspec.model.member_ids import MemberIdSource, seeded
from kgspec.model.migration.rules import MIGRATION
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.offsets.protocol import PROTOCOL as OFFSETS
from kgspec.model.offsets.store import OffsetStore
from kgspec.model.profiles import Profile, get_profile
from kgspec.model.protocol import Call, GroupProtocol
from kgspec.model.records import Record, ReplayError
from kgspec.model.step import NO_CHOICES, Choices, Decision, Firing, SoftSet
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.protocol import PROTOCOL as STREAMS
from kgspec.model.streams.task_api import TaskAssignor, builtin_task_assignors
from kgspec.model.timers import DeferredTimers, Timer, Timers
from kgspec.model.topics import TopicsImage

__all__ = ["CONSUMER_GROUP_DESCRIBE", "CONSUMER_GROUP_HEARTBEAT", "STREAMS_GROUP_DESCRIBE",
           "STREAMS_GROUP_HEARTBEAT", "Coordinator"]

PROTOCOLS: tuple[GroupProtocol, ...] = (CONSUMER, STREAMS, CLASSIC, CONNECT, OFFSETS, GROUP_CONFIGS)


def _route(what: str, keys: Callable[[GroupProtocol], Iterable[Any]]) -> dict[Any, GroupProtocol]:
    """key -> the one protocol that declares it (a key declared twice is a wiring error)."""
    table: dict[Any, GroupProtocol] = {}
    for protocol in PROTOCOLS:
        for key in keys(protocol):
            if key in table:
                raise ValueError(f"{what} {key!r} is declared by {table[key].name} and {protocol.name}")
            table[key] = protocol
    return table


BY_API = _route("API", lambda p: p.apis)
BY_RECORD = _route("record type", lambda p: p.record_types)
BY_TIMER = _route("timer kind", lambda p: p.timer_kinds)
# A bound on the timers one move of the clock fires: timers that keep re-arming themselves at or
# before the new time (a negative rebalance timeout, say) would otherwise fire for ever.
MAX_FIRINGS_PER_ADVANCE = 20_000


class TimerStorm(RuntimeError):
    """More than ``MAX_FIRINGS_PER_ADVANCE`` timers fired in one move of the clock: the model
    cannot follow the group further (the checker reports it and stops checking the group)."""
_DROP = object()  # a soft value removed in the step being decided
_MISSING = object()  # a soft value the step being decided did not touch


class HeartbeatStep(Protocol):
    """One heartbeat being decided (``ConsumerHeartbeat``, ``StreamsHeartbeat``)."""

    records: list[Record]
    explain: list[str]
    effects: list[Callable[[], None]]

    def run(self) -> dict[str, Any]: ...


class _Scope:
    """The step being decided: its time, its choices and its overlays.

    While :meth:`Coordinator.decide` runs, reads of timers, the clock and soft state go through
    the scope; every change goes into it. The coordinator's own state is never written, so the
    decision is a value and :meth:`Coordinator.commit` the only mutation.
    """

    __slots__ = ("choices", "draws", "now", "shadows", "soft", "soft_values", "timers")

    def __init__(self, real_timers: Timers, now: int, choices: Choices) -> None:
        self.now = now
        self.choices = choices
        self.timers = DeferredTimers(real_timers)
        self.soft: list[SoftSet] = []
        self.soft_values: dict[tuple[str, str], Any] = {}  # (owner, key) -> value set by the step
        self.draws = 0  # ids drawn from the coordinator's member-id source
        # streams group id -> (the registered group, the step's shadow of it)
        self.shadows: dict[str, tuple[StreamsGroup, StreamsGroup]] = {}


class Coordinator:
    def __init__(self, profile: Profile | str | None = None, configs: dict[str, Any] | None = None,
                 mutants: Mutants = NONE, member_ids: MemberIdSource | None = None,
                 assignors: dict[str, PartitionAssignor] | None = None,
                 topics: TopicsImage | None = None,
                 task_assignors: dict[str, TaskAssignor] | None = None) -> None:
        self.profile = profile if isinstance(profile, Profile) else get_profile(profile)
        self.config = Config(configs)
        self.mutants = mutants
        # Server-side assignors by name (group.consumer.assignors picks among them).
        self.assignors: dict[str, PartitionAssignor] = dict(ASSIGNORS) | dict(assignors or {})
        # Streams task assignors by name; Kafka runs the one named "sticky" (model/streams/task_api.py).
        self.task_assignors: dict[str, TaskAssignor] = builtin_task_assignors() | dict(task_assignors or {})
        self.migration = MIGRATION  # the routing rule between protocols (model/migration/rules.py)
        # Topic metadata is the broker's: a checker shares one image among all its groups' models.
        self.topics = topics if topics is not None else TopicsImage()
        self._follow_key: int | None = None  # this coordinator's key in the image's follower index
        # The groups, one namespace across protocols: a group id names one group of one type.
        self.groups: dict[str, ConsumerGroup] = {}
        self.streams_groups: dict[str, StreamsGroup] = {}
        self.classic_groups: dict[str, ClassicGroup] = {}
        self.classic_outbox = Outbox()  # parked JoinGroup/SyncGroup calls (model/classic/parked.py)
        self.classic_log: dict[str, Record] = {}  # each classic group's last GroupMetadata record
        self.connect_groups: dict[str, ConnectGroup] = {}
        self.offsets = OffsetStore()  # committed offsets (model/offsets/), hard state
        # Per-group configs (model/group_configs/): the metadata log's, not __consumer_offsets' —
        # changed by IncrementalAlterConfigs, kept across failovers. group id -> name -> value.
        self.group_configs: dict[str, dict[str, str]] = {}
        self.last_streams_topics_to_create: dict[str, Any] = {}
        self._timer_watch: Callable[[int], None] | None = None
        self._timers = Timers()
        self._now = 0
        self._scope: _Scope | None = None  # set only while decide() runs
        # Soft state (not in records, lost on failover): owner -> key -> value.
        self._soft: dict[str, dict[str, Any]] = {}
        self._member_ids = member_ids or seeded()
        self.member_id_draws = 0  # soft state: how many ids the source has given (commit advances it)
        self.timer_effects: list[Callable[[], None]] = []  # migration effects of the timer firing now
        self._versions = versions_for(self.profile)  # the one version table (model/apis.py)

    # --- the clock, the timers and soft state, read through the step being decided -------------

    @property
    def timers(self) -> Timers:
        scope = self._scope
        return self._timers if scope is None else scope.timers

    @timers.setter
    def timers(self, timers: Timers) -> None:
        timers.watch = self._timer_watch
        self._timers = timers

    def watch_timers(self, watch: Callable[[int], None] | None) -> None:
        """Be told each deadline that becomes this coordinator's earliest (across failovers)."""
        self._timer_watch = watch
        self._timers.watch = watch

    @property
    def now(self) -> int:
        scope = self._scope
        return self._now if scope is None else scope.now

    @now.setter
    def now(self, now: int) -> None:
        self._now = now

    @property
    def choices(self) -> Choices:
        """The choices of the step being decided (none outside a step)."""
        scope = self._scope
        return NO_CHOICES if scope is None else scope.choices

    def soft_get(self, owner: str, key: str, default: Any = None) -> Any:
        scope = self._scope
        if scope is not None:
            value = scope.soft_values.get((owner, key), _MISSING)
            if value is not _MISSING:
                return default if value is _DROP else value
        return self._soft.get(owner, {}).get(key, default)

    def soft_set(self, owner: str, key: str, value: Any) -> None:
        self._soft_write(SoftSet(owner, key, "set", value))

    def soft_drop(self, owner: str, key: str) -> None:
        self._soft_write(SoftSet(owner, key, "drop", None))

    def _soft_write(self, op: SoftSet) -> None:
        """Outside a step, at once; inside one, into the scope (read back by ``soft_get``) and
        the decision (applied by ``commit``, through the same ``_apply_soft``)."""
        scope = self._scope
        if scope is None:
            self._apply_soft(op)
            return
        scope.soft_values[(op.owner, op.group_id)] = _DROP if op.name == "drop" else op.value
        scope.soft.append(op)

    # --- one call ------------------------------------------------------------------------------

    def decide(self, api_key: int, api_version: int, request: dict[str, Any], *, now: int,
               client_id: str = "", client_host: str = "/127.0.0.1",
               choices: Choices = NO_CHOICES) -> Decision:
        """What the coordinator would do with one RPC at time ``now``; changes nothing.

        Pure: deciding twice from the same state gives equal decisions. Timers due by ``now``
        must have been fired with :meth:`advance`. The calls a protocol applies as it goes
        (classic JoinGroup, SyncGroup, Heartbeat, LeaveGroup) are only handled (:meth:`handle`).
        """
        versions = self._versions.get(api_key)
        if versions is None:
            raise ValueError(f"API key {api_key} is not modelled")
        if not versions[0] <= api_version <= versions[1]:
            require_version(api_key, api_version, versions)  # raises, naming the range
        protocol = BY_API.get(api_key)
        if protocol is not None and api_key in protocol.applied_as_they_go:
            raise ValueError(f"{APIS[api_key].label} changes the group in memory, as Kafka's does: use handle()")
        call = Call(api_key, api_version, request, now, client_id, client_host, choices)
        scope = self._enter(now, choices)
        try:
            decision = self._decide(protocol, call)
        finally:
            self._scope = None
        return self._sealed(decision, scope)

    def timer_ops_of(self, now: int, run: Callable[[], dict[str, Any] | None]
                     ) -> tuple[dict[str, Any] | None, list[tuple[str, Timer | str]]]:
        """``run``'s response and timer operations, decided in a step scope (the checker's steady
        fast path: a step that may change timers and nothing else, which is asserted)."""
        scope = self._enter(now, NO_CHOICES)
        try:
            response = run()
        finally:
            self._scope = None
        if scope.soft or scope.shadows or scope.draws:
            raise AssertionError("a steady heartbeat changed more than its timers")
        return response, scope.timers.ops

    def _enter(self, now: int, choices: Choices) -> _Scope:
        if self._scope is not None:
            raise RuntimeError("decide() is not re-entrant")
        scope = self._scope = _Scope(self._timers, now, choices)
        return scope

    @staticmethod
    def _sealed(decision: Decision, scope: _Scope) -> Decision:
        """The decision with what its step did beside records: timers, soft state, ids drawn."""
        decision.timer_ops = scope.timers.ops
        if scope.soft:
            decision.soft.extend(scope.soft)
        if scope.shadows:
            decision.soft.extend(_shadow_changes(scope))
        decision.member_ids_drawn = scope.draws
        return decision

    def _decide(self, protocol: GroupProtocol | None, call: Call) -> Decision:
        if protocol is None:  # the router's own API: ListGroups reads every protocol's groups
            assert call.api_key == LIST_GROUPS
            return Decision(list_groups(self, call.request, call.version))
        return protocol.decide(self, call)

    def handle(self, api_key: int | str, api_version: int, request: dict[str, Any], *, now: int,
               client_id: str = "", client_host: str = "/127.0.0.1",
               choices: Choices = NO_CHOICES) -> Decision:
        """One RPC at time ``now``: :meth:`decide`, then :meth:`commit`; a call its protocol
        applies as it goes goes to the protocol's ``handle``."""
        protocol = BY_API.get(api_key)
        if protocol is not None and api_key in protocol.applied_as_they_go:
            self._now = now
            return protocol.handle(self, Call(api_key, api_version, request, now, client_id, client_host, choices))
        if not isinstance(api_key, int):
            raise ValueError(f"API {api_key} is not modelled")
        decision = self.decide(api_key, api_version, request, now=now, client_id=client_id,
                               client_host=client_host, choices=choices)
        self.commit(decision)
        return decision

    def run_step(self, step: HeartbeatStep, check: Callable[[], None],
                 error_response: Callable[[CoordinatorError], dict[str, Any]]) -> Decision:
        """Validate and run one heartbeat (consumer or streams) into a decision.

        On an error nothing is written, but the effects still run at commit: parked classic
        calls failed by an online upgrade stay failed (futures are not rolled back).
        """
        try:
            check()
            response = step.run()
        except CoordinatorError as exc:
            return Decision(error_response(exc), [], [*step.explain, exc.message or ""], exc,
                            effects=step.effects)
        return Decision(response, step.records, step.explain, effects=step.effects)

    def commit(self, decision: Decision) -> None:
        """The one mutation: apply a decision's soft-state changes, records, timer changes, effects."""
        if decision.committed:
            raise ValueError("a decision is committed once")
        decision.committed = True
        # Soft state first: Kafka's handler changes it while it runs, before its records replay.
        for op in decision.soft:
            self._apply_soft(op)
        self.apply(decision.records)
        DeferredTimers.commit_to(self._timers, decision.timer_ops)
        self.member_id_draws += decision.member_ids_drawn
        for effect in decision.effects:
            effect()

    def _apply_soft(self, op: SoftSet) -> None:
        if op.owner == "streams-group":
            group = self.streams_groups.get(op.group_id)
            if group is not None:  # gone with its records: its soft state goes too
                setattr(group, op.name, op.value)
        elif op.owner == "coordinator":
            setattr(self, op.name, op.value)
        elif op.name == "drop":
            self._soft.get(op.owner, {}).pop(op.group_id, None)
        else:
            self._soft.setdefault(op.owner, {})[op.group_id] = op.value

    # --- the step's own copies of soft state ---------------------------------------------------

    def shadow_streams_group(self, group: StreamsGroup) -> StreamsGroup:
        """The step's own copy of a registered streams group's soft state (see ``_Scope``):
        hard state is shared (only records change it), soft fields are the step's."""
        scope = self._scope
        if scope is None or self.streams_groups.get(group.group_id) is not group:
            return group  # outside a step, or a transient group (its soft state is lost anyway)
        entry = scope.shadows.get(group.group_id)
        if entry is None:
            entry = scope.shadows[group.group_id] = (group, group.shadow())
        return entry[1]

    def is_registered_streams_group(self, group: StreamsGroup) -> bool:
        """Whether ``group`` (or the group it shadows in this step) is in ``streams_groups``."""
        registered = self.streams_groups.get(group.group_id)
        if registered is group:
            return True
        scope = self._scope
        entry = scope.shadows.get(group.group_id) if scope is not None else None
        return entry is not None and entry[1] is group and registered is entry[0]

    def new_member_id(self) -> str:
        """A member id the coordinator generates: the step's choice, else the next draw of the
        deterministic source (the draw count moves on only when the decision is committed)."""
        scope = self._scope
        if scope is None:  # a classic call or a timer: applied as it goes
            member_id = self._member_ids(self.member_id_draws)
            self.member_id_draws += 1
            return member_id
        if scope.choices.member_id is not None:
            return scope.choices.member_id
        member_id = self._member_ids(self.member_id_draws + scope.draws)
        scope.draws += 1
        return member_id

    def group_config_int(self, group_id: str, broker_name: str) -> int:
        """The broker config ``broker_name`` as group ``group_id`` sees it: from its group configs
        when it has any, else the broker's (``GroupMetadataManager.consumerGroupSessionTimeoutMs(groupId)``
        & co; model/group_configs/values.py)."""
        return group_int(self.group_configs.get(group_id), broker_name, self.config, self.profile)

    def group_config_str(self, group_id: str, broker_name: str) -> str:
        """The string broker config ``broker_name`` as group ``group_id`` sees it ("" when unset):
        kip's group-level ``streams.assignor.name`` over the broker's ``group.streams.assignor.name``."""
        return group_str(self.group_configs.get(group_id), broker_name, self.config, self.profile)

    def offsets_owner(self, group_id: str) -> GroupProtocol | None:
        """The protocol that owns ``group_id`` (one namespace across protocols), which validates
        its offset calls; None: no group has the id (a simple group, or none, model/offsets/)."""
        if group_id in self.groups:
            return CONSUMER
        if group_id in self.streams_groups:
            return STREAMS
        if group_id in self.classic_groups:
            return CLASSIC
        if group_id in self.connect_groups:
            return CONNECT
        return None

    def member_count(self, group_id: str) -> int:
        """Members of ``group_id`` whatever its type (0: no such group)."""
        for groups in (self.groups, self.streams_groups, self.classic_groups, self.connect_groups):
            group = groups.get(group_id)
            if group is not None:
                return len(group.members)
        return 0

    # --- time ----------------------------------------------------------------------------------

    def advance(self, now: int) -> list[Firing]:
        """Move the clock to ``now``; fire every timer due by then, earliest first."""
        if self._scope is not None:
            raise RuntimeError("time does not move while a step is decided")
        if now < self._now:
            raise ValueError(f"time went backwards: {now} < {self._now}")
        firings: list[Firing] = []
        timers = self._timers
        if not timers.maybe_due(now):  # the common step: nothing due, no generator to run
            self._now = now
            return firings
        for timer in timers.pop_due(now):
            if len(firings) >= MAX_FIRINGS_PER_ADVANCE:
                raise TimerStorm(f"more than {MAX_FIRINGS_PER_ADVANCE} timers fire by {now} "
                                 f"(the last: {timer.kind} at {timer.deadline_ms})")
            self._now = timer.deadline_ms
            protocol = BY_TIMER.get(timer.kind)
            if protocol is None:
                raise ValueError(f"unknown timer kind {timer.kind}")
            records, explain = protocol.fire(self, timer)
            self.apply(records)
            effects, self.timer_effects = self.timer_effects, []
            for effect in effects:
                effect()
            firings.append(Firing(timer, records, explain))
        self._now = now
        return firings

    def take_completed(self) -> list[Completion]:
        """Parked classic responses completed since the last call, in completion order."""
        return self.classic_outbox.drain()

    # --- records and loading -------------------------------------------------------------------

    def apply(self, records: Iterable[Record]) -> None:
        for record in records:
            self.replay(record)

    def replay(self, record: Record) -> None:
        protocol = BY_RECORD.get(record.type)
        if protocol is None:
            raise ReplayError(f"record type {record.type} ({record.name}) is not modelled yet")
        protocol.replay(self, record)
        if self._follow_key is not None:  # subscriptions change only through records
            self.topics.touched(self._follow_key)

    def on_loaded(self, now: int) -> None:
        """After a replay (failover): re-arm timers as ``GroupMetadataManager.onLoaded`` does."""
        self.now = now
        for protocol in PROTOCOLS:
            protocol.on_loaded(self, now)

    def failover(self, now: int) -> None:
        """A new coordinator takes over: hard state is what the records rebuilt (unchanged);
        soft state is lost (timers, metadata-refresh deadlines) and timers are re-armed from
        load time by :meth:`on_loaded`."""
        self._timers = Timers(self._timer_watch)
        self._soft.clear()
        for protocol in PROTOCOLS:
            protocol.unload(self, now)
        self.on_loaded(now)

    # --- topics --------------------------------------------------------------------------------

    def update_topic(self, name: str, topic_id: str, partitions: int) -> None:
        """A topic created or changed in this coordinator's own image (a shared image is changed
        once by its owner, which then calls :meth:`topics_changed` on the coordinators concerned)."""
        previous = self.topics.upsert(name, topic_id, partitions)
        if previous is None or previous.partitions != partitions or previous.topic_id != topic_id:
            self.topics_changed({name}, new_topic=previous is None)

    def delete_topic(self, name: str) -> None:
        if self.topics.delete(name) is not None:
            self.topics_changed({name}, new_topic=False)

    def topics_changed(self, names: set[str], new_topic: bool) -> None:
        """``onMetadataUpdate``: topics ``names`` changed in the image (``new_topic``: created)."""
        for protocol in PROTOCOLS:
            protocol.metadata_changed(self, names, new_topic)

    def follow_topics(self) -> int:
        """Register in the image's follower index, so that a change of a shared image reaches
        this coordinator only when it concerns one of its groups (``TopicsImage.concerned``)."""
        if self._follow_key is None:
            self._follow_key = self.topics.follow(self)
        return self._follow_key

    def followed_topics(self) -> tuple[set[str], bool]:
        """The topic names this coordinator's groups follow, and whether any has a regex."""
        names: set[str] = set()
        regex = False
        for protocol in PROTOCOLS:
            more, has_regex = protocol.followed_topics(self)
            names |= more
            regex = regex or has_regex
        return names, regex

    def metadata_hash(self, names: Iterable[str]) -> int:
        """``ModernGroup.computeMetadataHash``: XXH3 over the hashes of existing topics."""
        hashes: dict[str, int] = {}
        topic_hash = self.topics.topic_hash
        for name in names:
            value = topic_hash(name)
            if value is not None:
                hashes[name] = value
        return compute_group_hash(hashes)

    # --- comparison ----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "groups": {gid: g.snapshot() for gid, g in sorted(self.groups.items())},
            "streamsGroups": {gid: g.snapshot() for gid, g in sorted(self.streams_groups.items())},
            "classicGroups": {gid: g.snapshot() for gid, g in sorted(self.classic_groups.items())},
            "connectGroups": {gid: g.snapshot() for gid, g in sorted(self.connect_groups.items())},
            "offsets": self.offsets.snapshot(),
            "timers": self.timers.snapshot(),
        }


def _shadow_changes(scope: _Scope) -> list[SoftSet]:
    """The soft fields a step changed on its shadows of registered streams groups."""
    changes: list[SoftSet] = []
    for gid, (group, shadow) in scope.shadows.items():
        for name in StreamsGroup.SOFT_FIELDS:
            value, old = getattr(shadow, name), getattr(group, name)
            if value is not old and (type(value) is not dict or value != old):
                changes.append(SoftSet("streams-group", gid, name, value))
    return changes
