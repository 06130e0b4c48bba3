"""kip: seed 003's JoinReason. "If there is no member protocol change and JoinReason is `Blind`,
then we shall not rebalance on known member rejoin"; TOPIC_METADATA_CHANGE "will proceed to
rebalance stage"; "JoinReason takes lower priority than the protocol change monitoring"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kgspec.model.classic.responses import join_response
from kgspec.model.step import Decision
from kgspec.spec.classic import PREPARING_REBALANCE, STABLE

from tests.classic.harness import RANGE, Harness, protocols
from tests.helpers import check, check_events, read_jsonl


def rejoin(h: Harness, ts: int, member: str, reason: str | None, *, version: int = 9,
           protos: tuple[tuple[str, str], ...] = RANGE) -> Decision:
    req: dict[str, Any] = {"groupId": "g", "sessionTimeoutMs": 10_000, "rebalanceTimeoutMs": 60_000,
                           "memberId": member, "groupInstanceId": None, "protocolType": "consumer",
                           "protocols": protocols(*protos), "reason": None, "joinReason": reason}
    return h.call(11, version, req, ts, "c0")


def test_leader_blind_rejoin_with_unchanged_protocols_does_not_rebalance() -> None:
    h = Harness(profile="kip")
    m1, m2 = h.stable_group(2)
    r = rejoin(h, 7000, m1, "blind")
    assert r.response is not None
    assert r.response == join_response(9, 0, member_id=m1, generation_id=1, protocol_type="consumer",
                                       protocol_name="range", leader=m1, members=h.group().current_members())
    assert [m["memberId"] for m in r.response["members"]] == [m1, m2]
    assert (h.group().state, h.group().generation_id) == (STABLE, 1)


@pytest.mark.parametrize(("profile", "reason"), [("kip", None), ("kafka-4.3", "blind")])
def test_without_the_seeds_reason_the_leader_rejoin_rebalances(profile: str, reason: str | None) -> None:
    """No JoinReason is "unknown": Kafka's rule (the leader's rejoin rebalances); Kafka ignores the field."""
    h = Harness(profile=profile)
    m1, _ = h.stable_group(2)
    assert rejoin(h, 7000, m1, reason).response is None  # parked: a rebalance began
    assert h.group().state == PREPARING_REBALANCE


def test_below_v6_the_join_reason_is_unknown() -> None:
    h = Harness(profile="kip")
    m1, _ = h.stable_group(2)
    assert rejoin(h, 7000, m1, "blind", version=5).response is None
    assert h.group().state == PREPARING_REBALANCE


def test_topic_metadata_change_rebalances_even_from_a_follower() -> None:
    h = Harness(profile="kip")
    _, m2 = h.stable_group(2)
    assert rejoin(h, 7000, m2, "topic_metadata_change").response is None
    assert (h.group().state, h.group().generation_id) == (PREPARING_REBALANCE, 1)


def test_protocol_change_rebalances_even_when_blind() -> None:
    h = Harness(profile="kip")
    _, m2 = h.stable_group(2)
    assert rejoin(h, 7000, m2, "blind", protos=(("range", "AAI="),)).response is None
    assert h.group().state == PREPARING_REBALANCE


def test_unknown_join_reason_names_the_field() -> None:
    h = Harness(profile="kip")
    m1, _ = h.stable_group(2)
    with pytest.raises(ValueError, match=r"request.joinReason: 'later' is not a JoinReason"):
        rejoin(h, 7000, m1, "later")


GOLDEN = Path(__file__).parent.parent / "golden" / "classic" / "kip_join_reason.jsonl"


def test_kip_join_reason_golden_values() -> None:
    events = read_jsonl(GOLDEN)
    blind, topic_change = events[8], events[10]
    assert (blind["request"]["joinReason"], blind["response"]["generationId"], "totalTimeMs" in blind) == (
        "blind", 1, False)  # answered at once: no rebalance
    assert (topic_change["request"]["joinReason"], topic_change["response"]["generationId"],
            topic_change["totalTimeMs"]) == ("topic_metadata_change", 2, 200)
    assert (events[9]["response"]["errorCode"], events[11]["response"]["errorCode"]) == (0, 27)


def test_kip_join_reason_golden_rejected_under_kafka(tmp_path: Path) -> None:
    """Kafka (the reason ignored) rebalances on the leader's rejoin: the trace departs at line 9."""
    status, report = check(GOLDEN, "--profile", "kafka-4.3")
    assert status == 1
    assert report["findings"][0]["line"] == 9


def test_kip_join_reason_one_line_mutant_rejected(tmp_path: Path) -> None:
    """The leader's blind rejoin answered with a new generation, as if it had rebalanced."""
    events = read_jsonl(GOLDEN)
    events[8]["response"]["generationId"] = 2
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (9, "generationId")


def test_check_names_an_unknown_join_reason_as_malformed(tmp_path: Path) -> None:
    events = read_jsonl(GOLDEN)
    events[8]["request"]["joinReason"] = "later"
    status, report = check_events(tmp_path, events)
    assert status == 1
    assert [(f["line"], f["kind"], f["field"]) for f in report["findings"]] == [(9, "malformed", "request.joinReason")]
