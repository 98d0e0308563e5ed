"""End to end: sign-in, consent and challenge walls never supersede a good snapshot (issue 37).

The real CLI runs three nights against the fault-injection server on 127.0.0.1
(`support.fault_server.WALLS`). Every source first answers a short help page that
itself speaks of signing in, cookies and human checks ("Please sign in to continue",
"accept all cookies or reject all", "verify you are human"), so a wall's words were
said before; then each answers one wall, in both the plain-web and the GitHub-API path:
the page of the issue (an `<h1>Sign in</h1>`, "Please sign in to continue", a password
field not marked `type=password`), an email-first sign-in, a sign-in without a
`<form>`, a one-time code, a cookie consent page, a privacy dialog, a Turnstile and a
reCAPTCHA check, an "enable JavaScript" page. Every walled claim must be `unreachable`
with the reason in words (never stale), and the store's index must hold exactly the
snapshots it held after the good night. A good answer on the third night verifies
again.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from claimcheck.forges.resolve import resolve_source
from claimcheck.store.store import Store
from support.claim_files import write_claims
from support.cli_runs import loopback_env, verify_project
from support.fault_server import HELP_HTML, HELP_QUOTE, HELP_README, WALLS, FaultServer

STALE = {"drifted", "missing", "source-gone", "context-changed", "moved", "expired"}
PATHS = ("web", "api")
CONFIG = (
    "[fetch]\nper_host_interval = 0\nretries = 0\nper_host = 16\nconcurrency = 32\n\n"
    "[verdict]\nmax_age_days = 0\n"
)
FIRST_NIGHT_PLAUSIBLE = {("enable-javascript", "web")}
"""A wall no first fetch can tell from a page: a short page that asks for JavaScript
has no form; only its fall against a stored good version shows it."""

runner = CliRunner()


@dataclass
class Source:
    """One claim's source on the server: its path and the wall it turns into."""

    claim_id: str
    url: str
    route: str
    api: bool
    wall: str | None


@dataclass
class Nights:
    """Each night's report results by claim id, and the store's index counts."""

    sources: list[Source]
    store: Path
    exit_codes: list[int] = field(default_factory=list)
    results: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    indexed: list[int] = field(default_factory=list)  # snapshots in every index, per night
    versions: list[dict[str, tuple[str | None, int]]] = field(default_factory=list)


def _env(server: FaultServer) -> dict[str, str | None]:
    return loopback_env(server.base_url)


def _project(root: Path, server: FaultServer) -> list[Source]:
    """Claims on one help page and one help README per wall, plus a control of each."""
    (root / "claimcheck.toml").write_text(CONFIG)
    sources: list[Source] = []
    for name in ["control", *WALLS]:
        wall = None if name == "control" else name
        url = server.add_page(f"wall-{name}", HELP_HTML)
        sources.append(Source(f"web-{name}", url, f"/web/wall-{name}.html", False, wall))
        route = server.add_readme(f"acme/wall-{name}", HELP_README)
        url = f"https://github.com/acme/wall-{name}"
        sources.append(Source(f"api-{name}", url, route, True, wall))
    entries = [
        {"id": s.claim_id, "claim": f"Widget is fast ({s.claim_id})", "source": s.url}
        | {"quote": HELP_QUOTE}
        for s in sources
    ]
    write_claims(root / "claims", entries, checked=dt.datetime.now(dt.UTC).date().isoformat())
    return sources


def _verify(root: Path, server: FaultServer) -> tuple[int, dict[str, dict[str, Any]]]:
    result, document = verify_project(root, _env(server))
    return result.exit_code, {r["id"]: r for r in document["results"]}


def _indexed(store: Path) -> int:
    """Snapshots the store's indexes list, read from the index files themselves."""
    return sum(
        len(json.loads(index.read_text(encoding="utf-8"))["versions"])
        for index in store.rglob("index.json")
        if ".cache" not in index.parts
    )


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer() as running:
        yield running
    assert not running.errors, "\n".join(running.errors)


@pytest.fixture(scope="module")
def nights(server: FaultServer, tmp_path_factory: pytest.TempPathFactory) -> Nights:
    """Night 1 the help pages, night 2 every wall, night 3 the help pages again."""
    root = tmp_path_factory.mktemp("walls")
    sources = _project(root, server)
    ran = Nights(sources, root / "snapshots")

    def night() -> None:
        code, results = _verify(root, server)
        ran.exit_codes.append(code)
        ran.results.append(results)
        ran.indexed.append(_indexed(ran.store))
        store = Store(ran.store)
        counts: dict[str, tuple[str | None, int]] = {}
        for source in sources:
            found = store.versions(resolve_source(source.url, server.base_url).key)
            counts[source.claim_id] = (found[-1].sha256 if found else None, len(found))
        ran.versions.append(counts)

    night()
    for source in sources:
        server.set_fault(source.route, source.wall)
    try:
        night()
    finally:
        for source in sources:
            server.set_fault(source.route, None)
    night()
    return ran


CASES = [pytest.param(name, path, id=f"{path}-{name}") for name in WALLS for path in PATHS]


def test_the_good_night_verifies_every_claim(nights: Nights) -> None:
    assert nights.exit_codes[0] == 0
    assert {r["verdict"] for r in nights.results[0].values()} == {"verified"}


@pytest.mark.parametrize(("wall", "path"), CASES)
def test_a_wall_is_unreachable_and_keeps_the_good_snapshot(
    nights: Nights, wall: str, path: str
) -> None:
    result = nights.results[1][f"{path}-{wall}"]
    assert result["verdict"] == "unreachable", result
    assert WALLS[wall].reason_for(path == "api") in result["reason"], result["reason"]
    assert "last stored snapshot is from" in result["reason"]
    assert nights.versions[1][f"{path}-{wall}"] == nights.versions[0][f"{path}-{wall}"]


def test_figures_no_claim_wrongly_stale_no_good_snapshot_superseded(nights: Nights) -> None:
    walled = [s for s in nights.sources if s.wall is not None]
    wrongly_stale = [
        s.claim_id for s in walled if nights.results[1][s.claim_id]["verdict"] in STALE
    ]
    superseded = [
        s.claim_id
        for s in walled
        if nights.versions[1][s.claim_id] != nights.versions[0][s.claim_id]
    ]
    assert len(walled) == 2 * len(WALLS) >= 20
    assert wrongly_stale == []
    assert superseded == []
    assert nights.indexed[0] == len(nights.sources)  # one good snapshot a source
    assert nights.indexed[1] == nights.indexed[0]  # no wall was indexed
    assert nights.exit_codes[1] == 3  # could not check, nothing stale


def test_the_good_page_again_verifies(nights: Nights) -> None:
    assert nights.exit_codes[2] == 0
    assert {r["verdict"] for r in nights.results[2].values()} == {"verified"}
    assert nights.indexed[2] == nights.indexed[0]  # the same body: no new snapshot


def test_a_wall_on_the_first_fetch_is_never_stored(server: FaultServer, tmp_path: Path) -> None:
    """With no good version yet, every wall with a form is caught all the same."""
    sources = _project(tmp_path, server)
    for source in sources:
        server.set_fault(source.route, source.wall)
    try:
        _, results = _verify(tmp_path, server)
    finally:
        for source in sources:
            server.set_fault(source.route, None)
    store = Store(tmp_path / "snapshots")
    for source in sources:
        if source.wall is None:
            assert results[source.claim_id]["verdict"] == "verified"
            continue
        key = resolve_source(source.url, server.base_url).key
        if (source.wall, "api" if source.api else "web") in FIRST_NIGHT_PLAUSIBLE:
            assert len(store.versions(key)) == 1  # a page, for all a first fetch knows
            continue
        assert results[source.claim_id]["verdict"] == "unreachable", source.claim_id
        assert "nothing is stored" in results[source.claim_id]["reason"]
        assert store.versions(key) == []
