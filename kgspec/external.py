"""Assignors in any language: one process per assignment, one JSON line each way.

The protocol (``kgspec-assignor/1``, docs/assignors.md): kgspec starts ``COMMAND`` with a shell,
writes one request line to its standard input and closes it; the process writes one response
line to its standard output and exits 0. Partition and task lists are sorted; members come in
the order the coordinator walks them.

Consumer request::

    {"protocol": "kgspec-assignor/1", "kind": "consumer", "assignor": "NAME",
     "subscriptionType": "HOMOGENEOUS" | "HETEROGENEOUS",
     "members": [{"memberId": "...", "instanceId": null, "rackId": null,
                  "subscribedTopicIds": ["..."], "assignment": {"TOPIC": [0, 1]}}],
     "topics": {"TOPIC": {"numPartitions": 3}}}

Consumer response: ``{"assignment": {"MEMBER": {"TOPIC": [0, 2]}}}``.

Streams request: ``{"protocol": ..., "kind": "streams", "assignor": "NAME",
"members": [{"memberId", "processId", "activeTasks": {"SUBTOPOLOGY": [0]}, "standbyTasks": {}}],
"subtopologies": [{"subtopologyId", "numTasks", "stateful"}], "numStandbyReplicas": 1,
"configs": {}}``; response ``{"active": {"MEMBER": {...}}, "standby": {"MEMBER": {...}}}``.

Either response may instead be ``{"error": "why"}``: the assignor found no assignment (Kafka's
``PartitionAssignorException``, answered ``UNKNOWN_SERVER_ERROR``). A process that exits non-zero,
times out or answers something else raises ``ExternalAssignorError`` naming what was wrong.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from typing import Any

from kgspec.model.assignors.api import (
    GroupAssignment,
    GroupSpec,
    PartitionAssignorError,
    TopicDescriber,
)
from kgspec.model.streams.assignor import TaskAssignment, TaskAssignorError
from kgspec.model.streams.task_api import TaskGroupSpec

PROTOCOL = "kgspec-assignor/1"
DEFAULT_TIMEOUT_S = 60.0


class ExternalAssignorError(PartitionAssignorError):
    """The external process broke the protocol (crash, timeout, malformed response)."""


def consumer_request(name: str, spec: GroupSpec, topics: TopicDescriber) -> dict[str, Any]:
    """The request for ``spec``; topics are every subscribed or currently assigned topic."""
    topic_ids = sorted({t for m in spec.members.values() for t in (*m.subscribed_topic_ids, *m.assignment)})
    return {
        "protocol": PROTOCOL, "kind": "consumer", "assignor": name,
        "subscriptionType": spec.subscription_type.value,
        "members": [{"memberId": m.member_id, "instanceId": m.instance_id, "rackId": m.rack_id,
                     "subscribedTopicIds": sorted(m.subscribed_topic_ids),
                     "assignment": _lists(m.assignment)} for m in spec.members.values()],
        "topics": {t: {"numPartitions": topics.num_partitions(t)} for t in topic_ids},
    }


def streams_request(name: str, spec: TaskGroupSpec) -> dict[str, Any]:
    return {
        "protocol": PROTOCOL, "kind": "streams", "assignor": name,
        "members": [{"memberId": m.member_id, "processId": m.process_id,
                     "activeTasks": _lists(m.active_tasks), "standbyTasks": _lists(m.standby_tasks)}
                    for m in spec.members],
        "subtopologies": [{"subtopologyId": s.subtopology_id, "numTasks": s.num_tasks, "stateful": s.stateful}
                          for s in spec.subtopologies],
        "numStandbyReplicas": spec.num_standby_replicas,
        "configs": dict(spec.configs),
    }


def _lists(assignment: Mapping[str, frozenset[int]]) -> dict[str, list[int]]:
    return {key: sorted(parts) for key, parts in sorted(assignment.items()) if parts}


def parse_member_map(value: Any, where: str) -> dict[str, dict[str, frozenset[int]]]:
    """``{"MEMBER": {"KEY": [int, ...]}}`` -> frozensets; ExternalAssignorError naming the field."""
    if not isinstance(value, dict):
        raise ExternalAssignorError(f"{where}: expected an object of members, got {type(value).__name__}")
    out: dict[str, dict[str, frozenset[int]]] = {}
    for member_id, by_key in value.items():
        if not isinstance(by_key, dict):
            raise ExternalAssignorError(f"{where}.{member_id}: expected an object, got {type(by_key).__name__}")
        parts: dict[str, frozenset[int]] = {}
        for key, numbers in by_key.items():
            if not isinstance(numbers, list) or not all(type(n) is int for n in numbers):
                raise ExternalAssignorError(f"{where}.{member_id}.{key}: expected a list of integers")
            if len(set(numbers)) != len(numbers):
                raise ExternalAssignorError(f"{where}.{member_id}.{key}: a number is listed twice")
            parts[key] = frozenset(numbers)
        out[member_id] = parts
    return out


class ExecAssignor:
    """A consumer and streams task assignor run as ``command`` (a shell command line)."""

    def __init__(self, command: str, *, name: str = "exec", timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.command = command
        self.name = name
        self.timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"ExecAssignor({self.command!r}, name={self.name!r})"

    def assign(self, spec: GroupSpec, topics: TopicDescriber) -> GroupAssignment:
        response = self._exchange(consumer_request(self.name, spec, topics))
        if "error" in response:
            raise PartitionAssignorError(str(response["error"]))
        if "assignment" not in response:
            raise ExternalAssignorError(f"{self._who()}: the response has neither \"assignment\" nor \"error\"")
        return parse_member_map(response["assignment"], "assignment")

    def assign_tasks(self, spec: TaskGroupSpec) -> TaskAssignment:
        response = self._exchange(streams_request(self.name, spec))
        if "error" in response:
            raise TaskAssignorError(str(response["error"]))
        missing = [k for k in ("active", "standby") if k not in response]
        if missing:
            raise ExternalAssignorError(f"{self._who()}: the response lacks {', '.join(missing)}")
        return TaskAssignment(parse_member_map(response["active"], "active"),
                              parse_member_map(response["standby"], "standby"))

    def _who(self) -> str:
        return f"external assignor {self.name!r} ({self.command})"

    def _exchange(self, request: dict[str, Any]) -> dict[str, Any]:
        line = json.dumps(request, separators=(",", ":")) + "\n"
        try:
            done = subprocess.run(self.command, shell=True, input=line, capture_output=True, text=True,
                                  timeout=self.timeout_s, check=False)
        except subprocess.TimeoutExpired:
            raise ExternalAssignorError(f"{self._who()}: no response within {self.timeout_s:g} s") from None
        except OSError as exc:
            raise ExternalAssignorError(f"{self._who()}: cannot start: {exc}") from None
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-3:]
            raise ExternalAssignorError(f"{self._who()}: exited with status {done.returncode}"
                                        + (f": {' / '.join(tail)}" if tail else ""))
        lines = [text for text in done.stdout.splitlines() if text.strip()]
        if len(lines) != 1:
            raise ExternalAssignorError(f"{self._who()}: expected one response line on standard output, "
                                        f"got {len(lines)}")
        try:
            response = json.loads(lines[0])
        except json.JSONDecodeError as exc:
            raise ExternalAssignorError(f"{self._who()}: response line 1 is not JSON: {exc}") from None
        if not isinstance(response, dict):
            raise ExternalAssignorError(f"{self._who()}: response line 1 is not a JSON object")
        return response
