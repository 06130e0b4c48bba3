"""``kgspec check`` on the golden group-config traces (they conform, natively and as a broker
request log), their values (Kafka's), and one-line mutants flagged at their line.

The goldens are written by scripts/make_golden_group_configs.py from the model.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.writers import write_request_log
from kgspec.model.errors import Errors

from tests.helpers import (
    Event,
    assert_golden_conforms,
    assert_golden_current,
    check,
    check_events,
    findings,
    golden_script,
    line_of,
    read_jsonl,
)

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "group_configs"
MAKE = golden_script("make_golden_group_configs")


def load(name: str) -> list[Event]:
    return read_jsonl(GOLDEN / f"{name}.jsonl")


@pytest.mark.parametrize("name", sorted(MAKE.SCENARIOS))
def test_golden_group_config_traces_conform(name: str) -> None:
    assert_golden_conforms(GOLDEN / f"{name}.jsonl")


@pytest.mark.parametrize("name", sorted(MAKE.SCENARIOS))
def test_group_config_goldens_are_current(name: str, tmp_path: Path) -> None:
    assert_golden_current(MAKE, name, GOLDEN, tmp_path)


def test_golden_values_are_kafkas() -> None:
    events = load("consumer_configs")
    by_ts = {(e["tsMs"], e["requestHeader"]["requestApiKey"]): e["response"] for e in events if "requestHeader" in e}

    def error(ts: int) -> tuple[int, str | None]:
        (r,) = by_ts[(ts, 44)]["responses"]
        return r["errorCode"], r["errorMessage"]

    assert error(1300) == (40, "consumer.session.timeout.ms must be greater than or equal to "
                               "group.consumer.min.session.timeout.ms")
    assert error(1400) == (40, "Invalid value ten for configuration consumer.heartbeat.interval.ms: "
                               "Not a number of type INT")
    assert error(1500) == (40, "Can't APPEND to key consumer.heartbeat.interval.ms because its type is not LIST.")
    assert error(1600) == (40, "Unknown group config name: consumer.rebalance.timeout.ms")
    assert error(1700) == (0, None)
    assert by_ts[(2000, 68)]["heartbeatIntervalMs"] == 8000  # testConsumerGroupDynamicConfigs
    assert by_ts[(2300, 68)]["heartbeatIntervalMs"] == 5000  # deleted: the broker's again
    (result,) = by_ts[(1200, 32)]["results"]
    session = next(c for c in result["configs"] if c["name"] == "consumer.session.timeout.ms")
    assert session["synonyms"] == [{"name": "group.consumer.session.timeout.ms", "value": "50000", "source": 4},
                                   {"name": "group.consumer.session.timeout.ms", "value": "45000", "source": 5}]
    topic_and_group = by_ts[(2400, 32)]["results"]
    assert [(r["resourceType"], r["resourceName"]) for r in topic_and_group] == [(32, "g")]
    streams = {(e["tsMs"], e["requestHeader"]["requestApiKey"]): e["response"] for e in load("streams_configs")
               if "requestHeader" in e}
    assert streams[(1300, 44)]["responses"][0]["errorMessage"] == \
        "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas"
    assert streams[(1500, 88)]["memberEpoch"] == 4  # testStreamsGroupEpochIncreaseWithAssignmentConfigChanges
    assert streams[(1500, 88)]["standbyTasks"] == [{"subtopologyId": "0", "partitions": [0]}]


def test_41_streams_session_is_groupconfig_default(tmp_path: Path) -> None:
    """On 4.1 (and 4.2) a streams group given any config runs with GroupConfig's 45000 ms session,
    not the broker's 50000 (Kafka 4.1's GroupMetadataManager agrees, scripts/oracle_group_configs):
    s1's session, re-armed at 1200, expired at 46200, so its heartbeat at 47000 is UNKNOWN_MEMBER_ID.
    A coordinator that kept the broker's 50000 would answer it: flagged at that line."""
    events = load("streams_defaults_41")
    line = line_of(events, 47000, 88)
    assert events[line - 1]["response"]["errorCode"] == Errors.UNKNOWN_MEMBER_ID
    events[line - 1]["response"].update(errorCode=0, errorMessage=None, memberEpoch=2)
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report)[0] == (line, "response-mismatch", "errorCode")
    assert report["findings"][0]["expected"] == Errors.UNKNOWN_MEMBER_ID


def test_mutant_alter_error_code(tmp_path: Path) -> None:
    events = load("consumer_configs")
    line = line_of(events, 1300, 44)
    events[line - 1]["response"]["responses"][0]["errorCode"] = 0
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report)[0] == (line, "response-mismatch", "responses[g].errorCode")
    assert report["findings"][0]["expected"] == 40


def test_mutant_heartbeat_interval_ignores_the_group_config(tmp_path: Path) -> None:
    """A coordinator that keeps answering the broker's interval after the change."""
    events = load("consumer_configs")
    line = line_of(events, 2000, 68)
    events[line - 1]["response"]["heartbeatIntervalMs"] = 5000
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report) == [(line, "response-mismatch", "heartbeatIntervalMs")]
    assert (report["findings"][0]["expected"], report["findings"][0]["observed"]) == (8000, 5000)


@pytest.mark.parametrize(("field", "value"), [("value", "45000"), ("configSource", 5), ("configType", 2),
                                              ("readOnly", True)])
def test_mutant_describe_entry(tmp_path: Path, field: str, value: Any) -> None:
    events = load("consumer_configs")
    line = line_of(events, 2100, 32)
    entry = next(c for c in events[line - 1]["response"]["results"][0]["configs"]
                 if c["name"] == "consumer.session.timeout.ms")
    expected = copy.deepcopy(entry[field])
    entry[field] = value
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report) == [(line, "response-mismatch", f"results[g].configs[consumer.session.timeout.ms].{field}")]
    assert (report["findings"][0]["expected"], report["findings"][0]["observed"]) == (expected, value)


def test_mutant_describe_synonyms_order(tmp_path: Path) -> None:
    events = load("consumer_configs")
    line = line_of(events, 1200, 32)
    entry = next(c for c in events[line - 1]["response"]["results"][0]["configs"]
                 if c["name"] == "consumer.session.timeout.ms")
    entry["synonyms"].reverse()
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report) == [(line, "response-mismatch",
                                 "results[g].configs[consumer.session.timeout.ms].synonyms")]


def test_mutant_missing_standby_change(tmp_path: Path) -> None:
    """Drop the alteration: the next heartbeat's epoch bump and standbys are then unexplained."""
    events = load("streams_configs")
    line = line_of(events, 1400, 44)
    del events[line - 1]
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report)[0][:2] == (line, "response-mismatch")  # the heartbeat now on that line


def test_topic_only_describe_is_skipped(tmp_path: Path) -> None:
    events = [*load("consumer_configs")[:1], {
        "tsMs": 10, "requestHeader": {"requestApiKey": 32, "requestApiVersion": 4, "clientId": "admin"},
        "request": {"resources": [{"resourceType": 2, "resourceName": "foo", "configurationKeys": None}],
                    "includeSynonyms": False, "includeDocumentation": False},
        "response": {"results": [{"errorCode": 0, "resourceType": 2, "resourceName": "foo", "configs": []}]}}]
    status, report = check_events(tmp_path, events)
    assert (status, report["findings"], report["groups"]) == (0, [], [])
    assert (report["inputs"][0]["events"], report["inputs"][0]["skipped"]) == (1, 1)


def test_malformed_alter_names_the_field(tmp_path: Path) -> None:
    events = load("consumer_configs")
    line = line_of(events, 1300, 44)
    events[line - 1]["request"]["resources"][0]["configs"][0]["configOperation"] = 7
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert findings(report) == [(line, "malformed", "request.resources[0].configs[0].configOperation")]


def test_trunk_is_refused_clearly(tmp_path: Path) -> None:
    events = load("configs_41")
    status, report = check_events(tmp_path, events, "--profile", "kafka-trunk")
    kinds = {(f["kind"], f["message"]) for f in report["findings"] if f["line"] == line_of(events, 1100, 44)}
    assert kinds == {("unsupported", "group configs on kafka-trunk are not modelled (trunk rewrote GroupConfig)")}
    assert status == 1


def test_request_log_of_the_41_golden_conforms(tmp_path: Path) -> None:
    """The broker request log carries the same calls (Kafka's log has no header: the profile is
    an option)."""
    out = io.StringIO()
    write_request_log(load("configs_41"), out)
    log = tmp_path / "server.log"
    log.write_text(out.getvalue(), encoding="utf-8")
    status, report = check(log, "--profile", "kafka-4.1")
    assert report["findings"] == []
    assert status == 0
    assert report["inputs"][0]["events"] == 5  # join, two alterations, a describe, the topic
