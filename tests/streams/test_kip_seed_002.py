"""kip profile, seed 002 (KIP-1071) as written: the rolling-bounce example of "Topology updates",
the v0 response's configured fields and no Kafka-only assignment delay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.step import NO_CHOICES, Choices
from kgspec.model.streams.assignor import TaskAssignment, TaskMemberSpec
from kgspec.model.streams.stale import withhold_new_tasks
from kgspec.model.streams.standing import standing_alternative

from tests.helpers import check, check_events, read_jsonl
from tests.streams.goldens import GOLDEN
from tests.streams.helpers import codes, coordinator, hb, join, record_types

BOUNCE = GOLDEN / "kip_rolling_bounce.jsonl"


def _t(*labels: int) -> dict[str, frozenset[int]]:
    """The seed's T1..T9 as subtopology 0, partitions 0..8."""
    return {"0": frozenset(n - 1 for n in labels)}


def test_stale_member_keeps_only_its_tasks_seed_example_b_shut_down() -> None:
    """The seed's values: A(#0) T2, T3, T7 and C(#1) T1, T4, T9; B is shut down. Whatever the sticky
    assignor hands A beyond its own tasks goes to C: "A(#0): T2, T3, T7 / C(#1): T1, T4, T9, T5, T6, T8"."""
    specs = [TaskMemberSpec("A", "pA", _t(2, 3, 7)), TaskMemberSpec("C", "pC", _t(1, 4, 9))]
    sticky = TaskAssignment({"A": _t(2, 3, 7, 5, 8), "C": _t(1, 4, 9, 6)}, {"A": {}, "C": {}})
    out = withhold_new_tasks(specs, sticky, frozenset({"A"}))
    assert out.active == {"A": _t(2, 3, 7), "C": _t(1, 4, 5, 6, 8, 9)}
    assert withhold_new_tasks(specs, sticky, frozenset()) is sticky


def test_withheld_task_never_lands_on_a_process_holding_it() -> None:
    """A stale member's new standby goes to an up-to-date member of another process, else nowhere."""
    specs = [TaskMemberSpec("A", "p1"), TaskMemberSpec("B", "p2", _t(1)), TaskMemberSpec("C", "p3")]
    sticky = TaskAssignment({"A": {}, "B": _t(1), "C": {}}, {"A": _t(1), "B": {}, "C": {}})
    assert withhold_new_tasks(specs, sticky, frozenset({"A"})).standby == {"A": {}, "B": {}, "C": _t(1)}
    only_b = withhold_new_tasks(specs[:2], TaskAssignment({"A": {}, "B": _t(1)}, {"A": _t(1), "B": {}}),
                                frozenset({"A"}))
    assert only_b.standby == {"A": {}, "B": {}}


def _calls() -> list[tuple[int, str, int, int, list[int] | None, Any]]:
    return [(i + 1, e["request"]["memberId"], e["request"]["memberEpoch"], e["response"]["memberEpoch"],
             None if e["response"]["status"] is None else [s["statusCode"] for s in e["response"]["status"]],
             None if e["response"]["activeTasks"] is None
             else sorted(p + 1 for t in e["response"]["activeTasks"] for p in t["partitions"]))
            for i, e in enumerate(read_jsonl(BOUNCE)) if "response" in e]


def test_rolling_bounce_golden_values() -> None:
    """The example's own values (T = partition + 1); a status is sent when it changes ("Null if
    unchanged since last heartbeat"). The seed's listings are the coordinator's choices in the
    recording; the checker adopts each as the answers reveal it (model/streams/standing.py)."""
    calls = _calls()
    assert (10, "B", 4, 4, None, [4, 5, 6]) in calls      # A(#0): T1 T2 T3, B(#0): T4 T5 T6,
    assert (11, "C", 4, 4, None, [7, 8, 9]) in calls      # C(#0): T7 T8 T9
    assert (13, "A", 4, 5, None, [1, 2, 3, 7]) in calls   # C down: A(#0): T1 T2 T3 T7,
    assert (14, "B", 4, 5, None, [4, 5, 6, 8, 9]) in calls  # B(#0): T4 T5 T6 T8 T9
    assert (17, "C", 0, 6, [], []) in calls               # C rejoins at topology epoch 1: group epoch 6
    assert (18, "A", 5, 5, [0], [2, 3, 7]) in calls       # STALE_TOPOLOGY; A(#0): T2 T3 T7
    assert (19, "B", 5, 5, [0], [5, 6, 8]) in calls       # B(#0): T5 T6 T8
    assert (21, "A", 5, 6, None, None) in calls           # still stale, status unchanged: null
    assert (23, "C", 6, 6, None, [1, 4, 9]) in calls      # C(#1): T1 T4 T9
    assert (28, "A", 6, 7, None, None) in calls           # B is down: A(#0) keeps T2 T3 T7, nothing new
    assert (29, "C", 6, 7, None, [1, 4, 5, 6, 8, 9]) in calls  # C(#1): T1 T4 T9 T5 T6 T8 (the rule)
    assert (35, "C", 7, 7, None, [5, 6, 8]) in calls      # B back at epoch 1: C(#1): T5 T6 T8
    assert (40, "B", 8, 8, None, [1, 4, 9]) in calls      # B(#1): T1 T4 T9
    status, report = check(BOUNCE)
    assert (status, report["findings"]) == (0, [])


def test_rolling_bounce_stale_member_taking_a_new_task_rejected(tmp_path: Path) -> None:
    """One line edited: A (topology epoch 0) takes T5 from the departed B. The checker tries the
    alternative as a sticky choice, but the seed forbids it: rejected at that line."""
    events = read_jsonl(BOUNCE)
    line = 28
    assert (events[line - 1]["request"]["memberId"], events[line - 1]["response"]["activeTasks"]) == ("A", None)
    events[line - 1]["response"].update({"activeTasks": [{"subtopologyId": "0", "partitions": [1, 2, 4, 6]}],
                                         "standbyTasks": [], "warmupTasks": []})
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert min(f["line"] for f in report["findings"]) == line
    assert ("response-mismatch", "activeTasks") in {(f["kind"], f["field"]) for f in report["findings"]
                                                    if f["line"] == line}


def test_standing_target_not_adopted_for_kafka_profiles(tmp_path: Path) -> None:
    """The seed's listings are adopted under kip only: the same answers under kafka-trunk (whose
    topology update at line 17 Kafka refuses anyway) depart at the first one the model did not pick."""
    status, report = check(BOUNCE, "--profile", "kafka-trunk")
    assert status == 1
    assert report["findings"][0]["line"] < 17


def test_v0_response_carries_the_configured_lag_and_interval() -> None:
    """Seed schema v0: AcceptableRecoveryLag (int32) and TaskOffsetIntervalMs; Kafka 4.3 sends 0 and 0."""
    r = join(coordinator("kip", **{"group.streams.acceptable.recovery.lag": 777,
                                   "group.streams.task.offset.interval.ms": 5000}), 0, "m1", "p1").response
    assert r is not None
    assert (r["acceptableRecoveryLag"], r["taskOffsetIntervalMs"], "acceptableRecoveryLagLegacy" in r) == (
        777, 5000, False)
    k = join(coordinator("kafka-4.3"), 0, "m1", "p1").response
    assert k is not None
    assert (k["acceptableRecoveryLag"], k["taskOffsetIntervalMs"]) == (0, 0)


@pytest.mark.parametrize("api", [88, 89])
def test_kip_has_only_version_0(api: int) -> None:
    """The seed's StreamsGroupHeartbeat and StreamsGroupDescribe have "validVersions": "0"."""
    with pytest.raises(ValueError, match=f"API {api} v1 is not supported \\(v0-v0\\)"):
        coordinator("kip").decide(api, 1, {"groupIds": ["g"]}, now=0)
    trunk = Coordinator("kafka-trunk").decide(89, 1, {"groupIds": ["g"], "includeAuthorizedOperations": False},
                                              now=0).response
    assert trunk is not None
    assert trunk["groups"][0]["errorCode"] == 69  # trunk answers v1 (GROUP_ID_NOT_FOUND)


def test_no_assignment_delay_under_kip() -> None:
    """"Every time the group epoch is bumped, a new task assignment is computed": no initial delay and
    no ASSIGNMENT_DELAYED (status 5, Kafka's, not in the seed's list 0-4)."""
    r = join(coordinator("kip", delay=3000), 0, "m1", "p1").response
    assert r is not None
    assert (r["memberEpoch"], codes(r)) == (2, [])
    k = join(coordinator("kafka-trunk", delay=3000), 0, "m1", "p1").response
    assert k is not None
    assert (k["memberEpoch"], codes(k)) == (1, [5])


@pytest.mark.parametrize("profile", ["kip", "kafka-trunk"])
def test_fenced_member_epoch_removes_the_member(profile: str) -> None:
    """Seed 002 "Request Handling" 3.4: "FENCED_MEMBER_EPOCH is returned otherwise. The member is also
    removed from the group." kip removes it as a session timeout would (tombstones 22, 21, 19, then
    17 at epoch + 1); Kafka answers the error and keeps the member."""
    c = coordinator(profile)
    join(c, 0, "m1", "p1")
    join(c, 10, "m2", "p2")
    g = c.streams_groups["g"]
    before = g.group_epoch
    r = hb(c, 20, "m2", 9, activeTasks=[], standbyTasks=[], warmupTasks=[])
    assert r.response is not None
    assert r.response["errorCode"] == 110
    if profile == "kip":
        assert record_types(r) == [22, 21, 19, 17]
        assert [rec.value is None for rec in r.records] == [True, True, True, False]
        assert (sorted(g.members), g.group_epoch) == (["m1"], before + 1)
        again = hb(c, 30, "m2", 3, activeTasks=[], standbyTasks=[], warmupTasks=[]).response
        assert again is not None
        assert again["errorCode"] == 25  # UNKNOWN_MEMBER_ID: it must rejoin with epoch 0
    else:
        assert record_types(r) == []
        assert (sorted(g.members), g.group_epoch) == (["m1", "m2"], before)


def test_status_is_null_when_unchanged() -> None:
    """Seed 002 response "Status": "Null if unchanged since last heartbeat." A join always carries it;
    Kafka sends the list every time."""
    for profile, second, third in (("kip", [1], None), ("kafka-4.3", [1], [1])):
        c = coordinator(profile)
        missing = {"topology": {"epoch": 0, "subtopologies": [
            {"subtopologyId": "0", "sourceTopics": ["absent"], "sourceTopicRegex": [], "stateChangelogTopics": [],
             "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}}
        first = join(c, 0, "m1", "p1", **missing).response
        assert first is not None
        assert codes(first) == [1]  # MISSING_SOURCE_TOPICS
        got = []
        for now in (10, 20):
            r = hb(c, now, "m1", first["memberEpoch"], activeTasks=[], standbyTasks=[], warmupTasks=[]).response
            assert r is not None
            got.append(None if r["status"] is None else codes(r))
        assert got == ([None, None] if profile == "kip" else [second, third])


def test_target_metadata_record_is_the_seeds() -> None:
    """StreamsGroupTargetAssignmentMetadataValue: the seed's has only AssignmentEpoch; Kafka 4.3+ adds
    the assignment timestamp of its interval batching."""
    for profile, value in (("kip", {"assignmentEpoch": 2}),
                           ("kafka-trunk", {"assignmentEpoch": 2, "assignmentTimestamp": 500})):
        r = join(coordinator(profile), 500, "m1", "p1")
        assert [rec.value for rec in r.records if rec.type == 20] == [value]


def _bounce_group_after_c_rejoined() -> Any:
    """The golden's model just before A's answer at line 18 (C rejoined at topology epoch 1)."""
    from kgspec.conformance.recorder import TraceRecorder
    events = read_jsonl(BOUNCE)
    rec = TraceRecorder("kip", events[0]["header"]["configs"])
    for e in events[1:17]:
        if "topic" in e:
            rec.coord.update_topic(e["topic"]["name"], e["topic"]["topicId"], e["topic"]["partitions"])
        elif "request" in e:
            rec.coord.advance(e["tsMs"])
            choices = NO_CHOICES
            if e["tsMs"] in (1200, 6000, 8000):  # the seed's listings, as the recording chose them
                choices = _choice_of(e["tsMs"])
            rec.coord.handle(88, 0, e["request"], now=e["tsMs"], client_id=e["requestHeader"]["clientId"],
                             choices=choices)
    return rec.coord.streams_groups["g"]


def _choice_of(ts: int) -> Choices:
    listings = {1200: {"A": [1, 2, 3], "B": [4, 5, 6], "C": [7, 8, 9]},
                6000: {"A": [1, 2, 3, 7], "B": [4, 5, 6, 8, 9]},
                8000: {"A": [2, 3, 7], "B": [5, 6, 8], "C": [1, 4, 9]}}
    assignment = TaskAssignment({m: _t(*ts_) for m, ts_ in listings[ts].items()}, {m: {} for m in listings[ts]})
    return Choices(task_target=lambda *_: assignment)


def _tasks_of(*labels: int) -> frozenset[tuple[str, int]]:
    return frozenset(("0", n - 1) for n in labels)


def test_standing_alternative_keeps_the_seeds_rules() -> None:
    """A (epoch 0, holding T1 T2 T3 T7) may be seen with T2 T3 T7 (C's target takes T1), never with a
    task it does not hold (stale); a swap may not take from an answered member a task it holds."""
    g = _bounce_group_after_c_rejoined()
    ok = standing_alternative(g, "A", _tasks_of(2, 3, 7), frozenset(), set())
    assert ok is not None
    assert ok["A"]["active"] == _t(2, 3, 7)
    assert standing_alternative(g, "A", _tasks_of(2, 3, 7, 5), frozenset(), set()) is None  # T5: new to A
    # C (epoch 1) seen with T7 too: A's target loses T7, which A holds: only while A has not answered
    assert standing_alternative(g, "C", _tasks_of(1, 4, 7, 9), frozenset(), set()) is not None
    assert standing_alternative(g, "C", _tasks_of(1, 4, 7, 9), frozenset(), {"A"}) is None
