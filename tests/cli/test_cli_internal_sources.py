"""Nothing internal leaves the machine: the URL of a source on an internal address, or
whose address was refused, never reaches the Wayback Machine; `[history] wayback =
false` keeps every URL from it; the summary counts history look-ups apart.

The real CLI against a page server on 127.0.0.1 and a fake Wayback Machine on another
port of 127.0.0.1 (the operator's `WAYBACK_URL`: trusted as a server, which says nothing
of the sources). The fake answers a capture for any page, so a look-up that happened
would show both in its recorded requests and in the stored baseline. Host names resolve
as each test sets (`support.public_names`); nothing connects off this machine.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.store.store import Store
from support.claim_files import FEB_15, LLAMA, QUOTE_FEB, claim, write_claims
from support.public_names import PUBLIC_ADDRESS, resolve_names, resolve_publicly
from support.replay_server import ReplayServer
from support.stored_page import store_page

runner = CliRunner()
QUOTE = "The server speaks the OpenAI chat completions protocol"
PAGE = f"<html><body><main><h1>Serving</h1><p>{QUOTE}.</p></main></body></html>"
CHECKED = "2024-03-01"  # no stored version is that old: history is wanted
STAMP = "20240215120000"  # the fake archive's capture, before CHECKED
PUBLIC_SOURCE = "https://docs.example.org/serving"


@pytest.fixture
def web() -> Iterator[ReplayServer]:
    """The sources' server: one page, on 127.0.0.1."""
    with ReplayServer(None) as server:
        server.set_page("/docs/serving", PAGE)
        yield server


@pytest.fixture
def archive() -> Iterator[ReplayServer]:
    """The fake Wayback Machine: a capture of whatever page it is asked about."""
    with ReplayServer(None) as server:
        yield server


def offer_capture(archive: ReplayServer, source: str, html: str = PAGE) -> str:
    """Make the archive answer a capture of `source` (taken before CHECKED); its URL."""
    url = archive.url(f"/web/{STAMP}/{source}")
    answer = {
        "archived_snapshots": {"closest": {"available": True, "url": url, "timestamp": STAMP}}
    }
    archive.set_page("/wayback/available", json.dumps(answer), content_type="application/json")
    archive.set_page(f"/web/{STAMP}id_/{source}", html)
    return url


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, archive: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WAYBACK_URL", archive.base_url)
    monkeypatch.setenv("GITHUB_API_URL", archive.base_url)  # no request leaves the machine
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    write_config(tmp_path)
    return tmp_path


def write_config(project: Path, extra: str = "") -> None:
    (project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\nretries = 0\n[verdict]\nmax_age_days = 0\n" + extra
    )


def write_claim(project: Path, source: str, checked: str = CHECKED) -> None:
    write_claims(project / "claims", [claim("serves", quote=QUOTE, source=source)], checked=checked)


def verify(*options: str) -> tuple[dict[str, Any], str]:
    """`verify --format json`: its one result, and its stderr."""
    result = runner.invoke(app, ["verify", "--format", "json", "--no-progress", *options])
    assert result.exit_code in (0, 3), result.output
    (row,) = json.loads(result.stdout)["results"]
    return row, result.stderr


def cite() -> tuple[int, dict[str, Any]]:
    result = runner.invoke(app, ["cite", "serves", "--style", "json"])
    return result.exit_code, json.loads(result.stdout)


def stored_origins(project: Path, source: str) -> list[str | None]:
    store = Store(project / "snapshots")
    return [s.origin for s in store.versions(resolve_source(source).key)]


# --- an internal source: fetched when allowed, never named to the archive ------------


INTERNAL_FORMS = {
    "loopback-address": "http://127.0.0.1:{port}/docs/serving",
    "loopback-name": "http://localhost:{port}/docs/serving",
    "name-resolving-to-loopback": "http://wiki.corp.example:{port}/docs/serving",
}


@pytest.mark.parametrize("form", list(INTERNAL_FORMS))
def test_an_allowed_internal_source_is_fetched_but_never_sent_to_the_wayback_machine(
    project: Path,
    web: ReplayServer,
    archive: ReplayServer,
    monkeypatch: pytest.MonkeyPatch,
    form: str,
) -> None:
    resolve_names(monkeypatch, {"wiki.corp.example": "127.0.0.1"})
    source = INTERNAL_FORMS[form].format(port=web.port)
    offer_capture(archive, source)
    write_claim(project, source)

    row, stderr = verify("--cite")  # history for the check date, and a citation, wanted
    backfilled = runner.invoke(app, ["backfill"])
    cited, found = cite()

    assert row["verdict"] == "verified", row["reason"]  # the page itself was fetched
    assert web.requests_to("/docs/serving") != []
    assert archive.requests == []  # the archive never heard of the page
    assert row["baseline"] is None
    assert stored_origins(project, source) == ["fetch"]  # the fetched version only
    assert "1 source, 1 request, 0 history look-ups" in stderr
    assert backfilled.exit_code == 3, backfilled.output  # no baseline: none could be asked
    assert cited == 3
    assert found["permalink"] is None
    assert found["note"].startswith("not sent to the Wayback Machine: ")
    assert ("loopback" in found["note"]) or ("127.0.0.1" in found["note"])


# --- a refused source: nothing fetched, nothing named ---------------------------------


REFUSED_FORMS = {
    "loopback-address": ("http://127.0.0.1:{port}/docs/serving", "127.0.0.1 is a loopback"),
    "name-resolving-to-a-private-address": (
        "http://wiki.corp.example/docs/serving",
        "wiki.corp.example resolves to 10.1.2.3, a private address",
    ),
}


@pytest.mark.parametrize("checked", [CHECKED, dt.date.today().isoformat()], ids=["old", "today"])
@pytest.mark.parametrize("form", list(REFUSED_FORMS))
def test_a_refused_sources_url_never_reaches_the_wayback_machine(
    project: Path,
    web: ReplayServer,
    archive: ReplayServer,
    monkeypatch: pytest.MonkeyPatch,
    form: str,
    checked: str,
) -> None:
    monkeypatch.delenv("CLAIMCHECK_ALLOW_ADDRESSES")  # the default: internal is refused
    resolve_names(monkeypatch, {"wiki.corp.example": "10.1.2.3"})
    written, refusal = REFUSED_FORMS[form]
    source = written.format(port=web.port)
    offer_capture(archive, source)
    write_claim(project, source, checked=checked)

    row, stderr = verify()
    backfilled = runner.invoke(app, ["backfill"])

    assert row["verdict"] == "unreachable"
    assert refusal in row["reason"]
    assert web.requests == []
    assert archive.requests == []
    assert re.search(r"^1 source, \d+ requests?, 0 history look-ups", stderr, re.M)
    assert backfilled.exit_code == 3, backfilled.output
    assert not (project / "snapshots" / resolve_source(source).key).exists()


# --- a public source: asked about, unless the Wayback Machine is turned off ------------


@pytest.fixture
def public(project: Path, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """A public page, stored as fetched yesterday (the suite cannot reach its host)."""
    resolve_publicly(monkeypatch, "docs.example.org")
    yesterday = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    store_page(project / "snapshots", PUBLIC_SOURCE, PAGE, yesterday)
    write_claim(project, PUBLIC_SOURCE)
    return offer_capture(archive, PUBLIC_SOURCE)


def test_a_public_sources_url_is_asked_about_and_its_capture_becomes_the_baseline(
    project: Path, archive: ReplayServer, public: str
) -> None:
    backfilled = runner.invoke(app, ["backfill"])

    assert backfilled.exit_code == 0, backfilled.output
    (asked,) = archive.requests_to("/wayback/available")
    assert asked.query["url"] == PUBLIC_SOURCE
    assert f"wayback {public}" in stored_origins(project, PUBLIC_SOURCE)
    assert "1 baselines stored, 0 not found, 2 requests" in backfilled.stderr


def test_with_the_wayback_machine_off_no_url_is_sent_to_it(
    project: Path, archive: ReplayServer, public: str
) -> None:
    write_config(project, "[history]\nwayback = false\n")

    backfilled = runner.invoke(app, ["backfill"])
    cited, found = cite()  # before an online run records the page as unreachable
    row, stderr = verify("--cite")  # the page cannot be fetched here: unreachable

    assert archive.requests == []
    assert backfilled.exit_code == 3, backfilled.output
    assert stored_origins(project, PUBLIC_SOURCE) == ["fetch"]  # the stored one only
    assert row["verdict"] == "unreachable"
    assert re.search(r"1 source, \d+ requests?, 0 history look-ups", stderr)
    assert cited == 3
    assert found["permalink"] is None
    assert found["note"] == "the Wayback Machine is turned off ([history] wayback = false)"
    assert PUBLIC_ADDRESS not in json.dumps(found)


# --- the summary: the sources' requests and the history look-ups apart ----------------


def test_the_summary_counts_the_sources_requests_and_the_history_look_ups_apart(
    project: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    """A README checked on a day no stored version covers: the README is asked of the
    API (the source's request) and its commits are asked for the baseline (history's);
    the summary says which is which, as the server's own log counts them."""
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    replay.as_of = FEB_15
    write_claims(project / "claims", [claim("quant", quote=QUOTE_FEB)], checked="2024-02-15")

    row, stderr = verify()

    sources = replay.requests_to(f"/repos/{LLAMA}/readme")
    history = replay.requests_to(f"/repos/{LLAMA}/commits")
    history += replay.requests_to(f"/repos/{LLAMA}/contents")
    assert row["verdict"] == "verified", row["reason"]
    assert (len(sources), len(history), len(replay.requests)) == (1, 1, 2)
    assert stderr.startswith("1 source, 1 request, 1 history look-up, 1 new snapshot, ")
