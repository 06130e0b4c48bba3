"""``kgspec check --html``: the page, rendered in a real browser (headless Chromium, Debian's
package, installed by scripts/install.sh), asserted on the DOM after its script ran; a
screenshot is kept as a test artefact (build/test-artifacts/timeline.png)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kgspec.cli import main
from kgspec.commands.html import render_page
from tests.report.test_findings_human import INCIDENT, MEMBER, ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = ROOT / "build" / "test-artifacts"
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/install.sh)")


def chromium(page: Path, profile: Path, *args: str) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--virtual-time-budget=5000", *args, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def incident_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("html") / "incident.html"
    assert main(["check", "-q", "--html", str(page), str(INCIDENT)]) == 1
    return page


def test_the_page_is_self_contained(incident_page: Path) -> None:
    text = incident_page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)  # nothing fetched from a network
    assert "default-src 'none'" in text  # and the browser is told so
    data = json.loads(re.search(r'id="kgspec-data">(.*?)</script>', text, re.S)[1])  # type: ignore[index]
    assert [g["groupId"] for g in data["drawn"]] == ["payments-app"]
    assert sorted(g["groupId"] for g in data["conforming"]) == ["audit-app", "orders-app"]
    first = data["drawn"][0]["first"]
    assert (first["line"], first["expected"], first["observed"]) == (18, "2", "3")


@needs_chromium
def test_timeline_in_a_browser_highlights_the_first_departure(incident_page: Path, tmp_path: Path) -> None:
    dom = chromium(incident_page, tmp_path / "profile", "--dump-dom")
    assert 'data-rendered="yes"' in dom  # the script ran to its end
    section = re.search(r'<section class="group diverging" id="group-0" data-group="payments-app">(.*?)</section>',
                        dom, re.S)
    assert section is not None
    body = section[1]
    assert '<h2>group payments-app</h2>' in body
    assert f"First departure: {INCIDENT.relative_to(ROOT)}:18" in body or f"First departure: {INCIDENT}:18" in body
    assert '<dd class="expected">2</dd>' in body
    assert '<dd class="observed">3</dd>' in body
    assert (f'<dd class="rule">member {MEMBER} is still revoking payments-4, payments-5, payments-6, payments-7, '
            "so its epoch must stay 2</dd>") in body
    row = re.search(r'<tr class="first call" data-index="(\d+)">(.*?)</tr>', body)
    assert row is not None
    assert re.findall(r"<td[^>]*>(.*?)</td>", row[2])[:5] == [
        "18", "2025-06-01T00:00:05.069+00:00", MEMBER, "ConsumerGroupHeartbeat", "first"]
    assert body.count('class="mark first"') == 1  # one highlighted mark on the lanes
    assert len(re.findall(r'<text x="\d+" y="\d+" class="lane-label">', body)) == 3  # one lane per member
    assert "UNREVOKED_PARTITIONS" in body
    assert 'class="revoking"' in body  # revocations drawn
    for conforming in ("orders-app", "audit-app"):  # listed, each openable
        assert f'<details data-group="{conforming}"><summary>{conforming}</summary>' in dom


@needs_chromium
def test_timeline_screenshot_is_kept(incident_page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "timeline.png"
    chromium(incident_page, tmp_path / "profile", "--window-size=1400,1300", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a drawn page, not a blank one
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, ARTIFACTS / "timeline.png")


@needs_chromium
def test_trace_strings_are_text_never_markup(tmp_path: Path) -> None:
    evil = '</script><img src=x onerror="document.title=1">'
    data = {"summary": {"inputs": [{"path": evil, "lines": 1, "events": 1, "malformed": 0, "skipped": 0}],
                        "groups": 1, "conform": 0, "diverge": 1, "incomplete": 0, "findings": 1},
            "drawn": [{"groupId": evil, "type": "consumer", "verdict": "diverges", "events": 1, "findings": 1,
                       "first": {"path": evil, "line": 1, "kind": "invariant", "field": None, "what": evil,
                                 "why": None, "text": [evil], "event": {"memberId": evil}},
                       "lanes": [evil], "marks": [{"ts": 0, "line": 1, "path": evil, "lane": evil, "kind": "call",
                                                   "label": evil, "outcome": "first"}], "cut": 0}],
            "conforming": [], "conformingCut": 0, "traceFindings": []}
    page = tmp_path / "evil.html"
    page.write_text(render_page(data), encoding="utf-8")
    assert page.read_text().count("</script>") == 2  # the page's own two; the data's is escaped
    dom = chromium(page, tmp_path / "profile", "--dump-dom")
    assert 'data-rendered="yes"' in dom
    drawn = re.sub(r"<script\b.*?</script>", "", dom, flags=re.S)  # the page as built, without its data
    assert "<img" not in drawn  # no element made of a trace's string
    assert drawn.count("&lt;/script&gt;&lt;img src=x onerror") >= 5  # shown as text: group, member, lane, ...
