"""``kgspec diagram`` through kgspec.cli.main."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kgspec.spec import MACHINES
from kgspec.spec.diagrams import to_dot, to_mermaid

from kgspec.cli import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "--list"]) == 0
    names = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert names == list(MACHINES)


def test_mermaid_to_stdout_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "consumer-group"]) == 0
    assert capsys.readouterr().out == to_mermaid(MACHINES["consumer-group"])


def test_dot_to_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.dot"
    assert main(["diagram", "streams-topology", "--format", "dot", "--output", str(out)]) == 0
    assert out.read_text() == to_dot(MACHINES["streams-topology"])
    assert capsys.readouterr().out == ""


def test_unknown_machine_lists_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "no-such-machine"]) == 2
    err = capsys.readouterr().err
    assert "unknown machine 'no-such-machine'" in err
    for name in MACHINES:
        assert name in err


def test_missing_machine_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram"]) == 2
    assert "known machines" in capsys.readouterr().err


def test_bad_format_is_rejected_by_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["diagram", "classic-group", "--format", "png"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_render_needs_dot_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "classic-group", "--render", "svg"]) == 2
    assert "--format dot" in capsys.readouterr().err


def test_render_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.svg"
    status = main(["diagram", "classic-group", "--format", "dot", "--render", "svg", "-o", str(out)])
    if shutil.which("dot") is None:
        assert status == 2
        assert "dot" in capsys.readouterr().err
    else:
        assert status == 0
        assert b"<svg" in out.read_bytes()


def test_every_option_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diagram", "--help"])
    text = capsys.readouterr().out
    for flag in ("--list", "--format", "--render", "--output", "MACHINE"):
        assert flag in text
