"""The inputs of a benchmark point, built as Kafka's JMH setups build them.

Member ids, topic layout, bucketing, racks and the INCREMENTAL step follow
``AssignorBenchmarkUtils`` / ``StreamsAssignorBenchmarkUtils`` (Kafka 4.3). Members are walked in
``HashMap`` order, as Kafka's ``GroupSpecImpl`` does. Topic ids are drawn from a fixed seed, so
every run (and every assignor) sees the same ids.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from kgspec.model.assignors import GroupAssignment, PartitionAssignor
from kgspec.model.assignors.api import GroupSpec, MemberSpec, SubscriptionType
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.consumer.records import target_member_record, target_metadata_record
from kgspec.model.javaorder import java_hashmap_order
from kgspec.model.records import Record
from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignment, TaskMemberSpec
from kgspec.model.streams.task_api import TaskAssignor, TaskGroupSpec

from .grid import Point

RACKS = 3  # ServerSideAssignorBenchmark.NUMBER_OF_RACKS
BUCKETS = 5  # ServerSideAssignorBenchmark.MAX_BUCKET_COUNT
NEW_MEMBER = "newMember"
TOPIC_SEED = 848


@cache
def topic_ids(count: int) -> tuple[str, ...]:
    """``count`` Kafka Uuid strings from a fixed seed (Kafka draws Uuid.randomUuid())."""
    rng = random.Random(TOPIC_SEED)
    return tuple(base64.urlsafe_b64encode(rng.randbytes(16)).decode().rstrip("=") for _ in range(count))


def member_rack(point: Point, index: int) -> str | None:
    return f"rack{index % RACKS}" if point.racks else None


def _subscriptions(point: Point, count: int, topics: tuple[str, ...]) -> list[frozenset[str]]:
    """createHomogeneousMembers / createHeterogeneousBucketedMembers over ``count`` members."""
    if not point.heterogeneous:
        return [frozenset(topics)] * count
    buckets = min(BUCKETS, count)
    per_topics = -(-len(topics) // buckets)
    per_members = -(-count // buckets)
    return [frozenset(topics[(i // per_members) * per_topics:(i // per_members + 1) * per_topics])
            for i in range(count)]


@dataclass(frozen=True, slots=True)
class ConsumerInput:
    spec: GroupSpec
    topics: MappingTopicDescriber
    previous: GroupAssignment  # INCREMENTAL: the targets fed back (empty for FULL)


def consumer_input(point: Point, assignor: PartitionAssignor) -> ConsumerInput:
    """The GroupSpec of a consumer or target point; INCREMENTAL runs ``assignor`` over M-1
    members first and feeds its result back, as ``simulateIncrementalRebalance`` does."""
    ids = topic_ids(point.topics)
    describer = MappingTopicDescriber(dict.fromkeys(ids, point.partitions_per_topic))
    kind = SubscriptionType.HETEROGENEOUS if point.heterogeneous else SubscriptionType.HOMOGENEOUS
    count = point.members - 1 if point.incremental else point.members
    subs = _subscriptions(point, count, ids)
    members = {f"member{i}": MemberSpec(f"member{i}", None, member_rack(point, i), subs[i]) for i in range(count)}
    if not point.incremental:
        return ConsumerInput(_ordered(members, kind), describer, {})
    first = assignor.assign(_ordered(members, kind), describer)
    kept = {m: MemberSpec(m, None, s.rack_id, s.subscribed_topic_ids, first.get(m, {})) for m, s in members.items()}
    new_topics = subs[count - 1] if point.heterogeneous else frozenset(ids)
    kept[NEW_MEMBER] = MemberSpec(NEW_MEMBER, None, member_rack(point, point.members - 1), new_topics)
    return ConsumerInput(_ordered(kept, kind), describer, {m: dict(a) for m, a in first.items()})


def _ordered(members: dict[str, MemberSpec], kind: SubscriptionType) -> GroupSpec:
    return GroupSpec({m: members[m] for m in java_hashmap_order(members)}, kind)


def build_target(assignor: PartitionAssignor, data: ConsumerInput, group_id: str = "bench") -> list[Record]:
    """TargetAssignmentBuilder.build(): run the assignor, diff each member's new target against the
    old one and write a record for each that changed, then the assignment metadata record."""
    result = assignor.assign(data.spec, data.topics)
    records: list[Record] = []
    old = data.previous
    for member_id in data.spec.members:
        new = {t: p for t, p in result.get(member_id, {}).items() if p}
        if old.get(member_id) != new:
            records.append(target_member_record(group_id, member_id, new))
    records.append(target_metadata_record(group_id, 2, 0))
    return records


def subtopologies(point: Point) -> list[SubtopologyTasks]:
    """createSubtopologyMap: ``topic-i_subtopology`` (sorted, a TreeMap), every second stateful."""
    subs = [SubtopologyTasks(f"topic-{i}_subtopology", point.partitions, i % 2 == 0)
            for i in range(point.subtopologies)]
    return sorted(subs, key=lambda s: s.subtopology_id)


@dataclass(frozen=True, slots=True)
class StreamsInput:
    spec: TaskGroupSpec
    previous: TaskAssignment | None


def streams_input(point: Point, assignor: TaskAssignor) -> StreamsInput:
    subs = subtopologies(point)
    count = point.members - 1 if point.incremental else point.members
    configs = {"num.standby.replicas": str(point.standby)}
    members = {f"member-{i}": TaskMemberSpec(f"member-{i}", f"process-{i // point.members_per_process}")
               for i in range(count)}
    first_spec = TaskGroupSpec([members[m] for m in java_hashmap_order(members)], subs, point.standby, configs)
    if not point.incremental:
        return StreamsInput(first_spec, None)
    first = assignor.assign_tasks(first_spec)
    kept = {m: TaskMemberSpec(m, s.process_id, first.active.get(m, {}), first.standby.get(m, {}))
            for m, s in members.items()}
    kept[NEW_MEMBER] = TaskMemberSpec(NEW_MEMBER, "process-newMember")
    spec = TaskGroupSpec([kept[m] for m in java_hashmap_order(kept)], subs, point.standby, configs)
    return StreamsInput(spec, first)


def timed_call(point: Point, assignor: Any) -> tuple[Callable[[], Any], Any]:
    """(the call to time, its input) for ``assignor`` at ``point``."""
    if point.kind == "streams":
        sdata = streams_input(point, assignor)
        return (lambda: assignor.assign_tasks(sdata.spec)), sdata
    cdata = consumer_input(point, assignor)
    if point.kind == "target":
        return (lambda: build_target(assignor, cdata)), cdata
    return (lambda: assignor.assign(cdata.spec, cdata.topics)), cdata
