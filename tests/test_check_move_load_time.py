"""The load time of an inferred coordinator move, adopted from the answers (conformance/load_time.py).

A request log shows that a group's coordinator moved, not when the new one loaded it. Replayed at
the first call the new broker answers, a timer due between the real load and that call (a
member's session, 45 s after the load) fires at another call than Kafka's did, and the group
falsely diverges: before this module, 1-3 of the 10 groups of a half-hour run with a move every
10 minutes did. The checker now takes the load time as a legal freedom within the window the
log shows, and adopts the instant the answers agree with.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.findings import Report
from kgspec.conformance.load_time import MAX_CANDIDATES, LoadWindow
from kgspec.conformance.readers import open_trace
from kgspec.conformance.report_schema import REPORT_SCHEMA
from kgspec.conformance.writers import write_request_log

from kgspec.cli import main
from tests.report.schema_check import problems

BROKERS = ("10.0.0.1:9092", "10.0.0.2:9092", "10.0.0.3:9092")
BASE_MS = 1748736000000  # the request-log writer's start, 2025-06-01 UTC


def _cluster_log(tmp: Path, seed: int, duration_ms: int) -> Path:
    """10 groups, a move every 10 minutes, 1% loss: the simulator's native run written as the
    request log of three brokers (each group's calls from its coordinator's address)."""
    native = tmp / f"run-{seed}.jsonl"
    assert main(["simulate", "--groups", "10", "--duration-ms", str(duration_ms), "--failover-every", "600000",
                 "--loss", "0.01", "--seed", str(seed), "-o", str(native)]) == 0
    events = [json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()]
    log = tmp / f"cluster-{seed}.log"
    with log.open("w", encoding="utf-8") as out:
        write_request_log(events, out, brokers=BROKERS)
    return log


def _kgspec_check(*args: str) -> tuple[int, dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        status = main(["check", "-q", "--json", str(report), *args])
        return status, json.loads(report.read_text(encoding="utf-8"))


def _at_first_answer(log: Path) -> Report:
    """The check as it was: every move replayed at the first call the new broker answers."""
    report = Report()
    checker = TraceChecker(str(log), report)
    checker.moves.load.enabled = False
    checker.feed_all(open_trace(str(log), "auto"))
    checker.finish()
    return report


def _moves(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in report["inferred"] if n["kind"] == "coordinator-move"]


# seed -> the group the estimated time made diverge, the line of the call that showed its move,
# the window (from the group's last call on the old broker to that call) and the time adopted,
# in ms from the log's start. The simulator's failover was at 1,200,000 each time.
ADOPTED = {
    1: ("group-8", 7170, (1199762, 1200825), 1200038),
    2: ("group-1", 7027, (1198031, 1202697), 1201720),
    3: ("group-9", 7098, (1197976, 1201989), 1200406),
}


@pytest.mark.parametrize("seed", sorted(ADOPTED))
def test_the_load_time_is_adopted_from_the_answers(seed: int, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Up to the session expiries that follow the second move: the estimated time diverged in one
    group; the adopted one conforms, and the report gives the window and the time adopted."""
    log = _cluster_log(tmp_path, seed, 1260000)
    group, line, (low, high), adopted = ADOPTED[seed]
    before = _at_first_answer(log)
    assert {f.group_id for f in before.findings} == {group}
    status, report = _kgspec_check(str(log))
    assert (status, report["findings"]) == (0, [])
    moves = _moves(report)
    assert len(moves) == 20  # two moves of 10 groups
    changed = [m for m in moves if m["tsMs"] != m["window"]["toTsMs"]]
    assert [(m["groupId"], m["line"], m["window"], m["tsMs"]) for m in changed] == \
        [(group, line, {"fromTsMs": BASE_MS + low, "toTsMs": BASE_MS + high}, BASE_MS + adopted)]
    assert changed[0]["message"].endswith(
        f"replayed as a failover at tsMs {BASE_MS + adopted} (the load time the answers show, "
        f"in the window tsMs {BASE_MS + low}-{BASE_MS + high})")
    for move in moves:  # every move says where it may have happened
        assert move["window"]["fromTsMs"] <= move["tsMs"] <= move["window"]["toTsMs"]
    assert problems(report, REPORT_SCHEMA) == []  # the published schema names the window
    # the human summary counts them
    capsys.readouterr()
    assert main(["check", str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[-2].startswith(
        "20 coordinator move(s) inferred or supplied in 10 group(s), replayed as failovers "
        "(1 at a load time the answers show, inside its window); 0 NOT_COORDINATOR answer(s)")


def test_a_group_that_came_to_a_broker_after_another_left_it_stays(tmp_path: Path) -> None:
    """Seed 9: group-5 came to 10.0.0.1 at 600,720 (the move at 600,000); group-6, whose last call
    there was at 599,965, is next seen on 10.0.0.2 at 602,636. The broker's other groups leave with
    it only if it answered them before group-6's last call there: group-5 stays (its clock, moved
    by a topic change at 600,768, once made it look older and failed it over a second time)."""
    log = _cluster_log(tmp_path, 9, 660000)
    status, report = _kgspec_check(str(log))
    assert (status, report["findings"]) == (0, [])
    moves = _moves(report)
    assert len(moves) == 10
    assert [(m["groupId"], m["line"]) for m in moves if m["groupId"] in ("group-5", "group-6")] == \
        [("group-5", 3588), ("group-6", 3602)]


@pytest.mark.slow
@pytest.mark.parametrize("seed", list(range(1, 13)))
def test_a_half_hour_with_a_move_every_ten_minutes_conforms(seed: int, tmp_path: Path) -> None:
    """The full size: 10 groups, 30 minutes, a move every 10 minutes, no --failover."""
    log = _cluster_log(tmp_path, seed, 1800000)
    status, report = _kgspec_check(str(log))
    assert (status, report["findings"]) == (0, [])
    assert len(_moves(report)) == 20  # the third move has no call after it


def test_a_response_wrong_under_every_load_time_is_flagged_at_its_line(tmp_path: Path) -> None:
    """A member epoch no load time in the window gives, in the group whose move needs the adopted
    time: the finding is that call's, the call the adopted time explains is not flagged."""
    log = _cluster_log(tmp_path, 1, 1260000)
    before = _at_first_answer(log)
    first = min(f.line for f in before.findings)  # the call the adopted time explains
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    target = next(i for i in range(first, len(lines)) if '"groupId":"group-8"' in lines[i]
                  and '"errorCode":0' in lines[i] and '"memberEpoch":41' in lines[i].split('"response":')[1])
    head, response = lines[target].split('"response":')
    lines[target] = head + '"response":' + response.replace('"memberEpoch":41', '"memberEpoch":48', 1)
    mutant = tmp_path / "mutant.log"
    mutant.write_text("".join(lines), encoding="utf-8")
    status, report = _kgspec_check(str(mutant))
    assert status == 1
    assert {f["groupId"] for f in report["findings"]} == {"group-8"}
    assert (report["findings"][0]["line"], report["findings"][0]["field"],
            report["findings"][0]["expected"], report["findings"][0]["observed"]) == (target + 1, "memberEpoch", 41, 48)
    assert all(f["line"] >= target + 1 for f in report["findings"])
    # the move's window is reported, and the time of the candidate that departs latest
    move = next(m for m in _moves(report) if m["groupId"] == "group-8" and m["line"] == 7170)
    assert move["window"] == {"fromTsMs": BASE_MS + 1199762, "toTsMs": BASE_MS + 1200825}
    assert move["tsMs"] == BASE_MS + 1200038
    # --explain stops at its line: the held findings are decided from the lines read so far
    assert main(["check", "--explain", f"{mutant}:{first}"]) == 0
    assert main(["check", "--explain", f"{mutant}:{target + 1}"]) == 1


def test_the_candidates_are_the_instants_where_an_answer_can_change() -> None:
    """``lo``, ``hi``, an old timer's deadline, and each side of a re-armed timer firing at a call,
    latest first; nothing outside the window."""
    window = LoadWindow(1000, 2000)
    assert window.candidates((1500,), (45000,), [44000, 46200, 47000]) == [2000, 1500, 1201, 1200, 1000]
    assert window.candidates((), (), []) == [2000, 1000]
    many = window.candidates((), (1,), [float(c) for c in range(1000, 3000)])
    assert many == [2000 - i for i in range(MAX_CANDIDATES)]  # the latest, when there are more
