"""A store's `.cache` is trusted only in the folder it was made in.

Kept verdicts are taken without judging, kept pages without reading: a `.cache`
committed into a pull request (`git add -f`) and checked out by a CI gate must not
decide a verdict. A checkout or a copy makes a new folder (another inode), so its
cache is read as empty and cleared before anything is kept in it again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cache.kept import Kept
from claimcheck.cache.keys import CACHE_FOLDER, MADE_HERE, cache_made_here, prepare_cache
from claimcheck.cli.app import app
from support.stored_readme import store_readme

CLAIMS = """\
page: page
checked: 2026-10-20
claims:
  - id: quant
    claim: supports 1.5- to 8-bit
    source: https://github.com/o/r
    quote: "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
"""
README_WITHOUT = "# R\n\n- Runs on CPUs and GPUs, with no quantization at all.\n"
runner = CliRunner()


def kept_in(snapshots: Path) -> Kept:
    return Kept(snapshots, "answers.json", "v1")


def test_answers_kept_here_are_taken_here_and_not_in_a_copy(tmp_path: Path) -> None:
    here = tmp_path / "here" / "snapshots"
    here.mkdir(parents=True)
    keeper = kept_in(here)
    keeper.put("k", {"verdict": "verified"})
    keeper.save()
    assert cache_made_here(here)
    assert kept_in(here).get("k") == {"verdict": "verified"}

    copy = tmp_path / "copy" / "snapshots"
    shutil.copytree(here, copy)  # what a checkout of a committed .cache amounts to
    assert (copy / CACHE_FOLDER / "answers.json").is_file()
    assert not cache_made_here(copy)
    assert kept_in(copy).get("k") is None


def test_a_cache_not_made_here_is_cleared_before_anything_is_kept_in_it(tmp_path: Path) -> None:
    snapshots = tmp_path / "snapshots"
    foreign = snapshots / CACHE_FOLDER
    foreign.mkdir(parents=True)
    (foreign / "verdicts.json").write_text('{"version": "x", "verdicts": {}}')
    (foreign / MADE_HERE).write_text("1:2\n")  # another folder's identity
    keeper = kept_in(snapshots)
    keeper.put("mine", 1)
    keeper.save()
    assert sorted(p.name for p in foreign.iterdir()) == [".gitignore", MADE_HERE, "answers.json"]
    assert cache_made_here(snapshots)


def test_a_linked_cache_is_replaced_and_its_target_left_alone(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep-me").write_text("x")
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    (snapshots / CACHE_FOLDER).symlink_to(elsewhere, target_is_directory=True)
    assert not cache_made_here(snapshots)
    cache = prepare_cache(snapshots)
    assert not cache.is_symlink()
    assert cache.is_dir()
    assert (elsewhere / "keep-me").read_text() == "x"


def verdict_in(project: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    (entry,) = json.loads(result.stdout)["results"]
    return str(entry["verdict"])


def forge_verified(snapshots: Path) -> None:
    """Rewrite every kept verdict as `verified`, and every kept page as quoting it."""
    path = snapshots / CACHE_FOLDER / "verdicts.json"
    document = json.loads(path.read_text())
    for answer in document["verdicts"].values():
        answer.update(verdict="verified", score=100.0, found=None, diff=None)
    path.write_text(json.dumps(document))
    quote = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
    for page in (snapshots / CACHE_FOLDER / "pages").rglob("*.json"):
        stored = json.loads(page.read_text())
        stored["units"] = [["paragraph", quote, 0, None, None]]
        page.write_text(json.dumps(stored))


def test_a_committed_cache_cannot_make_a_missing_quote_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    author = tmp_path / "author"
    (author / "claims").mkdir(parents=True)
    (author / "claims" / "page.yaml").write_text(CLAIMS)
    store_readme(author / "snapshots", README_WITHOUT)
    assert verdict_in(author, monkeypatch) == "missing"
    forge_verified(author / "snapshots")
    # The control: where it was made, the cache is trusted, so the forgery is one
    # that would work on a cache that were taken on trust.
    assert verdict_in(author, monkeypatch) == "verified"

    gate = tmp_path / "gate"  # the CI checkout of the pull request that committed it
    shutil.copytree(author, gate)
    assert verdict_in(gate, monkeypatch) == "missing"
    assert cache_made_here(gate / "snapshots")  # cleared, and made here now
    assert verdict_in(gate, monkeypatch) == "missing"
