"""Field-by-field comparison of observed and expected responses and records.

The contract (section 2) says what counts: the error code always; on success the
member id, member epoch, heartbeat interval and the assignment as sets. ``null`` and
an empty list are different values. ``errorMessage`` never counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from kgspec.model.migration.protocol import SchemaError, decode_assignment
from kgspec.model.streams.heartbeat import parse_topology
from kgspec.model.streams.member import ROLE_FIELDS

TopicSet = frozenset[tuple[str, int]]


def assignment_set(assignment: Any) -> TopicSet | None:
    """A response ``assignment`` ({topicPartitions: [...]}) as a set, or None when null."""
    if assignment is None:
        return None
    out: set[tuple[str, int]] = set()
    for entry in assignment.get("topicPartitions") or []:
        for p in entry.get("partitions") or []:
            out.add((entry["topicId"], int(p)))
    return frozenset(out)


def format_set(parts: TopicSet | None, names: dict[str, str] | None = None) -> Any:
    """A compact, JSON-able rendering: {"foo": [0, 1]} (topic names where known)."""
    if parts is None:
        return None
    grouped: dict[str, list[int]] = {}
    for topic_id, p in sorted(parts):
        grouped.setdefault((names or {}).get(topic_id, topic_id), []).append(p)
    return grouped


def heartbeat_differences(expected: dict[str, Any], observed: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, expected, observed) for every counted field that differs."""
    diffs: list[tuple[str, Any, Any]] = []
    exp_err, obs_err = expected.get("errorCode", 0), observed.get("errorCode", 0)
    if exp_err != obs_err:
        return [("errorCode", exp_err, obs_err)]
    if exp_err != 0:
        return []
    for name in ("memberId", "memberEpoch", "heartbeatIntervalMs"):
        if name in observed and expected.get(name) != observed.get(name):
            diffs.append((name, expected.get(name), observed.get(name)))
    if "assignment" in observed:
        exp_a, obs_a = assignment_set(expected.get("assignment")), assignment_set(observed.get("assignment"))
        if exp_a != obs_a:
            diffs.append(("assignment", exp_a, obs_a))
    return diffs


Diff = tuple[str, Any, Any]


def _group_differences(expected: dict[str, Any], observed: dict[str, Any], group_fields: tuple[str, ...],
                       member_differences: Callable[[str, dict[str, Any], dict[str, Any]], list[Diff]]
                       ) -> list[Diff]:
    """A Describe response, group by group and member by member (members as a set, by id)."""
    diffs: list[Diff] = []
    exp_groups = {g["groupId"]: g for g in expected.get("groups", [])}
    # Kafka answers for every group the request names: one left out is a departure too.
    shown = {g.get("groupId") for g in observed.get("groups") or [] if isinstance(g, dict)}
    diffs.extend((f"groups[{gid}]", "present", None) for gid in exp_groups if gid not in shown)
    for obs in observed.get("groups") or []:
        gid = obs.get("groupId")
        exp = exp_groups.get(gid)
        if exp is None:
            diffs.append((f"groups[{gid}]", None, "present"))
            continue
        if exp.get("errorCode", 0) != obs.get("errorCode", 0):
            diffs.append((f"groups[{gid}].errorCode", exp.get("errorCode", 0), obs.get("errorCode", 0)))
            continue
        if exp.get("errorCode", 0) != 0:
            continue
        for name in group_fields:
            if name in obs and exp.get(name) != obs.get(name):
                diffs.append((f"groups[{gid}].{name}", exp.get(name), obs.get(name)))
        exp_members = {m["memberId"]: m for m in exp.get("members", [])}
        obs_members = {m.get("memberId"): m for m in obs.get("members") or []}
        if set(exp_members) != set(obs_members):
            diffs.append((f"groups[{gid}].members", sorted(exp_members), sorted(obs_members, key=str)))
            continue
        for mid, om in obs_members.items():
            diffs.extend(member_differences(f"groups[{gid}].members[{mid}]", exp_members[mid], om))
    return diffs


def _plain_differences(prefix: str, em: dict[str, Any], om: dict[str, Any], names: tuple[str, ...]) -> list[Diff]:
    return [(f"{prefix}.{n}", em.get(n), om.get(n)) for n in names if n in om and em.get(n) != om.get(n)]


def _consumer_member_differences(prefix: str, em: dict[str, Any], om: dict[str, Any]) -> list[Diff]:
    diffs = _plain_differences(prefix, em, om, ("memberEpoch", "instanceId", "rackId", "clientId", "clientHost",
                                                "subscribedTopicRegex", "memberType"))
    if "subscribedTopicNames" in om and sorted(em.get("subscribedTopicNames") or []) != sorted(
            om.get("subscribedTopicNames") or []):
        diffs.append((f"{prefix}.subscribedTopicNames", em.get("subscribedTopicNames"), om.get("subscribedTopicNames")))
    for name in ("assignment", "targetAssignment"):
        if name in om:
            e, o = assignment_set(em.get(name)), assignment_set(om.get(name))
            if e != o:
                diffs.append((f"{prefix}.{name}", e, o))
            elif topic_names(em.get(name)) != topic_names(om.get(name)):
                diffs.append((f"{prefix}.{name}.topicName", topic_names(em.get(name)), topic_names(om.get(name))))
    return diffs


def topic_names(assignment: Any) -> Any:
    """A described assignment's topic names by topic id (the partitions are compared as a set)."""
    if not isinstance(assignment, dict):
        return None
    return sorted((repr(e.get("topicId")), repr(e.get("topicName"))) for e in assignment.get("topicPartitions") or []
                  if isinstance(e, dict) and "topicName" in e)


def describe_differences(expected: dict[str, Any], observed: dict[str, Any]) -> list[Diff]:
    """ConsumerGroupDescribe."""
    return _group_differences(expected, observed, ("groupState", "groupEpoch", "assignmentEpoch", "assignorName",
                                                   "authorizedOperations"),
                              _consumer_member_differences)


_TAGGED_DEFAULTS = {"metadataHash": 0, "assignmentTimestamp": 0}


def normalize_record_value(value: dict[str, Any] | None) -> Any:
    """Record values compared as Kafka means them: lists of topic partitions as sets,
    subscribed names as a set, tagged fields at their default as absent."""
    if value is None:
        return None
    out: dict[str, Any] = {}
    for name, v in value.items():
        if name in _TAGGED_DEFAULTS and v == _TAGGED_DEFAULTS[name]:
            continue
        if isinstance(v, list) and v and isinstance(v[0], dict) and "topicId" in v[0] and "partitions" in v[0]:
            out[name] = sorted(
                (e["topicId"], tuple(sorted(zip(e.get("partitions", []),
                                                e.get("assignmentEpochs") or [None] * len(e.get("partitions", [])),
                                                strict=False))))
                for e in v if e.get("partitions"))
        elif name == "topics" and isinstance(v, list) and v and isinstance(v[0], dict):
            out[name] = v  # topic metadata (record 18 under kip, 4), written by name: compared as is
        elif (name == "subscribedTopicNames" and isinstance(v, list)) or (name == "topics" and isinstance(v, list)):
            out[name] = sorted(v)
        elif name == "members" and isinstance(v, list) and value.get("protocolType") == "consumer":
            # GroupMetadata: assignments the coordinator serialized (a downgrade) walk a HashMap of
            # topic ids, so their byte order is not Kafka's contract (its tests normalize it too).
            out[name] = [normalize_consumer_member(m) for m in v]
        else:
            out[name] = v
    return out


def consumer_assignment_key(b64: Any) -> Any:
    """An embedded-protocol assignment as (version, sorted topic-partitions, user data); the
    bytes themselves when they are not one (``Assertions.assertSyncGroupResponse`` in Kafka)."""
    try:
        a = decode_assignment(b64)
    except (SchemaError, TypeError):
        return b64
    return a.version, sorted((t, p) for t, ps in a.partitions for p in ps), a.user_data


def normalize_consumer_member(m: Any) -> Any:
    if not isinstance(m, dict) or "assignment" not in m:
        return m
    return {**m, "assignment": consumer_assignment_key(m["assignment"])}


# --- streams (StreamsGroupHeartbeat 88, StreamsGroupDescribe 89) -----------------------------

TaskSet = frozenset[tuple[str, int]]
STREAMS_TASK_FIELDS = tuple(ROLE_FIELDS.values())


def task_set(tasks: Any) -> TaskSet | None:
    """A list of ``{subtopologyId, partitions}`` as a set of tasks, or None when null."""
    if tasks is None:
        return None
    return frozenset((str(e["subtopologyId"]), int(p)) for e in tasks for p in e.get("partitions") or [])


def format_tasks(tasks: TaskSet | None) -> Any:
    if tasks is None:
        return None
    grouped: dict[str, list[int]] = {}
    for sid, p in sorted(tasks):
        grouped.setdefault(sid, []).append(p)
    return grouped


def status_codes(status: Any) -> list[int] | None:
    """Statuses compared by code (in order); the detail text never counts."""
    if status is None:
        return None
    return [int(s["statusCode"]) for s in status]


# StreamsGroupHeartbeat response fields compared as plain values (the lists are below).
STREAMS_HEARTBEAT_PLAIN: Final = ("memberId", "memberEpoch", "heartbeatIntervalMs", "acceptableRecoveryLag",
                                  "acceptableRecoveryLagLegacy", "taskOffsetIntervalMs", "topologyDescriptionRequired",
                                  "endpointInformationEpoch")


def endpoint_partitions(entries: Any) -> Any:
    """``partitionsByUserEndpoint`` by value: None stays None (not sent); otherwise the endpoints
    as a multiset, each with its active and standby topic partitions as sets. Kafka walks a
    ``HashMap`` of members, a ``HashSet`` of topic names and an unmodifiable map of subtopologies
    (randomised iteration) to build the lists, so their order is not part of the answer."""
    if not isinstance(entries, list):
        return entries
    out = []
    for e in entries:
        if not isinstance(e, dict):
            return entries
        ep = e.get("userEndpoint") or {}
        out.append((repr(ep.get("host")), repr(ep.get("port")),
                    *(_topic_partition_multiset(e.get(role)) for role in ("activePartitions", "standbyPartitions"))))
    return sorted(out)


def _topic_partition_multiset(tps: Any) -> Any:
    if not isinstance(tps, list):
        return repr(tps)
    return tuple(sorted((repr(tp.get("topic")), repr(p)) if isinstance(tp, dict) else ("?", repr(tp))
                        for tp in tps for p in (tp.get("partitions") or [None] if isinstance(tp, dict) else [None])))


def streams_heartbeat_differences(expected: dict[str, Any], observed: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    diffs: list[tuple[str, Any, Any]] = []
    exp_err, obs_err = expected.get("errorCode", 0), observed.get("errorCode", 0)
    if exp_err != obs_err:
        return [("errorCode", exp_err, obs_err)]
    if exp_err != 0:
        return []
    for name in STREAMS_HEARTBEAT_PLAIN:
        if name in observed and expected.get(name) != observed.get(name):
            diffs.append((name, expected.get(name), observed.get(name)))
    if "partitionsByUserEndpoint" in observed:
        e_ep = endpoint_partitions(expected.get("partitionsByUserEndpoint"))
        o_ep = endpoint_partitions(observed.get("partitionsByUserEndpoint"))
        if e_ep != o_ep:
            diffs.append(("partitionsByUserEndpoint", expected.get("partitionsByUserEndpoint"),
                          observed.get("partitionsByUserEndpoint")))
    if "status" in observed:
        e, o = status_codes(expected.get("status")), status_codes(observed.get("status"))
        if (e is None) != (o is None) or sorted(e or []) != sorted(o or []):
            diffs.append(("status", e, o))
    for name in STREAMS_TASK_FIELDS:
        if name in observed:
            e_t, o_t = task_set(expected.get(name)), task_set(observed.get(name))
            if e_t != o_t:
                diffs.append((name, e_t, o_t))
    return diffs


def _streams_member_differences(prefix: str, em: dict[str, Any], om: dict[str, Any]) -> list[Diff]:
    diffs = _plain_differences(prefix, em, om, ("memberEpoch", "instanceId", "rackId", "clientId", "clientHost",
                                                "processId", "topologyEpoch", "userEndpoint", "isClassic"))
    # Kafka lists these from HashMaps (the member's tags, its reported offsets): compared as multisets.
    for name in ("clientTags", "taskOffsets", "taskEndOffsets"):
        if name in om and _multiset(em.get(name)) != _multiset(om.get(name)):
            diffs.append((f"{prefix}.{name}", em.get(name), om.get(name)))
    for name in ("assignment", "targetAssignment"):
        if name in om:
            for role in STREAMS_TASK_FIELDS:
                e = task_set((em.get(name) or {}).get(role) or [])
                o = task_set((om.get(name) or {}).get(role) or [])
                if e != o:
                    diffs.append((f"{prefix}.{name}.{role}", e, o))
    return diffs


def _multiset(entries: Any) -> Any:
    """A list of objects in any order (None stays None)."""
    if not isinstance(entries, list):
        return entries
    return sorted(repr(sorted(e.items())) if isinstance(e, dict) else repr(e) for e in entries)


def _classic_member_differences(prefix: str, em: dict[str, Any], om: dict[str, Any]) -> list[Diff]:
    return _plain_differences(prefix, em, om, ("groupInstanceId", "clientId", "clientHost", "memberMetadata",
                                               "memberAssignment"))


def classic_describe_differences(expected: dict[str, Any], observed: dict[str, Any]) -> list[Diff]:
    """DescribeGroups. Before v6 a missing group has error code 0 and state "Dead", so the
    group's fields are compared whenever the error codes agree on 0."""
    return _group_differences(expected, observed, ("groupState", "protocolType", "protocolData",
                                                   "authorizedOperations"),
                              _classic_member_differences)


def described_topology(topology: Any) -> Any:
    """A described topology by value: Kafka sorts the subtopologies, their topic lists and topic
    infos (``StreamsTopology`` / ``ConfiguredSubtopology.asStreamsGroupDescribe*``), but a topic's
    configs come from a ``HashMap``: those are compared as a multiset."""
    if not isinstance(topology, dict) or not isinstance(topology.get("subtopologies"), list):
        return topology
    subs = []
    for s in topology["subtopologies"]:
        if not isinstance(s, dict):
            return topology
        subs.append({**s, **{name: [{**t, "topicConfigs": _multiset(t.get("topicConfigs"))} if isinstance(t, dict)
                                    else t for t in s[name]]
                             for name in ("stateChangelogTopics", "repartitionSourceTopics")
                             if isinstance(s.get(name), list)}})
    return {**topology, "subtopologies": subs}


def streams_describe_differences(expected: dict[str, Any], observed: dict[str, Any]) -> list[Diff]:
    """StreamsGroupDescribe."""
    diffs = _group_differences(expected, observed, ("groupState", "groupEpoch", "assignmentEpoch",
                                                    "authorizedOperations", "assignorName",
                                                    "topologyDescriptionStatus", "topologyDescription"),
                               _streams_member_differences)
    exp_groups = {g.get("groupId"): g for g in expected.get("groups", [])}
    for obs in observed.get("groups") or []:
        exp = exp_groups.get(obs.get("groupId"))
        if exp is None or exp.get("errorCode", 0) != 0 or obs.get("errorCode", 0) != 0 or "topology" not in obs:
            continue
        if described_topology(exp.get("topology")) != described_topology(obs.get("topology")):
            diffs.append((f"groups[{obs.get('groupId')}].topology", exp.get("topology"), obs.get("topology")))
    return diffs


def streams_request_problem(req: dict[str, Any]) -> tuple[str, str] | None:
    """Shape errors in a StreamsGroupHeartbeat request (the model cannot ask Kafka about them)."""
    epoch = req.get("memberEpoch")
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        return "request.memberEpoch", "`request.memberEpoch` must be an integer"
    for name in ("memberId", "groupId"):
        if not isinstance(req.get(name), str):
            return f"request.{name}", f"`request.{name}` must be a string"
    for name in STREAMS_TASK_FIELDS:
        tasks = req.get(name)
        if tasks is None:
            continue
        if not isinstance(tasks, list) or not all(
                isinstance(e, dict) and isinstance(e.get("subtopologyId"), str) and isinstance(e.get("partitions"), list)
                and all(isinstance(p, int) for p in e["partitions"]) for e in tasks):
            return f"request.{name}", f"`request.{name}` must be null or a list of {{subtopologyId, partitions}}"

    try:
        parse_topology(req)
    except ValueError as exc:
        return "request.topology", str(exc)
    return None
