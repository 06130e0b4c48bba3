"""Why an observed call cannot be compared: its request or response has the wrong shape.

The readers check the contract's envelope (kinds, timestamps, header types); the bodies are
Kafka messages, whose shapes the message schemas (``model/message_schemas.py``) already
describe. Each side of a call is validated once, where it is used: a heartbeat's or classic
call's request before the model sees it (``checker.py``), a response before it is compared
(``consumer.py``, ``streams.py``, ``describes.py``, ``listing.py``), and both when comparing a
call of another API failed on a value of the wrong type. A heartbeat the steady cache answers
(``ConsumerChecks.steady_hit``) is equal to one validated before, and is not validated again.
The finding names the field as the schema does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from kgspec.model.connect.ops import (
    CONNECT_GROUP_HEARTBEAT,
    CONNECT_GROUP_INSTALL_ASSIGNMENT,
    CONNECT_GROUP_PREPARE_ASSIGNMENT,
)
from kgspec.model.connect.schemas import CONNECT_MESSAGE_SCHEMAS, CONNECT_RECORD_SCHEMAS
from kgspec.model.message_schemas import validate_against, validate_message
from kgspec.model.profiles import PROFILES
from kgspec.model.record_schemas import (
    RECORD_SCHEMAS,
    RecordSchema,
    parse_versions,
    validate_fields,
)
from kgspec.model.streams.seed_records import SEED_RECORD_SCHEMAS

# The schema tables cover 4.1, 4.3 and trunk; 4.2's messages are 4.1's for these APIs, and the
# kip profile extends trunk.
PROFILE_RELEASES: Final = {"kafka-4.1": "4.1", "kafka-4.2": "4.1", "kafka-4.3": "4.3", "kafka-trunk": "trunk",
                           "kip": "trunk"}
# kip's streams messages are the seed's v0 (int32 acceptableRecoveryLag), which is 4.3's shape,
# not trunk's (acceptableRecoveryLagLegacy at v0).
API_RELEASES: Final = {("kip", 88): "4.3", ("kip", 89): "4.3"}


def record_schema_of(profile: str, record_type: int) -> RecordSchema | None:
    """The schema a record of ``record_type`` under ``profile`` is read with: kip's streams records
    17 and 18 are the seed's (``model/streams/seed_records.py``), every other one its release's."""
    known = PROFILES.get(profile)
    if known is not None and known.streams_kip_seed_records and record_type in SEED_RECORD_SCHEMAS:
        return SEED_RECORD_SCHEMAS[record_type]
    release = PROFILE_RELEASES.get(profile, "trunk")
    return RECORD_SCHEMAS[release].get(record_type) or CONNECT_RECORD_SCHEMAS.get(record_type)


def release_of(profile: str, api: int | None) -> str | None:
    """The schema table a call of ``api`` under ``profile`` is validated against."""
    return API_RELEASES.get((profile, api or -1), PROFILE_RELEASES.get(profile))


MESSAGES: Final = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups",
                   16: "ListGroups", 68: "ConsumerGroupHeartbeat",
                   69: "ConsumerGroupDescribe", 88: "StreamsGroupHeartbeat", 89: "StreamsGroupDescribe"}
# The Connect draft's APIs, by the name traces give them (they have no key); their schemas are
# the draft's (model/connect/schemas.py), read only under the profile that models the draft (kip): every
# Kafka release answers them as a broker that does not know them, without reading the body.
CONNECT_MESSAGES: Final = {CONNECT_GROUP_HEARTBEAT: "ConnectGroupHeartbeat",
                           CONNECT_GROUP_PREPARE_ASSIGNMENT: "ConnectGroupPrepareAssignment",
                           CONNECT_GROUP_INSTALL_ASSIGNMENT: "ConnectGroupInstallAssignment"}
# A value of the wrong type, out of range or wrongly null, or a struct given without one of its
# fields; not a top-level field left out (traces omit ``throttleTimeMs``) or an unknown one.
_TYPE_PROBLEM: Final = re.compile(r"field `([^`]+)`(?: must be| is null| = )|missing required field `([^`]+[.\[][^`]*)`")
# For records every required field counts (a record is whole bytes: none is ever left out).
_RECORD_PROBLEM: Final = re.compile(r"field `([^`]+)`(?: must be| is null| = )|missing required field `([^`]+)`")


def _seed_field_problem(profile: str, api: int | None, version: int,
                        request: dict[str, Any] | None) -> tuple[str, str] | None:
    """Fields only the seeds define (Kafka's schema tables do not have them): kip's JoinGroup v6+
    ``joinReason`` is seed 003's enum, "blind" or "topic_metadata_change"."""
    if api != 11 or version < 6 or request is None or profile not in PROFILES \
            or not PROFILES[profile].classic_kip_join_reason:
        return None
    reason = request.get("joinReason")
    if reason is None or reason in ("blind", "topic_metadata_change"):
        return None
    field = "request.joinReason"
    return field, (f"request: JoinGroupRequest v{version}: field `joinReason` must be "
                   f"\"blind\" or \"topic_metadata_change\" (seed 003), not {reason!r}")


def call_shape_problem(profile: str, api: int | str | None, version: int, request: dict[str, Any] | None,
                       response: dict[str, Any] | None, *, missing: bool = True,
                       every_field: bool = False) -> tuple[str, str] | None:
    """(field, message) for the first mistyped field of the call, or None when the schema has none.

    Only shape errors count: traces may leave top-level fields out (``throttleTimeMs``) and the
    contract compares only the fields they carry. ``response`` None checks the request alone,
    ``request`` None the response alone. ``missing`` False: values of the wrong type only, not
    a struct's field left out (what the checks ask of a response before comparing it: a
    hand-written answer with an error code leaves out what it does not need). ``every_field``: a
    top-level field left out counts too (the classic model reads every field its version has).
    ``api`` is a Kafka API key, or the name of one of the Connect draft's APIs.
    """
    if isinstance(api, str):
        return _connect_shape_problem(profile, api, version, request, response, missing=missing)
    seed = _seed_field_problem(profile, api, version, request)
    if seed is not None:
        return seed
    name = MESSAGES.get(api) if api is not None else None
    release = release_of(profile, api)
    if name is None or release is None:
        return None
    return _first_problem(request, response, lambda body, side: validate_message(
        body, release, f"{name}{side.capitalize()}", version), missing=missing, every_field=every_field)


def _connect_shape_problem(profile: str, api: str, version: int, request: dict[str, Any] | None,
                           response: dict[str, Any] | None, *, missing: bool) -> tuple[str, str] | None:
    name = CONNECT_MESSAGES.get(api)
    known = PROFILES.get(profile)
    if name is None or known is None or not known.kip_text:
        return None
    return _first_problem(request, response, lambda body, side: validate_against(
        body, CONNECT_MESSAGE_SCHEMAS[f"{name}{side.capitalize()}"], version), missing=missing, every_field=False)


def _first_problem(request: dict[str, Any] | None, response: dict[str, Any] | None,
                   validate: Callable[[dict[str, Any], str], list[str]], *, missing: bool,
                   every_field: bool) -> tuple[str, str] | None:
    for side, body in (("request", request), ("response", response)):
        if body is None:
            continue
        for problem in validate(body, side):
            found = (_RECORD_PROBLEM if every_field else _TYPE_PROBLEM).search(problem)
            if found is not None and (missing or found.group(1)):
                return f"{side}.{found.group(1) or found.group(2)}", f"{side}: {problem}"
    return None


def record_shape_problem(profile: str, record_type: int, key: dict[str, Any],
                         value: dict[str, Any] | None, version: int) -> tuple[str, str] | None:
    """(field, message) for the first field of a record the schema says cannot be: a value of the
    wrong type (a float, ``Infinity`` or a boolean where an integer goes, an integer out of its
    range, ...), a null that is not nullable, or a required field left out, as Kafka's
    deserializer would refuse it. None for a record type without a schema here.

    A value version the schema does not know is read with the fields of the version Kafka writes.
    """
    schema = record_schema_of(profile, record_type)
    if schema is None:
        return None
    for problem in validate_fields(key, schema.key, 0):
        found = _RECORD_PROBLEM.search(problem)
        if found is not None:
            return f"record.key.data.{found.group(1) or found.group(2)}", f"record key: {problem}"
    if value is None:
        return None
    if not (schema.valid_value_versions and _versions_hold(schema.valid_value_versions, version)):
        version = schema.written_version
    for problem in validate_fields(value, schema.value, version):
        found = _RECORD_PROBLEM.search(problem)
        if found is not None:
            return f"record.value.data.{found.group(1) or found.group(2)}", f"record value: {problem}"
    return None


def _versions_hold(spec: str, version: int) -> bool:
    versions = parse_versions(spec)
    return versions is not None and versions[0] <= version <= versions[1]
