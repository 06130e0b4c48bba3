"""Records compared by value (issue #21 A.1; contract section 2): another rendering of the same
bytes conforms, a changed value is flagged on its line (``conformance/record_values.py``)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import check_events, read_jsonl

GOLDEN = Path(__file__).parent / "golden"
CONSUMER = "consumer/join_with_records.jsonl"
STREAMS = "streams/standby_rebalance_records.jsonl"
CLASSIC = "classic/join_sync.jsonl"
TIMEOUTS = "consumer/timeouts.jsonl"  # 4.3 records written with tagged fields at their defaults left out
Edit = Callable[[dict[str, Any]], None]


def _record_line(events: list[dict[str, Any]], record_type: int, where: Callable[[dict[str, Any]], bool]) -> int:
    for i, e in enumerate(events):
        record = e.get("record")
        if record and record["key"]["type"] == record_type and record["value"] is not None and where(record):
            return i
    raise AssertionError(f"no record of type {record_type}")


def _edited(golden: str, record_type: int, edit: Edit,
            where: Callable[[dict[str, Any]], bool] = lambda r: True) -> tuple[list[dict[str, Any]], int]:
    events = read_jsonl(GOLDEN / golden)
    i = _record_line(events, record_type, where)
    edit(events[i]["record"])
    return events, i + 1


def _data(record: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = record["value"]["data"]
    return data


def _reverse_keys(record: dict[str, Any]) -> None:
    record["value"]["data"] = dict(reversed(list(_data(record).items())))
    record["key"]["data"] = dict(reversed(list(record["key"]["data"].items())))


def _as_floats(*names: str) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        for name in names:
            _data(record)[name] = float(_data(record)[name])
    return edit


def _set(name: str, value: Any) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        _data(record)[name] = value
    return edit


def _drop(name: str) -> Edit:
    def edit(record: dict[str, Any]) -> None:
        del _data(record)[name]
    return edit


def _tagged_epochs_shown_as_null(record: dict[str, Any]) -> None:
    for entry in _data(record)["activeTasks"]:
        entry.setdefault("assignmentEpochs", None)


def _url_safe_unpadded_bytes(record: dict[str, Any]) -> None:
    for member in _data(record)["members"]:
        for name in ("subscription", "assignment"):
            raw = base64.b64decode(member[name])
            member[name] = base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _changed_assignment_bytes(record: dict[str, Any]) -> None:
    member = _data(record)["members"][0]
    member["assignment"] = base64.b64encode(base64.b64decode(member["assignment"]) + b"\x00").decode()


def _changed_epoch(record: dict[str, Any]) -> None:
    _data(record)["activeTasks"][0]["assignmentEpochs"][0] += 1


def _has_members(record: dict[str, Any]) -> bool:
    return bool(_data(record).get("members"))


def _has_epochs(record: dict[str, Any]) -> bool:
    return any(e.get("assignmentEpochs") for e in _data(record).get("activeTasks") or [])


SAME = {
    "key order": (CONSUMER, 8, _reverse_keys, None),
    "whole numbers as floats": (CONSUMER, 8, _as_floats("memberEpoch", "previousMemberEpoch", "state"), None),
    "an int64 as a float": (STREAMS, 20, _as_floats("assignmentEpoch", "assignmentTimestamp"), None),
    "a tagged int64 shown at its default": (TIMEOUTS, 3, _set("metadataHash", 0),
                                            lambda r: "metadataHash" not in _data(r)),
    "a tagged timestamp shown at its default": (TIMEOUTS, 6, _set("assignmentTimestamp", 0),
                                                lambda r: "assignmentTimestamp" not in _data(r)),
    "a tagged struct shown as null": (CONSUMER, 5, _set("classicMemberMetadata", None), None),
    "a nested tagged array shown as null": (STREAMS, 22, _tagged_epochs_shown_as_null, None),
    "bytes in URL-safe base64 without padding": (CLASSIC, 2, _url_safe_unpadded_bytes, _has_members),
}


@pytest.mark.parametrize("case", sorted(SAME))
def test_the_same_record_rendered_otherwise_conforms(case: str, tmp_path: Path) -> None:
    golden, record_type, edit, where = SAME[case]
    events, _ = _edited(golden, record_type, edit, where or (lambda r: True))
    status, report = check_events(tmp_path, events)
    assert (status, report["findings"]) == (0, [])


CHANGED = {
    "a value": (CONSUMER, 8, _set("memberEpoch", 9), None, "response-mismatch", "record"),
    "a tagged int64 off its default": (CONSUMER, 6, _set("assignmentTimestamp", 1), None, "response-mismatch",
                                       "record"),
    "a tagged int64 shown off its default": (TIMEOUTS, 3, _set("metadataHash", 1),
                                             lambda r: "metadataHash" not in _data(r), "response-mismatch", "record"),
    "a tagged int32 left out off its default": (STREAMS, 17, _drop("validatedTopologyEpoch"),
                                                lambda r: _data(r)["validatedTopologyEpoch"] != -1,
                                                "response-mismatch", "record"),
    "a nested tagged array value": (STREAMS, 22, _changed_epoch, _has_epochs, "response-mismatch", "record"),
    "a tagged array [] is not null": (STREAMS, 17, _set("lastAssignmentConfigs", None), None, "response-mismatch",
                                      "record"),
    "the bytes": (CLASSIC, 2, _changed_assignment_bytes, _has_members, "response-mismatch", "record"),
    "the value version": (CLASSIC, 2, lambda r: r["value"].update(version=4), _has_members, "response-mismatch",
                          "record"),
    "a fraction in an integer field": (CONSUMER, 8, _set("memberEpoch", 2.5), None, "malformed",
                                       "record.value.data.memberEpoch"),
}


@pytest.mark.parametrize("case", sorted(CHANGED))
def test_a_changed_record_is_flagged_on_its_line(case: str, tmp_path: Path) -> None:
    golden, record_type, edit, where, kind, field = CHANGED[case]
    events, line = _edited(golden, record_type, edit, where or (lambda r: True))
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert (report["findings"][0]["line"], report["findings"][0]["kind"], report["findings"][0]["field"]) == (
        line, kind, field)
