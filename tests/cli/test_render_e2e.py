"""End to end: `claimcheck verify` on pages a script renders, with real headless Chromium.

The pages of `tests/data/rendered` are served on 127.0.0.1 (`support/render_site.py`);
the text each shows once rendered is written in its README and here, by hand. Eight
browser launches in all: the Docusaurus page once (its 304 and the offline run need
none), the two pages that set and read browser state, the challenge page, the page
that never finishes loading, and two runs over a site that answers headless browsers
with errors.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import shutil
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, cast

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.render import render as render_module
from support.claim_files import write_claims
from support.local_http import RecordingServer, running, send_answer
from support.render_site import (
    Forbidden,
    RenderSite,
    count_launches,
    render_folders,
    render_processes,
    render_site,
    require_browser,
)

# Slow: whole runs that render pages in headless Chromium.
pytestmark = pytest.mark.slow

runner = CliRunner()
ARTICLE_QUOTE = "Tidewater routes each request to the least loaded inference worker."
FOOTER_QUOTE = "Copyright © 2026 Tidewater contributors."
TODAY = dt.datetime.now(dt.UTC).date().isoformat()


@pytest.fixture
def site() -> Iterator[tuple[RenderSite, Forbidden]]:
    with render_site() as served:
        yield served


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site: tuple[RenderSite, Forbidden]
) -> Path:
    """A project whose sources are the site's pages; the site's port is the one internal
    address it may reach (the forbidden listener's is not opened)."""
    pages, _ = site
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", pages.origin)
    monkeypatch.setenv("GITHUB_API_URL", pages.base_url)
    monkeypatch.setenv("WAYBACK_URL", pages.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    write_config(tmp_path)
    return tmp_path


def write_config(project: Path, fetch: str = "") -> None:
    (project / "claimcheck.toml").write_text(
        f"[fetch]\nper_host_interval = 0\n{fetch}\n[verdict]\nmax_age_days = 0\n",
        encoding="utf-8",
    )


def verify(*args: str) -> tuple[Result, dict[str, dict[str, Any]]]:
    result = runner.invoke(app, ["verify", "--format", "json", *args], catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    return result, {r["id"]: r for r in json.loads(result.stdout)["results"]}


def claim(claim_id: str, source: str, quote: str, **extra: str) -> dict[str, str]:
    return {
        "id": claim_id,
        "claim": f"the page says {quote}",
        "source": source,
        "quote": quote,
        **extra,
    }


def stored_versions(project: Path) -> list[dict[str, Any]]:
    """Every stored version of every source, from the snapshot indexes."""
    versions: list[dict[str, Any]] = []
    for index in sorted((project / "snapshots").rglob("index.json")):
        versions.extend(json.loads(index.read_text(encoding="utf-8"))["versions"])
    return versions


def test_a_script_rendered_quote_is_missing_plain_and_verified_rendered(
    project: Path, site: tuple[RenderSite, Forbidden], monkeypatch: pytest.MonkeyPatch
) -> None:
    require_browser()
    pages, _ = site
    url = pages.url("docusaurus-client.html")
    write_config(project, 'render = { "127.0.0.1" = "browser" }\n')

    # The host is set to render, but the claim file's `render: plain` wins.
    write_claims(
        project / "claims",
        [
            claim("article", url, ARTICLE_QUOTE, render="plain"),
            claim("footer", url, FOOTER_QUOTE, scope="footer"),
        ],
        checked=TODAY,
    )
    plain, results = verify()
    assert plain.exit_code == 1
    assert results["article"]["verdict"] == "missing"
    assert results["footer"]["verdict"] == "verified"
    assert pages.browser_requests("/docusaurus-client.html") == []

    # Without it, the host's entry renders the page: the article is there.
    write_claims(
        project / "claims",
        [claim("article", url, ARTICLE_QUOTE), claim("footer", url, FOOTER_QUOTE, scope="footer")],
        checked=TODAY,
    )
    rendered, results = verify()
    assert rendered.exit_code == 0, rendered.output
    assert results["article"]["verdict"] == "verified"
    assert results["footer"]["verdict"] == "verified"
    assert len(pages.browser_requests("/docusaurus-client.html")) == 1
    latest = stored_versions(project)[-1]
    assert latest["origin"] == "render"
    assert latest["media"] == "html"
    body = next((project / "snapshots").rglob(latest["file"])).read_text(encoding="utf-8")
    assert 'data-rendered="yes"' in body  # the DOM after the script ran, as stored

    # Unchanged (304 to the stored ETag): the stored rendered body stays, no browser.
    again, results = verify()
    assert again.exit_code == 0, again.output
    assert results["article"]["verdict"] == "verified"
    assert len(pages.browser_requests("/docusaurus-client.html")) == 1
    assert pages.seen[-1].path == "/docusaurus-client.html"  # a conditional request...
    assert len(stored_versions(project)) == 2  # ...that stored nothing new

    # Offline, with no browser to be found: the stored DOM is judged as it is.
    monkeypatch.setenv("PATH", str(project / "no-browser-here"))
    offline, results = verify("--offline")
    assert offline.exit_code == 0, offline.output
    assert results["article"]["verdict"] == "verified"


def test_pages_to_render_are_rendered_side_by_side_as_jobs_allows(
    project: Path, site: tuple[RenderSite, Forbidden], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three sources to render, `--jobs 4`: two browsers at a time, the same verdicts as
    one at a time (`--jobs 0`), where one browser, kept, renders all three."""
    require_browser()
    pages, _ = site
    spans: list[tuple[float, float]] = []
    real = render_module.render_page
    launches = count_launches(monkeypatch)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        try:
            return real(*args, **kwargs)
        finally:
            spans.append((started, time.monotonic()))

    monkeypatch.setattr(render_module, "render_page", timed)
    url = pages.url("docusaurus-client.html")
    write_claims(
        project / "claims",
        [claim(f"article-{n}", f"{url}?copy={n}", ARTICLE_QUOTE, render="browser") for n in "123"],
        checked=TODAY,
    )

    def overlaps() -> int:
        return sum(1 for a, b in itertools.combinations(spans, 2) if a[0] < b[1] and b[0] < a[1])

    side_by_side, together = verify("--jobs", "4")
    assert side_by_side.exit_code == 0, side_by_side.output
    assert len(spans) == 3
    assert overlaps() >= 1
    assert len(launches) == 2
    shutil.rmtree(project / "snapshots")
    spans.clear()
    launches.clear()
    one_by_one, alone = verify("--jobs", "0")
    assert one_by_one.exit_code == 0, one_by_one.output
    assert len(spans) == 3
    assert overlaps() == 0
    assert len(launches) == 1
    assert (
        {k: r["verdict"] for k, r in together.items()}
        == {k: r["verdict"] for k, r in alone.items()}
        == {f"article-{n}": "verified" for n in "123"}
    )
    assert render_processes() == []
    assert render_folders() == []


def test_cookies_and_storage_are_not_kept_between_sources(
    project: Path, site: tuple[RenderSite, Forbidden]
) -> None:
    require_browser()
    pages, _ = site
    write_claims(
        project / "claims",
        [
            claim(
                "set",
                pages.url("set-state.html"),
                "State set: cookie yes, storage from-set-state.",
                render="browser",
            ),
            claim(
                "read",
                pages.url("read-state.html"),
                "State seen: cookies [], storage [], session [].",
                render="browser",
            ),
        ],
        checked=TODAY,
    )

    # One browser, kept from the first page to the second: each has a context of its own.
    result, results = verify("--jobs", "0")

    assert result.exit_code == 0, result.output
    assert results["set"]["verdict"] == "verified"  # the first page did set its state
    assert results["read"]["verdict"] == "verified"  # and the second saw none of it
    assert [s.cookie for s in pages.browser_requests("/read-state.html")] == [None]
    loaded = [s.path for s in pages.seen if "Chrome" in s.agent and s.path.endswith("-state.html")]
    assert loaded == ["/set-state.html", "/read-state.html"]


def test_a_rendered_challenge_is_not_judged(
    project: Path, site: tuple[RenderSite, Forbidden]
) -> None:
    require_browser()
    pages, _ = site
    quote = "Tidewater serves models behind one router."
    write_claims(
        project / "claims",
        [claim("guide", pages.url("challenge.html"), quote, render="browser")],
        checked=TODAY,
    )

    result, results = verify()

    assert result.exit_code == 3  # could not check; nothing stale
    assert results["guide"]["verdict"] == "unreachable"
    assert "the answer looks like a bot challenge, not the page" in results["guide"]["reason"]
    assert stored_versions(project) == []  # neither the challenge nor the plain HTML


def test_a_page_that_never_finishes_loading_is_a_failed_fetch(
    project: Path, site: tuple[RenderSite, Forbidden]
) -> None:
    require_browser()
    pages, _ = site
    write_config(project, "timeout = 3\n")
    write_claims(
        project / "claims",
        [
            claim(
                "never",
                pages.url("never.html"),
                "A page that never finishes loading",
                render="browser",
            )
        ],
        checked=TODAY,
    )

    result, results = verify()

    assert result.exit_code == 3
    assert results["never"]["verdict"] == "unreachable"
    assert "the browser did not finish loading the page in 3 s" in results["never"]["reason"]
    assert pages.browser_requests("/stall.png")  # the browser was there, and was stopped
    assert render_processes() == []
    assert render_folders() == []
    assert stored_versions(project) == []


def test_a_missing_browser_says_what_to_install(
    project: Path, site: tuple[RenderSite, Forbidden], monkeypatch: pytest.MonkeyPatch
) -> None:
    pages, _ = site
    write_claims(
        project / "claims",
        [claim("article", pages.url("docusaurus-client.html"), ARTICLE_QUOTE, render="browser")],
        checked=TODAY,
    )
    monkeypatch.setenv("PATH", str(project / "no-browser-here"))

    result, results = verify()

    assert result.exit_code == 3
    assert results["article"]["verdict"] == "unreachable"
    reason = results["article"]["reason"]
    assert "no headless Chromium to render the page with" in reason
    assert "apt-get install chromium" in reason


def test_render_is_checked_like_every_other_key(project: Path) -> None:
    write_config(project, 'render = { "docs.example.org" = "chrome" }\n')
    write_claims(project / "claims", [claim("a", "https://docs.example.org/", "q")])

    bad_config = runner.invoke(app, ["verify"], catch_exceptions=False)

    assert bad_config.exit_code == 2
    assert "claimcheck.toml:3: fetch.render.docs.example.org:" in bad_config.stderr
    write_config(project)
    write_claims(
        project / "claims", [claim("a", "https://docs.example.org/", "q", render="chrome")]
    )

    bad_claim = runner.invoke(app, ["verify"], catch_exceptions=False)

    assert bad_claim.exit_code == 2
    assert "claims/page.yaml:9: claim 'a': render:" in bad_claim.stderr


GOOD_PAGE = (
    "<!doctype html><html><head><title>Tidewater routing</title></head><body><main>"
    "<h1>Routing</h1><p>{quote}</p><p>Workers report their queue length each second."
    "</p></main></body></html>"
)
FILLER = " ".join(["The service is being restored; thank you for your patience."] * 60)
HEADLESS_ANSWERS = {
    "/not-found": (
        404,
        {},
        "<html><body><p>Nothing is published under this name.</p></body></html>",
    ),
    "/too-many": (429, {}, "<html><body><p>Slow down and come back later.</p></body></html>"),
    "/unavailable": (503, {}, "<html><body><p>Back in a moment.</p></body></html>"),
    "/long-unavailable": (503, {}, f"<html><body><main><p>{FILLER}</p></main></body></html>"),
    "/to-metadata": (302, {"Location": "http://169.254.169.254/latest/meta-data/"}, ""),
}
"""What the site answers a headless browser, by path, once `hostile` is set: the plain
fetch still gets the good page, with a 200."""


class HeadlessHostile(RecordingServer):
    """Serves `GOOD_PAGE` to everyone until `hostile` is set; then a headless browser
    (its User-Agent says Chrome) gets `HEADLESS_ANSWERS` instead. No validators, so
    that the plain fetch gets a full 200 each run and the page is rendered each run."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _HostileHandler, [])
        self.hostile = False
        self.browser_paths: list[str] = []


class _HostileHandler(BaseHTTPRequestHandler):
    server: HeadlessHostile

    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:
        site = self.server
        headless = "Chrome" in self.headers.get("User-Agent", "")
        if headless:
            site.browser_paths.append(self.path)
        if headless and site.hostile and self.path in HEADLESS_ANSWERS:
            status, extra, body = HEADLESS_ANSWERS[self.path]
            send_answer(
                self, status, {"Content-Type": "text/html; charset=utf-8", **extra}, body.encode()
            )
            return
        page = GOOD_PAGE.format(quote=ARTICLE_QUOTE).encode()
        send_answer(self, 200, {"Content-Type": "text/html; charset=utf-8"}, page)


def test_a_page_that_fails_only_in_the_browser_is_unreachable_and_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site answers the plain fetch with the page and the headless browser with a
    404, 429, 503, a long 503 page, or a redirect the proxy refuses: each claim is
    `unreachable` (never stale), nothing new is stored, and the verified rendered
    snapshot stays the latest. Two runs, one browser launch each."""
    require_browser()
    with running(HeadlessHostile()) as served:
        site = cast(HeadlessHostile, served)
        base = f"http://127.0.0.1:{site.server_address[1]}"
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", f"127.0.0.1:{site.server_address[1]}")
        monkeypatch.setenv("NO_COLOR", "1")
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        write_config(tmp_path, 'render = { "127.0.0.1" = "browser" }\n')
        write_claims(
            tmp_path / "claims",
            [claim(path.strip("/"), base + path, ARTICLE_QUOTE) for path in HEADLESS_ANSWERS],
            checked=TODAY,
        )
        first, results = verify()
        assert first.exit_code == 0, first.output
        assert {r["verdict"] for r in results.values()} == {"verified"}
        kept = stored_versions(tmp_path)
        assert len(kept) == len(HEADLESS_ANSWERS)
        assert {version["origin"] for version in kept} == {"render"}

        site.hostile = True
        site.browser_paths.clear()
        second, results = verify()
        assert set(HEADLESS_ANSWERS) <= set(site.browser_paths)  # each was rendered
        assert second.exit_code == 3, second.output
        assert {name: r["verdict"] for name, r in results.items()} == {
            path.strip("/"): "unreachable" for path in HEADLESS_ANSWERS
        }
        assert stored_versions(tmp_path) == kept
    reasons = {name: r.get("reason", "") for name, r in results.items()}
    assert "HTTP 404" in reasons["not-found"]
    assert "HTTP 503" in reasons["long-unavailable"]
    assert "169.254.169.254" in reasons["to-metadata"]
