"""End to end: documentation pages served on 127.0.0.1 are judged by their main content.

The fixture pages of `tests/data/pages` (Sphinx, MkDocs Material, Docusaurus, GitHub
Pages, a model card, a page with a cookie banner and screen-reader-only text, pages
whose sidebars name what the page never says) are served by a real HTTP server;
`claimcheck verify` judges one claim per quote of their hand-written oracle. Every
quote of the main text is `verified`; every quote only in the chrome is `missing`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from support.claim_files import write_claims, write_fast_config
from support.doc_pages import doc_pages
from support.replay_server import ReplayServer

PAGES = doc_pages()
runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    """A fresh project folder as the current directory; every address it may ask for is
    the local server's (no archive look-up leaves the machine)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    write_fast_config(tmp_path)
    return tmp_path


def verify(project: Path) -> tuple[Result, dict[str, dict[str, Any]]]:
    result = runner.invoke(app, ["verify", "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result, {r["id"]: r for r in json.loads(result.stdout)["results"]}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


def test_main_text_verifies_and_chrome_is_missing(project: Path, replay: ReplayServer) -> None:
    today = dt.datetime.now(dt.UTC).date().isoformat()
    expected: dict[str, str] = {}
    entries: list[dict[str, str]] = []
    for page in PAGES:
        url = replay.set_page(f"/docs/{page.name}", page.body)
        for kind, quotes in (("verified", page.verify), ("missing", page.not_verify)):
            for n, quote in enumerate(quotes):
                claim_id = f"{slug(page.name)}-{kind}-{n}-{slug(quote)}".strip("-")
                expected[claim_id] = kind
                claim = f"the page says {quote}"
                entries.append({"id": claim_id, "claim": claim, "source": url, "quote": quote})
    write_claims(project / "claims", entries, checked=today)

    result, results = verify(project)

    assert result.exit_code == 1  # the chrome quotes are stale
    verdicts = {claim_id: r["verdict"] for claim_id, r in results.items()}
    wrong = {k: (verdicts[k], want) for k, want in expected.items() if verdicts[k] != want}
    assert wrong == {}
    assert sum(1 for v in expected.values() if v == "verified") >= 50
    assert sum(1 for v in expected.values() if v == "missing") >= 50
    reasons = {results[k]["reason"] for k, v in expected.items() if v == "verified"}
    assert all(", in the main content" in reason for reason in reasons)
    table_row = next(k for k in expected if k.startswith("sphinx-rtd-html-verified-4"))
    assert results[table_row]["reason"] == (
        "the quote is in the source now, in the main content, under 'Installation › Requirements'"
    )


def test_a_scope_reads_the_part_it_selects(project: Path, replay: ReplayServer) -> None:
    page = next(p for p in PAGES if p.name == "pydata-sidebar-only.html")
    url = replay.set_page("/docs/sampling.html", page.body)
    quote = "EAGLE-3 speculative decoding gives 2.4x speedup"
    entries = [
        {"id": "sidebar", "claim": "c", "source": url, "quote": quote, "scope": "nav.bd-docs-nav"},
        {"id": "unscoped", "claim": "c", "source": url, "quote": quote},
        {"id": "no-match", "claim": "c", "source": url, "quote": quote, "scope": "#nothing"},
    ]
    write_claims(project / "claims", entries, checked=dt.datetime.now(dt.UTC).date().isoformat())

    _, results = verify(project)

    assert results["sidebar"]["verdict"] == "verified"
    assert results["sidebar"]["reason"] == "the quote is in the source now, in 'nav.bd-docs-nav'"
    assert results["unscoped"]["verdict"] == "missing"
    assert results["no-match"]["verdict"] == "missing"
    assert "scope '#nothing' matches nothing in the source" in results["no-match"]["reason"]


def test_an_invalid_scope_is_a_claim_file_error(project: Path, replay: ReplayServer) -> None:
    entries = [
        {"id": "a", "claim": "c", "source": replay.url("/p.html"), "quote": "q", "scope": "div["},
        {"id": "b", "claim": "c", "source": replay.url("/p.html"), "quote": "q", "scope": "a >> b"},
    ]
    write_claims(project / "claims", entries)

    result = runner.invoke(app, ["verify"], catch_exceptions=False)

    assert result.exit_code == 2
    assert "claims/page.yaml:9: claim 'a': scope: 'div[' is not a CSS selector" in result.stderr
    assert "claims/page.yaml:14: claim 'b': scope: 'a >> b' is not a CSS selector" in result.stderr
    assert replay.requests == []
