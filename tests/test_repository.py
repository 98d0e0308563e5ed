"""This repository's own claims and snapshots: the README's first command works offline."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.store.store import Store
from support import paths
from support.corpus_snapshots import CORPUS, newest

ROOT = paths.ROOT


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)
    return ROOT


def test_every_sourced_claim_has_a_stored_snapshot(in_repo: Path) -> None:
    store = Store(in_repo / "snapshots")
    claims = load_claims([in_repo / "claims"], read=read_document)
    assert len(claims) > 50
    for claim in claims:
        if claim.source:
            assert store.latest(resolve_source(claim.source).key), claim.id


def kept(snapshots: Path) -> dict[Path, bytes]:
    """The snapshots folder's files but its derived cache (pages read, never committed)."""
    cache = snapshots / ".cache"
    return {
        p: p.read_bytes()
        for p in snapshots.rglob("*")
        if p.is_file() and not p.is_relative_to(cache)
    }


def test_offline_verify_gives_a_real_report_and_touches_nothing(in_repo: Path) -> None:
    """Nothing committed changes; the pages read go to the cache, which git ignores."""
    before = kept(in_repo / "snapshots")
    result = CliRunner().invoke(app, ["verify", "--offline", "--format", "json"])
    doc = json.loads(result.stdout)
    assert result.exit_code == doc["exit_code"]
    assert result.exit_code in (0, 1), result.stderr
    by_id = {r["id"]: r for r in doc["results"]}
    assert by_id["llamacpp-quantization"]["verdict"] == "verified"
    assert by_id["tgi-maintenance-mode"]["verdict"] == "verified"
    assert all(r["verdict"] != "unverified" or r["source"] is None for r in doc["results"]), (
        "a sourced claim has no snapshot"
    )
    assert kept(in_repo / "snapshots") == before
    cache = in_repo / "snapshots" / ".cache"
    assert any((cache / "pages").rglob("*.json"))
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    again = CliRunner().invoke(app, ["verify", "--offline", "--format", "json"])
    assert json.loads(again.stdout)["results"] == doc["results"]  # read from the cache


def test_shipped_snapshots_are_the_corpus_heads() -> None:
    if not CORPUS.is_dir():
        pytest.fail("README history corpus missing from tests/data")
    store = Store(ROOT / "snapshots")
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        version = newest(folder)
        latest = store.latest(resolve_source(f"https://github.com/{version.repo}").key)
        assert latest is not None
        assert latest.origin == f"commit {version.commit}"
        assert (
            ROOT / "snapshots" / latest.key / latest.file
        ).read_bytes() == version.path.read_bytes()


def test_the_carried_corpus_is_byte_for_byte_upstream() -> None:
    """Every README text in tests/data matches the SHA-256 its index recorded upstream:
    no formatter, editor or line-ending filter has touched the test data."""
    checked = 0
    for index in sorted(CORPUS.glob("*/index.json")):
        for entry in json.loads(index.read_text(encoding="utf-8")):
            if entry.get("file") and entry.get("changed"):
                body = (index.parent / entry["file"]).read_bytes()
                assert hashlib.sha256(body).hexdigest() == entry["sha256"], entry["file"]
                checked += 1
    assert checked >= 280


def test_every_sourced_claim_has_its_baseline_offline(in_repo: Path) -> None:
    """The shipped snapshots are vouched for the desk's check date, as history vouched for
    them: the offline gate judges each sourced claim against a baseline, none asked for."""
    result = CliRunner().invoke(app, ["verify", "--offline", "--format", "json"])
    results = json.loads(result.stdout)["results"]
    sourced = [r for r in results if r["source"] is not None]
    assert len(sourced) > 50
    assert [r["id"] for r in sourced if r["baseline"] is None] == []
    assert {r["baseline_origin"][:7] for r in sourced} == {"commit "}
