"""Why an observed call cannot be compared: its request or response has the wrong shape.

The readers check the contract's envelope (kinds, timestamps, header types); the bodies are
Kafka messages, whose shapes the message schemas (``model/message_schemas.py``) already
describe. The checker asks here only when comparing a call failed on a value of the wrong type,
so the well-formed hot path pays nothing, and the finding names the field as the schema does.
"""

from __future__ import annotations

import re
from typing import Any, Final

from kgspec.model.message_schemas import validate_message

# The schema tables cover 4.1, 4.3 and trunk; 4.2's messages are 4.1's for these APIs, and the
# kip profile extends trunk.
PROFILE_RELEASES: Final = {"kafka-4.1": "4.1", "kafka-4.2": "4.1", "kafka-4.3": "4.3", "kafka-trunk": "trunk",
                           "kip": "trunk"}
MESSAGES: Final = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups",
                   16: "ListGroups", 68: "ConsumerGroupHeartbeat",
                   69: "ConsumerGroupDescribe", 88: "StreamsGroupHeartbeat", 89: "StreamsGroupDescribe"}
# A value of the wrong type, out of range or wrongly null, or a struct given without one of its
# fields; not a top-level field left out (traces omit ``throttleTimeMs``) or an unknown one.
_TYPE_PROBLEM: Final = re.compile(r"field `([^`]+)`(?: must be| is null| = )|missing required field `([^`]+[.\[][^`]*)`")


def call_shape_problem(profile: str, api: int | None, version: int, request: dict[str, Any],
                       response: dict[str, Any] | None) -> tuple[str, str] | None:
    """(field, message) for the first mistyped field of the call, or None when the schema has none.

    Only shape errors count: traces may leave top-level fields out (``throttleTimeMs``) and the
    contract compares only the fields they carry. ``response`` None checks the request alone.
    """
    name = MESSAGES.get(api) if api is not None else None
    release = PROFILE_RELEASES.get(profile)
    if name is None or release is None:
        return None
    for side, body in (("request", request), ("response", response)):
        if body is None:
            continue
        for problem in validate_message(body, release, f"{name}{side.capitalize()}", version):
            found = _TYPE_PROBLEM.search(problem)
            if found is not None:
                return f"{side}.{found.group(1) or found.group(2)}", f"{side}: {problem}"
    return None
