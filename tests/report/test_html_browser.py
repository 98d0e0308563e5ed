"""The HTML report in a real headless Chromium: every verdict shown, the filter runs, no
page text ever runs as script, and a screenshot renders.

Skipped when chromium is not installed, except in CI (`CI` set), where a missing
browser is a failure: `.ci/run` installs Debian's `chromium`.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from claimcheck.models import Verdict
from claimcheck.report.formats import OutputFormat, render
from support.sample_reports import HOSTILE_FOUND, HOSTILE_QUOTE, RICH, hostile_report

# Slow: opens the HTML report in headless Chromium.
pytestmark = pytest.mark.slow

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--no-proxy-server",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no name resolves: the page stays offline
)


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = shutil.which("chromium")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    return binary


def browse(chromium: str, tmp_path: Path, *args: str) -> str:
    """Run headless Chromium once with its own profile and home; return its stdout."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    done = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(home)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dom(chromium: str, tmp_path: Path, page: str, fragment: str = "") -> BeautifulSoup:
    """The DOM after the page's script ran, as Chromium serialises it."""
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    return BeautifulSoup(
        browse(chromium, tmp_path, "--dump-dom", path.as_uri() + fragment), "html.parser"
    )


def articles(soup: BeautifulSoup) -> list[Tag]:
    return [a for a in soup.find_all("article") if isinstance(a, Tag)]


def visible(soup: BeautifulSoup) -> list[str]:
    return [str(a["id"]) for a in articles(soup) if not a.has_attr("hidden")]


def test_every_verdict_is_shown_and_the_filter_script_ran(chromium: str, tmp_path: Path) -> None:
    soup = dom(chromium, tmp_path, render(RICH, OutputFormat.HTML))
    body = soup.body
    assert body is not None
    assert body.get("data-filters") == "ready"
    assert {a["data-verdict"] for a in articles(soup)} == {v.value for v in Verdict}
    assert len(visible(soup)) == len(RICH.results)
    form = soup.find(id="filters")
    assert isinstance(form, Tag)
    assert not form.has_attr("hidden")
    verdicts = soup.find(id="filter-verdict")
    pages = soup.find(id="filter-page")
    assert isinstance(verdicts, Tag)
    assert isinstance(pages, Tag)
    options = [str(o.get("value")) for o in verdicts.find_all("option") if isinstance(o, Tag)]
    assert set(options) == {"", "attention", "acknowledged", *(v.value for v in Verdict)}
    assert [o.get("value") for o in pages.find_all("option") if isinstance(o, Tag)] == [
        "",
        "other",
        "page",
    ]
    shown = soup.find(id="shown")
    assert shown is not None
    assert shown.get_text() == "11 of 11 claims shown"
    drifted = soup.find(id="claim-claim-drifted")
    assert isinstance(drifted, Tag)
    assert [d.get_text() for d in drifted.find_all("del")] == ["1.5-bit, 2-bit"]
    assert [i.get_text() for i in drifted.find_all("ins")] == ["2-bit, 3-bit"]


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("#verdict=drifted", ["claim-claim-drifted"]),
        ("#page=other", ["claim-claim-cited"]),
        (
            "#verdict=attention&page=page",
            [f"claim-claim-{v.value}" for v in Verdict if v is not Verdict.VERIFIED],
        ),
        ("#verdict=no-such-verdict", None),
    ],
    ids=["verdict", "page", "attention-on-page", "unknown-shows-all"],
)
def test_the_filter_reads_the_address(
    chromium: str, tmp_path: Path, fragment: str, expected: list[str] | None
) -> None:
    soup = dom(chromium, tmp_path, render(RICH, OutputFormat.HTML), fragment)
    shown = visible(soup)
    if expected is None:
        assert len(shown) == len(RICH.results)
    else:
        assert sorted(shown) == sorted(expected)
    label = soup.find(id="shown")
    assert label is not None
    assert label.get_text() == f"{len(shown)} of {len(RICH.results)} claims shown"


def test_page_text_is_shown_as_text_and_never_runs(chromium: str, tmp_path: Path) -> None:
    soup = dom(chromium, tmp_path, hostile_report())
    body = soup.body
    assert body is not None
    assert not body.has_attr("data-pwned")
    assert body.get("data-filters") == "ready"  # the report's own script still ran
    assert soup.find("img") is None
    assert len(soup.find_all("script")) == 1
    hostile = articles(soup)[0]
    text = hostile.get_text()
    assert HOSTILE_QUOTE in text
    assert HOSTILE_FOUND in text
    assert "</article><script>alert(1)</script>" in text
    assert not any(
        str(a.get("href", "")).startswith("javascript:")
        for a in soup.find_all("a")
        if isinstance(a, Tag)
    )


def test_screenshot(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render(RICH, OutputFormat.HTML), encoding="utf-8")
    shot = tmp_path / "shot.png"
    browse(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 2000)
    assert len(data) > 50_000  # a blank page compresses to a few kilobytes
