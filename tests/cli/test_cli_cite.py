"""`claimcheck cite`: the permanent citation of a verified claim, against the GitHub-shaped
replay server on 127.0.0.1 serving real llama.cpp README history.

The expected commit is the corpus entry the server serves as of the day, and the expected
line is found by searching the raw README bytes for the quote's words: neither comes from
the code under test (which places the quote through cmark-gfm's source positions).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from support.claim_files import FEB_15, LLAMA, QUOTE_FEB, claim, write_claims
from support.public_names import resolve_publicly
from support.replay_server import ReplayServer
from support.stored_page import store_page

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "claimcheck.toml").write_text(
        "[verdict]\nmax_age_days = 0\n[fetch]\nper_host_interval = 0\n"
    )
    write_claims(tmp_path / "claims", [claim("quant", quote=QUOTE_FEB)], checked="2024-02-15")
    replay.as_of = FEB_15
    assert runner.invoke(app, ["verify", "-q"]).exit_code == 0
    return tmp_path


def quote_line(replay: ReplayServer) -> int:
    """The README line holding the quote, found in the raw bytes by hand-picked words."""
    raw = replay.readme_as_of(LLAMA, FEB_15)
    assert raw is not None
    lines = [n for n, line in enumerate(raw.decode().splitlines(), 1) if "8-bit integer" in line]
    assert len(lines) == 1
    return lines[0]


def test_cite_links_the_commit_with_the_quotes_line_and_the_live_quote(
    project: Path, replay: ReplayServer
) -> None:
    entry = replay.entry_as_of(LLAMA, FEB_15)
    assert entry is not None

    result = runner.invoke(app, ["cite", "quant", "--style", "json"])

    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    line = quote_line(replay)
    assert found["commit"] == entry.commit
    assert found["lines"] == [line, line]
    assert found["permalink"] == (
        f"https://github.com/{LLAMA}/blob/{entry.commit}/README.md#L{line}"
    )
    assert found["live"].startswith(
        f"https://github.com/{LLAMA}#:~:text=2%2Dbit%2C%203%2Dbit"
    )  # "-" escaped: it is directive syntax


def test_cite_prints_a_markdown_link_and_a_footnote(project: Path, replay: ReplayServer) -> None:
    entry = replay.entry_as_of(LLAMA, FEB_15)
    assert entry is not None

    link = runner.invoke(app, ["cite", "quant"])
    footnote = runner.invoke(app, ["cite", "quant", "--style", "footnote"])

    assert link.exit_code == footnote.exit_code == 0, link.output
    assert link.stdout.startswith("[the claim quant](https://github.com/ggml-org/llama.cpp#:~:")
    assert "([version of " in link.stdout
    assert f"/blob/{entry.commit}/README.md#L" in link.stdout
    assert footnote.stdout.startswith("[^quant]: <https://github.com/ggml-org/llama.cpp#:~:")


def test_offline_cite_without_a_known_commit_gives_the_live_link_and_exit_3(
    project: Path, replay: ReplayServer
) -> None:
    # Checked today: no baseline is read from history, so no commit is known yet.
    shutil.rmtree(project / "snapshots")
    today = dt.date.today().isoformat()
    write_claims(project / "claims", [claim("quant", quote=QUOTE_FEB)], checked=today)
    assert runner.invoke(app, ["verify", "-q"]).exit_code == 0
    replay.clear_requests()
    result = runner.invoke(app, ["cite", "quant", "--offline", "--style", "json"])

    assert result.exit_code == 3, result.output
    assert replay.requests == []
    found = json.loads(result.stdout)
    assert found["permalink"] is None
    assert "offline" in found["note"]


def test_a_claim_that_does_not_hold_is_not_cited(project: Path) -> None:
    write_claims(
        project / "claims", [claim("quant", quote="this sentence was never in the README")],
        checked="2024-02-15",
    )  # fmt: skip
    result = runner.invoke(app, ["cite", "quant"])
    assert result.exit_code == 1
    assert "is missing" in result.stderr
    assert result.stdout == ""


UNANSWERED = "http://127.0.0.1:9"  # the discard port: nothing listens, the connection is refused


def test_a_forge_history_that_does_not_answer_is_not_cited_as_a_fact(
    project: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checked today, so the snapshot's commit is not known yet and `cite` asks for it.
    shutil.rmtree(project / "snapshots")
    (project / "claimcheck.toml").write_text(
        "[verdict]\nmax_age_days = 0\n[fetch]\nper_host_interval = 0\nretries = 0\n"
    )
    write_claims(
        project / "claims", [claim("quant", quote=QUOTE_FEB)], checked=dt.date.today().isoformat()
    )
    assert runner.invoke(app, ["verify", "-q"]).exit_code == 0
    monkeypatch.setenv("GITHUB_API_URL", UNANSWERED)

    result = runner.invoke(app, ["cite", "quant", "--style", "json"])

    assert result.exit_code == 3, result.output
    found = json.loads(result.stdout)
    assert found["permalink"] is None
    assert found["note"] == "the forge's history did not answer; run again later"


def test_a_wayback_machine_that_does_not_answer_is_not_cited_as_a_fact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (
        "<!DOCTYPE html><html><head><title>Widget</title></head><body><h1>Widget</h1>"
        "<p>Widget renders every chart in under a second.</p></body></html>"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("WAYBACK_URL", UNANSWERED)
    (tmp_path / "claimcheck.toml").write_text(
        "[verdict]\nmax_age_days = 0\n[fetch]\nper_host_interval = 0\nretries = 0\n"
    )
    # A public page (the Wayback Machine is asked about no other), stored as fetched an
    # hour ago: the suite reaches no public host.
    url = "https://widget.example.org/widget"
    resolve_publicly(monkeypatch, "widget.example.org")
    store_page(tmp_path / "snapshots", url, page, dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    quote = "Widget renders every chart in under a second"
    entry = {"id": "fast", "claim": "Widget is fast", "source": url, "quote": quote}
    write_claims(tmp_path / "claims", [entry], checked=dt.date.today().isoformat())

    result = runner.invoke(app, ["cite", "fast", "--style", "json"])
    markdown = runner.invoke(app, ["cite", "fast"])

    assert result.exit_code == 3, result.output
    found = json.loads(result.stdout)
    assert found["permalink"] is None
    assert found["note"] == "the Wayback Machine did not answer; run again later"
    assert "no capture" not in markdown.stdout
    assert "did not answer" in markdown.stdout


def commit_day(replay: ReplayServer) -> str:
    """The UTC day of the commit the replay server serves as of Feb 15, from its corpus
    index (not from the code under test)."""
    entry = replay.entry_as_of(LLAMA, FEB_15)
    assert entry is not None
    return entry.commit_date.astimezone(dt.UTC).date().isoformat()


def test_cite_labels_the_version_by_its_commits_date_not_the_day_it_was_fetched(
    project: Path, replay: ReplayServer
) -> None:
    # The claim was checked 2024-02-15 and verify fetched the README today: the version
    # cited is the file at the commit of 2024-01-31, history's baseline.
    day, today = commit_day(replay), dt.datetime.now(dt.UTC).date().isoformat()
    assert day != today

    link = runner.invoke(app, ["cite", "quant"])
    footnote = runner.invoke(app, ["cite", "quant", "--style", "footnote"])
    found = json.loads(runner.invoke(app, ["cite", "quant", "--style", "json"]).stdout)

    assert link.exit_code == footnote.exit_code == 0, link.output
    assert f"([version of {day}](https://github.com/{LLAMA}/blob/" in link.stdout
    assert f"> version of {day}: https://github.com/{LLAMA}/blob/" in footnote.stdout
    assert today not in link.stdout + footnote.stdout
    assert "2024-02-15" not in link.stdout  # nor the claim's check date
    assert (found["version_date"], found["dated"], found["snapshot_date"]) == (day, True, today)


def test_a_commit_learnt_by_cite_labels_the_version_by_its_date_offline_too(
    project: Path, replay: ReplayServer
) -> None:
    # Checked today: no baseline from history, so `cite` asks the forge for the commit.
    shutil.rmtree(project / "snapshots")
    today = dt.datetime.now(dt.UTC).date().isoformat()
    write_claims(project / "claims", [claim("quant", quote=QUOTE_FEB)], checked=today)
    assert runner.invoke(app, ["verify", "-q"]).exit_code == 0
    day = commit_day(replay)

    online = runner.invoke(app, ["cite", "quant"])
    replay.clear_requests()
    offline = runner.invoke(app, ["cite", "quant", "--offline"])

    assert online.exit_code == offline.exit_code == 0, online.output + offline.output
    assert f"([version of {day}](https://github.com/{LLAMA}/blob/" in online.stdout
    assert offline.stdout == online.stdout
    assert replay.requests == []
