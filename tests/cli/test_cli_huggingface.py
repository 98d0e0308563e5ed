"""End to end: the real `claimcheck` CLI against a Hub-shaped server on 127.0.0.1.

HF_ENDPOINT points at the fake Hub, which serves a model card's history (six commits,
three of them changing the card); GITHUB_API_URL and WAYBACK_URL point at a second,
empty server, so that any request meant for another host than the Hub is seen.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.claim_files import LLAMA_URL, README_API, claim, write_claims, write_fast_config
from support.cli_runs import PROXY_VARS, run, today, tree
from support.cli_runs import show as _show
from support.cli_runs import verify_by_id as verify_json
from support.fake_hub import FakeHub, blob_sha
from support.model_cards import (
    DATASET,
    DATASET_URL,
    FRONT_MATTER_ONLY,
    INTRO,
    LIMITS_BEFORE,
    MODEL,
    MODEL_URL,
    History,
    publish,
)
from support.replay_server import ReplayServer

HF_TOKEN = "hf_e2eTestToken0123456789abcdefSECRET"
GITHUB_TOKEN = "ghp_e2eTestToken0123456789abcdefSECRET"
RAW_HEAD = f"/{MODEL}/raw/main/README.md"
COMMITS = f"/api/models/{MODEL}/commits/main"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub(per_page=2) as server:
        yield server
    assert server.errors == []


@pytest.fixture
def elsewhere() -> Iterator[FakeHub]:
    """Every other server claimcheck knows of (GitHub's API, the Wayback Machine)."""
    with FakeHub() as server:
        yield server


@pytest.fixture
def history(hub: FakeHub) -> History:
    return publish(hub)


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hub: FakeHub, elsewhere: FakeHub
) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_ENDPOINT", hub.base_url)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("GITHUB_API_URL", elsewhere.base_url)
    monkeypatch.setenv("WAYBACK_URL", elsewhere.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("HF_TOKEN", "GITHUB_TOKEN", *PROXY_VARS):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    write_fast_config(tmp_path)
    return tmp_path


# -- a card verified, then a 304 -----------------------------------------------------------


def test_a_model_card_claim_is_verified_then_answered_304_with_nothing_written(
    project: Path, hub: FakeHub, history: History, elsewhere: FakeHub
) -> None:
    write_claims(
        project / "claims",
        [
            claim("model-intro", quote=INTRO, source=MODEL_URL),
            claim("dataset", quote="Twelve thousand English instruction", source=DATASET_URL),
        ],
        checked=today(),
    )

    first, results = verify_json()
    after_first = tree(project / "snapshots")
    hub.clear_requests()
    second, again = verify_json()
    after_second = tree(project / "snapshots")

    assert first.exit_code == second.exit_code == 0, _show(second)
    assert results["model-intro"]["verdict"] == "verified"
    assert results["dataset"]["verdict"] == "verified"
    assert again["model-intro"]["verdict"] == "verified"
    assert after_second == after_first  # not one file written or rewritten
    head = history.limitations.readme
    assert head is not None
    raw = hub.requests_to(RAW_HEAD)
    assert [(r.status, r.headers.get("if-none-match")) for r in raw] == [
        (304, f'"{blob_sha(head)}"')
    ]
    assert [r.status for r in hub.requests_to(f"/datasets/{DATASET}/raw/main/")] == [304]
    # The card is stored as the Hub serves it, its front matter kept.
    card_files = [
        body
        for path, (body, _) in after_first.items()
        if path.startswith(f"huggingface.co/{MODEL}/README/") and path.endswith(".md")
    ]
    assert card_files == [head]
    assert elsewhere.requests == []  # nothing went to any other host


# -- backfill from the Hub's commits ----------------------------------------------------


def test_an_older_check_date_is_backfilled_from_the_commit_in_force(
    project: Path, hub: FakeHub, history: History, elsewhere: FakeHub
) -> None:
    write_claims(
        project / "claims",
        [claim("model-intro", quote=INTRO, source=MODEL_URL)],
        checked="2024-03-10",
    )

    result, results = verify_json()

    assert result.exit_code == 0, _show(result)
    entry = results["model-intro"]
    assert entry["verdict"] == "verified"
    assert entry["baseline_origin"] == f"commit {history.evaluation.sha}"
    assert entry["baseline"] == "2024-03-05"  # dated by that commit
    at_commit = hub.requests_to(f"/{MODEL}/raw/{history.evaluation.sha}/README.md")
    assert [r.status for r in at_commit] == [200]
    assert len(hub.requests_to(COMMITS)) == 2  # pages back to the check date only
    assert elsewhere.requests == []


def test_backfill_command_stores_the_baseline_once(
    project: Path, hub: FakeHub, history: History
) -> None:
    write_claims(
        project / "claims",
        [claim("model-intro", quote=INTRO, source=MODEL_URL)],
        checked="2024-02-15",
    )

    first = run("backfill")
    hub.clear_requests()
    second = run("backfill")

    assert first.exit_code == 0, _show(first)
    assert "1 baselines stored, 0 not found" in first.stderr
    assert "0 baselines stored, 0 not found, 0 requests" in second.stderr
    assert hub.requests == []
    index = project / "snapshots" / "huggingface.co" / MODEL / "README" / "index.json"
    versions = json.loads(index.read_text())["versions"]
    assert [v["origin"] for v in versions] == [f"commit {history.weights.sha}"]


# -- a quote the latest commit removed: stale, and blamed ------------------------------


def test_a_quote_removed_in_the_latest_commit_is_stale_and_blamed(
    project: Path, hub: FakeHub, history: History, elsewhere: FakeHub
) -> None:
    write_claims(
        project / "claims",
        [claim("limits", quote=LIMITS_BEFORE, source=MODEL_URL)],
        checked="2024-03-10",
    )

    result, results = verify_json()
    blamed = run("blame", "limits")

    assert result.exit_code == 1, _show(result)
    entry = results["limits"]
    assert entry["verdict"] in ("drifted", "missing")
    assert entry["baseline_origin"] == f"commit {history.evaluation.sha}"
    assert entry["blame"] == {
        "sha": history.limitations.sha,
        "date": "2024-06-01T09:00:00Z",
        "author": "maintainer-b",
        "title": "Rewrite the Limitations section",
        "url": f"{hub.base_url}/{MODEL}/commit/{history.limitations.sha}",
    }
    assert blamed.exit_code == 0, _show(blamed)
    lines = blamed.stdout.splitlines()
    assert f"commit {history.limitations.sha}" in lines
    assert "author maintainer-b" in lines
    assert "title  Rewrite the Limitations section" in lines
    assert "date   2024-06-01T09:00:00+00:00" in lines
    assert elsewhere.requests == []


# -- front matter is metadata, not text -------------------------------------------------


def test_a_quote_in_the_front_matter_only_is_not_on_the_card(
    project: Path, hub: FakeHub, history: History
) -> None:
    # A card is read as the Hub shows it (media type `card`): its front matter is metadata.
    write_claims(
        project / "claims",
        [
            claim("body", quote=INTRO, source=MODEL_URL),
            claim("metadata", quote=FRONT_MATTER_ONLY, source=MODEL_URL),
        ],
        checked=today(),
    )

    _, results = verify_json()

    assert results["body"]["verdict"] == "verified"
    assert results["metadata"]["verdict"] == "missing"


# -- tokens -------------------------------------------------------------------------------


def test_each_token_goes_to_its_own_host_and_never_into_output_or_snapshots(
    project: Path,
    hub: FakeHub,
    history: History,
    replay: ReplayServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_TOKEN", HF_TOKEN)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    replay.set_page("/docs/page.html", f"<html><body><p>{INTRO}</p></body></html>")
    write_claims(
        project / "claims",
        [
            claim("card", quote=LIMITS_BEFORE, source=MODEL_URL, checked="2024-03-10"),
            claim("github", source=LLAMA_URL),
            claim("web", quote=INTRO, source=f"{replay.base_url}/docs/page.html"),
        ],
    )

    outputs = [run("verify"), run("verify", "--format", "json"), run("blame", "card")]

    assert hub.requests
    assert all(r.headers.get("authorization") == f"Bearer {HF_TOKEN}" for r in hub.requests)
    api = replay.requests_to(README_API)
    assert api
    assert all(r.headers.get("authorization") == f"Bearer {GITHUB_TOKEN}" for r in api)
    assert all("authorization" not in r.headers for r in replay.requests_to("/docs/"))
    for result in outputs:
        for token in (HF_TOKEN, GITHUB_TOKEN):
            assert token not in result.stdout
            assert token not in result.stderr
    for path, (body, _) in tree(project).items():
        assert HF_TOKEN.encode() not in body, path
        assert GITHUB_TOKEN.encode() not in body, path


# -- a card that is no longer there ------------------------------------------------------


def test_a_repository_the_hub_no_longer_knows_is_source_gone(
    project: Path, hub: FakeHub, history: History
) -> None:
    """The Hub answers 401 RepoNotFound for a deleted (or now private) repository."""
    write_claims(
        project / "claims",
        [claim("vanished", quote=INTRO, source="https://huggingface.co/acme-ai/deleted-7b")],
        checked=today(),
    )

    result, results = verify_json()

    assert result.exit_code == 1, _show(result)
    assert results["vanished"]["verdict"] == "source-gone"
    assert "401" in results["vanished"]["reason"]


# -- cite: the card at its commit -------------------------------------------------------------


def test_cite_gives_the_card_at_its_commit_with_the_quotes_line(
    project: Path, hub: FakeHub, history: History, elsewhere: FakeHub
) -> None:
    # The card's front matter is its first 10 lines, then a blank line, the title and a
    # blank line: the introduction is line 14 (counted by hand from `model_cards.card`).
    write_claims(
        project / "claims", [claim("model-intro", quote=INTRO, source=MODEL_URL)], checked=today()
    )
    verified, _ = verify_json()

    result = run("cite", "model-intro", "--style", "json")

    assert verified.exit_code == 0, _show(verified)
    assert result.exit_code == 0, _show(result)
    found = json.loads(result.stdout)
    sha = history.limitations.sha
    assert found["commit"] == sha
    assert found["permalink"] == f"{MODEL_URL}/blob/{sha}/README.md#L14"
    assert elsewhere.requests == []  # the Wayback Machine was not asked
