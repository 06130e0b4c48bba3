"""The consumer protocol's group operations (``GroupMetadataManager``'s consumer half).

Group lookup and creation, the subscription metadata and its refresh deadline (soft state),
the target assignment (``maybeUpdateTargetAssignment`` with the server-side assignors), the
fencing records, the consumer timers and what they do when they fire, the resolution of
regular expressions, and topic changes. The heartbeat itself is ``heartbeat.py``; the protocol
interface is ``protocol.py``. Everything takes the coordinator's state and returns records:
hard state changes only when the coordinator replays them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kgspec.model import timers
from kgspec.model.assignors import PartitionAssignorError
from kgspec.model.assignors.api import GroupSpec, MemberSpec
from kgspec.model.assignors.subscription import classify_subscriptions
from kgspec.model.config import INT_MAX
from kgspec.model.consumer import records as rec
from kgspec.model.consumer.group import ConsumerGroup, ResolvedRegex
from kgspec.model.consumer.member import UNREVOKED_PARTITIONS, ConsumerMember
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.records import Record
from kgspec.model.timers import Timer
from kgspec.model.topic_regex import InvalidTopicRegex, compile_topic_regex

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

REFRESH = "consumer-refresh"  # soft state: (deadline, group epoch) of a group's metadata refresh
NEVER_REFRESHED = (0, 0)


def new_group(coord: Coordinator, group_id: str) -> ConsumerGroup:
    return ConsumerGroup(group_id, coord.profile.new_group_initial_epoch, coord.mutants)


def group_or_throw(coord: Coordinator, group_id: str) -> ConsumerGroup:
    if group_id in coord.streams_groups:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
    group = coord.groups.get(group_id)
    if group is None:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
    return group


def group_for_heartbeat(coord: Coordinator, group_id: str, create: bool, records: list[Record],
                        effects: list[Callable[[], None]] | None = None) -> ConsumerGroup:
    """``getOrMaybeCreateConsumerGroup``: a new group is transient until its records are replayed."""
    if group_id in coord.streams_groups:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
    classic = coord.classic_groups.get(group_id)
    if classic is not None:  # online upgrade: the routing rule (model/migration/rules.py)
        return coord.migration.consumer_group_for_heartbeat(coord, classic, create, records,
                                                            effects if effects is not None else [], coord.now)
    group = coord.groups.get(group_id)
    if group is None:
        if not create:
            raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
        return new_group(coord, group_id)  # enters coord.groups when its records are replayed
    return group


def forget(coord: Coordinator, group_id: str) -> None:
    """Soft state of a consumer group that is gone (a new group of that id starts afresh)."""
    coord.soft_drop(REFRESH, group_id)


def metadata_expired(coord: Coordinator, group: ConsumerGroup) -> bool:
    """Whether the group's subscription metadata must be refreshed (soft state: a deadline and
    the group epoch it was refreshed at)."""
    deadline, epoch = coord.soft_get(REFRESH, group.group_id, NEVER_REFRESHED)  # ints
    return bool(coord.now >= deadline or group.group_epoch != epoch)


def subscribed_topic_names(coord: Coordinator, group: ConsumerGroup,
                           replace: tuple[ConsumerMember, ConsumerMember] | None = None,
                           without: Iterable[str] = ()) -> set[str]:
    """Topic names the group subscribes to, by name or through resolved regexes: the group's
    members but those in ``without``, with ``replace``'s old member (and the static member its
    new one replaces) swapped for the new one.

    Read from the group's subscription counters (``ConsumerGroup.subscribed_names`` and
    ``subscribed_regexes``), less what the members taken out contribute: O(topics + members
    taken out), not O(members) (a join to a group of 5,000 walked all 5,000 members).
    """
    members = group.members
    taken: dict[str, ConsumerMember] = {mid: members[mid] for mid in without if mid in members}
    added: ConsumerMember | None = None
    if replace is not None:
        old, added = replace
        out = [old.member_id]
        if added.instance_id is not None:
            prev = group.static_members.get(added.instance_id)
            if prev is not None:
                out.append(prev)
        for mid in out:
            if mid in members:
                taken[mid] = members[mid]
    name_counts: dict[str, int] = {}
    regex_counts: dict[str, int] = {}
    for m in taken.values():  # as ConsumerGroup._subscribe counts them
        for name in m.subscribed_topic_names:
            name_counts[name] = name_counts.get(name, 0) + 1
        if m.subscribed_topic_regex:
            regex_counts[m.subscribed_topic_regex] = regex_counts.get(m.subscribed_topic_regex, 0) + 1
    if name_counts:
        names = {n for n, c in group.subscribed_names.items() if c > name_counts.get(n, 0)}
    else:
        names = {n for n, c in group.subscribed_names.items() if c > 0}
    regexes = {r for r, c in group.subscribed_regexes.items() if c > regex_counts.get(r, 0)}
    if added is not None:
        names.update(added.subscribed_topic_names)
        if added.subscribed_topic_regex:
            regexes.add(added.subscribed_topic_regex)
    for regex in regexes:
        resolved = group.resolved_regexes.get(regex)
        if resolved is not None:
            names |= resolved.topics
    return names


def mark_metadata_refreshed(coord: Coordinator, group_id: str, epoch: int) -> None:
    coord.soft_set(REFRESH, group_id, (coord.now + INT_MAX, epoch))


def maybe_update_target(coord: Coordinator, group: ConsumerGroup, group_epoch: int,
                                 member: ConsumerMember, updated: ConsumerMember,
                                 records: list[Record], now: int) -> tuple[int, dict[str, frozenset[int]]]:
    """``maybeUpdateTargetAssignment``: recompute when behind and the interval allows."""
    if group.assignment_epoch >= group_epoch or not _can_compute(coord, group, now):
        standing = coord.choices.current_target
        if standing is not None:  # an alternative standing target, chosen by the caller
            return group.assignment_epoch, _chosen_standing_target(coord, group, standing, updated, records)
        return group.assignment_epoch, group.target_of(updated.member_id, updated.instance_id)
    members: dict[str, ConsumerMember] = dict(group.members)
    members[updated.member_id] = updated
    previous_static = group.static_members.get(updated.instance_id) if updated.instance_id else None
    targets = dict(group.target)
    if previous_static is not None and previous_static != updated.member_id:
        members.pop(previous_static, None)
        targets.setdefault(updated.member_id, group.target.get(previous_static, {}))
    # memberSpecs is a HashMap filled by walking the group's members (a TimelineHashMap), then the
    # updated member: keys of one bucket keep that order.
    order = java_hashmap_order([m for m in group.member_order() if m in members]
                               + [m for m in members if m not in group.members])
    assignor_name = preferred_assignor(coord, members.values())
    resolved = {r: v.topics for r, v in group.resolved_regexes.items()}
    # Members mostly share a subscription: its topic ids are looked up, and its members
    # counted for the subscription type, once per distinct subscription.
    ids_of: dict[tuple[tuple[str, ...], str | None], frozenset[str]] = {}
    members_of: dict[tuple[tuple[str, ...], str | None], int] = {}
    specs: dict[str, MemberSpec] = {}
    for mid in order:
        m = members[mid]
        sub = (m.subscribed_topic_names, m.subscribed_topic_regex)
        ids = ids_of.get(sub)
        if ids is None:
            ids = ids_of[sub] = frozenset(subscribed_topic_ids(coord, group, m))
        members_of[sub] = members_of.get(sub, 0) + 1
        specs[mid] = MemberSpec(mid, m.instance_id, m.rack_id, ids, targets.get(mid, {}))
    spec = GroupSpec(members=specs, subscription_type=classify_subscriptions(members_of, resolved))
    try:
        assignor = coord.assignors.get(assignor_name)
        if assignor is None:
            raise PartitionAssignorError(f"unknown server assignor {assignor_name!r}")
        result = assignor.assign(spec, coord.topics)
    except PartitionAssignorError as exc:
        raise CoordinatorError(
            Errors.UNKNOWN_SERVER_ERROR,
            f"Failed to compute a new target assignment for epoch {group_epoch}: {exc}.") from None
    choose = coord.choices.target
    if choose is not None:
        result = choose(spec, assignor_name, result)
    if coord.mutants.active("assignor-double-assign"):
        result = _double_assign(result, order)
    gid = group.group_id
    for mid in order:
        new_target = {t: frozenset(p) for t, p in result.get(mid, {}).items() if p}
        if group.target.get(mid) != new_target:
            records.append(rec.target_member_record(gid, mid, new_target))
    # AssignmentTimestamp (KIP-1263) exists from 4.3 on; 4.1/4.2 records carry no timestamp.
    records.append(rec.target_metadata_record(gid, group_epoch, now if coord.profile.assignment_batching else 0))
    mine = result.get(updated.member_id, {})
    return group_epoch, {t: frozenset(p) for t, p in mine.items() if p}


def _chosen_standing_target(coord: Coordinator, group: ConsumerGroup, standing: Any, updated: ConsumerMember,
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


def _can_compute(coord: Coordinator, group: ConsumerGroup, now: int) -> bool:
    if not coord.profile.assignment_batching:
        return True
    interval = coord.group_config_int(group.group_id, "group.consumer.assignment.interval.ms")
    last = group.assignment_timestamp
    return last == 0 or interval == 0 or now >= last + interval


def preferred_assignor(coord: Coordinator, members: Iterable[ConsumerMember]) -> str:
    counts: dict[str, int] = {}
    for m in members:
        if m.server_assignor is not None:
            counts[m.server_assignor] = counts.get(m.server_assignor, 0) + 1
    if not counts:
        return coord.config.assignors()[0]
    best = None
    for name in java_hashmap_order(counts):  # Stream.max keeps the first of equal counts
        if best is None or counts[name] > counts[best]:
            best = name
    assert best is not None
    return best


def preferred_assignor_of(coord: Coordinator, group: ConsumerGroup) -> str:
    return preferred_assignor(coord, group.members.values())


def fence_records(coord: Coordinator, group: ConsumerGroup, members: list[ConsumerMember]) -> list[Record]:
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
    names = subscribed_topic_names(coord, group, without=fenced)
    epoch = group.group_epoch + 1
    records.append(rec.group_epoch_record(gid, epoch, coord.metadata_hash(names)))
    if coord.profile.empty_group_resets_assignment_epoch and len(group.members) == len(fenced):
        records.append(rec.target_metadata_record(gid, epoch, 0))
    for m in members:
        cancel_timers(coord, gid, m.member_id)
    return records


# The member timers (model/timers.py), as Kafka keys them; callers use these names.
MEMBER_TIMERS = timers.MemberTimers("consumer", "group.consumer.session.timeout.ms")
schedule_session_timeout = MEMBER_TIMERS.schedule_session
schedule_rebalance_timeout = MEMBER_TIMERS.schedule_rebalance
cancel_rebalance_timeout = MEMBER_TIMERS.cancel_rebalance
cancel_timers = MEMBER_TIMERS.cancel_all
schedule_classic_timer = MEMBER_TIMERS.schedule_classic


def request_regex_resolution(coord: Coordinator, group_id: str, now: int) -> None:
    # Kafka resolves regexes on an executor and writes the result in a later operation;
    # the model lets that operation complete before the next event.
    coord.timers.schedule_if_absent(Timer(f"{group_id}-regex", now, "consumer-regex", group_id))


def fire(coord: Coordinator, timer: Timer) -> tuple[list[Record], str]:
    """A consumer timer fired: a member's session or rebalance timeout (or a classic-protocol
    member's join / sync timeout) fences it; a regex timer resolves the group's regexes."""
    group = coord.groups.get(timer.group_id)
    if group is None:
        return [], f"{timer.key}: group is gone"
    if timer.kind == "consumer-regex":
        return resolve_regexes(coord, group)
    member = group.members.get(timer.member_id or "")
    if member is None:
        return [], f"{timer.key}: member is gone"
    return timers.fire_member_timer(
        timer, member.member_id, member.member_epoch, coord.mutants.active("no-session-fencing"),
        lambda: coord.migration.fence_consumer_members(coord, group, [member], coord.timer_effects, coord.now))


def resolve_regexes(coord: Coordinator, group: ConsumerGroup) -> tuple[list[Record], str]:
    """``handleRegularExpressionsResult``: write changed resolutions, then bump the epoch."""
    gid = group.group_id
    records: list[Record] = []
    changed = False
    names = coord.topics.sorted_names()
    for regex in sorted(group.subscribed_regexes):
        try:
            topics = compile_topic_regex(regex).matching(names)  # RE2J, matcher(topic).matches()
        except InvalidTopicRegex:
            topics = frozenset()  # resolveRegularExpressions: a regex that fails to compile matches nothing
        old = group.resolved_regexes.get(regex)
        if old is None or old.topics != topics:
            changed = True
            records.append(rec.regex_record(gid, regex, ResolvedRegex(topics, coord.topics.version, coord.now)))
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
    records.append(rec.group_epoch_record(gid, epoch, coord.metadata_hash(names_now)))
    return records, "regular expressions resolved: group epoch bumped"


def metadata_changed(coord: Coordinator, names: Iterable[str], new_topic: bool) -> None:
    """``onMetadataUpdate``: groups subscribed to a changed topic refresh on their next heartbeat."""
    changed = set(names)
    for gid, group in coord.groups.items():
        subscribed = subscribed_topic_names(coord, group)
        if subscribed & changed:
            coord.soft_drop(REFRESH, gid)
        if new_topic and group.subscribed_regexes:
            request_regex_resolution(coord, gid, coord.now)


def followed_topics(coord: Coordinator) -> tuple[set[str], bool]:
    """What ``metadata_changed`` looks at: the names the groups subscribe to (by name or
    through resolved regexes), and whether a group has a regex (a new topic may match it)."""
    names: set[str] = set()
    regex = False
    for group in coord.groups.values():
        names |= subscribed_topic_names(coord, group)
        regex = regex or bool(group.subscribed_regexes)
    return names, regex


def subscribed_topic_ids(coord: Coordinator, group: ConsumerGroup, member: ConsumerMember) -> set[str]:
    """``CurrentAssignmentBuilder.subscribedTopicIds``: names plus the resolved regex, if any."""
    names: set[str] = set(member.subscribed_topic_names)
    regex = member.subscribed_topic_regex
    if regex:
        resolved = group.resolved_regexes.get(regex)
        if resolved is not None:
            names |= resolved.topics
    ids = set()
    for name in names:
        tid = coord.topics.id_of(name)
        if tid is not None:
            ids.add(tid)
    return ids


def _double_assign(result: dict[str, dict[str, frozenset[int]]], order: list[str]) -> dict[str, dict[str, frozenset[int]]]:
    """Mutant ``assignor-double-assign``: the first assigned partition (of the smallest topic id, so
    no set's iteration order decides) also goes to the next member."""
    owners = [m for m in order if any(result.get(m, {}).values())]
    if len(order) < 2 or not owners:
        return result
    first = owners[0]
    topic, parts = min((t, p) for t, p in result[first].items() if p)
    other = next(m for m in order if m != first)
    patched = {m: dict(a) for m, a in result.items()}
    patched.setdefault(other, {})[topic] = frozenset(patched.get(other, {}).get(topic, frozenset()) | {min(parts)})
    return patched


def on_loaded(coord: Coordinator, now: int) -> None:
    """``onLoaded``: every member's session timeout, and the rebalance timeout of a member still
    revoking, re-armed from load time."""
    for gid, group in coord.groups.items():
        for member in group.members.values():
            schedule_session_timeout(coord, gid, member.member_id, now)
            if member.state == UNREVOKED_PARTITIONS:
                schedule_rebalance_timeout(coord, gid, member, now)


def replay(coord: Coordinator, record: Record) -> None:
    if coord.streams_groups and record.key.get("groupId") in coord.streams_groups:
        raise rec.ReplayError(f"Group {record.key.get('groupId')} is not a consumer group.")
    rec.replay(coord.groups, record, lambda gid: new_group(coord, gid), coord.profile)
