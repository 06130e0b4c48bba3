"""Example user assignors loaded by reference (``tests.assignors.examples:Class``) in the tests."""

from __future__ import annotations

from kgspec.model.assignors import GroupAssignment, GroupSpec, TopicDescriber
from kgspec.model.streams.assignor import TaskAssignment
from kgspec.model.streams.task_api import TaskGroupSpec


class AllToFirstAssignor:
    """Every subscribed partition to the first member that subscribes to its topic."""

    name = "all-to-first"

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        result: GroupAssignment = {m: {} for m in spec.members}
        for member_id, member in spec.members.items():
            for topic_id in sorted(member.subscribed_topic_ids):
                if not any(topic_id in a for a in result.values()):
                    result[member_id][topic_id] = frozenset(range(topics.num_partitions(topic_id)))
        return result


class DoubleAssignor:
    """Deliberately broken: like all-to-first, but partition 0 of each topic also goes to the
    last subscriber when there are two or more partitions and two or more subscribers."""

    name = "double"

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        result = AllToFirstAssignor().assign(spec, topics)
        for topic_id in sorted({t for m in spec.members.values() for t in m.subscribed_topic_ids}):
            subscribers = [m for m, s in spec.members.items() if topic_id in s.subscribed_topic_ids]
            if len(subscribers) >= 2 and topics.num_partitions(topic_id) >= 2:
                last = result[subscribers[-1]]
                last[topic_id] = last.get(topic_id, frozenset()) | {0}
        return result


class FirstMemberTaskAssignor:
    """A streams task assignor: every active task to the first member, no standbys."""

    name = "sticky"

    def assign_tasks(self, spec: TaskGroupSpec) -> TaskAssignment:
        members = [m.member_id for m in spec.members]
        active: dict[str, dict[str, frozenset[int]]] = {m: {} for m in members}
        if members:
            active[members[0]] = {s.subtopology_id: frozenset(range(s.num_tasks)) for s in spec.subtopologies}
        return TaskAssignment(active, {m: {} for m in members})


NOT_AN_ASSIGNOR = object()
