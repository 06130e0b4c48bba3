"""Record-only checks are complete (issue #21 A.2): for each invariant a sequence of records can
break (``invariants/catalogue.py`` ``RECORD_REVEALS``, the table in ``docs/invariants.md``), one
changed record of a records-only golden is flagged with that invariant at the record that shows it.
The records-only goldens are golden traces without their calls, and conform."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kgspec.invariants.catalogue import (
    CATALOGUE,
    CLASSIC_GENERATION_MONOTONIC,
    CLASSIC_ONE_LEADER,
    CLASSIC_STABLE_ASSIGNMENT,
    CONNECT_EPOCH_BOUND,
    CONNECT_NO_DOUBLE_OWNERSHIP,
    CONNECT_TARGET_VALIDITY,
    EPOCH_MONOTONICITY,
    NO_DOUBLE_OWNERSHIP,
    NO_TASKS_WHILE_NOT_READY,
    NOT_IN_RECORDS,
    PROCESSID_EXCLUSIVITY,
    RECORD_REVEALS,
    REPLAY,
    STREAMS_NO_TASKS_WHILE_NOT_READY,
    STREAMS_PROCESS_EXCLUSIVITY,
    STREAMS_SINGLE_ACTIVE_OWNER,
    STREAMS_TARGET_VALIDITY,
    TARGET_VALIDITY,
)
from kgspec.invariants.record_epochs import RecordEpochs
from kgspec.model.records import Record

from tests.helpers import check, check_events, read_jsonl

GOLDEN = Path(__file__).parent / "golden"
# records-only traces: (golden, the line numbers below are of the golden without its calls)
CONSUMER = "consumer/join_with_records.jsonl"
STREAMS = "streams/standby_rebalance_records.jsonl"
CLASSIC = "classic/join_sync.jsonl"
CONNECT = "connect/empty_group_and_two_workers.jsonl"
Edit = Callable[[dict[str, Any]], None]


def records_only(golden: str) -> list[dict[str, Any]]:
    return [e for e in read_jsonl(GOLDEN / golden) if "requestHeader" not in e]


def _set(name: str, value: Any) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        record["value"]["data"][name] = value
    return edit


def _add_task(role: str, subtopology: str, partition: int) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        tasks = record["value"]["data"][role]
        entry = next((t for t in tasks if t["subtopologyId"] == subtopology), None)
        if entry is None:
            tasks.append({"subtopologyId": subtopology, "partitions": [partition]})
        else:
            entry["partitions"] = sorted({*entry["partitions"], partition})
            if "assignmentEpochs" in entry:
                entry["assignmentEpochs"] = [entry["assignmentEpochs"][0]] * len(entry["partitions"])
    return edit


def _add_partition(field: str, topic_index: int, partition: int) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        entry = record["value"]["data"][field][topic_index]
        entry["partitions"] = sorted({*entry["partitions"], partition})
        if "assignmentEpochs" in entry:
            entry["assignmentEpochs"] = [entry["assignmentEpochs"][0]] * len(entry["partitions"])
    return edit


def _member_tombstone(record: dict[str, Any]) -> None:
    """m1's current-assignment tombstone (8) turned into its member tombstone (5): Kafka's replay
    refuses a member removed while it still has a current assignment."""
    record["key"]["type"] = 5


def _connect_second_owner(record: dict[str, Any]) -> None:
    record["value"]["data"]["connectorsAndTasks"][0]["tasks"].append({"connector": "A", "task": 1})


def _connect_overlapping_target(record: dict[str, Any]) -> None:
    record["value"]["data"]["members"][1]["connectorsAndTasks"][0]["connectors"].append("A")


# name -> (golden, changed line, edit, line of the finding, invariant)
MUTANTS: dict[str, tuple[str, int, Edit, int, str]] = {
    # consumer (join_with_records without calls)
    "group epoch back (3)": (CONSUMER, 10, _set("epoch", 1), 10, EPOCH_MONOTONICITY),
    "assignment epoch ahead (6)": (CONSUMER, 13, _set("assignmentEpoch", 4), 13, EPOCH_MONOTONICITY),
    "member epoch ahead (8)": (CONSUMER, 14, _set("memberEpoch", 4), 14, EPOCH_MONOTONICITY),
    "partition with two owners (8)": (CONSUMER, 17, _add_partition("assignedPartitions", 0, 0), 17,
                                      NO_DOUBLE_OWNERSHIP),
    "overlapping target (7 at 6)": (CONSUMER, 12, _add_partition("topicPartitions", 0, 0), 13, TARGET_VALIDITY),
    "member tombstone first (5)": (CONSUMER, 18, _member_tombstone, 18, REPLAY),
    # streams (standby_rebalance_records without calls)
    "group epoch back (17)": (STREAMS, 10, _set("epoch", 1), 10, EPOCH_MONOTONICITY),
    "assignment epoch ahead (20)": (STREAMS, 14, _set("assignmentEpoch", 4), 14, EPOCH_MONOTONICITY),
    "member epoch ahead (22)": (STREAMS, 17, _set("memberEpoch", 4), 17, EPOCH_MONOTONICITY),
    "active task with two owners (22)": (STREAMS, 17, _add_task("activeTasks", "0", 0), 17,
                                         STREAMS_SINGLE_ACTIVE_OWNER),
    "a process holding a task twice (22)": (STREAMS, 16, _add_task("standbyTasks", "0", 0), 16,
                                            STREAMS_PROCESS_EXCLUSIVITY),
    "overlapping target (21 at 20)": (STREAMS, 13, _add_task("activeTasks", "0", 0), 14, STREAMS_TARGET_VALIDITY),
    # the group metadata (17) says the topology was never validated: NotReady
    "tasks while not ready (17 at 20)": (STREAMS, 10, _set("validatedTopologyEpoch", -1), 14,
                                         STREAMS_NO_TASKS_WHILE_NOT_READY),
    # classic (join_sync without calls)
    "generation back (2)": (CLASSIC, 5, _set("generation", 0), 5, CLASSIC_GENERATION_MONOTONIC),
    "leader not a member (2)": (CLASSIC, 4, _set("leader", "nobody"), 4, CLASSIC_ONE_LEADER),
    "members but no protocol (2)": (CLASSIC, 4, _set("protocol", None), 4, CLASSIC_STABLE_ASSIGNMENT),
    # the Connect draft (empty_group_and_two_workers without calls)
    "connect group epoch back (1000)": (CONNECT, 8, _set("epoch", 0), 8, EPOCH_MONOTONICITY),
    "connect member ahead (1004)": (CONNECT, 9, _set("memberEpoch", 3), 9, CONNECT_EPOCH_BOUND),
    "connect task with two owners (1004)": (CONNECT, 9, _connect_second_owner, 9, CONNECT_NO_DOUBLE_OWNERSHIP),
    "connect overlapping target (1003)": (CONNECT, 10, _connect_overlapping_target, 10, CONNECT_TARGET_VALIDITY),
}


@pytest.mark.parametrize("golden", sorted({m[0] for m in MUTANTS.values()}))
def test_records_only_goldens_conform(golden: str, tmp_path: Path) -> None:
    status, report = check_events(tmp_path, records_only(golden))
    assert (status, report["findings"]) == (0, [])


@pytest.mark.parametrize("case", list(MUTANTS))
def test_one_changed_record_is_flagged_where_it_shows(case: str, tmp_path: Path) -> None:
    golden, line, edit, at, invariant = MUTANTS[case]
    events = records_only(golden)
    assert "record" in events[line - 1]
    edit(events[line - 1]["record"])
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"]) == (at, "invariant", invariant), report["findings"]


def test_every_invariant_records_reveal_has_a_mutant() -> None:
    """The general names checked as their streams names (processid-exclusivity, no-tasks-while-
    not-ready) are covered by those; every other entry has a one-record mutant."""
    covered = {m[4] for m in MUTANTS.values()}
    assert set(RECORD_REVEALS) - covered == {PROCESSID_EXCLUSIVITY, NO_TASKS_WHILE_NOT_READY}
    assert {STREAMS_PROCESS_EXCLUSIVITY, STREAMS_NO_TASKS_WHILE_NOT_READY} <= covered


def test_every_invariant_is_placed_for_records() -> None:
    """Each invariant but the proofs' lemmas either shows in records or says why it cannot."""
    placed = set(RECORD_REVEALS) | set(NOT_IN_RECORDS)
    assert not set(RECORD_REVEALS) & set(NOT_IN_RECORDS)
    assert {name for name, e in CATALOGUE.items() if e.kind != "lemma"} == placed


def _record(rtype: int, value: dict[str, Any] | None, member: str | None = None) -> Record:
    key = {"groupId": "g", **({"memberId": member} if member else {})}
    return Record(rtype, key, value)


def test_record_epochs_bounds_and_tombstones() -> None:
    """The streams member bound by the assignment epoch, and a group tombstone's reset (no golden
    has a member record between a group epoch bump and its target)."""
    epochs = RecordEpochs()
    assert epochs.observe(_record(17, {"epoch": 5})) == []
    assert epochs.observe(_record(20, {"assignmentEpoch": 4})) == []
    assert epochs.observe(_record(22, {"memberEpoch": 5}, "m")) == [
        (EPOCH_MONOTONICITY, "member m at epoch 5 runs ahead of the assignment epoch 4")]
    assert epochs.observe(_record(22, {"memberEpoch": 6}, "m")) == [
        (EPOCH_MONOTONICITY, "member m at epoch 6 is ahead of group epoch 5")]
    assert epochs.observe(_record(17, {"epoch": 3})) == [
        (EPOCH_MONOTONICITY, "group epoch went back from 5 to 3 with no tombstone of the group between")]
    assert epochs.observe(_record(17, None)) == []
    assert epochs.observe(_record(17, {"epoch": 1})) == []  # a new group under the same id
    assert epochs.observe(_record(22, {"memberEpoch": 1}, "m")) == []


def test_a_dump_log_shows_the_group_epoch_going_back(tmp_path: Path) -> None:
    """kafka-dump-log output: 2.0 is read as 2, the epoch going back to 1 is flagged on its line,
    a fraction is malformed."""
    def line(offset: int, epoch: str) -> str:
        return (f"| offset: {offset} CreateTime: {1700 + offset} keySize: 9 valueSize: 9 sequence: -1 headerKeys: [] "
                f'key: {{"type":"3","data":{{"groupId":"g"}}}} payload: {{"version":"0","data":{{"epoch":{epoch},'
                f'"metadataHash":0}}}}\n')
    path = tmp_path / "offsets.dump.txt"
    path.write_text(line(3, "2.0") + line(4, "1") + line(5, "1.5"))
    status, report = check(path)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [
        (2, "invariant", EPOCH_MONOTONICITY), (3, "malformed", "record.value.data.epoch")]
