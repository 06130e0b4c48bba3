"""Migration differences between releases (model/profiles.py), each a 4.3 ticket."""

from __future__ import annotations

from kgspec.model.consumer import records as rec
from kgspec.model.errors import Errors
from kgspec.spec.classic import PREPARING_REBALANCE, STABLE

from tests.migration.harness import GROUP, MixedHarness, subscription
from tests.migration.test_downgrade import PROTOCOLS


def _mixed(profile: str, group_epoch: int) -> MixedHarness:
    h = MixedHarness({"foo": 6, "bar": 3}, profile=profile, configs={"group.min.session.timeout.ms": 0})
    m1 = h.classic_member("member-1", 10, {"foo": [0, 1, 2], "bar": [0, 1]}, protocols=PROTOCOLS)
    m2 = h.consumer_member("member-2", 10, {"foo": [3, 4, 5], "bar": [2]}, instance="instance-2")
    h.seed_consumer_group(10, [m1, m2])
    if group_epoch != 10:  # a new group epoch whose target is not computed yet
        h.coord.replay(rec.group_epoch_record(GROUP, group_epoch, h.coord.groups[GROUP].metadata_hash))
    return h


def test_mixed_heartbeat_compares_with_assignment_epoch_from_4_3() -> None:
    """KAFKA-20272 (testClassicGroupHeartbeatToConsumerGroupDuringAssignmentDelay): group epoch 11,
    target still at 10 -> 4.3 lets the member be; 4.1/4.2 ask it to rejoin."""
    for profile, error in (("kafka-4.3", Errors.NONE), ("kafka-trunk", Errors.NONE),
                           ("kafka-4.2", Errors.REBALANCE_IN_PROGRESS), ("kafka-4.1", Errors.REBALANCE_IN_PROGRESS)):
        h = _mixed(profile, 11)
        assert h.heartbeat_classic("member-1", 10)["errorCode"] == int(error), profile


def test_static_replacement_downgrade_rebalances_on_stale_target_from_4_3() -> None:
    """KAFKA-20273 (testLastStaticConsumerProtocolMemberReplacedByClassicProtocolMemberWhenTargetAssignmentIsStale):
    same subscription, stale target -> 4.3 rebalances; 4.1 keeps the group STABLE."""
    sub = subscription(["foo", "bar"], {"foo": [3, 4, 5], "bar": [2]})
    for profile, state in (("kafka-4.3", PREPARING_REBALANCE), ("kafka-4.1", STABLE)):
        h = _mixed(profile, 11)
        result = h.join_classic("", [("range", sub)], instance="instance-2", session=5000, rebalance=45000)
        assert result.response is not None
        assert result.response["errorCode"] == 0
        assert h.coord.classic_groups[GROUP].state == state, profile
