"""The coordinator model: every group of one ``__consumer_offsets`` partition, topics and timers.

Sans-IO and deterministic. The two ways in are

- :meth:`Coordinator.handle` — one RPC (API key, version, request dict, client id and
  host) at time ``now``: returns the response dict and the records written;
- :meth:`Coordinator.advance` — time passes: due timers fire, in order, and return
  what they wrote.

plus :meth:`Coordinator.update_topic` / :meth:`Coordinator.delete_topic` for metadata and
:meth:`Coordinator.replay` to load records (a failover). Like Kafka's runtime, every
record a handler returns is applied through :meth:`replay`; handlers never change hard
state directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from kgspec.model import timers
from kgspec.model.apis import APIS, version_range
from kgspec.model.assignors import ASSIGNORS, PartitionAssignorError
from kgspec.model.assignors.api import GroupSpec, MemberSpec, PartitionAssignor
from kgspec.model.assignors.subscription import subscription_type
from kgspec.model.classic import ops as classic_ops
from kgspec.model.classic.describe import DESCRIBE_GROUPS, describe_groups
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.parked import Completion, Outbox
from kgspec.model.classic.step import CLASSIC_TIMER_KINDS
from kgspec.model.config import INT_MAX, Config
from kgspec.model.connect import ops as connect_ops
from kgspec.model.connect.group import ConnectGroup
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.describe import describe_consumer_groups
from kgspec.model.consumer.group import ConsumerGroup, ResolvedRegex
from kgspec.model.consumer.heartbeat import ConsumerHeartbeat, subscribed_topic_ids, validate
from kgspec.model.consumer.member import UNREVOKED_PARTITIONS, ConsumerMember
from kgspec.model.errors import CoordinatorError, Errors, require_version
from kgspec.model.hashing import compute_group_hash, compute_topic_hash
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.listing import LIST_GROUPS, list_groups
from kgspec.model.member_ids import MemberIdSource, seeded
from kgspec.model.migration import downgrade, upgrade
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.profiles import Profile, get_profile
from kgspec.model.records import GROUP_METADATA, Record
from kgspec.model.step import NO_CHOICES, Choices, Decision, Firing, SoftSet
from kgspec.model.streams import ops as streams_ops
from kgspec.model.streams import records as streams_rec
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.timers import DeferredTimers, Timer, Timers
from kgspec.model.topic_regex import InvalidTopicRegex, compile_topic_regex
from kgspec.model.topics import TopicsImage

CONSUMER_GROUP_HEARTBEAT = 68
CONSUMER_GROUP_DESCRIBE = 69

STREAMS_GROUP_HEARTBEAT = streams_ops.STREAMS_GROUP_HEARTBEAT
STREAMS_GROUP_DESCRIBE = streams_ops.STREAMS_GROUP_DESCRIBE

class HeartbeatStep(Protocol):
    """One heartbeat being handled (``ConsumerHeartbeat``, ``StreamsHeartbeat``)."""

    records: list[Record]
    explain: list[str]
    effects: list[Callable[[], None]]

    def run(self) -> dict[str, Any]: ...


def _error_response(error: CoordinatorError) -> dict[str, Any]:
    """A ConsumerGroupHeartbeat's error response."""
    return {"errorCode": int(error.error), "errorMessage": error.message, "memberId": None,
            "memberEpoch": 0, "heartbeatIntervalMs": 0, "assignment": None}


class _Scope:
    """The step being decided: its time, its choices and its overlays.

    While :meth:`Coordinator.decide` runs, reads of timers, the clock and soft state go through
    the scope; every change goes into it. The coordinator's own state is never written, so the
    decision is a value and :meth:`Coordinator.commit` the only mutation.
    """

    __slots__ = ("choices", "draws", "now", "refresh", "shadows", "soft", "timers")

    def __init__(self, real_timers: Timers, now: int, choices: Choices) -> None:
        self.now = now
        self.choices = choices
        self.timers = DeferredTimers(real_timers)
        self.soft: list[SoftSet] = []
        self.refresh: dict[str, tuple[int, int]] = {}  # consumer refresh deadlines set by the step
        self.draws = 0  # ids drawn from the coordinator's member-id source
        # streams group id -> (the registered group, the step's shadow of it)
        self.shadows: dict[str, tuple[StreamsGroup, StreamsGroup]] = {}


class Coordinator:
    def __init__(self, profile: Profile | str | None = None, configs: dict[str, Any] | None = None,
                 mutants: Mutants = NONE, member_ids: MemberIdSource | None = None,
                 assignors: dict[str, PartitionAssignor] | None = None) -> None:
        self.profile = profile if isinstance(profile, Profile) else get_profile(profile)
        self.config = Config(configs)
        self.mutants = mutants
        # Server-side assignors by name (group.consumer.assignors picks among them).
        self.assignors: dict[str, PartitionAssignor] = dict(ASSIGNORS) | dict(assignors or {})
        self.topics = TopicsImage()
        self.groups: dict[str, ConsumerGroup] = {}
        # Streams groups (KIP-1071); one namespace with ``groups`` (see model/streams/ops.py).
        self.streams_groups: dict[str, StreamsGroup] = {}
        # Classic groups (model/classic/ops.py) and their parked JoinGroup/SyncGroup calls.
        self.classic_groups: dict[str, ClassicGroup] = {}
        self.classic_outbox = Outbox()
        self.classic_log: dict[str, Record] = {}  # each classic group's last GroupMetadata record
        # Connect groups (the Connect draft, profile kip; model/connect/ops.py).
        self.connect_groups: dict[str, ConnectGroup] = {}
        self.last_streams_topics_to_create: dict[str, Any] = {}
        self._timers = Timers()
        self._now = 0
        self._scope: _Scope | None = None  # set only while decide() runs
        self._topic_hash_cache: dict[str, int] = {}
        # Soft state (not in records): metadata refresh deadlines (deadline, epoch) per group.
        self._refresh_deadline: dict[str, tuple[int, int]] = {}
        self._member_ids = member_ids or seeded()
        self.member_id_draws = 0  # soft state: how many ids the source has given (commit advances it)
        self._timer_effects: list[Callable[[], None]] = []  # migration effects of fired timers

    # --- the clock and the timers, read through the step being decided ----------------------

    @property
    def timers(self) -> Timers:
        scope = self._scope
        return self._timers if scope is None else scope.timers

    @timers.setter
    def timers(self, timers: Timers) -> None:
        self._timers = timers

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

    # --- public API -------------------------------------------------------------------

    def decide(self, api_key: int, api_version: int, request: dict[str, Any], *, now: int,
               client_id: str = "", client_host: str = "/127.0.0.1",
               choices: Choices = NO_CHOICES) -> Decision:
        """What the coordinator would do with one RPC at time ``now``; changes nothing.

        Pure: deciding twice from the same state gives equal decisions. Timers due by ``now``
        must have been fired with :meth:`advance`. Classic and Connect calls change their groups
        in memory as they go (as Kafka's classic groups do) and are only handled (:meth:`handle`).
        """
        if api_key in classic_ops.CLASSIC_APIS:
            raise ValueError("classic calls change the group in memory, as Kafka's do: use handle()")
        if self._scope is not None:
            raise RuntimeError("decide() is not re-entrant")
        scope = self._scope = _Scope(self._timers, now, choices)
        try:
            decision = self._decide(api_key, api_version, request, now, client_id, client_host)
        finally:
            self._scope = None
        decision.timer_ops = scope.timers.ops
        decision.soft.extend(scope.soft)
        decision.soft.extend(_shadow_changes(scope))
        decision.member_ids_drawn = scope.draws
        return decision

    def decide_with(self, now: int, run: Callable[[], dict[str, Any] | None],
                    choices: Choices = NO_CHOICES) -> Decision:
        """Run ``run`` (a handler's entry point returning its response) in a step scope: the
        decision of a part of a step (the checker's steady fast path asks for one)."""
        if self._scope is not None:
            raise RuntimeError("decide() is not re-entrant")
        scope = self._scope = _Scope(self._timers, now, choices)
        try:
            response = run()
        finally:
            self._scope = None
        return Decision(response, timer_ops=scope.timers.ops, soft=list(scope.soft),
                        member_ids_drawn=scope.draws)

    def handle(self, api_key: int | str, api_version: int, request: dict[str, Any], *, now: int,
               client_id: str = "", client_host: str = "/127.0.0.1", apply: bool = True,
               choices: Choices = NO_CHOICES) -> Decision:
        """One RPC at time ``now``: :meth:`decide`, then :meth:`commit` (``apply=False``: decide only)."""
        if isinstance(api_key, str):  # an API without a Kafka key, by name: the Connect draft's
            if not apply:
                raise ValueError("Connect calls apply their records as they go: no dry run")
            self._now = now
            connect: Decision = connect_ops.handle(self, api_key, api_version, request, now, client_id, client_host,
                                                   Decision)
            return connect
        if api_key in classic_ops.CLASSIC_APIS:
            if not apply:
                raise ValueError("classic calls change the group in memory, as Kafka's do: no dry run")
            self._now = now
            return classic_ops.handle(self, api_key, api_version, request, now, client_id, client_host, Decision,
                                      choices.member_id)
        decision = self.decide(api_key, api_version, request, now=now, client_id=client_id,
                               client_host=client_host, choices=choices)
        if apply:
            self.commit(decision)
        return decision

    def commit(self, decision: Decision) -> None:
        """The one mutation: apply a decision's records, timer and soft-state changes, effects."""
        if decision.committed:
            raise ValueError("a decision is committed once")
        decision.committed = True
        self.apply(decision.records)
        DeferredTimers.commit_to(self._timers, decision.timer_ops)
        for op in decision.soft:
            self._apply_soft(op)
        self.member_id_draws += decision.member_ids_drawn
        for effect in decision.effects:
            effect()

    def _apply_soft(self, op: SoftSet) -> None:
        if op.owner == "consumer-refresh":
            self._refresh_deadline[op.group_id] = op.value
        elif op.owner == "streams-group":
            group = self.streams_groups.get(op.group_id)
            if group is not None:  # gone with its records: its soft state goes too
                setattr(group, op.name, op.value)
        elif op.owner == "coordinator":
            setattr(self, op.name, op.value)
        else:
            raise ValueError(f"unknown soft state owner {op.owner!r}")

    def _decide(self, api_key: int, api_version: int, request: dict[str, Any], now: int,
                client_id: str, client_host: str) -> Decision:
        if api_key not in APIS:
            raise ValueError(f"API key {api_key} is not modelled")
        require_version(api_key, api_version, version_range(api_key, self.profile))
        if api_key == CONSUMER_GROUP_HEARTBEAT:
            return self.run_step(ConsumerHeartbeat(self, request, client_id, client_host, now),
                                 lambda: validate(request, api_version, self.config.assignors()),
                                 _error_response)
        if api_key == CONSUMER_GROUP_DESCRIBE:
            return Decision(describe_consumer_groups(self, request, api_version))
        if api_key == DESCRIBE_GROUPS:
            return Decision(describe_groups(self, request, api_version))
        if api_key == LIST_GROUPS:
            return Decision(list_groups(self, request, api_version))
        if api_key in (STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE):
            decision: Decision = streams_ops.handle(self, api_key, request, now, client_id, client_host,
                                                    api_version)
            return decision
        raise ValueError(f"API key {api_key} is not modelled")

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

    def advance(self, now: int) -> list[Firing]:
        """Move the clock to ``now``; fire every timer due by then, earliest first."""
        if now < self.now:
            raise ValueError(f"time went backwards: {now} < {self.now}")
        firings: list[Firing] = []
        if not self.timers.maybe_due(now):  # the common step: nothing due, no generator to run
            self.now = now
            return firings
        for timer in self.timers.pop_due(now):
            self.now = timer.deadline_ms
            records, explain = self._fire(timer)
            self.apply(records)
            effects, self._timer_effects = self._timer_effects, []
            for effect in effects:
                effect()
            firings.append(Firing(timer, records, explain))
        self.now = now
        return firings

    def take_completed(self) -> list[Completion]:
        """Parked classic responses completed since the last call, in completion order."""
        return self.classic_outbox.drain()

    def apply(self, records: Iterable[Record]) -> None:
        for record in records:
            self.replay(record)

    def replay(self, record: Record) -> None:
        if record.type == GROUP_METADATA:
            classic_ops.replay(self, record)
        elif record.type in rec.CONSUMER_RECORD_TYPES:
            if self.streams_groups and record.key.get("groupId") in self.streams_groups:
                raise rec.ReplayError(f"Group {record.key.get('groupId')} is not a consumer group.")
            rec.replay(self.groups, record, self._new_group, self.profile)
        elif record.type in streams_rec.STREAMS_RECORD_TYPES:
            # getOrMaybeCreatePersistedStreamsGroup: another type is an IllegalStateException.
            if record.key.get("groupId") in self.groups or (
                    record.value is not None and record.key.get("groupId") in self.classic_groups):
                raise rec.ReplayError(f"Group {record.key.get('groupId')} is not a streams group.")
            streams_rec.replay(self.streams_groups, record, lambda gid: streams_ops.new_group(self, gid))
        elif record.type in connect_ops.CONNECT_RECORD_TYPES:
            connect_ops.replay(self, record)
        else:
            raise rec.ReplayError(f"record type {record.type} ({record.name}) is not modelled yet")

    def on_loaded(self, now: int) -> None:
        """After a replay (failover): re-arm timers as ``GroupMetadataManager.onLoaded`` does."""
        self.now = now
        for gid, group in self.groups.items():
            for member in group.members.values():
                self.schedule_consumer_session_timeout(gid, member.member_id, now)
                if member.state == UNREVOKED_PARTITIONS:
                    self.schedule_consumer_rebalance_timeout(gid, member, now)
        streams_ops.on_loaded(self, now)
        classic_ops.on_loaded(self, now)
        connect_ops.on_loaded(self, now)

    def failover(self, now: int) -> None:
        """A new coordinator takes over: hard state is what the records rebuilt (unchanged);
        soft state is lost (timers, metadata-refresh deadlines) and timers are re-armed from
        load time by :meth:`on_loaded`."""
        self._timers = Timers()
        self._refresh_deadline.clear()
        classic_ops.unload(self, now)
        self.on_loaded(now)

    def update_topic(self, name: str, topic_id: str, partitions: int) -> None:
        previous = self.topics.upsert(name, topic_id, partitions)
        if previous is None or previous.partitions != partitions or previous.topic_id != topic_id:
            self._topic_hash_cache.pop(name, None)
            self._metadata_changed({name}, new_topic=previous is None)

    def delete_topic(self, name: str) -> None:
        if self.topics.delete(name) is not None:
            self._topic_hash_cache.pop(name, None)
            self._metadata_changed({name}, new_topic=False)

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

    # --- helpers used by the handlers -------------------------------------------------

    def _new_group(self, group_id: str) -> ConsumerGroup:
        return ConsumerGroup(group_id, self.profile.new_group_initial_epoch, self.mutants)

    def consumer_group_or_throw(self, group_id: str) -> ConsumerGroup:
        if group_id in self.streams_groups:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        group = self.groups.get(group_id)
        if group is None:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
        return group

    def consumer_group_for_heartbeat(self, group_id: str, create: bool, records: list[Record],
                                     effects: list[Callable[[], None]] | None = None) -> ConsumerGroup:
        if group_id in self.streams_groups:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        classic = self.classic_groups.get(group_id)
        if classic is not None:  # online upgrade (model/migration/upgrade.py)
            return upgrade.group_for_heartbeat(self, classic, create, records,
                                               effects if effects is not None else [], self.now)
        group = self.groups.get(group_id)
        if group is None:
            if not create:
                raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
            return self._new_group(group_id)  # enters self.groups when its records are replayed
        return group

    def forget_consumer_group(self, group_id: str) -> None:
        """Soft state of a consumer group that is gone (a new group of that id starts afresh)."""
        self._refresh_deadline.pop(group_id, None)

    def consumer_metadata_expired(self, group: ConsumerGroup) -> bool:
        scope = self._scope
        gid = group.group_id
        if scope is not None and gid in scope.refresh:
            deadline, epoch = scope.refresh[gid]
            return scope.now >= deadline or group.group_epoch != epoch
        deadline, epoch = self._refresh_deadline.get(gid, (0, 0))
        return self.now >= deadline or group.group_epoch != epoch

    def consumer_subscribed_topic_names(self, group: ConsumerGroup,
                                        replace: tuple[ConsumerMember, ConsumerMember] | None = None,
                                        without: Iterable[str] = ()) -> set[str]:
        """Topic names the group subscribes to, by name or through resolved regexes."""
        removed = set(without)
        names: set[str] = set()
        regexes: set[str] = set()
        members = [m for mid, m in group.members.items() if mid not in removed]
        if replace is not None:
            old, new = replace
            members = [m for m in members if m.member_id != old.member_id]
            if new.instance_id is not None:
                prev = group.static_members.get(new.instance_id)
                members = [m for m in members if m.member_id != prev]
            members.append(new)
        for m in members:
            names.update(m.subscribed_topic_names)
            if m.subscribed_topic_regex:
                regexes.add(m.subscribed_topic_regex)
        for regex in regexes:
            resolved = group.resolved_regexes.get(regex)
            if resolved is not None:
                names |= resolved.topics
        return names

    def metadata_hash(self, names: Iterable[str]) -> int:
        """``ModernGroup.computeMetadataHash``: XXH3 over the hashes of existing topics."""
        hashes: dict[str, int] = {}
        cache = self._topic_hash_cache
        for name in names:
            info = self.topics.by_name(name)
            if info is None:
                continue
            value = cache.get(name)
            if value is None:
                value = cache[name] = compute_topic_hash(info.topic_id, info.name, info.partitions)
            hashes[name] = value
        return compute_group_hash(hashes)

    def mark_metadata_refreshed(self, group_id: str, epoch: int) -> None:
        value = (self.now + INT_MAX, epoch)
        scope = self._scope
        if scope is None:
            self._refresh_deadline[group_id] = value
            return
        scope.refresh[group_id] = value
        scope.soft.append(SoftSet("consumer-refresh", group_id, "deadline", value))

    def consumer_maybe_update_target(self, group: ConsumerGroup, group_epoch: int,
                                     member: ConsumerMember, updated: ConsumerMember,
                                     records: list[Record], now: int) -> tuple[int, dict[str, frozenset[int]]]:
        """``maybeUpdateTargetAssignment``: recompute when behind and the interval allows."""
        if group.assignment_epoch >= group_epoch or not self._can_compute(group, now):
            standing = self.choices.current_target
            if standing is not None:  # an alternative standing target, chosen by the caller
                return group.assignment_epoch, self._chosen_standing_target(group, standing, updated, records)
            return group.assignment_epoch, group.target_of(updated.member_id, updated.instance_id)
        members: dict[str, ConsumerMember] = dict(group.members)
        members[updated.member_id] = updated
        previous_static = group.static_members.get(updated.instance_id) if updated.instance_id else None
        targets = dict(group.target)
        if previous_static is not None and previous_static != updated.member_id:
            members.pop(previous_static, None)
            targets.setdefault(updated.member_id, group.target.get(previous_static, {}))
        order = java_hashmap_order(members)
        assignor_name = self._preferred_assignor(members.values())
        names_by_member = {mid: members[mid].subscribed_topic_names for mid in order}
        regex_by_member = {mid: members[mid].subscribed_topic_regex for mid in order}
        resolved = {r: v.topics for r, v in group.resolved_regexes.items()}
        spec = GroupSpec(
            members={
                mid: MemberSpec(mid, members[mid].instance_id, members[mid].rack_id,
                                frozenset(subscribed_topic_ids(self, group, members[mid])),
                                targets.get(mid, {}))
                for mid in order
            },
            subscription_type=subscription_type(names_by_member, regex_by_member, resolved),
        )
        try:
            assignor = self.assignors.get(assignor_name)
            if assignor is None:
                raise PartitionAssignorError(f"unknown server assignor {assignor_name!r}")
            result = assignor.assign(spec, self.topics)
        except PartitionAssignorError as exc:
            raise CoordinatorError(
                Errors.UNKNOWN_SERVER_ERROR,
                f"Failed to compute a new target assignment for epoch {group_epoch}: {exc}.") from None
        choose = self.choices.target
        if choose is not None:
            result = choose(spec, assignor_name, result)
        if self.mutants.active("assignor-double-assign"):
            result = _double_assign(result, order)
        gid = group.group_id
        for mid in order:
            new_target = {t: frozenset(p) for t, p in result.get(mid, {}).items() if p}
            if group.target.get(mid) != new_target:
                records.append(rec.target_member_record(gid, mid, new_target))
        # AssignmentTimestamp (KIP-1263) exists from 4.3 on; 4.1/4.2 records carry no timestamp.
        records.append(rec.target_metadata_record(gid, group_epoch, now if self.profile.assignment_batching else 0))
        mine = result.get(updated.member_id, {})
        return group_epoch, {t: frozenset(p) for t, p in mine.items() if p}

    def _chosen_standing_target(self, group: ConsumerGroup, standing: Any, updated: ConsumerMember,
                                records: list[Record]) -> dict[str, frozenset[int]]:
        """``Choices.current_target``: the target records of the members whose target it changes
        come first (so a replay rebuilds the choice); the member's own target is read from it."""
        changed = [rec.target_member_record(group.group_id, m, t) for m, t in standing.items()
                   if group.target.get(m) != t]
        records[:0] = changed
        mine = standing.get(updated.member_id)
        if mine is None and updated.instance_id is not None:  # as ConsumerGroup.target_of
            previous = group.static_members.get(updated.instance_id)
            mine = standing.get(previous) if previous is not None else None
        return dict(mine or {})

    def _can_compute(self, group: ConsumerGroup, now: int) -> bool:
        if not self.profile.assignment_batching:
            return True
        interval = self.config.int("group.consumer.assignment.interval.ms")
        last = group.assignment_timestamp
        return last == 0 or interval == 0 or now >= last + interval

    def _preferred_assignor(self, members: Iterable[ConsumerMember]) -> str:
        counts: dict[str, int] = {}
        for m in members:
            if m.server_assignor is not None:
                counts[m.server_assignor] = counts.get(m.server_assignor, 0) + 1
        if not counts:
            return self.config.assignors()[0]
        best = None
        for name in java_hashmap_order(counts):  # Stream.max keeps the first of equal counts
            if best is None or counts[name] > counts[best]:
                best = name
        assert best is not None
        return best

    def preferred_assignor_of(self, group: ConsumerGroup) -> str:
        return self._preferred_assignor(group.members.values())

    def consumer_fence_records(self, group: ConsumerGroup, members: list[ConsumerMember]) -> list[Record]:
        """``consumerGroupFenceMembers``: tombstones, regex clean-up, group epoch + 1."""
        gid = group.group_id
        records: list[Record] = []
        fenced = {m.member_id for m in members}
        for m in members:
            records.append(rec.current_assignment_tombstone(gid, m.member_id))
            records.append(rec.target_member_tombstone(gid, m.member_id))
            records.append(rec.member_metadata_tombstone(gid, m.member_id))
        remaining_regexes = {m.subscribed_topic_regex for mid, m in group.members.items()
                             if mid not in fenced and m.subscribed_topic_regex}
        for regex in sorted({m.subscribed_topic_regex for m in members if m.subscribed_topic_regex}):
            if regex not in remaining_regexes and regex in group.resolved_regexes:
                records.append(rec.regex_tombstone(gid, regex))
        names = self.consumer_subscribed_topic_names(group, without=fenced)
        epoch = group.group_epoch + 1
        records.append(rec.group_epoch_record(gid, epoch, self.metadata_hash(names)))
        if self.profile.empty_group_resets_assignment_epoch and len(group.members) == len(fenced):
            records.append(rec.target_metadata_record(gid, epoch, 0))
        for m in members:
            self.cancel_consumer_timers(gid, m.member_id)
        return records

    # --- timers --------------------------------------------------------------------------

    def schedule_consumer_session_timeout(self, group_id: str, member_id: str, now: int,
                                          timeout: int | None = None) -> None:
        """``timeout``: a classic-protocol member's own session timeout (mixed groups)."""
        if timeout is None:
            timeout = self.config.int("group.consumer.session.timeout.ms")
        timers.schedule_session(self.timers, "consumer", group_id, member_id, now + timeout)

    def schedule_consumer_rebalance_timeout(self, group_id: str, member: ConsumerMember, now: int) -> None:
        timers.schedule_rebalance(self.timers, "consumer", group_id, member.member_id, member.member_epoch,
                                  now + member.rebalance_timeout_ms)

    def cancel_consumer_rebalance_timeout(self, group_id: str, member_id: str) -> None:
        self.timers.cancel(timers.rebalance_key(group_id, member_id))

    def cancel_consumer_timers(self, group_id: str, member_id: str) -> None:
        timers.cancel_member_timers(self.timers, group_id, member_id)

    def schedule_consumer_classic_timer(self, group_id: str, member_id: str, what: str, deadline: int,
                                        if_absent: bool = False) -> None:
        """A classic-protocol member's ``join-{g}-{m}`` / ``sync-{g}-{m}`` timeout (fences it)."""
        timers.schedule_classic(self.timers, "consumer", what, group_id, member_id, deadline, if_absent)

    def request_regex_resolution(self, group_id: str, now: int) -> None:
        # Kafka resolves regexes on an executor and writes the result in a later operation;
        # the model lets that operation complete before the next event.
        self.timers.schedule_if_absent(Timer(f"{group_id}-regex", now, "consumer-regex", group_id))

    def _fire(self, timer: Timer) -> tuple[list[Record], str]:
        if timer.kind in streams_ops.STREAMS_TIMER_KINDS:
            return streams_ops.fire(self, timer)
        if timer.kind in CLASSIC_TIMER_KINDS:
            return classic_ops.fire(self, timer)
        if timer.kind in connect_ops.CONNECT_TIMER_KINDS:
            return connect_ops.fire_timer(self, timer)
        group = self.groups.get(timer.group_id)
        if group is None:
            return [], f"{timer.key}: group is gone"
        if timer.kind == "consumer-regex":
            return self._resolve_regexes(group)
        member = group.members.get(timer.member_id or "")
        if member is None:
            return [], f"{timer.key}: member is gone"
        return timers.fire_member_timer(
            timer, member.member_id, member.member_epoch, self.mutants.active("no-session-fencing"),
            lambda: downgrade.fence(self, group, [member], self._timer_effects, self.now))

    def _resolve_regexes(self, group: ConsumerGroup) -> tuple[list[Record], str]:
        """``handleRegularExpressionsResult``: write changed resolutions, then bump the epoch."""
        gid = group.group_id
        records: list[Record] = []
        changed = False
        names = sorted(self.topics.names())
        for regex in sorted(group.subscribed_regexes):
            try:
                topics = compile_topic_regex(regex).matching(names)  # RE2J, matcher(topic).matches()
            except InvalidTopicRegex:
                topics = frozenset()  # resolveRegularExpressions: a regex that fails to compile matches nothing
            old = group.resolved_regexes.get(regex)
            if old is None or old.topics != topics:
                changed = True
                records.append(rec.regex_record(gid, regex, ResolvedRegex(topics, self.topics.version, self.now)))
        if not changed:
            return [], "regular expressions resolved: no change"
        # The group sees the new resolution when computing its subscribed topics.
        resolved = dict(group.resolved_regexes.items())
        for r in records:
            assert r.value is not None
            resolved[r.key["regularExpression"]] = ResolvedRegex(frozenset(r.value["topics"]), 0, 0)
        names_now: set[str] = set(group.subscribed_names)
        for regex in group.subscribed_regexes:
            if regex in resolved:
                names_now |= resolved[regex].topics
        epoch = group.group_epoch + 1
        records.append(rec.group_epoch_record(gid, epoch, self.metadata_hash(names_now)))
        return records, "regular expressions resolved: group epoch bumped"

    def _metadata_changed(self, names: set[str], new_topic: bool) -> None:
        """``onMetadataUpdate``: groups subscribed to a changed topic refresh on their next heartbeat."""
        for gid, group in self.groups.items():
            subscribed = self.consumer_subscribed_topic_names(group)
            if subscribed & names:
                self._refresh_deadline.pop(gid, None)
            if new_topic and group.subscribed_regexes:
                self.request_regex_resolution(gid, self.now)
        streams_ops.metadata_changed(self, names)

    # --- comparison ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "groups": {gid: g.snapshot() for gid, g in sorted(self.groups.items())},
            "streamsGroups": {gid: g.snapshot() for gid, g in sorted(self.streams_groups.items())},
            "classicGroups": {gid: g.snapshot() for gid, g in sorted(self.classic_groups.items())},
            "connectGroups": {gid: g.snapshot() for gid, g in sorted(self.connect_groups.items())},
            "timers": self.timers.snapshot(),
        }


def _double_assign(result: dict[str, dict[str, frozenset[int]]], order: list[str]) -> dict[str, dict[str, frozenset[int]]]:
    """Mutant ``assignor-double-assign``: the first assigned partition also goes to the next member."""
    owners = [m for m in order if any(result.get(m, {}).values())]
    if len(order) < 2 or not owners:
        return result
    first = owners[0]
    topic, parts = next((t, p) for t, p in result[first].items() if p)
    other = next(m for m in order if m != first)
    patched = {m: dict(a) for m, a in result.items()}
    patched.setdefault(other, {})[topic] = frozenset(patched.get(other, {}).get(topic, frozenset()) | {min(parts)})
    return patched


def _shadow_changes(scope: _Scope) -> list[SoftSet]:
    """The soft fields a step changed on its shadows of registered streams groups."""
    changes: list[SoftSet] = []
    for gid, (group, shadow) in scope.shadows.items():
        for name in StreamsGroup.SOFT_FIELDS:
            value, old = getattr(shadow, name), getattr(group, name)
            if value is not old and (type(value) is not dict or value != old):
                changes.append(SoftSet("streams-group", gid, name, value))
    return changes
