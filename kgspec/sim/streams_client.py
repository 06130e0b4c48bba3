"""A KIP-1071 streams client (StreamsGroupHeartbeat v0) on the shared client lifecycle.

``StreamsMembershipManager`` moves over the same ``MemberState`` table as the consumer
(so :class:`StreamsSimClient` reuses the compiled ``consumer-client`` table through
:class:`~kgspec.sim.client.MemberClient`); what differs is the request
(``StreamsGroupHeartbeatRequestManager.HeartbeatState.buildRequestData``, Kafka 4.3):

- joining (epoch 0): the topology, rebalance timeout, process id and client tags, with
  empty active/standby/warm-up task lists;
- otherwise the three task lists only when the reconciled assignment changed since the
  last heartbeat sent (all three or none), and after a failure or timeout (the sent
  fields are reset);
- ``endpointInformationEpoch`` always, from the last response.

Reconciliation (``maybeReconcile``): revoke the active tasks no longer assigned, then
assign; once the callbacks complete the whole target (active, standby, warm-up) becomes
the current assignment, which the next heartbeat reports. Several clients share one
process id when a Kafka Streams instance runs several stream threads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kgspec.model.streams.member import ROLE_FIELDS
from kgspec.model.streams.records import tasks_json
from kgspec.sim.client import ClientOptions, MemberClient

Tasks = dict[str, dict[str, frozenset[int]]]  # role -> subtopology -> partitions; empty roles left out


def parse_tasks(response: Mapping[str, Any]) -> Tasks | None:
    """The target a response carries: all three lists, or None (unchanged)."""
    if any(response.get(name) is None for _, name in ROLE_FIELDS.items()):
        return None
    out: Tasks = {}
    for role, name in ROLE_FIELDS.items():
        by_sub: dict[str, set[int]] = {}
        for entry in response[name]:
            by_sub.setdefault(entry["subtopologyId"], set()).update(entry["partitions"])
        subs = {s: frozenset(p) for s, p in by_sub.items() if p}
        if subs:
            out[role] = subs
    return out


class StreamsSimClient(MemberClient):
    """One stream thread's group member."""

    API_KEY: ClassVar[int] = 88
    API_VERSION: ClassVar[int] = 0
    PROTOCOL: ClassVar[str] = "streams"

    def __init__(self, name: str, group_id: str, member_id: str, process_id: str,
                 topology: dict[str, Any], options: ClientOptions | None = None) -> None:
        super().__init__(name, group_id, member_id, None, options)
        self.process_id = process_id
        self.topology = topology
        self.endpoint_epoch = -1

    @property
    def active(self) -> dict[str, frozenset[int]]:
        active: dict[str, frozenset[int]] = self.owned.get("active", {})
        return active

    def _request(self, epoch: int, full: bool) -> dict[str, Any]:
        request: dict[str, Any] = {
            "groupId": self.group_id, "memberId": self.member_id, "memberEpoch": epoch,
            "endpointInformationEpoch": self.endpoint_epoch, "instanceId": None, "rackId": None,
            "rebalanceTimeoutMs": -1, "topology": None, "activeTasks": None, "standbyTasks": None,
            "warmupTasks": None, "processId": None, "userEndpoint": None, "clientTags": None,
            "taskOffsets": None, "taskEndOffsets": None, "shutdownApplication": False,
        }
        if epoch == 0:
            request.update({"topology": self.topology, "rebalanceTimeoutMs": self.opts.rebalance_timeout_ms,
                            "processId": self.process_id, "clientTags": [],
                            "activeTasks": [], "standbyTasks": [], "warmupTasks": []})
            self.last_sent_owned = {}
        elif self._reports_owned(full):
            for role, name in ROLE_FIELDS.items():
                request[name] = tasks_json(self.owned.get(role, {}))
        return request

    def _parse_assignment(self, response: Mapping[str, Any]) -> dict[str, Any] | None:
        return parse_tasks(response)

    def _accepted(self, response: Mapping[str, Any]) -> None:
        self.endpoint_epoch = int(response.get("endpointInformationEpoch", self.endpoint_epoch))


# --- topologies the simulator runs (request form, as buildRequestData sorts them) ---------------

STREAMS_SOURCES = ("s0", "s1")
STREAMS_TOPOLOGIES = ("stateful", "two", "repartition")
APP = "app"


def _topic(name: str) -> dict[str, Any]:
    return {"name": name, "partitions": 0, "replicationFactor": 0, "topicConfigs": []}


def _sub(sid: str, sources: tuple[str, ...], changelogs: tuple[str, ...] = (), sinks: tuple[str, ...] = (),
         repartition_sources: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"subtopologyId": sid, "sourceTopics": list(sources), "sourceTopicRegex": [],
            "stateChangelogTopics": [_topic(c) for c in changelogs], "repartitionSinkTopics": list(sinks),
            "repartitionSourceTopics": [_topic(r) for r in repartition_sources], "copartitionGroups": []}


def source_topics(kind: str) -> tuple[str, ...]:
    """The user topics topology ``kind`` reads."""
    return STREAMS_SOURCES if kind == "two" else STREAMS_SOURCES[:1]


def streams_topology(kind: str, epoch: int = 0, app: str = APP,
                     sources: tuple[str, str] = ("s0", "s1")) -> dict[str, Any]:
    """``stateful``: one stateful subtopology on s0; ``two``: that plus a stateless one on s1;
    ``repartition``: s0 -> a repartition topic -> a stateful subtopology (internal topics
    whose partition counts the coordinator derives). Internal topics are named after ``app``."""
    s0, s1 = sources
    if kind == "stateful":
        subs = [_sub("0", (s0,), (f"{app}-store-changelog",))]
    elif kind == "two":
        subs = [_sub("0", (s0,), (f"{app}-store-changelog",)), _sub("1", (s1,))]
    elif kind == "repartition":
        subs = [_sub("0", (s0,), sinks=(f"{app}-repartition",)),
                _sub("1", (), (f"{app}-agg-changelog",), repartition_sources=(f"{app}-repartition",))]
    else:
        raise ValueError(f"unknown topology kind {kind!r} (known: {', '.join(STREAMS_TOPOLOGIES)})")
    return {"epoch": epoch, "subtopologies": subs}
