"""Field-by-field comparison of observed and expected responses and records.

The contract (section 2) says what counts: the error code always; on success the
member id, member epoch, heartbeat interval and the assignment as sets. ``null`` and
an empty list are different values. ``errorMessage`` never counts.
"""

from __future__ import annotations

from typing import Any

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


def describe_differences(expected: dict[str, Any], observed: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    diffs: list[tuple[str, Any, Any]] = []
    exp_groups = {g["groupId"]: g for g in expected.get("groups", [])}
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
        for name in ("groupState", "groupEpoch", "assignmentEpoch", "assignorName"):
            if name in obs and exp.get(name) != obs.get(name):
                diffs.append((f"groups[{gid}].{name}", exp.get(name), obs.get(name)))
        exp_members = {m["memberId"]: m for m in exp.get("members", [])}
        obs_members = {m.get("memberId"): m for m in obs.get("members") or []}
        if set(exp_members) != set(obs_members):
            diffs.append((f"groups[{gid}].members", sorted(exp_members), sorted(obs_members, key=str)))
            continue
        for mid, om in obs_members.items():
            em = exp_members[mid]
            for name in ("memberEpoch", "instanceId", "rackId", "subscribedTopicRegex", "memberType"):
                if name in om and em.get(name) != om.get(name):
                    diffs.append((f"groups[{gid}].members[{mid}].{name}", em.get(name), om.get(name)))
            if "subscribedTopicNames" in om and sorted(em.get("subscribedTopicNames") or []) != sorted(
                    om.get("subscribedTopicNames") or []):
                diffs.append((f"groups[{gid}].members[{mid}].subscribedTopicNames",
                              em.get("subscribedTopicNames"), om.get("subscribedTopicNames")))
            for name in ("assignment", "targetAssignment"):
                if name in om:
                    e, o = assignment_set(em.get(name)), assignment_set(om.get(name))
                    if e != o:
                        diffs.append((f"groups[{gid}].members[{mid}].{name}", e, o))
    return diffs


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
        if isinstance(v, list) and v and isinstance(v[0], dict) and "topicId" in v[0]:
            out[name] = sorted(
                (e["topicId"], tuple(sorted(zip(e.get("partitions", []),
                                                e.get("assignmentEpochs") or [None] * len(e.get("partitions", [])),
                                                strict=False))))
                for e in v if e.get("partitions"))
        elif (name == "subscribedTopicNames" and isinstance(v, list)) or (name == "topics" and isinstance(v, list)):
            out[name] = sorted(v)
        else:
            out[name] = v
    return out
