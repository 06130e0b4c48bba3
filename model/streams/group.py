"""Streams group state (``streams/StreamsGroup.java``, Kafka 4.3).

Hard state is what records 17, 19-23 carry. Derived indexes (which process holds each task in
each role) are maintained in :meth:`StreamsGroup.put_member` / :meth:`StreamsGroup.remove_member`
exactly as Kafka's ``maybeUpdateTaskProcessId`` does: the active index maps a task to one
process id (a put overwrites, a removal only clears the expected process), the standby and
warm-up indexes map a task to a *set* of process ids. Soft state (the configured topology, the
metadata refresh deadline, the shutdown request, the endpoint-information epoch) lives only on
the live object, as in Kafka.
"""

from __future__ import annotations

from typing import Any

from kgspec.model.errors import member_or_throw
from kgspec.model.javaorder import timeline_order
from kgspec.model.reconcile import Holdings, member_lifecycle_state
from kgspec.model.streams.configure import ConfiguredTopology, Status
from kgspec.model.streams.member import (
    ACTIVE,
    ROLES,
    STANDBY,
    STATE_NAMES,
    WARMUP,
    StreamsMember,
    TaskSets,
)
from kgspec.model.streams.offsets import MemberTaskOffsets
from kgspec.model.streams.topology import Topology
from kgspec.spec import groups as groups_spec
from kgspec.spec import topology as topology_spec

# The ``streams-group`` machine's state names (spec/groups.py); Kafka's wire names ("NotReady")
# appear only in describe and list responses (spec.groups.DESCRIBED_NAMES).
EMPTY, NOT_READY, ASSIGNING, RECONCILING, STABLE_STATE = (
    groups_spec.EMPTY, groups_spec.NOT_READY, groups_spec.ASSIGNING, groups_spec.RECONCILING, groups_spec.STABLE)

Task = tuple[str, int]


class StreamsGroup:
    # Kept beside the records, lost on failover; a step changes them through its shadow
    # (``Coordinator.shadow_streams_group``) and the commit's soft-state operations.
    SOFT_FIELDS = ("configured_topology", "refresh_deadline", "shutdown_request_member_id",
                   "endpoint_information_epoch", "task_offsets", "refined")

    __slots__ = (
        "active_process",
        "assignment_epoch",
        "assignment_timestamp",
        "configured_topology",
        "endpoint_information_epoch",
        "group_epoch",
        "group_id",
        "last_assignment_configs",
        "members",
        "members_room",
        "metadata_hash",
        "partition_metadata",
        "refined",
        "refresh_deadline",
        "seed_records",
        "shutdown_request_member_id",
        "standby_processes",
        "static_members",
        "target",
        "task_offsets",
        "topology",
        "validated_topology_epoch",
        "warmup_processes",
    )

    def __init__(self, group_id: str, initial_epoch: int) -> None:
        self.group_id = group_id
        # StreamsGroup(): groupEpoch.set(1) and TargetAssignmentMetadata.INITIAL = (1, 0) on 4.3.
        self.group_epoch = initial_epoch
        self.assignment_epoch = initial_epoch
        self.assignment_timestamp = 0
        self.metadata_hash = 0
        self.validated_topology_epoch = 0  # a TimelineInteger starts at 0 (record 17's default is -1)
        self.last_assignment_configs: dict[str, str] = {}
        # kip: the seed's record 18 (model/streams/seed_records.py); None until one is written.
        self.partition_metadata: tuple[tuple[str, str, int], ...] | None = None
        # kip: the group is kept in the seed's records (record 17 has only the epoch, so the last
        # assignment configs are soft state).
        self.seed_records = False
        self.members: dict[str, StreamsMember] = {}
        # members is Kafka's TimelineHashMap: its slots (hence its order) follow the largest size + 1
        # any put saw (javaorder.timeline_order).
        self.members_room = 0
        self.static_members: dict[str, str] = {}
        self.target: dict[str, TaskSets] = {}
        self.topology: Topology | None = None
        self.active_process: dict[Task, str] = {}
        self.standby_processes: dict[Task, set[str]] = {}
        self.warmup_processes: dict[Task, set[str]] = {}
        # soft state
        self.configured_topology: ConfiguredTopology | None = None
        self.refresh_deadline: tuple[int, int] = (0, 0)
        self.shutdown_request_member_id: str | None = None
        self.endpoint_information_epoch = 0
        # trunk soft state: reported task offsets per member (MemberTaskOffsets, never persisted) and
        # the intermediate (refined) assignment frozen for one assignment epoch (StreamsGroup.refinedAssignment).
        self.task_offsets: dict[str, MemberTaskOffsets] = {}
        self.refined: tuple[int, dict[str, TaskSets]] | None = None

    def member_order(self) -> list[str]:
        """``members()`` as Kafka iterates its ``TimelineHashMap``."""
        return timeline_order(self.members, self.members_room)

    def shadow(self) -> StreamsGroup:
        """A copy for one step being decided: hard state shared (records change it, never a
        step), soft state the copy's own (``task_offsets`` is the one soft container a step
        changes in place)."""
        copy = object.__new__(StreamsGroup)
        for name in StreamsGroup.__slots__:
            setattr(copy, name, getattr(self, name))
        copy.task_offsets = dict(self.task_offsets)
        return copy

    # --- derived state --------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``maybeUpdateGroupState``: the spec's derivation of the ``streams-group`` state
        (``spec.groups.derive_streams_group_state``)."""
        a = self.assignment_epoch
        return groups_spec.derive_streams_group_state(
            len(self.members), None if self.topology is None else self.topology.epoch,
            self.validated_topology_epoch, self.group_epoch, a,
            all(m.is_reconciled_to(a) for m in self.members.values()))

    def is_empty(self) -> bool:
        return not self.members

    def has_metadata_expired(self, now: int) -> bool:
        deadline, epoch = self.refresh_deadline
        return now >= deadline or self.group_epoch < epoch

    def current_active_process(self, sid: str, p: int) -> str | None:
        return self.active_process.get((sid, p))

    def current_standby_processes(self, sid: str, p: int) -> set[str]:
        return self.standby_processes.get((sid, p), set())

    def current_warmup_processes(self, sid: str, p: int) -> set[str]:
        return self.warmup_processes.get((sid, p), set())

    def target_of(self, member_id: str) -> TaskSets:
        return self.target.get(member_id, {role: {} for role in ROLES})

    def member_or_throw(self, member_id: str) -> StreamsMember:
        """The member, or Kafka's UNKNOWN_MEMBER_ID ("Member … is not a member of group …")."""
        return member_or_throw(self.members, member_id, self.group_id)

    def lifecycle_state(self, member: StreamsMember) -> str:
        """``member``'s state in the ``streams-member`` machine (``reconcile.member_lifecycle_state``)."""
        return member_lifecycle_state(member, self.members, self.static_member, STATE_NAMES)

    def topology_state(self) -> str:
        """The group's state in the ``streams-topology`` machine: ABSENT without a topology record,
        INITIALIZED until configureTopics ran for its epoch, then READY or why it is not."""
        if self.topology is None:
            return topology_spec.ABSENT
        configured = self.configured_topology
        if configured is None or configured.topology_epoch != self.topology.epoch:
            return topology_spec.INITIALIZED
        return configured_state(configured)

    def static_member(self, instance_id: str | None) -> StreamsMember | None:
        member_id = self.static_members.get(instance_id) if instance_id is not None else None
        return self.members.get(member_id) if member_id is not None else None

    def offsets_of(self, member_id: str) -> MemberTaskOffsets:
        return self.task_offsets.get(member_id, MemberTaskOffsets.EMPTY)

    def refined_for(self, assignment_epoch: int) -> dict[str, TaskSets] | None:
        """``refinedAssignment(epoch)``: the intermediate assignment frozen for that epoch, if any."""
        if self.refined is not None and self.refined[0] == assignment_epoch:
            return self.refined[1]
        return None

    def relabel_refined(self, old_member_id: str, new_member_id: str) -> None:
        """``relabelRefinedAssignment``: a replacing static member takes over the old member's slice."""
        if self.refined is None or old_member_id not in self.refined[1]:
            return
        epoch, assignment = self.refined
        relabeled = dict(assignment)
        relabeled[new_member_id] = relabeled.pop(old_member_id)
        self.refined = (epoch, relabeled)

    # --- members -----------------------------------------------------------------------------

    def put_member(self, member: StreamsMember) -> None:
        old = self.members.get(member.member_id)
        self.members_room = max(self.members_room, len(self.members) + 1)
        self.members[member.member_id] = member
        if old is not None:
            self._remove_tasks(old.assigned, old.process_id)
            self._remove_tasks(old.pending_revocation, old.process_id)
            if old.instance_id is not None and old.instance_id != member.instance_id:
                # updateStaticMember (KAFKA-20747): a changed instance id drops the stale mapping.
                self.static_members.pop(old.instance_id, None)
        self._add_tasks(member.assigned, member.process_id)
        self._add_tasks(member.pending_revocation, member.process_id)
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        if not self.members:
            self.shutdown_request_member_id = None

    def remove_member(self, member_id: str) -> StreamsMember | None:
        old = self.members.pop(member_id, None)
        if old is None:
            return None
        self._remove_tasks(old.assigned, old.process_id)
        self._remove_tasks(old.pending_revocation, old.process_id)
        if old.instance_id is not None:
            self.static_members.pop(old.instance_id, None)
        self.task_offsets.pop(member_id, None)
        if not self.members:
            self.shutdown_request_member_id = None  # clearShutdownRequestMemberId
        return old

    def _add_tasks(self, h: Holdings, process_id: str) -> None:
        for sid, parts in h.get(ACTIVE, {}).items():
            for p in parts:
                self.active_process[(sid, p)] = process_id
        for role, index in ((STANDBY, self.standby_processes), (WARMUP, self.warmup_processes)):
            for sid, parts in h.get(role, {}).items():
                for p in parts:
                    index.setdefault((sid, p), set()).add(process_id)

    def _remove_tasks(self, h: Holdings, process_id: str) -> None:
        for sid, parts in h.get(ACTIVE, {}).items():
            for p in parts:
                if self.active_process.get((sid, p)) == process_id:
                    del self.active_process[(sid, p)]
        for role, index in ((STANDBY, self.standby_processes), (WARMUP, self.warmup_processes)):
            for sid, parts in h.get(role, {}).items():
                for p in parts:
                    procs = index.get((sid, p))
                    if procs is not None:
                        procs.discard(process_id)
                        if not procs:
                            del index[(sid, p)]

    # --- comparison --------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "groupId": self.group_id,
            "type": "streams",
            "groupEpoch": self.group_epoch,
            "metadataHash": self.metadata_hash,
            "validatedTopologyEpoch": self.validated_topology_epoch,
            "lastAssignmentConfigs": None if self.seed_records else dict(sorted(self.last_assignment_configs.items())),
            "partitionMetadata": None if self.partition_metadata is None else [list(t) for t in self.partition_metadata],
            "assignmentEpoch": self.assignment_epoch,
            "assignmentTimestamp": self.assignment_timestamp,
            "state": self.state,
            "topologyEpoch": None if self.topology is None else self.topology.epoch,
            "members": {mid: _member_snapshot(m) for mid, m in sorted(self.members.items())},
            "target": {mid: _sets_json(t) for mid, t in sorted(self.target.items())},
            "activeProcess": {f"{s}_{p}": v for (s, p), v in sorted(self.active_process.items())},
            "standbyProcesses": {f"{s}_{p}": sorted(v) for (s, p), v in sorted(self.standby_processes.items())},
            "warmupProcesses": {f"{s}_{p}": sorted(v) for (s, p), v in sorted(self.warmup_processes.items())},
        }


def _sets_json(t: TaskSets) -> dict[str, dict[str, list[int]]]:
    return {role: {s: sorted(p) for s, p in sorted(t.get(role, {}).items()) if p} for role in ROLES}


def _member_snapshot(m: StreamsMember) -> dict[str, Any]:
    def h(x: Holdings) -> dict[str, Any]:
        return {role: {s: dict(sorted(p.items())) for s, p in sorted(x.get(role, {}).items()) if p} for role in ROLES}

    out: dict[str, Any] = {
        "memberEpoch": m.member_epoch, "previousMemberEpoch": m.previous_member_epoch, "state": m.state,
        "instanceId": m.instance_id, "rackId": m.rack_id, "clientId": m.client_id, "clientHost": m.client_host,
        "rebalanceTimeoutMs": m.rebalance_timeout_ms, "topologyEpoch": m.topology_epoch,
        "processId": m.process_id, "userEndpoint": m.user_endpoint, "clientTags": dict(sorted(m.client_tags.items())),
        "assigned": h(m.assigned), "pendingRevocation": h(m.pending_revocation),
    }
    if m.classic_member_metadata is not None:  # kip: a classic-protocol member (online migration)
        out["classicMemberMetadata"] = m.classic_member_metadata
    return out


#: configureTopics' outcome -> (the streams-topology state, the trigger that reaches it).
_CONFIGURED = {
    None: (topology_spec.READY, "configured_ready"),
    Status.MISSING_SOURCE_TOPICS: (topology_spec.MISSING_SOURCE_TOPICS, "configured_missing_source_topics"),
    Status.INCORRECTLY_PARTITIONED_TOPICS: (topology_spec.INCORRECTLY_PARTITIONED_TOPICS,
                                            "configured_incorrectly_partitioned"),
    Status.MISSING_INTERNAL_TOPICS: (topology_spec.MISSING_INTERNAL_TOPICS, "configured_missing_internal_topics"),
}


def configured_state(configured: ConfiguredTopology) -> str:
    return _CONFIGURED[None if configured.status is None else configured.status.status][0]


def configured_trigger(configured: ConfiguredTopology) -> str:
    """The ``streams-topology`` trigger for this configureTopics outcome."""
    return _CONFIGURED[None if configured.status is None else configured.status.status][1]
