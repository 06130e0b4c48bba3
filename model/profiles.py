"""Behaviour profiles: which Apache Kafka release (or the KIP text) the model follows.

Every observable difference between releases is a named flag here, so model code
reads ``profile.rejoin_with_epoch_zero`` rather than comparing version numbers.
The facts come from ``shared/reference/kafka-group-coordinator.md`` (version matrix)
and Kafka's release branches; ``docs/kafka-facts.md`` records where each was read.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    # KAFKA-20268 (4.3): new groups start at groupEpoch = assignmentEpoch = 1,
    # so the first computed assignment has epoch 2. Before: 0, first member epoch 1.
    new_group_initial_epoch: int
    # KAFKA-19974 (4.2): leaving UNREVOKED_PARTITIONS no longer uses memberEpoch + 1.
    consumer_unrevoked_exit_bumps_epoch: bool
    # KAFKA-19233 (4.2): a known member may rejoin with epoch 0 and keep its state;
    # epoch validation returns early for epoch 0.
    rejoin_with_epoch_zero: bool
    # KAFKA-20291 (4.3): group.*.assignment.interval.ms batching of target computation.
    assignment_batching: bool
    # KIP-1251 (4.3): per-partition assignment epochs (AssignmentEpochs tagged field).
    per_partition_assignment_epochs: bool
    # 4.2+: streams initial rebalance delay.
    streams_initial_rebalance_delay: bool
    # 4.3: the group-size check exempts an instance id that already has a static member
    # (GroupMetadataManager.throwIfConsumerGroupIsFull).
    static_member_size_exemption: bool
    # trunk: fencing the last member also writes TargetAssignmentMetadata(new epoch, 0), so an
    # empty group has groupEpoch == assignmentEpoch (consumerGroupFenceMembers).
    empty_group_resets_assignment_epoch: bool
    # The seed documents as written (KIP-1071 topology epochs, Connect draft).
    kip_text: bool = False
    # --- online migration (model/migration) ---
    # KAFKA-20272 (4.3): a classic member of a consumer group is told REBALANCE_IN_PROGRESS when its
    # epoch is below the *assignment* epoch; before, below the group epoch (classicGroupHeartbeatToConsumerGroup).
    mixed_rejoin_on_assignment_epoch: bool = True
    # KAFKA-20273 (4.3): a downgrade by static replacement rebalances iff the target is stale
    # (assignmentEpoch < groupEpoch); before, iff the joining member's subscription changed.
    downgrade_rebalances_on_stale_assignment: bool = True
    # KAFKA-19570 (#20288, 4.2): offline migration between classic and streams groups: a joining
    # StreamsGroupHeartbeat tombstones an EMPTY classic group, a JoinGroup an EMPTY streams group
    # (GMM.getOrCreateStreamsGroup, classicGroupJoin). 4.1: any group of the other type is refused.
    streams_offline_migration: bool = True
    # 4.3 (KafkaApis.handleOffsetCommitRequest): below OffsetCommit v10 the topic id is resolved
    # from the metadata cache by name and stored in the offset record; 4.1/4.2 keep the zero id.
    offset_commit_resolves_topic_id: bool = True
    # 4.3 (OMM.commitTransactionalOffset): the TxnOffsetCommit partition validator gets the topic id
    # resolved from the metadata image; 4.2 and trunk (below TxnOffsetCommit v6) the zero id.
    txn_commit_resolves_topic_id: bool = False
    # WriteTxnMarkersRequest.json: "1" on 4.1, "1-2" from 4.2 (TransactionVersion, KIP-890).
    write_txn_markers_v2: bool = True
    # KAFKA-19779 (4.2): a streams member may commit at an older epoch for the active tasks it holds
    # at an assignment epoch not above it (StreamsGroup.createAssignmentEpochValidator); 4.1: strict.
    streams_commit_task_epochs: bool = True
    # Seed KIP-1071 "Online Migration from a Classic Consumer Group to a Streams Group" (kip only;
    # Kafka never implemented it): model/migration/streams_*.py, docs/migration.md.
    streams_online_migration: bool = False
    # Seed 001 (Connect draft) "Migration To the New Protocol" (kip only): classic Connect groups
    # upgraded online to the draft's protocol and back, model/migration/connect_*.py, docs/kip.md.
    connect_online_migration: bool = False
    # 4.3 (ConsumerGroupMember.asConsumerGroupDescribeMember): a described member's assignment
    # includes the partitions it is still revoking; 4.1/4.2: its assigned partitions only.
    describe_includes_pending_revocation: bool = True
    # 4.2 (StreamsGroup.asDescribedGroup): StreamsGroupDescribe shows the configured topology only
    # when ready, else the topology record; 4.1 shows the configured topology (no subtopologies
    # when not ready) or null.
    streams_describe_unready_topology: bool = True
    # 4.2 (EndpointToPartitionsManager.topicPartitionListForTask): IQ endpoint partitions are the
    # task ids below the topic's partition count, topics without any left out, [] when no member
    # has an endpoint, the updated member listed last. 4.1 lists every task id unless the topic has
    # fewer partitions than tasks (then the lowest ones), every source topic, the members as the
    # call found them (null when none has an endpoint), bumps the endpoint epoch on any change of
    # tasks but a join given none, and always sends it (tests/streams/test_endpoints_41.py).
    streams_endpoint_partitions_filtered: bool = True
    # --- streams groups on trunk (HEAD of the Kafka mirror; docs/streams.md "Profiles") ---
    # KAFKA-20169 (#22245): static members (instanceId accepted; replacement, -2 temporary leave,
    # UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID; epoch bumps only for topology epoch, rack, tags,
    # process id). GMM.getOrMaybeCreateStaticStreamsGroupMember / streamsGroupLeave.
    streams_static_membership: bool = False
    # KAFKA-20116 (#21803, #22644): taskOffsets / taskEndOffsets accepted, kept in memory per member
    # (StreamsGroup.updateTaskOffsets), fed to the assignor; KAFKA-20695 (#22808) describes them.
    streams_task_offsets: bool = False
    # KAFKA-20665 (#22658, #22748, #22985): non-empty warmupTasks accepted; a STABLE group with no
    # other reason to rebalance takes a refinement step (AssignmentUpdate.REFINED: epoch bump, record
    # 20 only). Trunk's AssignmentRefiner.refine returns the target unchanged (no warm-ups yet).
    streams_assignment_refiner: bool = False
    # KAFKA-20665 (#22923, #22981): CurrentAssignmentBuilder changes task roles in place
    # (active->standby, standby<->warm-up at once; standby/warm-up->active when the active is granted).
    streams_in_place_role_changes: bool = False
    # KAFKA-18652 (#21799): the response carries acceptableRecoveryLag (v1 int64; v0's legacy
    # int32 stays 0) and taskOffsetIntervalMs from the configs (4.3 sends 0 and 0).
    streams_recovery_lag_in_response: bool = False
    # KAFKA-20744 (#22213): rack.aware.assignment.tags joins the assignment configs (record 17);
    # v1 heartbeats get MISSING_CLIENT_TAGS (6) when a required tag is missing.
    streams_rack_aware_tags: bool = False
    # GMM.hasUserEndpointChanged (trunk): a changed user endpoint bumps the endpoint epoch.
    streams_endpoint_change_bumps_endpoint_epoch: bool = False
    # KAFKA-20790 (#22788, TargetAssignmentBuilder.createMemberMetadataAndState): the sticky assignor
    # sees each member's *current* tasks (member.assignedTasks()), not its target; and its
    # processIdToState is filled with computeIfAbsent (ties between equal process loads differ).
    streams_assignor_sees_current_tasks: bool = False
    # EndpointToPartitionsManager.endpointToPartitions (4.1 .. trunk) reads the configured subtopologies with
    # Optional.get(): building partitionsByUserEndpoint for a member with a userEndpoint while the
    # topology is not ready (a source topic missing) throws NoSuchElementException, answered as
    # UNKNOWN_SERVER_ERROR (docs/upstream.md, finding 3). False for kip (the seed has no such failure).
    streams_endpoint_info_fails_when_not_ready: bool = False
    # ConsumerGroup.validateOffsetCommit (4.1 .. trunk): a commit at the member's current epoch is
    # accepted without looking at its partitions (KIP-1251's per-partition epochs judge only older
    # epochs). A partition can leave a consumer member at the same epoch (a resubscribe while
    # group.consumer.assignment.interval.ms holds the next target back), so the executable
    # commit-fencing invariant does not judge current-epoch commits here (docs/upstream.md, finding 2).
    consumer_commit_current_epoch_unchecked: bool = False
    # --- streams groups, seed text (KIP-1071) ---
    # "Request Handling" 2.3: topology epoch ER vs group's EG on join: ER<EG STREAMS_TOPOLOGY_FENCED (132),
    # ER>EG+1 or (ER=EG, different topology) STREAMS_INVALID_TOPOLOGY_EPOCH (131), ER=EG+1 updates.
    streams_kip_topology_epochs: bool = False
    # "Rebalance Process"/"Assignment": warm-ups for stateful tasks that move; a warm-up whose lag is
    # within acceptable.recovery.lag bumps the group epoch and is promoted (see streams/refiner.py).
    streams_kip_warmup_promotion: bool = False
    # "Topology updates": members whose topology epoch is below the group's get no new tasks
    # (model/streams/stale.py); Kafka's assignor does not look at topology epochs.
    streams_kip_stale_members_keep_only: bool = False
    # "Assignment": "Every time the group epoch is bumped, a new task assignment is computed": no
    # group.streams.assignment.interval.ms batching (with streams_initial_rebalance_delay off, no
    # ASSIGNMENT_DELAYED status, which the seed does not define).
    streams_kip_assign_on_every_bump: bool = False
    # StreamsGroupHeartbeatResponse v0 (the seed's only version): AcceptableRecoveryLag (int32) and
    # TaskOffsetIntervalMs carry the configured acceptable.recovery.lag and task.offset.interval.ms.
    streams_kip_response_configs: bool = False
    # "Request Handling" 3.4: "FENCED_MEMBER_EPOCH is returned otherwise. The member is also removed
    # from the group." (Kafka keeps the member; the Connect draft's worker is removed likewise.)
    streams_kip_fenced_member_removed: bool = False
    # "Request Validation": the seed's INVALID_REQUEST and STREAMS_INVALID_TOPOLOGY lists
    # (model/streams/seed_validation.py) instead of GroupCoordinatorService's checks.
    streams_kip_seed_validation: bool = False
    # StreamsGroupHeartbeatResponse "Status": "Null if unchanged since last heartbeat." (a join
    # always gets it; the memory is soft state). Kafka always sends the list.
    streams_kip_null_unchanged_status: bool = False
    # Topology "SourceTopicRegex": source topics given by RE2/J regexes, resolved when the topology
    # is configured (model/streams/source_regex.py); Kafka answers INVALID_REQUEST.
    streams_kip_source_regexes: bool = False
    # "Reconciliation of the group": an active task waits only for other members, a standby or
    # warm-up for its process's active or standby, the member's own included; no in-place role
    # changes (model/streams/reconcile.py ``_seed_unreleased``).
    streams_kip_seed_reconciliation: bool = False
    # "Records": the seed's StreamsGroupMetadataValue (``Epoch`` only) and its
    # StreamsGroupPartitionMetadata record (type 18) instead of Kafka's metadata hash
    # (model/streams/seed_records.py).
    streams_kip_seed_records: bool = False
    # "Assignment": warm-ups are the assignor's, in the target record 21 (the seed's
    # StreamsGroupTargetAssignmentMemberValue ``WarmupTasks``), not an intermediate assignment.
    streams_kip_warmups_in_target: bool = False
    # "Assignment": group.streams.assignor.name picks the task assignor, else highly_available for a
    # stateful topology and sticky for a stateless one (model/streams/highly_available.py).
    streams_kip_assignor_selection: bool = False
    # --- classic groups, seed text (003) ---
    # JoinGroup v6+ ``joinReason`` (BLIND / TOPIC_METADATA_CHANGE): a known member's blind rejoin
    # with unchanged protocols does not rebalance, even from the leader (model/classic/join.py).
    classic_kip_join_reason: bool = False
    # Seed 004: any joined member may lead and any undominated common protocol may be chosen; the
    # checker adopts the trace's (model/classic/seed_choices.py). Kafka: first joiner, vote.
    classic_kip_choices: bool = False
    # Kafka trunk's StreamsGroupHeartbeat v1 and StreamsGroupDescribe v1; the seed defines v0 only.
    streams_v1_apis: bool = False


_STREAMS_TRUNK: dict[str, bool] = {
    "streams_static_membership": True,
    "streams_task_offsets": True,
    "streams_assignment_refiner": True,
    "streams_in_place_role_changes": True,
    "streams_recovery_lag_in_response": True,
    "streams_rack_aware_tags": True,
    "streams_endpoint_change_bumps_endpoint_epoch": True,
    "streams_v1_apis": True,
    "streams_assignor_sees_current_tasks": True,
}
# kip keeps what the seed also has (static members, task offsets, warm-ups) and drops what only
# Kafka has: the v1 APIs, the int64 recovery lag, rack-aware tags (MISSING_CLIENT_TAGS) and the
# in-place role changes (the seed's reconciliation rules instead). The assignor's input stays the
# members' targets, as 4.3's: trunk's change to the tasks members hold (KAFKA-20790) came after the
# seed, which does not say which the assignor sees.
_STREAMS_KIP: dict[str, bool] = {**_STREAMS_TRUNK, "streams_v1_apis": False,
                                 "streams_recovery_lag_in_response": False, "streams_rack_aware_tags": False,
                                 "streams_in_place_role_changes": False, "streams_assignor_sees_current_tasks": False}

PROFILES: dict[str, Profile] = {
    "kafka-4.1": Profile(
        name="kafka-4.1",
        streams_endpoint_info_fails_when_not_ready=True,
        consumer_commit_current_epoch_unchecked=True,
        offset_commit_resolves_topic_id=False,
        write_txn_markers_v2=False,
        streams_commit_task_epochs=False,
        mixed_rejoin_on_assignment_epoch=False,
        streams_offline_migration=False,
        streams_describe_unready_topology=False,
        streams_endpoint_partitions_filtered=False,
        describe_includes_pending_revocation=False,
        downgrade_rebalances_on_stale_assignment=False,
        new_group_initial_epoch=0,
        consumer_unrevoked_exit_bumps_epoch=True,
        rejoin_with_epoch_zero=False,
        assignment_batching=False,
        per_partition_assignment_epochs=False,
        streams_initial_rebalance_delay=False,
        static_member_size_exemption=False,
        empty_group_resets_assignment_epoch=False,
    ),
    "kafka-4.2": Profile(
        name="kafka-4.2",
        streams_endpoint_info_fails_when_not_ready=True,
        consumer_commit_current_epoch_unchecked=True,
        describe_includes_pending_revocation=False,
        offset_commit_resolves_topic_id=False,
        mixed_rejoin_on_assignment_epoch=False,
        downgrade_rebalances_on_stale_assignment=False,
        new_group_initial_epoch=0,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=False,
        per_partition_assignment_epochs=False,
        streams_initial_rebalance_delay=True,
        static_member_size_exemption=False,
        empty_group_resets_assignment_epoch=False,
    ),
    "kafka-4.3": Profile(
        name="kafka-4.3",
        streams_endpoint_info_fails_when_not_ready=True,
        consumer_commit_current_epoch_unchecked=True,
        txn_commit_resolves_topic_id=True,
        new_group_initial_epoch=1,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=True,
        per_partition_assignment_epochs=True,
        streams_initial_rebalance_delay=True,
        static_member_size_exemption=True,
        empty_group_resets_assignment_epoch=False,
    ),
    "kafka-trunk": Profile(
        name="kafka-trunk",
        streams_endpoint_info_fails_when_not_ready=True,
        consumer_commit_current_epoch_unchecked=True,
        new_group_initial_epoch=1,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=True,
        per_partition_assignment_epochs=True,
        streams_initial_rebalance_delay=True,
        **_STREAMS_TRUNK,
        static_member_size_exemption=True,
        empty_group_resets_assignment_epoch=True,
    ),
    "kip": Profile(
        name="kip",
        new_group_initial_epoch=1,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=True,
        per_partition_assignment_epochs=True,
        streams_initial_rebalance_delay=False,  # the seed has no initial delay (docs/kip.md)
        **_STREAMS_KIP,
        static_member_size_exemption=True,
        empty_group_resets_assignment_epoch=True,
        kip_text=True,
        streams_kip_topology_epochs=True,
        streams_kip_warmup_promotion=True,
        streams_kip_stale_members_keep_only=True,
        streams_kip_assign_on_every_bump=True,
        streams_kip_response_configs=True,
        streams_kip_fenced_member_removed=True,
        streams_kip_seed_validation=True,
        streams_kip_null_unchanged_status=True,
        streams_kip_source_regexes=True,
        streams_kip_seed_reconciliation=True,
        streams_kip_seed_records=True,
        streams_kip_warmups_in_target=True,
        streams_kip_assignor_selection=True,
        classic_kip_join_reason=True,
        classic_kip_choices=True,
        streams_online_migration=True,
        connect_online_migration=True,
    ),
}

DEFAULT_PROFILE = "kafka-4.3"


def get_profile(name: str | None) -> Profile:
    """Return the named profile; ``None`` means the default (``kafka-4.3``)."""
    if name is None:
        return PROFILES[DEFAULT_PROFILE]
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"unknown profile {name!r} (known: {known})") from None
