"""Topic events derived from the admin and metadata calls of a request log.

Kafka's request log does not say what topics the coordinator sees, but Metadata (3),
CreateTopics (19), DeleteTopics (20) and CreatePartitions (37) responses do. A tracker
remembers the last state it reported per topic (constant memory per topic) and returns
a ``topic`` body only when something changed.
"""

from __future__ import annotations

from typing import Any, Final

from ..events import Event, ReadItem, Skipped
from .validate import topic_event

METADATA: Final = 3
CREATE_TOPICS: Final = 19
DELETE_TOPICS: Final = 20
CREATE_PARTITIONS: Final = 37
TOPIC_API_KEYS: Final = frozenset({METADATA, CREATE_TOPICS, DELETE_TOPICS, CREATE_PARTITIONS})
# Kafka prints Uuid.ZERO_UUID where a topic id is unknown (old versions, errors).
ZERO_UUID: Final = "AAAAAAAAAAAAAAAAAAAAAA"  # writers and peers print it too


class TopicTracker:
    def __init__(self) -> None:
        self._known: dict[str, tuple[str | None, int]] = {}  # name -> (topicId, partitions)

    def topics_from_call(self, api_key: int, request: dict[str, Any], response: dict[str, Any]) -> list[dict[str, Any]]:
        """The ``topic`` bodies this call's response implies, in response order."""
        if api_key == METADATA:
            return self._from_metadata(response)
        if api_key == CREATE_TOPICS:
            return self._from_create_topics(request, response)
        if api_key == CREATE_PARTITIONS:
            return self._from_create_partitions(request, response)
        if api_key == DELETE_TOPICS:
            return self._from_delete_topics(response)
        return []

    def _changed(self, name: str, topic_id: str | None, partitions: int) -> list[dict[str, Any]]:
        if topic_id is None:
            topic_id = self._known.get(name, (None, 0))[0]
        if self._known.get(name) == (topic_id, partitions):
            return []
        self._known[name] = (topic_id, partitions)
        body: dict[str, Any] = {"name": name}
        if topic_id is not None:
            body["topicId"] = topic_id
        body["partitions"] = partitions
        return [body]

    def _from_metadata(self, response: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for topic in _objects(response.get("topics")):
            name, partitions = topic.get("name"), topic.get("partitions")
            if topic.get("errorCode", 0) != 0 or not isinstance(name, str) or not isinstance(partitions, list):
                continue
            out += self._changed(name, _topic_id(topic), len(partitions))
        return out

    def _from_create_topics(self, request: dict[str, Any], response: dict[str, Any]) -> list[dict[str, Any]]:
        if request.get("validateOnly") is True:
            return []
        requested = {t["name"]: t for t in _objects(request.get("topics")) if isinstance(t.get("name"), str)}
        out: list[dict[str, Any]] = []
        for topic in _objects(response.get("topics")):
            name = topic.get("name")
            if topic.get("errorCode", 0) != 0 or not isinstance(name, str):
                continue
            count = _positive_int(topic.get("numPartitions"))  # v5+
            if count is None and name in requested:
                req = requested[name]
                count = _positive_int(req.get("numPartitions"))
                assignments = req.get("assignments")
                if count is None and isinstance(assignments, list) and assignments:
                    count = len(assignments)
            if count is not None:  # else the broker default applied and the log does not say it
                out += self._changed(name, _topic_id(topic), count)
        return out

    def _from_create_partitions(self, request: dict[str, Any], response: dict[str, Any]) -> list[dict[str, Any]]:
        if request.get("validateOnly") is True:
            return []
        counts = {t["name"]: _positive_int(t.get("count")) for t in _objects(request.get("topics"))
                  if isinstance(t.get("name"), str)}
        out: list[dict[str, Any]] = []
        for result in _objects(response.get("results")):
            name = result.get("name")
            if result.get("errorCode", 0) != 0 or not isinstance(name, str):
                continue
            count = counts.get(name)
            if count is not None:
                out += self._changed(name, None, count)
        return out

    def _from_delete_topics(self, response: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for result in _objects(response.get("responses")):
            if result.get("errorCode", 0) != 0:
                continue
            name, topic_id = result.get("name"), _topic_id(result)
            if not isinstance(name, str) and topic_id is not None:  # v6+ deletion by id
                name = next((n for n, (tid, _) in self._known.items() if tid == topic_id), None)
            if not isinstance(name, str):
                continue
            known_id = self._known.pop(name, (None, 0))[0]
            body: dict[str, Any] = {"name": name}
            if topic_id or known_id:
                body["topicId"] = topic_id or known_id
            body["deleted"] = True
            out.append(body)
        return out


def _objects(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _topic_id(obj: dict[str, Any]) -> str | None:
    tid = obj.get("topicId")
    return tid if isinstance(tid, str) and tid != ZERO_UUID else None


def _positive_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def topic_items(call: Event, tracker: TopicTracker, ts_ms: float) -> list[ReadItem]:
    """Replace a Metadata/CreateTopics/DeleteTopics/CreatePartitions call by topic events.

    The first event accounts for the call's line; the others are ``same_line``. A call
    that changes nothing the tracker knows becomes one ``Skipped``.
    """
    assert call.api_key is not None
    bodies = tracker.topics_from_call(call.api_key, call.request, call.response)
    if not bodies:
        return [Skipped(call.line, f"{api_label(call)}: no topic change")]
    items: list[ReadItem] = []
    for i, body in enumerate(bodies):  # each as a native topic event must be (readers/validate.py)
        item = topic_event({"topic": body}, call.line, ts_ms)
        item.same_line = i > 0
        items.append(item)
    return items


def api_label(call: Event) -> str:
    return call.api_name or f"api key {call.api_key}"
