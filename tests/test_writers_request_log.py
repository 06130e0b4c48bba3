"""The request-log writer names every API the way Kafka's request logger does."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from kgspec.conformance.writers import write_request_log


@pytest.mark.parametrize(("api", "name"), [(11, "JOIN_GROUP"), (12, "HEARTBEAT"), (13, "LEAVE_GROUP"),
                                           (14, "SYNC_GROUP"), (68, "CONSUMER_GROUP_HEARTBEAT"),
                                           (88, "STREAMS_GROUP_HEARTBEAT"), (42, "DELETE_GROUPS"), (99, "API_99")])
def test_a_call_without_a_name_gets_kafkas(api: int, name: str) -> None:
    event: dict[str, Any] = {"tsMs": 5, "requestHeader": {"requestApiKey": api, "requestApiVersion": 0,
                                                          "clientId": "c"},
                             "request": {"groupId": "g"}, "response": {"errorCode": 0}}
    out = io.StringIO()
    write_request_log([event], out)
    (line,) = out.getvalue().splitlines()
    body = json.loads(line[line.index("{"):line.rindex(" (")])
    assert body["requestHeader"]["requestApiKeyName"] == name
