"""StreamsGroupDescribe (API 89, v0), answered from the model (``StreamsGroup.asDescribedGroup``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.model.errors import Errors
from kgspec.model.profiles import Profile
from kgspec.model.shards import ordered_ids
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import ROLE_FIELDS, ROLES, StreamsMember, TaskSets
from kgspec.model.streams.offsets import describe_json
from kgspec.model.streams.records import tasks_json
from kgspec.model.streams.topology import TopicInfo
from kgspec.spec.groups import DESCRIBED_NAMES

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

AUTHORIZED_OPERATIONS_OMITTED = -2147483648


def _assignment(sets: TaskSets) -> dict[str, Any]:
    return {ROLE_FIELDS[r]: tasks_json(sets.get(r, {})) for r in ROLES}


def _topic(t: TopicInfo, partitions: int | None = None) -> dict[str, Any]:
    return {"name": t.name, "partitions": t.partitions if partitions is None else partitions,
            "replicationFactor": t.replication_factor,
            "topicConfigs": [{"key": c.key, "value": c.value} for c in t.topic_configs]}


def describe_topology(group: StreamsGroup, profile: Profile) -> dict[str, Any] | None:
    """The configured topology when ready (with decided partition counts), else the topology as sent
    (4.2+; 4.1 below)."""
    topology = group.topology
    configured = group.configured_topology
    if not profile.streams_describe_unready_topology:
        # 4.1 (StreamsGroup.asDescribedGroup): the configured topology or null; one that is not
        # ready has no subtopologies.
        if configured is None or topology is None:
            return None
        if not configured.is_ready or configured.subtopologies is None:
            return {"epoch": configured.topology_epoch, "subtopologies": []}
    if topology is None:
        return None
    ready = configured is not None and configured.is_ready and configured.subtopologies is not None
    subs = []
    for s in sorted(topology.subtopologies, key=lambda x: x.subtopology_id):
        cs = configured.subtopologies.get(s.subtopology_id) if ready and configured and configured.subtopologies else None
        subs.append({
            "subtopologyId": s.subtopology_id,
            "sourceTopics": sorted(s.source_topics),
            "repartitionSinkTopics": sorted(s.repartition_sink_topics),
            # Kafka sorts the topic infos by name (Comparator.comparing(TopicInfo::name)).
            "stateChangelogTopics": [_topic(t, cs.state_changelog_topics[t.name].partitions if cs else None)
                                     for t in sorted(s.state_changelog_topics, key=lambda t: t.name)],
            "repartitionSourceTopics": [_topic(t, cs.repartition_source_topics[t.name].partitions if cs else None)
                                        for t in sorted(s.repartition_source_topics, key=lambda t: t.name)],
        })
    return {"epoch": topology.epoch, "subtopologies": subs}


def describe_member(group: StreamsGroup, m: StreamsMember) -> dict[str, Any]:
    return {
        "memberId": m.member_id, "memberEpoch": m.member_epoch, "instanceId": m.instance_id, "rackId": m.rack_id,
        "clientId": m.client_id, "clientHost": m.client_host, "topologyEpoch": m.topology_epoch,
        "processId": m.process_id,
        "userEndpoint": None if m.user_endpoint is None else {"host": m.user_endpoint[0], "port": m.user_endpoint[1]},
        "clientTags": [{"key": k, "value": v} for k, v in m.client_tags.items()],
        # trunk (KAFKA-20695): the offsets the member reported last; 4.3 cannot have any.
        "taskOffsets": describe_json(group.offsets_of(m.member_id).task_offsets),
        "taskEndOffsets": describe_json(group.offsets_of(m.member_id).task_end_offsets),
        "assignment": _assignment(m.assigned_sets()),
        "targetAssignment": _assignment(group.target.get(m.member_id, {})),
        # Kafka's members are never classic (no online migration); under kip a member still on the
        # classic protocol is ("True for classic members that have not been upgraded yet.", seed 002).
        "isClassic": m.uses_classic(),
    }


def _error_entry(group_id: str, error: Errors, message: str | None) -> dict[str, Any]:
    """A DescribedGroup with every other field at its default."""
    return {"errorCode": int(error), "errorMessage": message, "groupId": group_id, "groupState": "",
            "groupEpoch": 0, "assignmentEpoch": 0, "topology": None, "members": [],
            "authorizedOperations": AUTHORIZED_OPERATIONS_OMITTED}


NOT_REQUESTED, NOT_STORED = 0, 1  # TopologyDescriptionStatus (trunk, v1)


def describe_streams_groups(coord: Coordinator, request: dict[str, Any], api_version: int = 0) -> dict[str, Any]:
    """v1 (trunk) adds ``topologyDescription``, ``topologyDescriptionStatus`` and ``assignorName``
    to every described group, error entries included (at their defaults: null, 0, null)."""
    v1 = api_version >= 1 and coord.profile.streams_task_offsets
    ids = request.get("groupIds") or []
    # GroupCoordinatorService: a null or empty id is INVALID_GROUP_ID, listed first; the rest
    # shard by shard (model/shards.py).
    out = [_error_entry("", Errors.INVALID_GROUP_ID, None) for gid in ids if not gid]
    for gid in ordered_ids(ids, coord.config.int("offsets.topic.num.partitions")):
        group = coord.streams_groups.get(gid)
        if group is None:
            other = gid in coord.groups or gid in coord.classic_groups  # GMM.streamsGroup(groupId, offset)
            message = f"Group {gid} is not a streams group." if other else f"Group {gid} not found."
            out.append(_error_entry(gid, Errors.GROUP_ID_NOT_FOUND, message))
            continue
        out.append({
            "errorCode": 0, "errorMessage": None, "groupId": gid, "groupState": DESCRIBED_NAMES[group.state],
            "groupEpoch": group.group_epoch, "assignmentEpoch": group.assignment_epoch,
            "topology": describe_topology(group, coord.profile),
            "members": [describe_member(group, m) for m in group.members.values()],
            "authorizedOperations": AUTHORIZED_OPERATIONS_OMITTED,
        })
    if v1:
        # A described group: asDescribedGroup(..., assignorName), the only built-in assignor being
        # "sticky"; with no description plugin configured, a request for descriptions gets
        # NOT_STORED (StreamsGroupTopologyDescriptionManager.attachTopologyDescriptions). An
        # error entry keeps the defaults: null, NOT_REQUESTED, null.
        requested = NOT_STORED if request.get("includeTopologyDescription") else NOT_REQUESTED
        for entry in out:
            described = entry["errorCode"] == 0
            entry["assignorName"] = "sticky" if described else None
            entry["topologyDescriptionStatus"] = requested if described else NOT_REQUESTED
            entry["topologyDescription"] = None
    return {"throttleTimeMs": 0, "groups": out}
