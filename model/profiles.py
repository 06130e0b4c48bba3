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
    # trunk (4.4): streams static membership, warm-up refiner, task offsets, in-place role changes.
    streams_trunk_features: bool
    # 4.3: the group-size check exempts an instance id that already has a static member
    # (GroupMetadataManager.throwIfConsumerGroupIsFull).
    static_member_size_exemption: bool
    # trunk: fencing the last member also writes TargetAssignmentMetadata(new epoch, 0), so an
    # empty group has groupEpoch == assignmentEpoch (consumerGroupFenceMembers).
    empty_group_resets_assignment_epoch: bool
    # The seed documents as written (KIP-1071 topology epochs, Connect draft).
    kip_text: bool = False


PROFILES: dict[str, Profile] = {
    "kafka-4.1": Profile(
        name="kafka-4.1",
        new_group_initial_epoch=0,
        consumer_unrevoked_exit_bumps_epoch=True,
        rejoin_with_epoch_zero=False,
        assignment_batching=False,
        per_partition_assignment_epochs=False,
        streams_initial_rebalance_delay=False,
        streams_trunk_features=False,
        static_member_size_exemption=False,
        empty_group_resets_assignment_epoch=False,
    ),
    "kafka-4.2": Profile(
        name="kafka-4.2",
        new_group_initial_epoch=0,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=False,
        per_partition_assignment_epochs=False,
        streams_initial_rebalance_delay=True,
        streams_trunk_features=False,
        static_member_size_exemption=False,
        empty_group_resets_assignment_epoch=False,
    ),
    "kafka-4.3": Profile(
        name="kafka-4.3",
        new_group_initial_epoch=1,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=True,
        per_partition_assignment_epochs=True,
        streams_initial_rebalance_delay=True,
        streams_trunk_features=False,
        static_member_size_exemption=True,
        empty_group_resets_assignment_epoch=False,
    ),
    "kafka-trunk": Profile(
        name="kafka-trunk",
        new_group_initial_epoch=1,
        consumer_unrevoked_exit_bumps_epoch=False,
        rejoin_with_epoch_zero=True,
        assignment_batching=True,
        per_partition_assignment_epochs=True,
        streams_initial_rebalance_delay=True,
        streams_trunk_features=True,
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
        streams_initial_rebalance_delay=True,
        streams_trunk_features=True,
        static_member_size_exemption=True,
        empty_group_resets_assignment_epoch=True,
        kip_text=True,
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
