"""GroupConfig's validation as the controller applies it to IncrementalAlterConfigs (Kafka's
GroupConfigTest, ConfigurationControlManagerTest and ConfigAdminManager cases, for GROUP)."""

from __future__ import annotations

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.group_configs.alter import APPEND, DELETE, SUBTRACT

from tests.group_configs.helpers import GROUP, alter, alter_error, op

INVALID_CONFIG, INVALID_REQUEST = int(Errors.INVALID_CONFIG), int(Errors.INVALID_REQUEST)


@pytest.mark.parametrize(("name", "value", "message"), [
    # GroupConfigTest.testInvalidProps, Kafka's defaults as bounds (min/max session 45000/60000,
    # heartbeat 5000/15000, assignment interval 0/15000, standby max 2)
    ("consumer.session.timeout.ms", "1",
     "consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms"),
    ("consumer.session.timeout.ms", "70000",
     "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms"),
    ("consumer.heartbeat.interval.ms", "1",
     "consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms"),
    ("consumer.heartbeat.interval.ms", "70000",
     "consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms"),
    ("consumer.assignment.interval.ms", "20000",
     "consumer.assignment.interval.ms must be less than or equal to group.consumer.max.assignment.interval.ms"),
    ("share.record.lock.duration.ms", "10000",
     "share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms"),
    ("share.delivery.count.limit", "11",
     "share.delivery.count.limit must be less than or equal to group.share.max.delivery.count.limit"),
    ("share.delivery.count.limit", "1",  # ConfigDef's atLeast(2) before validateValues
     "Invalid value 1 for configuration share.delivery.count.limit: Value must be at least 2"),
    ("share.partition.max.record.locks", "50",
     "Invalid value 50 for configuration share.partition.max.record.locks: Value must be at least 100"),
    ("streams.session.timeout.ms", "70000",
     "streams.session.timeout.ms must be less than or equal to group.streams.max.session.timeout.ms"),
    ("streams.heartbeat.interval.ms", "1000",
     "streams.heartbeat.interval.ms must be greater than or equal to group.streams.min.heartbeat.interval.ms"),
    ("streams.num.standby.replicas", "3",
     "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas"),
    ("streams.assignment.interval.ms", "20000",
     "streams.assignment.interval.ms must be less than or equal to group.streams.max.assignment.interval.ms"),
    ("share.isolation.level", "read_commit",
     "Invalid value read_commit for configuration share.isolation.level: String must be one of: "
     "read_committed, read_uncommitted"),
    ("share.auto.offset.reset", "hello",
     "Invalid value hello for configuration share.auto.offset.reset: Invalid value `hello` for configuration "
     "share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
     "'by_duration:<PnDTnHnMn.nS>'."),
])
def test_invalid_props(name: str, value: str, message: str) -> None:
    c = Coordinator("kafka-4.3")
    assert alter_error(c, "g", op(name, value)) == (INVALID_CONFIG, message)
    assert c.group_configs == {}


def test_from_props_invalid() -> None:
    """GroupConfigTest.testFromPropsInvalid: a value that is not an INT, or under atLeast."""
    c = Coordinator("kafka-4.3")
    assert alter_error(c, "g", op("consumer.session.timeout.ms", "1.0")) == (
        INVALID_CONFIG, "Invalid value 1.0 for configuration consumer.session.timeout.ms: Not a number of type INT")
    assert alter_error(c, "g", op("consumer.heartbeat.interval.ms", "-5")) == (
        INVALID_CONFIG, "Invalid value -5 for configuration consumer.heartbeat.interval.ms: Value must be at least 1")
    assert alter_error(c, "g", op("streams.num.standby.replicas", "2147483648")) == (
        INVALID_CONFIG, "Invalid value 2147483648 for configuration streams.num.standby.replicas: "
        "Not a number of type INT")


def test_invalid_config_name() -> None:
    """GroupConfigTest.testInvalidConfigName."""
    c = Coordinator("kafka-4.3")
    assert alter_error(c, "g", op("invalid.config.name", "10")) == (
        INVALID_CONFIG, "Unknown group config name: invalid.config.name")


def test_session_timeout_must_exceed_heartbeat_interval() -> None:
    c = Coordinator("kafka-4.3", {"group.consumer.min.session.timeout.ms": 5000})
    assert alter_error(c, "g", op("consumer.session.timeout.ms", "10000"), op("consumer.heartbeat.interval.ms", "10000")) \
        == (INVALID_CONFIG, "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms")


def test_valid_share_auto_offset_reset_values() -> None:
    """GroupConfigTest.testValidShareAutoOffsetResetValues, and its invalid durations."""
    c = Coordinator("kafka-4.3")
    # as Kafka 4.3's classes answer them (the oracle build, docs/group-configs.md)
    for value in ("latest", "earliest", "by_duration:PT10S", "by_duration:P1D", "by_duration:pt1.5s",
                  "by_duration:+PT0S", " latest"):
        assert alter_error(c, "g", op("share.auto.offset.reset", value)) == (0, None), value
    for value in ("by_duration", "by_duration:-PT10S", "by_duration:invalid", "EARLIEST", "BY_DURATION:PT10S",
                  "by_duration:PT", "by_duration:P1D2H", "by_duration:PT-10S"):
        assert alter_error(c, "g", op("share.auto.offset.reset", value))[0] == INVALID_CONFIG, value


def test_bounds_follow_the_broker_configs() -> None:
    """The bounds are the broker's (GroupCoordinatorConfig), as the header sets them."""
    c = Coordinator("kafka-4.3", {"group.consumer.min.session.timeout.ms": 10000,
                                  "group.consumer.max.session.timeout.ms": 20000})
    assert alter_error(c, "g", op("consumer.session.timeout.ms", "15000")) == (0, None)
    assert c.group_configs == {"g": {"consumer.session.timeout.ms": "15000"}}
    assert alter_error(c, "g", op("consumer.session.timeout.ms", "25000"))[1] == \
        "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms"


def test_43_merges_broker_values_41_parses_static_defaults() -> None:
    """4.3's validate merges the broker's values (extractGroupConfigMap) before checking session >
    heartbeat; 4.1 parses the group's props over GroupConfig's static defaults (45000/5000)."""
    configs = {"group.consumer.session.timeout.ms": 50000, "group.consumer.max.heartbeat.interval.ms": 50000}
    c43 = Coordinator("kafka-4.3", configs)
    assert alter_error(c43, "g", op("consumer.heartbeat.interval.ms", "48000")) == (0, None)
    c41 = Coordinator("kafka-4.1", configs)
    assert alter_error(c41, "g", op("consumer.heartbeat.interval.ms", "48000")) == (
        INVALID_CONFIG, "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms")


def test_names_per_release() -> None:
    """4.1 has no streams.initial.rebalance.delay.ms (4.2) nor consumer.assignment.interval.ms (4.3)."""
    assert alter_error(Coordinator("kafka-4.1"), "g", op("streams.initial.rebalance.delay.ms", "0")) == (
        INVALID_CONFIG, "Unknown group config name: streams.initial.rebalance.delay.ms")
    assert alter_error(Coordinator("kafka-4.2"), "g", op("streams.initial.rebalance.delay.ms", "0")) == (0, None)
    assert alter_error(Coordinator("kafka-4.2"), "g", op("consumer.assignment.interval.ms", "0")) == (
        INVALID_CONFIG, "Unknown group config name: consumer.assignment.interval.ms")


@pytest.mark.parametrize("operation", [APPEND, SUBTRACT])
def test_append_and_subtract_refused(operation: int) -> None:
    """ConfigurationControlManager: no group config is a LIST."""
    c = Coordinator("kafka-4.3")
    verb = "APPEND" if operation == APPEND else "SUBTRACT"
    assert alter_error(c, "g", op("streams.num.standby.replicas", "1", operation)) == (
        INVALID_CONFIG, f"Can't {verb} to key streams.num.standby.replicas because its type is not LIST.")


def test_delete_and_validate_only() -> None:
    c = Coordinator("kafka-4.3")
    assert alter_error(c, "g", op("streams.num.standby.replicas", "1")) == (0, None)
    assert alter(c, "g", op("streams.num.standby.replicas", "2"), validate_only=True)[0]["errorCode"] == 0
    assert c.group_configs == {"g": {"streams.num.standby.replicas": "1"}}
    assert alter_error(c, "g", op("streams.num.standby.replicas", None, DELETE)) == (0, None)
    assert c.group_configs == {}  # GroupConfigManagerTest.testGroupIsRemovedWhenDynamicConfigsAreRemoved


def test_preprocess_refusals() -> None:
    """ConfigAdminManager.preprocess: duplicate keys, null values; ControllerConfigurationValidator:
    an empty group name."""
    c = Coordinator("kafka-4.3")
    assert alter_error(c, "g", op("consumer.session.timeout.ms", "50000"), op("consumer.session.timeout.ms", "50000")) \
        == (INVALID_REQUEST, "Error due to duplicate config keys")
    assert alter_error(c, "g", op("consumer.session.timeout.ms", None), op("streams.num.standby.replicas", None)) \
        == (INVALID_REQUEST, "Null value not supported for : consumer.session.timeout.ms, streams.num.standby.replicas")
    assert alter_error(c, "", op("consumer.session.timeout.ms", "50000")) == (
        INVALID_REQUEST, "Default group resources are not allowed.")
    twice = {"resources": [{"resourceType": GROUP, "resourceName": "g", "configs": []}] * 2, "validateOnly": False}
    decision = c.handle(44, 1, twice, now=0)
    assert decision.response is not None
    assert [(r["errorCode"], r["errorMessage"]) for r in decision.response["responses"]] == \
        [(INVALID_REQUEST, "Each resource must appear at most once.")] * 2
