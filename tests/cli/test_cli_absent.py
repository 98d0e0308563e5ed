"""Absence claims end to end: `verify --offline` on stored snapshots of a real README.

TGI's README of 2026-01 says "text-generation-inference is now in maintenance mode"; the
one before does not. A claim that it is not in maintenance mode holds on the older
snapshot and is `contradicted` (stale, exit 1) on the newer, with the unit that says it.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support import docs
from support.corpus_snapshots import CORPUS, import_history, versions

TGI = CORPUS / "huggingface__text-generation-inference"


def readme_example(marker: str) -> str:
    """The docs' example claim (the entry of a claims list) under `<!-- marker -->`."""
    return docs.block(marker)


# The README's own example, so that what it says of TGI's README is what a run gives.
CLAIMS = "page: comparison\nchecked: 2025-12-01\nclaims:\n" + readme_example("example:absent")
runner = CliRunner()


def project(folder: Path, *, upto: str) -> Path:
    """A project with TGI's README versions committed up to `upto` (YYYY-MM-DD) stored."""
    (folder / "claims").mkdir(parents=True)
    (folder / "claims" / "comparison.yaml").write_text(CLAIMS, encoding="utf-8")
    (folder / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n", encoding="utf-8")
    store = Store(folder / "snapshots")
    through = dt.date.fromisoformat(upto)  # what history vouched for, as of `upto`
    import_history(
        store, [v for v in versions(TGI) if v.committed.date() <= through], through=through
    )
    return folder


@pytest.mark.parametrize(
    ("upto", "verdict", "code"),
    [("2025-12-01", "verified", 0), ("2026-01-01", "contradicted", 1)],
)
def test_an_absence_claim_is_contradicted_once_the_readme_says_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upto: str, verdict: str, code: int
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto=upto))

    result = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    annotations = runner.invoke(app, ["verify", "--offline", "--format", "github"])

    assert result.exit_code == code, result.output
    (found,) = json.loads(result.stdout)["results"]
    assert found["verdict"] == verdict
    if verdict == "contradicted":
        assert "now in maintenance mode" in found["found"]
        assert "which the claim says it does not" in found["reason"]
        assert annotations.stdout.startswith(
            "::error file=claims/comparison.yaml,line=4,title=stale claim tgi-maintained%3A "
            "contradicted::"
        )
    else:
        assert found["found"] is None


# -- the editor's commands on an absence claim ------------------------------------------
# TGI's README said "now in maintenance mode" from its 2025-12-18 version on (read in
# tests/data/corpus/readme-history/huggingface__text-generation-inference/2026-01-01.md:
# a "Caution" notice at the top); the 2025-09-16 version does not say it.
SAID = (
    "Caution text-generation-inference is now in maintenance mode. Going forward, we will "
    "accept pull requests for minor bug fixes, documentation improvements and lightweight "
    "maintenance tasks."
)


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def test_explain_says_what_an_absence_claim_checks_and_the_text_that_contradicts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2026-01-01"))
    monkeypatch.setenv("NO_COLOR", "1")

    result = runner.invoke(app, ["explain", "tgi-maintained"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "absent    'now in maintenance mode'" in lines
    assert "verdict   contradicted" in lines
    assert not [line for line in lines if line.startswith(("score", "quote"))]
    assert any(line.startswith("checks    ") and "no score" in line for line in lines)
    shown = lines.index("the source says 'now in maintenance mode', in its context as a reader "
                        "sees the page:")  # fmt: skip
    assert lines[shown + 1] == SAID


def test_explain_of_an_absence_claim_that_holds_names_no_contradicting_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2025-12-01"))
    monkeypatch.setenv("NO_COLOR", "1")

    result = runner.invoke(app, ["explain", "tgi-maintained"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "verdict   verified" in lines
    assert "why       the source does not say 'now in maintenance mode' in the snapshot of " \
        "2025-09-16" in lines  # fmt: skip
    assert not [line for line in lines if line.startswith(("score", "the source says"))]


def test_accept_moves_the_check_date_of_an_absence_claim_that_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = project(tmp_path / "site", upto="2025-12-01")
    monkeypatch.chdir(site)
    claims = site / "claims" / "comparison.yaml"

    result = runner.invoke(app, ["accept", "tgi-maintained"])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] == [
        "accepted tgi-maintained in claims/comparison.yaml",
        "  absent: 'now in maintenance mode' (not in the latest snapshot)",
        f"  checked: 2025-12-01 -> {today()}",
    ]
    assert claims.read_text(encoding="utf-8") == CLAIMS + f"    checked: {today()}\n"
    verified = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    (found,) = json.loads(verified.stdout)["results"]
    assert (found["verdict"], found["checked"]) == ("verified", today())


def test_accept_refuses_an_absence_claim_the_source_contradicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = project(tmp_path / "site", upto="2026-01-01")
    monkeypatch.chdir(site)
    claims = site / "claims" / "comparison.yaml"

    result = runner.invoke(app, ["accept", "tgi-maintained"])

    assert result.exit_code == 1, result.output
    assert "has no source" not in result.stderr
    assert result.stderr.startswith(
        "error: cannot accept 'tgi-maintained': the source now says 'now in maintenance mode'"
    )
    assert f"it says: {SAID}" in result.stderr.splitlines()
    assert "rewrite the claim" in result.stderr
    assert claims.read_text(encoding="utf-8") == CLAIMS


@pytest.mark.parametrize("option", [["--quote", "TGI is maintained"], ["--span"]])
def test_accept_refuses_quote_options_for_an_absence_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: list[str]
) -> None:
    site = project(tmp_path / "site", upto="2025-12-01")
    monkeypatch.chdir(site)

    result = runner.invoke(app, ["accept", "tgi-maintained", *option])

    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        f"error: claim 'tgi-maintained' is an absence claim (`absent`, no quote): {option[0]} "
        "is for a claim with a quote"
    )
    assert (site / "claims" / "comparison.yaml").read_text(encoding="utf-8") == CLAIMS


@pytest.mark.parametrize(
    ("upto", "code"), [("2025-12-01", 0), ("2026-01-01", 1)], ids=["holds", "contradicted"]
)
def test_lint_reports_an_absence_claim_the_latest_snapshot_contradicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upto: str, code: int
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto=upto))

    result = runner.invoke(app, ["lint"])

    assert result.exit_code == code, result.output
    if code == 0:
        assert result.stdout == ""
        return
    assert result.stdout == (
        "claims/comparison.yaml:4: error: claim 'tgi-maintained': the source now says 'now in "
        "maintenance mode' (snapshot of 2025-12-18), which the claim says it does not: review "
        "the claim; it says: 'Caution text-generation-inference is now in maintenance mode. "
        "Going forward, we…ments and lightweight maintenance tasks.' [absent-found]\n"
    )


def test_lint_reports_an_absence_claim_without_a_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2000-01-01"))  # nothing stored

    result = runner.invoke(app, ["lint"])

    assert result.exit_code == 1, result.output
    assert result.stdout.endswith("[no-snapshot]\n")


STATUS_PAGE = (
    b"<html><body><main><h1>Widget</h1><p>Older releases went into maintenance mode.</p>"
    b'<div id="status"><h2>Status</h2><p>Widget itself is in maintenance mode now.</p></div>'
    b"</main></body></html>"
)


def test_explain_shows_the_contradicting_text_inside_the_claims_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge reads a scoped claim in its scope alone: the text explain shows as the
    contradiction is the one there, not an earlier one elsewhere on the page."""
    site = tmp_path / "site"
    (site / "claims").mkdir(parents=True)
    (site / "claims" / "status.yaml").write_text(
        "page: status\nchecked: 2025-12-01\nclaims:\n"
        "  - id: widget-active\n    claim: Widget is actively developed\n"
        "    source: https://example.org/status\n    scope: '#status'\n"
        "    absent: maintenance mode\n",
        encoding="utf-8",
    )
    (site / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n", encoding="utf-8")
    ref = resolve_source("https://example.org/status")
    Store(site / "snapshots").save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=STATUS_PAGE,
        media=MediaType.HTML,
        fetched_at=dt.datetime(2025, 12, 2, tzinfo=dt.UTC),
    )
    monkeypatch.chdir(site)
    monkeypatch.setenv("NO_COLOR", "1")

    result = runner.invoke(app, ["explain", "widget-active"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "verdict   contradicted" in lines
    shown = lines.index("the source says 'maintenance mode', in its context as a reader sees "
                        "the page:")  # fmt: skip
    assert lines[shown + 1 :] == ["§ Status", "Widget itself is in maintenance mode now."]
