"""Request logs of several brokers: coordinator moves inferred and replayed as failovers.

A simulated run with failovers (``kgspec simulate --failover-every``) conforms as a native
trace, whose ``tick.coordinatorFailover`` says where the coordinator moved. Written as broker
request logs (each group's calls from its coordinator's address, moving at each failover), it
conforms too: the move is inferred from the ``connection`` field (``conformance/moves.py``),
in one concatenated log or in one file per broker checked with ``--merge``. Without broker
addresses, ``--failover GROUP@TS`` supplies the moves.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from kgspec.conformance.connection import broker_of
from kgspec.conformance.events import Event, ReadItem, Skipped
from kgspec.conformance.writers import write_request_log

from kgspec.cli import main
from kgspec.commands.check import merge_by_time
from tests.helpers import split_by_broker

BROKERS = ("10.0.0.1:9092", "10.0.0.2:9092", "10.0.0.3:9092")
BASE_MS = 1748736000000  # the writer's default start, 2025-06-01 UTC, in epoch milliseconds


def _kgspec_check(*args: str) -> tuple[int, dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        status = main(["check", "-q", "--json", str(report), *args])
        return status, json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The 150-group run with a failover every 30 s, native and as request logs."""
    tmp = tmp_path_factory.mktemp("multibroker")
    native = tmp / "run.jsonl"
    assert main(["simulate", "--groups", "150", "--failover-every", "30000", "--seed", "1",
                 "-o", str(native)]) == 0
    events = [json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()]
    failovers = [e["tsMs"] for e in events if (e.get("tick") or {}).get("coordinatorFailover")]
    one = tmp / "one-broker.log"
    with one.open("w", encoding="utf-8") as out:
        write_request_log(events, out)
    multi = tmp / "cluster.log"
    with multi.open("w", encoding="utf-8") as out:
        write_request_log(events, out, brokers=BROKERS)
    split = split_by_broker(multi, BROKERS, tmp)
    return {"native": native, "events": events, "failovers": failovers, "one": one, "multi": multi,
            "split": split, "tmp": tmp}


def _moves(report: dict[str, Any], kind: str = "coordinator-move") -> list[dict[str, Any]]:
    return [n for n in report.get("inferred", []) if n["kind"] == kind]


def test_the_native_trace_conforms_and_infers_nothing(run: dict[str, Any]) -> None:
    status, report = _kgspec_check(str(run["native"]))
    assert (status, report["findings"]) == (0, [])
    assert "inferred" not in report
    assert len(run["failovers"]) == 4


def test_one_brokers_log_shows_no_move_and_diverges(run: dict[str, Any]) -> None:
    """Without any sign of the move (one broker address, no errors), nothing can be inferred:
    the model keeps its timers across the failovers and departs (docs/checking.md)."""
    status, report = _kgspec_check(str(run["one"]))
    assert status == 1
    assert "inferred" not in report


def test_a_cluster_log_conforms_with_each_move_reported(run: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    status, report = _kgspec_check(str(run["multi"]))
    assert (status, report["findings"]) == (0, [])
    assert {g["verdict"] for g in report["groups"]} == {"conforms"}
    moves = _moves(report)
    assert moves == report["inferred"]
    # three failovers have calls after them (the fourth is at the end of the run): 150 groups each
    assert len(moves) == 450
    assert len({m["groupId"] for m in moves}) == 150
    lines = run["multi"].read_text(encoding="utf-8").splitlines()
    first = moves[0]
    call = json.loads(lines[first["line"] - 1].split("Completed request:", 1)[1].rsplit(" (", 1)[0])
    assert call["request"]["groupId"] == first["groupId"]
    assert broker_of(call["connection"]) == first["to"] != first["from"]
    assert first["path"] == str(run["multi"])
    assert run["failovers"][0] + BASE_MS <= first["tsMs"] < run["failovers"][1] + BASE_MS
    assert "replayed as a failover" in first["message"]
    # the human output says so, on a line of its own before the summary
    capsys.readouterr()
    assert main(["check", str(run["multi"])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("450 coordinator move(s) inferred or supplied in 150 group(s)")
    assert out[-1].endswith("150 conform, 0 diverge, 0 incomplete; 0 finding(s)")


def test_one_file_per_broker_conforms_merged(run: dict[str, Any]) -> None:
    split = [str(p) for p in run["split"]]
    status, report = _kgspec_check(*split)  # each file on its own: every group lacks calls
    assert status == 1
    status, report = _kgspec_check("--merge", *split)
    assert (status, report["findings"]) == (0, [])
    assert len(report["groups"]) == 150
    # every file is accounted for on its own, and together they are the whole log
    assert [i["path"] for i in report["inputs"]] == split
    whole = len(run["multi"].read_text(encoding="utf-8").splitlines())
    assert sum(i["lines"] for i in report["inputs"]) == whole
    for entry in report["inputs"]:
        assert entry["lines"] == len(Path(entry["path"]).read_text(encoding="utf-8").splitlines())
    moves = _moves(report)
    assert len(moves) == 450
    seen = [m for m in moves if m["to"] is not None]  # the first group seen on a new broker at each move
    assert len(seen) == 3 * 3  # three moves, three brokers left; their other groups move with them
    for move in moves[:40]:  # each names the file and line of the call on the new broker
        text = Path(move["path"]).read_text(encoding="utf-8").splitlines()[move["line"] - 1]
        if move["to"] is not None:
            assert move["path"] == split[BROKERS.index(move["to"])]
            assert f'"groupId":"{move["groupId"]}"' in text
        else:
            assert "moved with broker" in move["message"]


def test_merged_findings_name_each_file_and_line(run: dict[str, Any], tmp_path: Path) -> None:
    """A departure in the second broker's file is reported on its own line of that file."""
    split = [p.read_text(encoding="utf-8").splitlines(keepends=True) for p in run["split"]]
    target = next(i for i, line in enumerate(split[1]) if '"memberEpoch":' in line and '"errorCode":0' in line
                  and "CONSUMER_GROUP_HEARTBEAT" in line and i > 100)
    line = split[1][target]
    at = line.index('"response":')
    epoch_at = line.index('"memberEpoch":', at) + len('"memberEpoch":')
    end = line.index(",", epoch_at)
    split[1][target] = line[:epoch_at] + str(int(line[epoch_at:end]) + 7) + line[end:]
    paths = []
    for i, lines in enumerate(split):
        path = tmp_path / f"b{i}.log"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(str(path))
    status, report = _kgspec_check("--merge", *paths)
    assert status == 1
    first = report["findings"][0]
    assert (first["path"], first["line"], first["field"]) == (paths[1], target + 1, "memberEpoch")


def test_without_broker_addresses_the_user_supplies_the_failovers(run: dict[str, Any], tmp_path: Path) -> None:
    bare = tmp_path / "no-connection.log"
    bare.write_text("".join(_without_connection(line) for line in
                            run["multi"].read_text(encoding="utf-8").splitlines(keepends=True)), encoding="utf-8")
    status, report = _kgspec_check(str(bare))
    assert status == 1
    assert "inferred" not in report
    options = [f"--failover=*@{BASE_MS + ts}" for ts in run["failovers"]]
    status, report = _kgspec_check(str(bare), *options)
    assert (status, report["findings"]) == (0, [])
    supplied = _moves(report, "failover-option")
    assert len(supplied) == 150 * 3  # the last failover has no event after it: nothing to replay
    # the same as date-times, read in the zone the log is read in (its stamps are that wall clock)
    times = [f"--failover=*@2025-06-01T{ts // 3600000:02d}:{ts // 60000 % 60:02d}:{ts // 1000 % 60:02d}"
             for ts in run["failovers"]]
    status, report = _kgspec_check(str(bare), "--tz", "+02:00", *times)
    assert (status, report["findings"]) == (0, [])
    assert [(m["line"], m["groupId"]) for m in _moves(report, "failover-option")] == \
        [(m["line"], m["groupId"]) for m in supplied]
    # one group's failovers, named one by one, fix that group alone
    group = "group-7"
    status, report = _kgspec_check(str(bare), *(f"--failover={group}@{BASE_MS + ts}" for ts in run["failovers"]))
    assert status == 1
    assert group not in {f["groupId"] for f in report["findings"]}
    assert {g["groupId"]: g["verdict"] for g in report["groups"]}[group] == "conforms"


@pytest.mark.parametrize("value", ["g", "@5", "g@", "g@x", "g@inf", "g@nan", "g@2025-13-01T00:00"])
def test_a_bad_failover_option_is_a_usage_error(value: str, run: dict[str, Any],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-q", str(run["native"]), f"--failover={value}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--failover needs GROUP@TS" in err


# --- NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS answers ----------------------------------

def _without_connection(line: str) -> str:
    start = line.find(',"connection":"')
    if start < 0:
        return line
    end = line.index('"', start + len(',"connection":"'))
    return line[:start] + line[end + 1:]


def _body(line: str) -> tuple[str, dict[str, Any], str]:
    head, rest = line.split("Completed request:", 1)
    text, tail = rest.rsplit(" (", 1)
    return head + "Completed request:", json.loads(text), " (" + tail


def _answered(line: str, error: int, broker: str | None) -> str:
    """The same call answered ``error`` by ``broker`` (None: no connection field)."""
    head, body, tail = _body(line)
    body["response"] = {"throttleTimeMs": 0, "errorCode": error, "errorMessage": None, "memberId": None,
                        "memberEpoch": 0, "heartbeatIntervalMs": 0, "assignment": None}
    if broker is None:
        body.pop("connection", None)
    else:
        body["connection"] = f"{broker}-{body['connection'].split('-', 1)[1]}"
    return head + json.dumps(body, separators=(",", ":")) + tail


def _first_moves(lines: list[str]) -> dict[int, str]:
    """Line index -> the group's previous broker, for each group's first call after a move."""
    last: dict[str, str] = {}
    moved: dict[int, str] = {}
    for i, line in enumerate(lines):
        _, body, _ = _body(line)
        gid = body["request"].get("groupId")
        broker = broker_of(body.get("connection"))
        if gid is None or broker is None:
            continue
        if gid in last and last[gid] != broker:
            moved[i] = last[gid]
        last[gid] = broker
    return moved


def _small_run(tmp_path: Path) -> list[str]:
    native = tmp_path / "small.jsonl"
    assert main(["simulate", "--groups", "3", "--failover-every", "30000", "--seed", "2", "-o", str(native)]) == 0
    events = [json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()]
    log = tmp_path / "small.log"
    with log.open("w", encoding="utf-8") as out:
        write_request_log(events, out, brokers=BROKERS)
    return log.read_text(encoding="utf-8").splitlines(keepends=True)


def _write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def test_not_coordinator_from_the_old_broker_is_explained_by_the_move(tmp_path: Path) -> None:
    lines = _small_run(tmp_path)
    moved = _first_moves(lines)
    assert moved
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in moved:  # the client first tried the old coordinator, then the new one was loading
            _, body, _ = _body(line)
            out.append(_answered(line, 16, moved[i]))
            out.append(_answered(line, 14, broker_of(body["connection"])))
        out.append(line)
    status, report = _kgspec_check(_write(tmp_path, "errors.log", out))
    assert (status, report["findings"]) == (0, [])
    assert len(_moves(report)) == len(moved)
    explained = sorted(line for n in report["inferred"] for line in n.get("explains", []))
    assert len(explained) == 2 * len(moved)


def test_not_coordinator_from_another_broker_is_not_judged(tmp_path: Path) -> None:
    lines = _small_run(tmp_path)
    out: list[str] = []
    strays = 0
    for i, line in enumerate(lines):
        _, body, _ = _body(line)
        if i % 40 == 39 and body["request"].get("groupId") and broker_of(body.get("connection")):
            other = BROKERS[(BROKERS.index(broker_of(body["connection"]) or "") + 1) % len(BROKERS)]
            out.append(_answered(line, 16, other))
            strays += 1
        out.append(line)
    status, report = _kgspec_check(_write(tmp_path, "strays.log", out))
    assert (status, report["findings"]) == (0, [])
    assert strays > 0
    assert len(_moves(report, "not-coordinator")) == strays


def test_without_addresses_a_load_in_progress_shows_the_move(tmp_path: Path) -> None:
    lines = _small_run(tmp_path)
    moved = _first_moves(lines)
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in moved:
            out.append(_answered(line, 14, None))
        out.append(_without_connection(line))
    status, report = _kgspec_check(_write(tmp_path, "loading.log", out))
    assert (status, report["findings"]) == (0, [])
    assert len(_moves(report)) == len(moved)


def test_without_addresses_a_not_coordinator_answer_is_judged(tmp_path: Path) -> None:
    """Nothing says the coordinator moved: the answer is judged as any call (the model would have
    answered), and the move stays unknown until the user supplies it."""
    lines = _small_run(tmp_path)
    moved = _first_moves(lines)
    first = min(moved)
    out = [_without_connection(line) for line in lines]
    out.insert(first, _answered(lines[first], 16, None))
    status, report = _kgspec_check(_write(tmp_path, "judged.log", out))
    assert status == 1
    finding = report["findings"][0]
    assert (finding["line"], finding["kind"], finding["field"], finding["observed"]) == \
        (first + 1, "response-mismatch", "errorCode", 16)


def test_the_merge_keeps_each_inputs_order_and_breaks_ties_by_input() -> None:
    def call(line: int, ts: float) -> Event:
        return Event(line, "call", ts, {})

    a: list[ReadItem] = [call(1, 5), Skipped(2, "x"), call(3, 5), call(4, 9)]
    b: list[ReadItem] = [call(1, 5), call(2, 7), Skipped(3, "y"), call(4, 9)]
    merged = [(index, item.line) for index, item in merge_by_time([iter(a), iter(b)])]
    assert merged == [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (0, 4), (1, 4)]
    # equal arrivals: by completion, then a call before a topic change, then the inputs' order
    slow = Event(1, "call", 5, {}, total_time_ms=2)
    topic = Event(1, "topic", 5, {"name": "t", "topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitions": 1})
    quick = Event(1, "call", 5, {}, total_time_ms=0)
    merged = [index for index, _ in merge_by_time([iter([slow]), iter([topic]), iter([quick])])]
    assert merged == [2, 1, 0]


def test_a_first_call_to_the_wrong_broker_is_not_judged(tmp_path: Path) -> None:
    """A client that first asks a broker that does not coordinate the group (stale metadata at
    start) and then the coordinator: the NOT_COORDINATOR answer is not the coordinator's."""
    lines = _small_run(tmp_path)
    firsts: dict[str, int] = {}
    for i, line in enumerate(lines):
        gid = _body(line)[1]["request"].get("groupId")
        if gid is not None:
            firsts.setdefault(gid, i)
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in firsts.values():
            broker = broker_of(_body(line)[1]["connection"]) or ""
            out.append(_answered(line, 16, BROKERS[(BROKERS.index(broker) + 1) % len(BROKERS)]))
        out.append(line)
    status, report = _kgspec_check(_write(tmp_path, "stale.log", out))
    assert (status, report["findings"]) == (0, [])
    assert len(_moves(report, "not-coordinator")) == len(firsts) == 3


def test_the_move_time_the_user_knows_takes_precedence(tmp_path: Path) -> None:
    """An inferred move's load time is adopted from the answers (tests/test_check_move_load_time.py);
    the times from the brokers' own logs, given with --failover, are taken as they are: the moves
    are then not inferred again."""
    native = tmp_path / "half-hour.jsonl"
    assert main(["simulate", "--groups", "10", "--duration-ms", "1800000", "--failover-every", "600000",
                 "--loss", "0.01", "--seed", "1", "-o", str(native)]) == 0
    events = [json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()]
    log = tmp_path / "cluster.log"
    with log.open("w", encoding="utf-8") as out:
        write_request_log(events, out, brokers=BROKERS)
    failovers = [e["tsMs"] for e in events if (e.get("tick") or {}).get("coordinatorFailover")]
    status, report = _kgspec_check(str(log), *(f"--failover=*@{BASE_MS + ts}" for ts in failovers))
    assert (status, report["findings"]) == (0, [])
    assert {n["kind"] for n in report["inferred"]} == {"failover-option"}
    assert {n["tsMs"] - BASE_MS for n in report["inferred"]} == {600000, 1200000}  # the last has no event after it
