"""How much a command says: -q and -v on every command, and a progress bar that names its phase.

Against the GitHub-shaped replay server on 127.0.0.1 with real llama.cpp README history:
`-v` logs each request (what, from where, status, size, time, retries) and never a
header or the token; `-q` leaves errors and warnings only; the run tells its progress
phase by phase (fetching, reading history, judging), which the bar shows.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.config import load_config
from claimcheck.observe.online import ONLINE
from claimcheck.pipeline import run_verify
from support.claim_files import FEB_15, QUOTE_FEB, claim, write_claims
from support.commands import command_paths
from support.replay_server import ReplayServer

TOKEN = "ghp_verbosityTestToken0123456789SECRET"
runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    (tmp_path / "claimcheck.toml").write_text(
        "[verdict]\nmax_age_days = 0\n[fetch]\nper_host_interval = 0\n"
    )
    write_claims(tmp_path / "claims", [claim(quote=QUOTE_FEB)], checked="2024-02-15")
    replay.as_of = FEB_15
    return tmp_path


@pytest.mark.parametrize("command", command_paths(), ids=" ".join)
def test_every_command_has_quiet_and_verbose(command: list[str]) -> None:
    shown = runner.invoke(app, [*command, "--help"])
    assert shown.exit_code == 0, shown.output
    assert re.search(r"-v, --verbose", shown.output)
    assert re.search(r"-q, --quiet", shown.output)


def test_verbose_says_what_was_fetched_and_never_the_token(
    project: Path, replay: ReplayServer
) -> None:
    result = runner.invoke(app, ["verify", "-v", "--format", "json"])

    assert result.exit_code == 0, result.output
    fetched = re.findall(
        r"^claimcheck\.fetch: GET (\S+): (\d{3}), (\d+) bytes, \d+ ms$", result.stderr, re.M
    )
    assert fetched, result.stderr
    assert all(url.startswith(replay.base_url) for url, _, _ in fetched)
    assert {status for _, status, _ in fetched} <= {"200", "304", "404"}
    assert TOKEN not in result.stderr
    assert TOKEN not in result.stdout
    assert "authorization" not in result.stderr.lower()


def test_quiet_leaves_the_report_and_says_nothing_else(project: Path) -> None:
    loud = runner.invoke(app, ["verify", "--format", "json"])
    quiet = runner.invoke(app, ["verify", "-q", "--format", "json"])

    assert loud.exit_code == quiet.exit_code == 0, quiet.output
    assert "1 source, " in loud.stderr  # the summary lines
    assert quiet.stderr == ""
    assert '"verified"' in quiet.stdout


def test_quiet_still_shows_errors(project: Path) -> None:
    (project / "claims" / "bad.yaml").write_text("page: x\nchecked: 2024-01-01\nclaims: 3\n")
    result = runner.invoke(app, ["verify", "-q", "--offline"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")


def test_quiet_and_verbose_together_are_a_usage_error(project: Path) -> None:
    result = runner.invoke(app, ["verify", "-q", "-v", "--offline"])
    assert result.exit_code == 2
    assert "--quiet and --verbose" in result.output


def test_a_run_tells_its_progress_phase_by_phase(project: Path) -> None:
    """Fetching and reading history (the claim's check date is older than any
    snapshot: history is asked as the answer arrives), then judging; each phase counts
    up to its own total."""
    config = load_config(None)
    claims = load_claims([project / "claims"], read=read_document)
    told: list[tuple[str, int, int]] = []

    run_verify(
        claims,
        config,
        online=ONLINE,
        now=dt.datetime(2024, 3, 1, tzinfo=dt.UTC),
        on_progress=lambda phase, done, total: told.append((phase, done, total)),
    )

    phases = [phase for phase, _, _ in told]
    order = list(dict.fromkeys(phases))
    assert order[:2] == ["fetching and reading history", "judging"], told
    for phase in order:
        counts = [(done, total) for p, done, total in told if p == phase]
        assert counts[-1][0] == counts[-1][1]  # each phase ends complete
        assert [done for done, _ in counts] == sorted(done for done, _ in counts)
    assert told[-1] == ("judging", len(claims), len(claims))


def test_twice_verbose_also_says_each_attempt_and_whether_it_was_conditional(
    project: Path,
) -> None:
    assert runner.invoke(app, ["verify", "-q"]).exit_code == 0  # a snapshot with its ETag
    result = runner.invoke(app, ["verify", "-vv", "--format", "json"])

    assert result.exit_code == 0, result.output
    assert re.search(r"GET \S+/readme: attempt 1, conditional \(If-None-Match", result.stderr)
    assert re.search(r"GET \S+/readme: 304, 0 bytes", result.stderr)
    assert TOKEN not in result.stderr
