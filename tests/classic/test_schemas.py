"""The model's classic responses and records match Kafka's message and record schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kgspec.model.classic.responses import (
    heartbeat_response,
    join_response,
    leave_response,
    sync_response,
)
from kgspec.model.message_schemas import field_names, is_nullable, validate_message
from kgspec.model.record_schemas import RELEASES, validate_record

GOLDEN = Path(__file__).parent.parent / "golden" / "classic"
MEMBER = {"memberId": "m", "groupInstanceId": None, "metadata": "AAE="}


@pytest.mark.parametrize("version", range(10))
def test_join_responses_fit_every_version(version: int) -> None:
    ok = join_response(version, member_id="m", generation_id=1, protocol_type="consumer", protocol_name="range",
                       leader="m", members=[MEMBER])
    error = join_response(version, 79, member_id="m")
    for release in RELEASES:
        assert validate_message(ok, release, "JoinGroupResponse", version) == []
        assert validate_message(error, release, "JoinGroupResponse", version) == []
    # JoinGroupResponse(data, version): "" below v7, null from v7 when no protocol is chosen.
    assert error["protocolName"] == ("" if version < 7 else None)


@pytest.mark.parametrize("version", range(6))
def test_sync_heartbeat_leave_responses_fit(version: int) -> None:
    for release in RELEASES:
        assert validate_message(sync_response(version, 27), release, "SyncGroupResponse", version) == []
        assert validate_message(leave_response(version, 0, [{"memberId": "m", "groupInstanceId": None,
                                                             "errorCode": 25}]),
                                release, "LeaveGroupResponse", version) == []
        if version <= 4:
            assert validate_message(heartbeat_response(version, 27), release, "HeartbeatResponse", version) == []


def test_schema_facts() -> None:
    assert field_names("4.3", "LeaveGroupRequest", 2) == ("groupId", "memberId")
    assert field_names("4.3", "LeaveGroupRequest", 3) == ("groupId", "members")
    assert not is_nullable("4.3", "JoinGroupResponse", "protocolName", 6)
    assert is_nullable("4.3", "JoinGroupResponse", "protocolName", 7)
    assert "skipAssignment" in field_names("4.3", "JoinGroupResponse", 9)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.jsonl")))
def test_golden_records_and_calls_fit_the_schemas(name: str) -> None:
    names = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup"}
    for line in (GOLDEN / name).read_text().splitlines():
        event = json.loads(line)
        if "record" in event:
            assert validate_record(event["record"], "4.3") == []
        if "requestHeader" in event:
            header = event["requestHeader"]
            api, version = names[header["requestApiKey"]], header["requestApiVersion"]
            # kip goldens carry seed 003's joinReason, a field Kafka's schema does not have.
            request = {k: v for k, v in event["request"].items() if k != "joinReason"}
            assert validate_message(request, "4.3", api + "Request", version) == []
            assert validate_message(event["response"], "4.3", api + "Response", version) == []
