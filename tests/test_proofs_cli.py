"""``kgspec prove``: exit codes, output and JSON shape."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("z3")

from kgspec.cli import main


def test_proved_exits_0_with_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["prove", "--protocol", "consumer", "--invariant", "target-validity", "--json", "-"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert report["all_proved"] is True
    assert report["mutant"] is None
    assert report["protocols"] == ["consumer"]
    [entry] = report["results"]
    assert (entry["protocol"], entry["invariant"], entry["result"]) == (
        "consumer", "target-validity", "proved")
    assert entry["counterexample"] is None
    assert entry["bmc"] is None
    assert set(entry) == {"protocol", "invariant", "result", "seconds", "failed_steps",
                          "depends_on", "bmc", "counterexample"}


def test_mutant_exits_1_with_counterexample(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    out = f"{tmp_path}/r.json"
    rc = main(["prove", "--protocol", "consumer", "--invariant", "target-validity",
               "--mutant", "assignor-double-assign", "--bmc-depth", "4", "--json", out])
    text = capsys.readouterr().out
    assert rc == 1
    assert "target-validity" in text
    assert "counterexample, 3 steps" in text
    with open(out, encoding="utf-8") as fh:
        entry = json.load(fh)["results"][0]
    assert entry["result"] == "failed"
    assert entry["failed_steps"] == ["recompute"]
    assert entry["bmc"]["result"] == "violated"
    steps = entry["counterexample"]["steps"]
    assert [s["action"] for s in steps] == ["join", "join", "recompute"]
    assert len(steps[2]["target"]) == 2


def test_streams_invariant_on_streams(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["prove", "--protocol", "streams", "--invariant", "target-validity"])
    assert rc == 0
    assert "streams   target-validity" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["prove", "--invariant", "no-such-invariant"],
    ["prove", "--mutant", "no-such-mutant"],
    ["prove", "--protocol", "consumer", "--invariant", "processid-exclusivity"],
])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "kgspec prove:" in err


def test_unknown_names_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--mutant", "nope"]) == 2
    assert "no-withholding" in capsys.readouterr().err
    assert main(["prove", "--invariant", "nope"]) == 2
    assert "epoch-monotonicity" in capsys.readouterr().err


def test_without_z3_exits_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "z3", None)
    assert main(["prove"]) == 2
    assert "kgspec prove needs the `smt` extra: pip install 'kgspec[smt]'" in capsys.readouterr().err
