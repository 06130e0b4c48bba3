"""kip (seed 002, "Assignment"): "The task assignor is configured on the broker side both through a
global static configuration that defined the default assignor for all groups, and a dynamic
group-level configuration that sets the assignor for a specific group." Under ``kip`` the group
config ``streams.assignor.name`` (IncrementalAlterConfigs / DescribeConfigs of a GROUP resource)
overrides the broker's ``group.streams.assignor.name`` at the next target computation; Kafka's
profiles keep Kafka's group-config catalogue (docs/kip.md "Assignors")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgspec.model.streams.assignor import SubtopologyTasks
from kgspec.model.streams.target import seed_assignor_name

from tests.group_configs.helpers import alter_error, describe, entries, op
from tests.helpers import check_events, read_jsonl
from tests.streams.goldens import GOLDEN, kip_highly_available_sticky
from tests.streams.helpers import coordinator

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
