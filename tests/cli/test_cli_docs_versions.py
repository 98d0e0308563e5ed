"""End to end: a claim on a docs alias (`/en/latest/`) that a local server redirects to
`/en/v0.6.3/`, then to `/en/v0.7.0/` — the rule in docs/snapshots.md, "Docs versions"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from support.claim_files import claim, write_claims, write_fast_config
from support.replay_server import ReplayServer

QUOTE = "The server batches incoming requests continuously."
PAGE = "<html><body><main><h1>Serving</h1><p>{extra}" + QUOTE + "</p></main></body></html>"
LATEST = "/en/latest/serving.html"
V063 = "/en/v0.6.3/serving.html"
V070 = "/en/v0.7.0/serving.html"

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    for name in ("GITHUB_API_URL", "WAYBACK_URL", "HF_ENDPOINT"):
        monkeypatch.setenv(name, replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    write_fast_config(tmp_path)
    replay.set_page(V063, PAGE.format(extra=""))
    replay.set_page(V070, PAGE.format(extra="Version 0.7 adds streaming. "))
    return tmp_path


def verify(claim_id: str) -> tuple[Result, dict[str, Any]]:
    result = runner.invoke(app, ["verify", "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.stdout + result.stderr
    (entry,) = [r for r in json.loads(result.stdout)["results"] if r["id"] == claim_id]
    return result, entry


def seen_version(project: Path, url: str) -> str | None:
    index = project / "snapshots" / resolve_source(url).key / "index.json"
    notes: dict[str, str] = json.loads(index.read_text()).get("history", {})
    return notes.get("docs_version")


@pytest.mark.parametrize("status", [302, 301], ids=["temporary", "permanent"])
def test_an_alias_is_moved_when_it_redirects_to_another_version(
    project: Path, replay: ReplayServer, status: int
) -> None:
    source = replay.url(LATEST)
    write_claims(project / "claims", [claim("batching", quote=QUOTE, source=source)])
    replay.redirect(LATEST, V063, status)

    first, on_first = verify("batching")
    recorded = seen_version(project, source)
    second, on_second = verify("batching")
    replay.redirect(LATEST, V070, status)
    third, on_third = verify("batching")
    fourth, on_fourth = verify("batching")

    # The first run records the version, without a false moved (a 301 included).
    assert (first.exit_code, on_first["verdict"], on_first["moved_to"]) == (0, "verified", None)
    assert recorded == replay.url(V063)
    assert (second.exit_code, on_second["verdict"]) == (0, "verified")
    # The alias now points at another version: moved, with the new version's URL.
    assert on_third["verdict"] == "moved"
    assert on_third["moved_to"] == replay.url(V070)
    # In words that say what happened: not a permanent move, another version.
    assert on_third["reason"].endswith(
        f"its docs alias now leads to another version, {replay.url(V070)}; check the claim"
        " there: update the claim's URL"
    )
    assert "permanently" not in on_third["reason"]
    assert third.exit_code == 0  # moved is for review, as a permanent redirect is
    assert seen_version(project, source) == replay.url(V070)
    # The claim stands on 0.6.3 until a person accepts it: moved again, not one night.
    assert (fourth.exit_code, on_fourth["verdict"]) == (0, "moved")
    assert on_fourth["moved_to"] == replay.url(V070)


def test_a_pinned_url_is_judged_as_it_is_and_not_tracked(
    project: Path, replay: ReplayServer
) -> None:
    source = replay.url(V063)
    write_claims(project / "claims", [claim("batching", quote=QUOTE, source=source)])

    result, entry = verify("batching")

    assert (result.exit_code, entry["verdict"], entry["moved_to"]) == (0, "verified", None)
    assert seen_version(project, source) is None


def test_a_snapshot_run_in_between_leaves_the_move_for_verify(
    project: Path, replay: ReplayServer
) -> None:
    source = replay.url(LATEST)
    write_claims(project / "claims", [claim("batching", quote=QUOTE, source=source)])
    replay.redirect(LATEST, V063, 302)
    verify("batching")
    replay.redirect(LATEST, V070, 302)

    snapshot = runner.invoke(app, ["snapshot"], catch_exceptions=False)
    kept = seen_version(project, source)
    _, entry = verify("batching")

    assert snapshot.exit_code == 0, snapshot.stdout + snapshot.stderr
    assert kept == replay.url(V063)  # snapshot judged nothing: the old version is kept
    assert (entry["verdict"], entry["moved_to"]) == ("moved", replay.url(V070))
