"""Citations of a Hugging Face card: `verify --cite` asks the Hub which commit the fetched
card is, and the report links the card at that commit with the quote's line, against a
Hub-shaped server on 127.0.0.1 serving a model card's history.

The expected commit is the fake Hub's newest; the expected line is found by searching that
commit's README bytes for the quote's first words.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from support.claim_files import claim, write_claims, write_fast_config
from support.fake_hub import FakeHub
from support.model_cards import INTRO, MODEL, MODEL_URL, History, publish

runner = CliRunner()


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub(per_page=2) as server:
        yield server


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hub: FakeHub) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_ENDPOINT", hub.base_url)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    write_fast_config(tmp_path)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    write_claims(
        tmp_path / "claims", [claim("intro", quote=INTRO, source=MODEL_URL)], checked=today
    )
    return tmp_path


def citation(*options: str) -> dict[str, object]:
    result = runner.invoke(app, ["verify", "-q", "--format", "json", *options])
    assert result.exit_code == 0, result.output
    (found,) = json.loads(result.stdout)["results"]
    assert found["verdict"] == "verified"
    value: dict[str, object] = found["citation"]
    return value


def test_verify_cite_links_the_card_at_the_hubs_commit_with_the_quotes_line(
    project: Path, hub: FakeHub
) -> None:
    history: History = publish(hub)
    newest = history.limitations
    assert newest.readme is not None
    lines = newest.readme.decode().splitlines()
    (line,) = [n for n, text in enumerate(lines, 1) if "Tiny Chat 7B is a 7-billion" in text]

    before = citation()
    after = citation("--cite")
    hub.clear_requests()
    again = citation("--offline")

    assert before["permalink"] is None  # fetched today: which commit it is, not yet known
    # Readers are given the public Hub, whatever server this run asked (a mirror, a test).
    expected = f"https://huggingface.co/{MODEL}/blob/{newest.sha}/README.md#L{line}"
    assert after["permalink"] == again["permalink"] == expected
    assert after["version"] == f"commit {newest.sha}"
    assert hub.requests == []  # remembered: the offline run asked nothing
