"""kip, seed 004 "Rolling Upgrades (Consumer)": the worked example's four phases as a golden
(``scripts/make_golden_classic.py`` ``kip_rolling_upgrade``). A (strategy, version) pair of the seed
is a protocol name, ``round-robin-v0`` / ``round-robin-v1`` (docs/kip.md "Seed 004")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import check, check_events, read_jsonl

GOLDEN = Path(__file__).parent.parent / "golden" / "classic" / "kip_rolling_upgrade.jsonl"


def _joins() -> list[tuple[int, str, list[str], int, str]]:
    """(line, client, protocols listed, generation, protocol chosen) of each answered JoinGroup."""
    out = []
    for i, e in enumerate(read_jsonl(GOLDEN), 1):
        if e.get("requestHeader", {}).get("requestApiKey") == 11 and e["response"]["errorCode"] == 0:
            out.append((i, e["requestHeader"]["clientId"], [p["name"] for p in e["request"]["protocols"]],
                        e["response"]["generationId"], e["response"]["protocolName"]))
    return out


def test_rolling_upgrade_golden_values() -> None:
    """"GroupProtocol: (round-robin, 0)" in phases 1-3, "(round-robin, 1)" once C is upgraded."""
    by_generation = {}
    for _, _, _, generation, protocol in _joins():
        by_generation.setdefault(generation, set()).add(protocol)
    assert by_generation == {1: {"round-robin-v0"}, 2: {"round-robin-v0"}, 3: {"round-robin-v0"},
                             4: {"round-robin-v1"}}
    upgraded = {g: sorted(c for _, c, p, gen, _ in _joins() if gen == g and p[0] == "round-robin-v1")
                for g in by_generation}
    assert upgraded == {1: [], 2: ["A"], 3: ["A", "B"], 4: ["A", "B", "C"]}
    status, report = check(GOLDEN)
    assert (status, report["findings"]) == (0, [])


def test_golden_conforms_under_kafka_too() -> None:
    """Kafka's vote picks the same protocol in every phase: the example is Kafka's behaviour."""
    status, report = check(GOLDEN, "--profile", "kafka-4.3")
    assert (status, report["findings"]) == (0, [])


@pytest.mark.parametrize(("line", "protocol"), [
    (28, "round-robin-v0"),  # phase 4: every member lists (round-robin, 1) first: v0 is not a legal pick
    (12, "round-robin-v1"),  # phase 2: B and C do not support (round-robin, 1)
])
def test_one_line_mutant_rejected(line: int, protocol: str, tmp_path: Path) -> None:
    events = read_jsonl(GOLDEN)
    assert events[line - 1]["requestHeader"]["requestApiKey"] == 11
    events[line - 1]["response"]["protocolName"] = protocol
    status, report = check_events(tmp_path, events)
    assert status == 1
    first = report["findings"][0]
    assert (first["line"], first["field"]) == (line, "protocolName")
