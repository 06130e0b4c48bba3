"""Seed 001 (the Connect draft), "Migration To the New Protocol", under profile kip.

The golden ``tests/golden/migration/connect_kip.jsonl`` (scripts/make_golden_connect_migration.py)
is the section's rolling upgrade and back with the draft's case-study configuration; these tests
pin its values line by line, check that it conforms, that records replay to the same state, and
that a one-line mutant is flagged at its line. The other tests cover the errors and readings
listed in docs/kip.md ("Migration To the New Protocol").
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kgspec.model.classic.group import ClassicGroup
from kgspec.model.connect.resources import from_items, items, labels, parse
from kgspec.model.coordinator import Coordinator
from kgspec.model.errors import Errors
from kgspec.model.migration.connect_protocol import (
    ConnectAssignment,
    WorkerState,
    decode_connect_assignment,
    decode_worker_state,
    encode_assignment,
    encode_connect_assignment,
    encode_worker_state,
)
from kgspec.model.migration.protocol import SchemaError
from kgspec.model.records import Record
from kgspec.spec.classic import PREPARING_REBALANCE

from tests.helpers import check_events, golden_script, read_jsonl

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "migration" / "connect_kip.jsonl"
MAKE = golden_script("make_golden_connect_migration")
W1, W2 = "W1-00000000-0000-4000-8000-000000000001", "W2-00000000-0000-4000-8000-000000000002"


def events() -> list[dict[str, Any]]:
    return read_jsonl(GOLDEN)


def line(n: int) -> dict[str, Any]:
    return events()[n - 1]


def record(n: int) -> tuple[int, dict[str, Any], dict[str, Any] | None]:
    r = line(n)["record"]
    return r["key"]["type"], r["key"]["data"], None if r["value"] is None else r["value"]["data"]


def held(value: Any) -> list[str]:
    return labels(parse(value))


# --- the golden ------------------------------------------------------------------------------


def test_golden_is_current(tmp_path: Path) -> None:
    MAKE.scenario().write(tmp_path / "g.jsonl")
    assert (tmp_path / "g.jsonl").read_text() == GOLDEN.read_text(), "run scripts/make_golden_connect_migration.py"


def test_golden_conforms_under_kip(tmp_path: Path) -> None:
    status, report = check_events(tmp_path, events())
    assert report["findings"] == []
    assert status == 0
    assert [g["verdict"] for g in report["groups"]] == ["conforms"]


def test_first_worker_on_the_new_protocol_converts_the_group_at_its_generation() -> None:
    """"the group is converted from generic to connect"; "the group epoch starts at the current
    group generation" (generation 1): tombstone, 1001, 1002*, 1000(1), 1003(1), 1004*(1), then
    W3's join bumps the epoch to 2."""
    assert line(11)["request"]["memberEpoch"] == 0
    assert record(12) == (2, {"group": "g"}, None)
    assert record(13)[2] == {"connectors": [{"name": "A", "tasks": [1, 2]}, {"name": "B", "tasks": [1]}]}
    t, key, w1 = record(14)
    assert (t, key["memberId"]) == (1002, W1)
    assert w1 is not None
    assert w1["groupEpoch"] == 1
    assert w1["assignors"] == [{"name": "incremental", "minimumVersion": 0, "maximumVersion": 2, "reason": 0,
                                "version": 2, "metadata": None}]
    assert w1["classicMemberMetadata"]["sessionTimeoutMs"] == 10000
    assert [p["name"] for p in w1["classicMemberMetadata"]["supportedProtocols"]] == \
        ["sessioned", "compatible", "default"]
    assert record(16) == (1000, {"groupId": "g"}, {"epoch": 1})
    _, _, target = record(17)
    assert target is not None
    assert target["assignmentEpoch"] == 1
    assert {m["memberId"]: held(m["connectorsAndTasks"]) for m in target["members"]} == \
        {W1: ["AC0", "AT1", "AT2"], W2: ["BC0", "BT1"]}
    for n, member, work in ((18, W1, ["AC0", "AT1", "AT2"]), (19, W2, ["BC0", "BT1"])):
        t, key, value = record(n)
        assert (t, key["memberId"]) == (1004, member)
        assert value is not None
        assert (value["memberEpoch"], value["previousMemberEpoch"], value["state"]) == (1, 1, 1)
        assert held(value["connectorsAndTasks"]) == work
    assert record(21) == (1000, {"groupId": "g"}, {"epoch": 2})
    response = line(11)["response"]
    assert (response["errorCode"], response["memberEpoch"]) == (int(Errors.COMPUTE_ASSIGNMENT), 1)


def test_classic_workers_are_told_to_rejoin_and_follow_through_join_and_sync() -> None:
    """REBALANCE_IN_PROGRESS in the heartbeat response; W1's SyncGroup revokes AT2 (an
    incremental v2 assignment: nothing new, AT2 revoked); its rejoin without AT2 acknowledges
    (generation 2); W3 then gets AT2."""
    assert line(26)["response"]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    join = line(27)["response"]
    assert (join["errorCode"], join["generationId"], join["protocolType"], join["protocolName"], join["leader"],
            join["members"]) == (0, 1, "connect", "sessioned", "", [])
    sync = decode_connect_assignment(line(30)["response"]["assignment"])
    assert (sync.version, labels(sync.assigned), labels(sync.revoked)) == (2, [], ["AT2"])
    assert line(31)["response"]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)  # still revoking
    assert line(32)["response"]["generationId"] == 2
    again = decode_connect_assignment(line(35)["response"]["assignment"])
    assert (labels(again.assigned), labels(again.revoked)) == ([], [])
    w3 = line(36)["response"]
    assert (w3["memberEpoch"], held(w3["assignment"]["connectorsAndTasks"])) == (2, ["AT2"])
    assert line(39)["response"]["generationId"] == 2


def test_last_worker_on_the_new_protocol_leaving_switches_back_to_classic() -> None:
    """"when the last worker supporting the new protocol leaves, the group switches back": the
    draft's tombstones, then GroupMetadata (generation = group epoch 2, type connect, each worker's
    target as a full v2 assignment); the classic group rebalances."""
    assert [(record(n)[0], record(n)[2]) for n in range(44, 53)] == \
        [(1004, None)] * 3 + [(1002, None)] * 3 + [(1003, None), (1001, None), (1000, None)]
    t, _, value = record(53)
    assert t == 2
    assert value is not None
    assert (value["protocolType"], value["generation"], value["protocol"], value["leader"]) == \
        ("connect", 2, "sessioned", W1)
    given = {m["memberId"]: decode_connect_assignment(m["assignment"]) for m in value["members"]}
    assert {m: (a.version, labels(a.assigned), labels(a.revoked)) for m, a in given.items()} == \
        {W1: (2, ["AC0", "AT1"], []), W2: (2, ["BC0", "BT1"], [])}
    assert line(54)["response"]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    r = MAKE.scenario()
    group = r.coord.classic_groups["g"]
    assert isinstance(group, ClassicGroup)
    assert (group.state, group.generation_id, "g" in r.coord.connect_groups) == (PREPARING_REBALANCE, 2, False)


def test_records_replay_to_the_same_state() -> None:
    """Mid-migration (classic and new workers in one Connect group) and after the switch back."""
    for leave in (False, True):
        r = MAKE.scenario(upto="end" if leave else "mixed")
        fresh = Coordinator("kip")
        fresh.apply(Record.from_json(e["record"]) for e in r.events if "record" in e)
        live, rebuilt = r.coord.snapshot(), fresh.snapshot()
        assert rebuilt["connectGroups"] == live["connectGroups"]
        assert bool(live["connectGroups"]) is not leave
        if leave:
            assert rebuilt["classicGroups"]["g"]["members"] == live["classicGroups"]["g"]["members"]


def _mutated(n: int, path: tuple[Any, ...], value: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(events())
    target = out[n - 1]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


@pytest.mark.parametrize(("n", "path", "value", "field"), [
    (16, ("record", "value", "data", "epoch"), 2, "record"),  # the epoch must start at the generation
    (11, ("response", "memberEpoch"), 2, "memberEpoch"),
    (26, ("response", "errorCode"), 0, "errorCode"),  # no REBALANCE_IN_PROGRESS for a stale classic worker
    (30, ("response", "assignment"), encode_connect_assignment(ConnectAssignment(2)), "assignment"),  # AT2 kept
    (53, ("record", "value", "data", "generation"), 3, "record"),
], ids=["epoch-from-generation", "join-epoch", "rejoin-signal", "revoked-in-sync", "downgrade-generation"])
def test_one_line_mutant_is_flagged_at_its_line(tmp_path: Path, n: int, path: tuple[Any, ...], value: Any,
                                                field: str) -> None:
    status, report = check_events(tmp_path, _mutated(n, path, value))
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["kind"], first["field"]) == (n, "response-mismatch", field)


def test_kafka_profiles_refuse_the_draft_on_a_classic_connect_group(tmp_path: Path) -> None:
    status, report = check_events(tmp_path, events(), "--profile", "kafka-4.3")
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"], first["expected"], first["observed"]) == \
        (11, "errorCode", int(Errors.UNSUPPORTED_VERSION), int(Errors.COMPUTE_ASSIGNMENT))


# --- errors and readings -------------------------------------------------------------------------


def _classic_group(protocol_type: str = "connect") -> Any:
    r = MAKE.ConnectMigrationRecorder()
    w1 = r.connect_join(0, "", "W1", MAKE.res())["response"]["memberId"]
    r.connect_join(0, w1, "W1", MAKE.res())
    r.tick(6000)
    r.coord.classic_groups["g"].protocol_type = protocol_type
    return r, w1


def test_upgrade_of_a_group_of_another_protocol_type_is_group_id_not_found() -> None:
    r, _ = _classic_group("consumer")
    response = r.hb(7000, "W3", 0)["response"]
    assert (response["errorCode"], response["errorMessage"]) == (
        int(Errors.GROUP_ID_NOT_FOUND),
        "Cannot upgrade classic group g to connect group because the group does not use the connect protocol type.")
    assert "g" in r.coord.classic_groups
    assert "g" not in r.coord.connect_groups


def test_heartbeat_other_than_a_join_to_a_classic_group_is_group_id_not_found() -> None:
    r, _ = _classic_group()
    response = r.hb(7000, "W3", 3)["response"]
    assert (response["errorCode"], response["errorMessage"]) == (int(Errors.GROUP_ID_NOT_FOUND),
                                                                 "Group g is not a connect group.")


def test_classic_join_with_another_protocol_type_is_inconsistent_group_protocol() -> None:
    r = MAKE.scenario(upto="mixed")
    response = r.call(9000, 11, 9, {
        "groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000, "memberId": W1,
        "groupInstanceId": None, "protocolType": "consumer", "protocols": MAKE.protocols("W1", MAKE.res()),
        "reason": None}, "W1")["response"]
    assert response["errorCode"] == int(Errors.INCONSISTENT_GROUP_PROTOCOL)


def test_new_classic_worker_joins_the_mixed_group_after_member_id_required() -> None:
    r = MAKE.scenario(upto="mixed")
    first = r.connect_join(9000, "", "W4", MAKE.res())["response"]
    assert first["errorCode"] == int(Errors.MEMBER_ID_REQUIRED)
    joined = r.connect_join(9000, first["memberId"], "W4", MAKE.res())["response"]
    group = r.coord.connect_groups["g"]
    assert (joined["errorCode"], joined["generationId"], group.group_epoch) == (0, 2, 3)
    assert group.members[first["memberId"]].classic_member_metadata is not None


def test_classic_workers_are_never_asked_to_compute() -> None:
    """A classic worker cannot call Prepare/Install: only W3 is eligible (epoch 3 after W4 joins)."""
    r = MAKE.scenario(upto="mixed")
    first = r.connect_join(9000, "", "W4", MAKE.res())["response"]
    r.connect_join(9000, first["memberId"], "W4", MAKE.res())
    assert r.hb(9100, "W3", 2)["response"]["errorCode"] == int(Errors.COMPUTE_ASSIGNMENT)


def test_classic_leave_of_every_classic_worker_keeps_the_connect_group() -> None:
    r = MAKE.scenario(upto="mixed")
    response = r.call(9000, 13, 5, {"groupId": "g", "members": [
        {"memberId": W1, "groupInstanceId": None, "reason": "bye"},
        {"memberId": W2, "groupInstanceId": None, "reason": "bye"}]}, "W1")["response"]
    assert [m["errorCode"] for m in response["members"]] == [0, 0]
    group = r.coord.connect_groups["g"]
    assert (sorted(group.members), group.group_epoch) == (["W3"], 4)


def test_session_timeout_of_the_new_worker_switches_back() -> None:
    """A fence by timer goes through the same check: W3's session (45 s) ends, the classic
    workers' (10 s, their JoinGroup's) were refreshed until then."""
    r = MAKE.scenario(upto="mixed")
    for ts in range(15_000, 60_000, 5_000):
        for member in (W1, W2):
            r.heartbeat(ts, member, 2, client_id=member[:2])
    r.tick(60_000)
    assert "g" not in r.coord.connect_groups
    assert r.coord.classic_groups["g"].state == PREPARING_REBALANCE


# --- the classic Connect protocol's bytes --------------------------------------------------------


def test_assignment_v0_bytes_are_connect_protocols() -> None:
    """ConnectProtocol.serializeAssignment: version, error, leader, leader-url, config-offset,
    [connector, [task]] with -1 for the connector itself."""
    a = ConnectAssignment(0, 0, "L", "u", 7, MAKE.res("AC0", "AT1"))
    assert encode_assignment(a).hex() == (
        "0000" "0000" "00014c" "000175" "0000000000000007" "00000001" "000141" "00000002" "ffffffff" "00000001")
    decoded = decode_connect_assignment(encode_connect_assignment(a))
    assert (decoded.leader, decoded.config_offset, labels(decoded.assigned)) == ("L", 7, ["AC0", "AT1"])


def test_worker_state_round_trips_with_its_allocation() -> None:
    for version in (0, 1, 2):
        state = WorkerState(version, "http://w:8083", 42, MAKE.res("BC0", "BT1") if version else None)
        back = decode_worker_state(encode_worker_state(state))
        assert (back.version, back.url, back.config_offset) == (version, "http://w:8083", 42)
        assert (labels(back.allocation) if back.allocation is not None else None) == \
            (["BC0", "BT1"] if version else None)


def test_sync_assignment_has_no_leader_and_the_highest_config_offset() -> None:
    """No classic leader assigns: leader and leader URL are ""; the config offset is the highest
    the classic workers reported (a Connect leader's maxOffset: 7 here)."""
    a = decode_connect_assignment(line(30)["response"]["assignment"])
    assert (a.error, a.leader, a.leader_url, a.config_offset, a.delay) == (0, "", "", 7, 0)


def test_classic_worker_that_does_not_rejoin_is_removed_after_its_rebalance_timeout() -> None:
    """REBALANCE_IN_PROGRESS arms a join timeout (rebalance timeout 60 s, kept while the worker
    heartbeats); without a JoinGroup the worker is removed (the group epoch + 1)."""
    r = MAKE.scenario(upto="converted")
    assert r.heartbeat(7100, W1, 1, client_id="W1")["response"]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert r.coord.timers.snapshot()[f"connect-classic-join-g-{W1}"]["deadlineMs"] == 67_100
    epoch = 1
    for ts in range(12_000, 67_000, 5_000):
        r.heartbeat(ts, W1, 1, client_id="W1")
        r.heartbeat(ts, W2, 1, client_id="W2")
        epoch = r.hb(ts, "W3", epoch)["response"]["memberEpoch"]
    r.tick(67_100)
    group = r.coord.connect_groups["g"]
    assert (W1 in group.members, group.group_epoch) == (False, 3)


def test_classic_worker_that_does_not_sync_is_removed_after_its_rebalance_timeout() -> None:
    r = MAKE.scenario(upto="converted")
    r.connect_join(7200, W1, "W1", MAKE.res("AC0", "AT1", "AT2"))
    assert r.coord.timers.snapshot()[f"connect-classic-sync-g-{W1}"]["deadlineMs"] == 67_200
    r.connect_sync(7300, W1, 1, "W1")
    assert f"connect-classic-sync-g-{W1}" not in r.coord.timers.snapshot()


def test_eager_worker_gets_its_full_assignment_at_version_0() -> None:
    """A worker listing only ``default`` (eager): assignor range 0-0; its SyncGroup carries
    everything it holds (ConnectProtocol v0), an eager worker having revoked all before its join."""
    r = MAKE.ConnectMigrationRecorder()
    eager = [{"name": "default", "metadata": encode_worker_state(WorkerState(0, "http://w1:8083", 3))}]
    w1 = r.call(0, 11, 9, {"groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000,
                           "memberId": "", "groupInstanceId": None, "protocolType": "connect", "protocols": eager,
                           "reason": None}, "W1")["response"]["memberId"]
    request = {"groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000, "memberId": w1,
               "groupInstanceId": None, "protocolType": "connect", "protocols": eager, "reason": None}
    r.call(0, 11, 9, dict(request), "W1")
    r.tick(6000)
    r.call(6000, 14, 5, {"groupId": "g", "generationId": 1, "memberId": w1, "groupInstanceId": None,
                         "protocolType": "connect", "protocolName": "default", "assignments": [
                             {"memberId": w1, "assignment": encode_connect_assignment(
                                 ConnectAssignment(0, config_offset=3, assigned=MAKE.res("AC0", "AT1")))}]}, "W1")
    r.hb(7000, "W3", 0)
    group = r.coord.connect_groups["g"]
    a = group.members[w1].assignors[0]
    assert (a.minimum_version, a.maximum_version, a.version) == (0, 0, 0)
    assert labels(group.members[w1].assigned_resources()) == ["AC0", "AT1"]
    r.call(7100, 11, 9, dict(request), "W1")
    sync = r.call(7200, 14, 5, {"groupId": "g", "generationId": 1, "memberId": w1, "groupInstanceId": None,
                                "protocolType": "connect", "protocolName": "default", "assignments": []},
                  "W1")["response"]
    got = decode_connect_assignment(sync["assignment"])
    assert (got.version, got.config_offset, labels(got.assigned)) == (0, 3, ["AC0", "AT1"])


def test_classic_worker_waiting_for_released_work_is_told_to_rejoin() -> None:
    """The target moves AT2 from W1 to W2, both classic: W2 waits (UNRELEASED, heartbeats answer
    0) until W1 revoked it, then REBALANCE_IN_PROGRESS, and its SyncGroup gives it AT2."""
    r = MAKE.scenario(upto="converted", w2_takes_at2=True)
    r.heartbeat(7100, W2, 1, client_id="W2")
    assert r.connect_join(7200, W2, "W2", MAKE.res("BC0", "BT1"))["response"]["generationId"] == 2
    w2 = r.coord.connect_groups["g"].members[W2]
    assert (w2.state, labels(w2.assigned_resources())) == (3, ["BC0", "BT1"])  # UNRELEASED
    assert r.heartbeat(7300, W2, 2, client_id="W2")["response"]["errorCode"] == 0  # W1 still holds AT2
    r.heartbeat(7400, W1, 1, client_id="W1")
    r.connect_join(7500, W1, "W1", MAKE.res("AC0", "AT1", "AT2"))
    r.connect_join(7600, W1, "W1", MAKE.res("AC0", "AT1"))  # AT2 revoked
    assert r.heartbeat(7700, W2, 2, client_id="W2")["response"]["errorCode"] == int(Errors.REBALANCE_IN_PROGRESS)
    assert r.connect_join(7800, W2, "W2", MAKE.res("BC0", "BT1"))["response"]["generationId"] == 2
    got = decode_connect_assignment(r.connect_sync(7900, W2, 2, "W2")["response"]["assignment"])
    assert (labels(got.assigned), labels(got.revoked)) == (["AT2"], [])


def test_classic_worker_rolled_in_place_keeps_its_id_and_leaves_the_classic_protocol() -> None:
    """A worker restarted on the draft's protocol with its classic member id: a join of the same
    worker (its record 1002 loses classicMemberMetadata), so W3 leaving no longer switches back."""
    r = MAKE.scenario(upto="mixed")
    response = r.hb(9000, W1, 0, MAKE.res("AC0", "AT1"))["response"]
    group = r.coord.connect_groups["g"]
    assert (response["errorCode"], response["memberEpoch"]) == (0, 2)
    assert group.members[W1].classic_member_metadata is None
    r.hb(9100, "W3", -1)
    assert sorted(r.coord.connect_groups["g"].members) == [W1, W2]


_TASKS = st.frozensets(st.tuples(st.sampled_from(["A", "B", "conn-é"]), st.integers(0, 2**31 - 1)), max_size=6)


@given(tasks=_TASKS, connectors=st.frozensets(st.sampled_from(["A", "B", "conn-é"])), version=st.integers(0, 2),
       offset=st.integers(-(2**63), 2**63 - 1), revoked=_TASKS)
def test_connect_protocol_round_trips(tasks: frozenset[tuple[str, int]], connectors: frozenset[str], version: int,
                                      offset: int, revoked: frozenset[tuple[str, int]]) -> None:
    """Every Assignment and WorkerState the model writes reads back as written."""
    held = from_items([("connectors", c, 0) for c in connectors] + [("tasks", c, t) for c, t in tasks])
    gone = from_items([("tasks", c, t) for c, t in revoked]) if version else from_items([])
    a = ConnectAssignment(version, 1, "leader", "http://l", offset, held, gone, 5 if version else 0)
    back = decode_connect_assignment(encode_connect_assignment(a))
    assert (back.version, back.error, back.leader, back.leader_url, back.config_offset, back.delay) == \
        (version, 1, "leader", "http://l", offset, a.delay)
    assert (items(back.assigned), items(back.revoked)) == (items(held), items(gone))
    state = decode_worker_state(encode_worker_state(WorkerState(version, "http://w", offset, held)))
    assert state.config_offset == offset
    expected = items(held) if version else None
    assert (items(state.allocation) if state.allocation is not None else None) == \
        (expected if expected else None)


@pytest.mark.parametrize("data", ["", "AA==", "!!", "AAEAAA=="])
def test_malformed_connect_bytes_are_schema_errors(data: str) -> None:
    with pytest.raises(SchemaError):
        decode_worker_state(data)


def test_classic_join_to_an_empty_connect_group_deletes_it() -> None:
    """As Kafka's ``maybeDeleteEmptyConsumerGroup`` (kgspec's reading; the draft is silent): the
    empty group's tombstones go out with the new classic group's empty GroupMetadata record."""
    r = MAKE.ConnectMigrationRecorder()
    r.hb(0, "W3", 0)
    r.hb(100, "W3", -1)
    before = len(r.events)
    joined = r.connect_join(200, "", "W1", MAKE.res())["response"]
    assert joined["errorCode"] == int(Errors.MEMBER_ID_REQUIRED)
    written = [(e["record"]["key"]["type"], e["record"]["value"] is None) for e in r.events[before:] if "record" in e]
    assert written == [(1003, True), (1001, True), (1000, True), (2, False)]
    assert ("g" in r.coord.connect_groups, "g" in r.coord.classic_groups) == (False, True)


def test_join_whose_assignors_do_not_overlap_leaves_the_classic_group_untouched() -> None:
    """UNSUPPORTED_ASSIGNOR before anything is written: the conversion and the join are one step."""
    r, _ = _classic_group()
    before = len(r.events)
    response = r.draft(7000, MAKE.CONNECT_GROUP_HEARTBEAT, {
        "groupId": "g", "memberId": "W3", "memberEpoch": 0, "instanceId": None, "rebalanceTimeoutMs": 60_000,
        "serverAssignor": None, "clientAssignors": [{"name": "incremental", "minimumVersion": 3,
                                                     "maximumVersion": 4, "reason": 0, "version": 3,
                                                     "metadata": None}],
        "connectorsAndTasks": []}, "W3")["response"]
    assert response["errorCode"] == int(Errors.UNSUPPORTED_ASSIGNOR)
    assert [e for e in r.events[before:] if "record" in e] == []
    assert ("g" in r.coord.classic_groups, "g" in r.coord.connect_groups) == (True, False)


def test_removed_worker_rejoining_under_its_old_id_is_told_to_revoke_what_others_hold() -> None:
    """Kafka creates a classic member for any id (``getOrMaybeCreateMember(memberId, true)``): W1,
    removed when its session ran out while W3 holds AT2, comes back under its id reporting AT2; it
    is given its target entry (AC0 AT1, still in the installed target) and its SyncGroup revokes
    AT2, which W3 keeps."""
    r = MAKE.scenario(upto="mixed")
    epoch = 2
    for ts in range(12_000, 22_000, 5_000):
        r.heartbeat(ts, W2, 2, client_id="W2")
        epoch = r.hb(ts, "W3", epoch)["response"]["memberEpoch"]
    r.tick(18_000)
    assert W1 not in r.coord.connect_groups["g"].members  # its 10 s session ended at 17 600
    joined = r.connect_join(18_000, W1, "W1", MAKE.res("AC0", "AT1", "AT2"))["response"]
    assert (joined["errorCode"], joined["generationId"]) == (0, 2)
    got = decode_connect_assignment(r.connect_sync(18_100, W1, 2, "W1")["response"]["assignment"])
    assert (labels(got.assigned), labels(got.revoked)) == ([], ["AT2"])
    assert labels(r.coord.connect_groups["g"].members["W3"].assigned_resources()) == ["AT2"]


def test_failover_mid_migration_rearms_each_workers_own_session() -> None:
    """A new coordinator rebuilds the mixed group from the records; classic workers keep their
    JoinGroup's session timeout (10 s, from ``classicMemberMetadata``), W3 the draft's 45 s."""
    r = MAKE.scenario(upto="mixed")
    live = r.coord.snapshot()["connectGroups"]
    r.coord.failover(8500)
    assert r.coord.snapshot()["connectGroups"] == live
    deadlines = {k: v["deadlineMs"] for k, v in r.coord.timers.snapshot().items() if k.startswith("connect-")}
    assert deadlines == {f"connect-session-g-{W1}": 18_500, f"connect-session-g-{W2}": 18_500,
                         "connect-session-g-W3": 53_500}
    assert r.heartbeat(9000, W1, 2, client_id="W1")["response"]["errorCode"] == 0


def test_describe_and_list_groups_of_a_mixed_connect_group() -> None:
    """The draft is silent on DescribeGroups / ListGroups; `kip` reads them as Kafka does a consumer
    group with classic members (``GroupMetadataManager.describeGroups`` finds no classic group;
    ``listGroups`` lists the group under its own type): DescribeGroups v6+ "Group g is not a
    classic group." (GROUP_ID_NOT_FOUND, 69, state Dead); ListGroups type and protocol type
    "connect", the draft's group state."""
    r = MAKE.scenario(upto="mixed")
    described = r.coord.handle(15, 6, {"groups": ["g"], "includeAuthorizedOperations": False}, now=9000)
    assert described.response is not None
    (group,) = described.response["groups"]
    assert (group["errorCode"], group["errorMessage"], group["groupState"], group["members"]) == (
        69, "Group g is not a classic group.", "Dead", [])
    listed = r.coord.handle(16, 5, {"statesFilter": [], "typesFilter": []}, now=9000)
    assert listed.response is not None
    assert listed.response["groups"] == [
        {"groupId": "g", "protocolType": "connect", "groupState": "Stable", "groupType": "connect"}]
