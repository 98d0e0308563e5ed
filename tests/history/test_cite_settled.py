"""Citing a result as its source settles in the fetch gives the citation citing it after
the fetch gives: the same report, night after night, whatever the run learns after the
source settled (a baseline from history, a version `--cite` asks for, a capture).

Two projects, the same claims, the same replay server (real llama.cpp README history on
127.0.0.1) and the same clock, judged night by night through the pipeline: one as a run
is (`Citer.cite_settled` cites in the fetch), one with citing left to the end (the
method made the identity). Their JSON reports must be equal, byte for byte.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from claimcheck.cli.selection import read_claims
from claimcheck.config import load_config
from claimcheck.history.citations import Citer
from claimcheck.models import ClaimResult
from claimcheck.observe.online import ONLINE
from claimcheck.pipeline import run_verify
from claimcheck.report.formats.json import render_json_bytes
from support.claim_files import FEB_15, LLAMA_URL, QUOTE_FEB, QUOTE_MAR, claim, write_claims
from support.replay_server import ReplayServer

NIGHTS = (
    (dt.datetime(2026, 12, 1, 3, 17, tzinfo=dt.UTC), False),
    (dt.datetime(2026, 12, 2, 3, 17, tzinfo=dt.UTC), True),  # --cite: versions asked
    (dt.datetime(2026, 12, 3, 3, 17, tzinfo=dt.UTC), False),
)


def project(root: Path) -> Path:
    """Claims on one README checked on several dates (history asked in the fetch for
    the old ones, after it for none), and one on a page served by the replay server."""
    root.mkdir()
    (root / "claimcheck.toml").write_text(
        "[verdict]\nmax_age_days = 0\n[fetch]\nper_host_interval = 0\n"
    )
    write_claims(
        root / "claims",
        [
            claim("feb", quote=QUOTE_FEB),
            claim("mar", quote=QUOTE_MAR),
            claim("feb-link", quote=QUOTE_FEB, source=f"{LLAMA_URL}#readme"),
        ],
        checked="2024-02-15",
    )
    write_claims(
        root / "claims",
        [claim("today", quote=QUOTE_MAR)],
        name="today.yaml",
        page="today",
        checked="2026-12-01",
    )
    return root


def nights(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    monkeypatch.chdir(root)
    config = load_config(root / "claimcheck.toml")
    claims = read_claims(None, config)
    reports = []
    for now, cite in NIGHTS:
        report, _ = run_verify(claims, config, online=ONLINE, now=now, cite=cite)
        reports.append(render_json_bytes(report.model_copy(update={"duration_s": 0.0})))
    return reports


def test_citing_as_sources_settle_reports_what_citing_after_the_fetch_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    replay.as_of = FEB_15 + dt.timedelta(days=40)  # the README has changed since Feb 15

    settled = nights(project(tmp_path / "settled"), monkeypatch)
    calls: list[str] = []

    def after_the_fetch(self: Citer, result: ClaimResult) -> ClaimResult:
        calls.append(result.claim.id)
        return result

    monkeypatch.setattr(Citer, "cite_settled", after_the_fetch)
    after = nights(project(tmp_path / "after"), monkeypatch)

    assert calls  # the runs did judge claims as their sources settled
    assert [b.count(b'"permalink": "https://github.com/') for b in settled] != [0, 0, 0]
    assert settled == after
