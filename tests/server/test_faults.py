"""Fault rules: the documented schema, validated with errors that name the field at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("kio")

from kgspec.server.faults import FaultError, Faults, Rule, load_rules, parse_rule, parse_rules


def test_a_rule_by_api_name_client_group_and_nth() -> None:
    rule = parse_rule({"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c2", "group": "g", "nth": 3},
                       "action": "error", "error": "NOT_COORDINATOR", "times": 2})
    assert rule == Rule(action="error", api=68, client_id="c2", group="g", nth=3, times=2, error=16)
    assert parse_rule({"match": {"api": "JOIN_GROUP"}, "action": "drop"}).api == 11
    assert parse_rule({"match": {"api": 12}, "action": "error", "error": 14}).error == 14
    assert parse_rule({"action": "close", "times": None}).times is None


@pytest.mark.parametrize(("rule", "message"), [
    ({"action": "explode"}, "rule.action: must be one of drop, delay, error, close, clock, failover, not 'explode'"),
    ({"action": "drop", "match": {"api": "Nope"}}, "rule.match.api: 'Nope' names no Kafka API"),
    ({"action": "drop", "match": {"api": 9999}}, "rule.match.api: no Kafka API has key 9999"),
    ({"action": "error"}, "rule.error: required by action 'error'"),
    ({"action": "error", "error": "NOT_A_THING"}, "rule.error: 'NOT_A_THING' is no Kafka error name"),
    ({"action": "delay"}, "rule.delayMs: required by action 'delay'"),
    ({"action": "delay", "delayMs": -1}, "rule.delayMs: must be an integer >= 0, not -1"),
    ({"action": "clock", "advanceMs": "10"}, "rule.advanceMs: must be an integer >= 0, not '10'"),
    ({"action": "drop", "match": {"nth": 0}}, "rule.match.nth: must be an integer >= 1, not 0"),
    ({"action": "drop", "match": {"client": "c1"}}, "rule.match: unknown key(s) client"),
    ({"action": "drop", "match": {"clientId": 3}}, "rule.match.clientId: must be a string"),
    ({"action": "drop", "when": 1}, "rule: unknown key(s) when"),
    ("drop", "rule: must be an object, not str"),
])
def test_invalid_rules_name_the_field(rule: object, message: str) -> None:
    with pytest.raises(FaultError) as caught:
        parse_rule(rule)
    assert str(caught.value).startswith(message)


def test_a_rules_file_names_the_file_and_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('{"rules": [{"action": "drop"}, {"action": "delay"}]}')
    with pytest.raises(FaultError, match=r"f\.json\.rules\[1\]\.delayMs: required by action 'delay'"):
        load_rules(path)
    path.write_text("{nope")
    with pytest.raises(FaultError, match=r"f\.json: not valid JSON"):
        load_rules(path)
    with pytest.raises(FaultError, match="cannot read"):
        load_rules(tmp_path / "missing.json")
    with pytest.raises(FaultError, match="faults: must be an object with a list `rules`"):
        parse_rules([])


def test_nth_and_times_pick_the_calls_acted_on() -> None:
    faults = Faults([parse_rule({"match": {"api": 68, "clientId": "c1", "nth": 2}, "action": "drop", "times": 2})])
    picked = [faults.take(68, "c1", "g") is not None for _ in range(5)]
    assert picked == [False, True, True, False, False]
    assert faults.take(68, "c2", "g") is None  # another client never matches
    assert len(faults.fired) == 2


def test_the_first_rule_whose_turn_it_is_acts_and_every_rule_counts() -> None:
    faults = Faults([parse_rule({"match": {"api": 68}, "action": "drop"}),
                     parse_rule({"match": {"api": 68, "nth": 1}, "action": "close", "times": None})])
    assert faults.take(68, "c1", None).action == "drop"  # both match; the first acts
    assert faults.take(68, "c1", None).action == "close"
    faults.add({"action": "delay", "delayMs": 5})
    faults.clear()
    assert faults.take(68, "c1", None) is None
