"""DescribeConfigs for GROUP resources: values, sources and synonyms as ConfigHelper answers
(4.3's broker synonyms, 4.1's single synonym)."""

from __future__ import annotations

from kgspec.model.coordinator import Coordinator
from kgspec.model.group_configs.catalogue import KEYS
from kgspec.model.javaorder import java_hashmap_order

from tests.group_configs.helpers import alter, describe, entries, op


def test_43_defaults_and_a_group_value_with_synonyms() -> None:
    c = Coordinator("kafka-4.3", {"group.consumer.session.timeout.ms": 50000})
    alter(c, "g", op("consumer.heartbeat.interval.ms", "+06000"))
    result = describe(c, "g", synonyms=True)
    assert (result["errorCode"], result["resourceType"], result["resourceName"]) == (0, 32, "g")
    assert [e["name"] for e in result["configs"]] == java_hashmap_order(k.name for k in KEYS)
    got = entries(result)
    assert got["consumer.heartbeat.interval.ms"] == {
        "name": "consumer.heartbeat.interval.ms", "value": "6000", "readOnly": False, "isSensitive": False,
        "configSource": 8, "configType": 3, "documentation": None,
        "synonyms": [{"name": "consumer.heartbeat.interval.ms", "value": "6000", "source": 8},
                     {"name": "group.consumer.heartbeat.interval.ms", "value": "5000", "source": 5}]}
    # the broker sets it (server.properties): STATIC_BROKER_CONFIG, then Kafka's default
    assert got["consumer.session.timeout.ms"]["value"] == "50000"
    assert got["consumer.session.timeout.ms"]["configSource"] == 4
    assert got["consumer.session.timeout.ms"]["synonyms"] == [
        {"name": "group.consumer.session.timeout.ms", "value": "50000", "source": 4},
        {"name": "group.consumer.session.timeout.ms", "value": "45000", "source": 5}]
    # no broker synonym: GroupConfig's own default
    assert got["share.isolation.level"]["synonyms"] == [
        {"name": "share.isolation.level", "value": "read_uncommitted", "source": 5}]
    assert (got["share.renew.acknowledge.enable"]["value"], got["share.renew.acknowledge.enable"]["configType"]) \
        == ("true", 1)


def test_43_assignment_interval_shows_groupconfig_default_not_the_brokers() -> None:
    """KAFKA-20337's quirk: extractGroupConfigMap has no assignment intervals, so the value is
    GroupConfig's static 1000 while the synonym shows the broker's 500."""
    c = Coordinator("kafka-4.3", {"group.consumer.assignment.interval.ms": 500})
    got = entries(describe(c, "g", synonyms=True))["consumer.assignment.interval.ms"]
    assert (got["value"], got["configSource"]) == ("1000", 4)
    assert got["synonyms"][0] == {"name": "group.consumer.assignment.interval.ms", "value": "500", "source": 4}


def test_41_one_synonym_and_no_43_names() -> None:
    c = Coordinator("kafka-4.1")
    alter(c, "g", op("streams.num.standby.replicas", "1"))
    result = describe(c, "g", synonyms=True, version=2)
    got = entries(result)
    assert len(got) == 10
    assert "consumer.assignment.interval.ms" not in got
    assert "streams.initial.rebalance.delay.ms" not in got
    assert got["streams.num.standby.replicas"] == {
        "name": "streams.num.standby.replicas", "value": "1", "readOnly": False, "isSensitive": False,
        "configSource": 8, "synonyms": [{"name": "streams.num.standby.replicas", "value": "1", "source": 8}]}
    assert got["consumer.session.timeout.ms"]["synonyms"] == [
        {"name": "consumer.session.timeout.ms", "value": "45000", "source": 5}]


def test_configuration_keys_and_no_synonyms() -> None:
    c = Coordinator("kafka-4.3")
    result = describe(c, "g", keys=["streams.num.standby.replicas", "no.such.config"])
    assert [(e["name"], e["value"], e["configSource"], e["synonyms"]) for e in result["configs"]] == [
        ("streams.num.standby.replicas", "0", 5, [])]


def test_empty_group_name() -> None:
    result = describe(Coordinator("kafka-4.3"), "")
    assert (result["errorCode"], result["errorMessage"], result["configs"]) == (42, "Group name must not be empty", [])


def test_41_streams_values_are_groupconfig_defaults() -> None:
    """4.1's extractGroupConfigMap has no streams configs: the broker's 50000 is not the group's
    value (Kafka 4.1's GroupConfig.fromProps, run: 45000); the consumer one is copied."""
    c = Coordinator("kafka-4.1", {"group.streams.session.timeout.ms": 50000, "group.consumer.session.timeout.ms": 50000})
    got = entries(describe(c, "g", version=2))
    assert (got["streams.session.timeout.ms"]["value"], got["consumer.session.timeout.ms"]["value"]) == \
        ("45000", "50000")
