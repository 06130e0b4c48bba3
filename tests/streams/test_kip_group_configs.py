"""kip (seed 002): the seed's group-level configs. "Assignment": "The task assignor is configured on
the broker side both through a global static configuration that defined the default assignor for
all groups, and a dynamic group-level configuration that sets the assignor for a specific group."
"Global & Dynamic Group Configuration": acceptable.recovery.lag, num.warmup.replicas (and Kafka's
num.standby.replicas) "dynamically for specific streams groups through the IncrementalAlterConfigs
and DescribeConfigs RPCs"; the "Group Configurations" table adds task.offset.interval.ms. Under
``kip`` each is a GROUP config over its broker config; Kafka's profiles keep Kafka's group-config
catalogue (docs/kip.md "Assignors", docs/group-configs.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgspec.model.coordinator import Coordinator
from kgspec.model.streams.assignor import SubtopologyTasks
from kgspec.model.streams.target import seed_assignor_name

from tests.group_configs.helpers import alter_error, describe, entries, op
from tests.helpers import check_events, read_jsonl
from tests.streams.goldens import GOLDEN, kip_highly_available_sticky
from tests.streams.helpers import STATEFUL, coordinator, hb, join, owned

NAME = "streams.assignor.name"
ALTER_LINE = 12  # the alteration goes in before m-a leaves (line 12 of the golden, then 13)


def _alter_event(value: str, error: int = 0, message: str | None = None) -> dict[str, Any]:
    return {"tsMs": 3500,
            "requestHeader": {"requestApiKey": 44, "requestApiVersion": 1, "clientId": "admin", "correlationId": 99,
                              "requestApiKeyName": "INCREMENTAL_ALTER_CONFIGS"},
            "request": {"resources": [{"resourceType": 32, "resourceName": "g",
                                       "configs": [{"name": NAME, "configOperation": 0, "value": value}]}],
                        "validateOnly": False},
            "response": {"throttleTimeMs": 0, "responses": [{"errorCode": error, "errorMessage": message,
                                                             "resourceType": 32, "resourceName": "g"}]}}


def _sticky_answers_after_group_alter(tmp_path: Path) -> list[dict[str, Any]]:
    """The highly_available golden's first 11 lines (no assignor configured anywhere), the group's
    alteration to sticky, then the answers the broker-level sticky trace gives."""
    golden = read_jsonl(GOLDEN / "kip_highly_available.jsonl")
    sticky = read_jsonl(kip_highly_available_sticky().write(tmp_path / "sticky.jsonl"))
    return [*golden[:ALTER_LINE - 1], _alter_event("sticky"), *sticky[ALTER_LINE - 1:]]


def test_group_level_assignor_takes_effect_at_the_next_target(tmp_path: Path) -> None:
    """The group set to sticky after the target was computed: no epoch bump at the alteration (the
    assignor is not one of the seed's "three core assignment options"), and the target computed
    when m-a leaves is sticky's: m-c gets 0_0 as active (line 15), m-b nothing new (line 14)."""
    events = _sticky_answers_after_group_alter(tmp_path)
    status, report = check_events(tmp_path, events)
    assert (status, report["findings"]) == (0, [])
    r14, r15 = events[13]["response"], events[14]["response"]
    assert (events[13]["request"]["memberId"], r14["memberEpoch"], r14["activeTasks"]) == ("m-b", 6, None)
    assert (events[14]["request"]["memberId"], r15["memberEpoch"], r15["activeTasks"], r15["warmupTasks"]) == (
        "m-c", 6, [{"subtopologyId": "0", "partitions": [0, 1]}], [])


def test_one_line_mutant_highly_available_answer_after_group_alter_is_flagged(tmp_path: Path) -> None:
    """The same trace with m-b answered as highly_available would (0_0 given to it): line 14."""
    events = _sticky_answers_after_group_alter(tmp_path)
    events[13]["response"]["activeTasks"] = [{"subtopologyId": "0", "partitions": [0, 2]}]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert {(f["line"], f["kind"], f["field"]) for f in report["findings"]} >= {(14, "response-mismatch",
                                                                                 "activeTasks")}
    assert min(f["line"] for f in report["findings"]) == 14


def test_group_value_overrides_the_broker_value() -> None:
    stateful = [SubtopologyTasks("0", 3, True)]
    c = coordinator("kip", **{"group.streams.assignor.name": "highly_available"})
    assert seed_assignor_name(c, "g", stateful) == "highly_available"
    assert alter_error(c, "g", op(NAME, "sticky")) == (0, None)
    assert (seed_assignor_name(c, "g", stateful), seed_assignor_name(c, "other", stateful)) == (
        "sticky", "highly_available")


def test_describe_configs_shows_the_group_assignor() -> None:
    c = coordinator("kip")
    unset = entries(describe(c, "g", keys=[NAME], synonyms=True))[NAME]
    assert (unset["value"], unset["configSource"], unset["configType"], unset["synonyms"]) == (
        None, 5, 2, [{"name": "group.streams.assignor.name", "value": None, "source": 5}])
    assert alter_error(c, "g", op(NAME, "sticky")) == (0, None)
    entry = entries(describe(c, "g", keys=[NAME], synonyms=True))[NAME]
    assert (entry["value"], entry["configSource"], entry["synonyms"]) == (
        "sticky", 8, [{"name": NAME, "value": "sticky", "source": 8},
                      {"name": "group.streams.assignor.name", "value": None, "source": 5}])
    broker = coordinator("kip", **{"group.streams.assignor.name": "highly_available"})
    entry = entries(describe(broker, "g", keys=[NAME], synonyms=True))[NAME]
    assert (entry["value"], entry["configSource"], [s["source"] for s in entry["synonyms"]]) == (
        "highly_available", 4, [4, 5])


def test_kafka_profiles_do_not_know_the_group_assignor() -> None:
    """Kafka 4.3's GroupConfig has no assignor: the controller refuses the name."""
    c = coordinator("kafka-4.3")
    assert alter_error(c, "g", op(NAME, "sticky")) == (40, f"Unknown group config name: {NAME}")
    assert NAME not in entries(describe(c, "g"))


# "Global & Dynamic Group Configuration": "The three core assignment options ... acceptable.recovery.lag,
# num.warmup.replicas and num.standby.replicas. They can be configured both globally on the broker,
# and dynamically for specific streams groups through the IncrementalAlterConfigs and
# DescribeConfigs RPCs." The "Group Configurations" table adds task.offset.interval.ms.

def _kip_stateful() -> Coordinator:
    c = coordinator("kip")
    c.update_topic("app-store-changelog", "CCCCCCCCCCCCCCCCCCCCCC", 6)
    return c


def test_group_level_recovery_lag_and_offset_interval_reach_the_response() -> None:
    """The response's AcceptableRecoveryLag / TaskOffsetIntervalMs are the group's values; another
    group keeps the broker's (10000, 60000); the change bumps the group epoch (2 -> 3)."""
    c = _kip_stateful()
    first = join(c, 0, "m1", "p1", STATEFUL).response
    assert first is not None
    assert (first["memberEpoch"], first["acceptableRecoveryLag"], first["taskOffsetIntervalMs"]) == (2, 10000, 60000)
    assert alter_error(c, "g", op("streams.acceptable.recovery.lag", "100"),
                       op("streams.task.offset.interval.ms", "20000")) == (0, None)
    after = hb(c, 100, "m1", 2, **owned(first)).response
    assert after is not None
    assert (after["memberEpoch"], after["acceptableRecoveryLag"], after["taskOffsetIntervalMs"]) == (3, 100, 20000)
    assert c.streams_groups["g"].last_assignment_configs == {
        "num.standby.replicas": "0", "acceptable.recovery.lag": "100", "num.warmup.replicas": "2"}
    other = join(c, 200, "x1", "p9", STATEFUL, group="h").response
    assert other is not None
    assert (other["acceptableRecoveryLag"], other["taskOffsetIntervalMs"]) == (10000, 60000)


def test_group_level_warmups_bound_the_warm_up_step(tmp_path: Path) -> None:
    """The highly_available golden with the group's streams.num.warmup.replicas = 0 set before m-a
    leaves: m-b still gets 0_0 (caught up, line 14) but m-c warms nothing up, so its assignment is
    unchanged and line 15 answers null task lists (the golden's own line 15, a warm-up of 0_0, is
    flagged there and only there)."""
    c = coordinator("kip")
    assert alter_error(c, "g", op("streams.num.warmup.replicas", "0")) == (0, None)
    assert (c.group_config_int("g", "group.streams.num.warmup.replicas"),
            c.group_config_int("h", "group.streams.num.warmup.replicas")) == (0, 1 + 1)
    golden = read_jsonl(GOLDEN / "kip_highly_available.jsonl")
    alter = _alter_event("0")
    alter["request"]["resources"][0]["configs"][0]["name"] = "streams.num.warmup.replicas"
    events = [*golden[:ALTER_LINE - 1], alter, *golden[ALTER_LINE - 1:]]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [
        (15, "response-mismatch", "activeTasks"), (15, "response-mismatch", "standbyTasks"),
        (15, "response-mismatch", "warmupTasks")]
    events[14]["response"].update(activeTasks=None, standbyTasks=None, warmupTasks=None)
    status, report = check_events(tmp_path, events)
    assert (status, report["findings"]) == (0, [])
    assert events[13]["response"]["activeTasks"] == [{"subtopologyId": "0", "partitions": [0, 2]}]


def test_seed_bounds_of_the_group_configs() -> None:
    """The seed's "New properties": group.streams.max.warmup.replicas (20) and
    group.streams.min.task.offset.interval.ms (15s) bound the group values."""
    c = coordinator("kip")
    assert alter_error(c, "g", op("streams.num.warmup.replicas", "21")) == (
        40, "streams.num.warmup.replicas must be less than or equal to group.streams.max.warmup.replicas")
    assert alter_error(c, "g", op("streams.task.offset.interval.ms", "1000")) == (
        40, "streams.task.offset.interval.ms must be greater than or equal to group.streams.min.task.offset.interval.ms")
    assert alter_error(c, "g", op("streams.acceptable.recovery.lag", "-1")) == (
        40, "Invalid value -1 for configuration streams.acceptable.recovery.lag: Value must be at least 0")
    assert alter_error(c, "g", op("streams.num.warmup.replicas", "20"), op("streams.task.offset.interval.ms", "15000"),
                       op("streams.acceptable.recovery.lag", "0")) == (0, None)
    shown = entries(describe(c, "g"))
    assert {n: shown[n]["value"] for n in ("streams.num.warmup.replicas", "streams.task.offset.interval.ms",
                                           "streams.acceptable.recovery.lag", "streams.num.standby.replicas")} == {
        "streams.num.warmup.replicas": "20", "streams.task.offset.interval.ms": "15000",
        "streams.acceptable.recovery.lag": "0", "streams.num.standby.replicas": "0"}


def test_kafka_43_refuses_the_seeds_group_configs() -> None:
    c = coordinator("kafka-4.3")
    for name in ("streams.acceptable.recovery.lag", "streams.num.warmup.replicas", "streams.task.offset.interval.ms"):
        assert alter_error(c, "g", op(name, "1")) == (40, f"Unknown group config name: {name}")


def test_describe_shows_the_brokers_value_until_the_group_sets_one() -> None:
    """Unlike 4.3's optional assignment intervals (GroupConfig's default shown), the seed's group
    configs "override the default broker configurations": unset, the broker's value is shown."""
    c = coordinator("kip", **{"group.streams.acceptable.recovery.lag": 500})
    entry = entries(describe(c, "g", keys=["streams.acceptable.recovery.lag"], synonyms=True))[
        "streams.acceptable.recovery.lag"]
    assert (entry["value"], entry["configSource"], entry["synonyms"]) == ("500", 4, [
        {"name": "group.streams.acceptable.recovery.lag", "value": "500", "source": 4},
        {"name": "group.streams.acceptable.recovery.lag", "value": "10000", "source": 5}])
    assert alter_error(c, "g", op("streams.acceptable.recovery.lag", "7")) == (0, None)
    shown = entries(describe(c, "g"))
    assert (shown["streams.acceptable.recovery.lag"]["value"], shown["streams.num.warmup.replicas"]["value"],
            shown["streams.task.offset.interval.ms"]["value"]) == ("7", "2", "60000")
