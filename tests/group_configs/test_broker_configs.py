"""Broker configs Kafka refuses to start with (GroupCoordinatorConfig's atLeast and ``require``
checks): ``--config`` is a usage error naming the config; a trace header's is a finding on the
header line naming it, and checking goes on with the configs as given."""

from __future__ import annotations

from pathlib import Path

import pytest
from kgspec.model.config import startup_problem

from kgspec.cli import main
from tests.helpers import check_events

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "group_configs" / "configs_41.jsonl"


@pytest.mark.parametrize(("configs", "expected"), [
    ({"group.consumer.heartbeat.interval.ms": 45000},
     ("group.consumer.heartbeat.interval.ms",
      "group.consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms")),
    ({"group.consumer.heartbeat.interval.ms": 15000, "group.consumer.session.timeout.ms": 45000,
      "group.consumer.min.session.timeout.ms": 1000, "group.consumer.max.heartbeat.interval.ms": 50000,
      "group.consumer.max.session.timeout.ms": 45000}, None),
    ({"group.consumer.heartbeat.interval.ms": 10000, "group.consumer.session.timeout.ms": 10000,
      "group.consumer.min.session.timeout.ms": 1000},
     ("group.consumer.heartbeat.interval.ms",
      "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms")),
    ({"group.consumer.min.session.timeout.ms": 50000},
     ("group.consumer.min.session.timeout.ms",
      "group.consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms")),
    ({"group.streams.num.standby.replicas": 3},
     ("group.streams.num.standby.replicas",
      "group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas")),
    ({"group.streams.assignment.interval.ms": 20000},
     ("group.streams.assignment.interval.ms",
      "group.streams.assignment.interval.ms must be less than or equal to group.streams.max.assignment.interval.ms")),
    ({}, None),
])
def test_group_coordinator_config_requires(configs: dict[str, int], expected: tuple[str, str] | None) -> None:
    assert startup_problem(configs) == expected


def test_config_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-q", "--config", "group.consumer.session.timeout.ms=-5", str(GOLDEN)]) == 2
    assert capsys.readouterr().err.strip() == \
        "kgspec check: --config group.consumer.session.timeout.ms must be at least 1, got -5"
    assert main(["check", "-q", "--config", "group.consumer.heartbeat.interval.ms=45000",
                 "--config", "group.consumer.max.heartbeat.interval.ms=60000", str(GOLDEN)]) == 2
    assert capsys.readouterr().err.strip() == (
        "kgspec check: --config group.consumer.heartbeat.interval.ms: Kafka refuses to start with it "
        "(group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms)")


def test_header_configs_kafka_refuses_are_a_finding(tmp_path: Path) -> None:
    header = {"header": {"format": "kgspec-trace/1", "profile": "kafka-4.3", "configs": {
        "group.streams.heartbeat.interval.ms": 50000, "group.streams.max.heartbeat.interval.ms": 60000}}}
    status, report = check_events(tmp_path, [header, {"tsMs": 0, "tick": {}}])
    assert status == 1
    assert [(f["line"], f["kind"], f["field"], f["message"]) for f in report["findings"]] == [
        (1, "unsupported", "header.configs.group.streams.heartbeat.interval.ms",
         "Kafka refuses to start with these configs: group.streams.heartbeat.interval.ms must be less than "
         "group.streams.session.timeout.ms")]


def test_header_config_under_its_minimum_is_malformed(tmp_path: Path) -> None:
    header = {"header": {"format": "kgspec-trace/1", "configs": {"group.consumer.session.timeout.ms": -5}}}
    status, report = check_events(tmp_path, [header])
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [
        (1, "malformed", "header.configs.group.consumer.session.timeout.ms")]


def test_41_has_no_assignment_interval_configs(tmp_path: Path) -> None:
    """Kafka 4.1 has no ``*.assignment.interval.ms`` configs (KAFKA-20291, 4.3) and starts with any
    value of them (run against 4.1's GroupCoordinatorConfig); 4.3 refuses one above its maximum."""
    configs = {"group.streams.assignment.interval.ms": 20000}
    assert startup_problem(configs, assignment_intervals=False) is None
    header = {"header": {"format": "kgspec-trace/1", "profile": "kafka-4.1", "configs": configs}}
    status, report = check_events(tmp_path, [header])
    assert (status, report["findings"]) == (0, [])
    assert main(["check", "-q", "--profile", "kafka-4.1", "--config", "group.streams.assignment.interval.ms=20000",
                 str(GOLDEN)]) == 0
    assert main(["check", "-q", "--config", "group.streams.assignment.interval.ms=20000", str(GOLDEN)]) == 2
