"""Absence claims end to end: `verify --offline` on stored snapshots of a real README.

TGI's README of 2026-01 says "text-generation-inference is now in maintenance mode"; the
one before does not. A claim that it is not in maintenance mode holds on the older
snapshot and is `contradicted` (stale, exit 1) on the newer, with the unit that says it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.sources.store import Store
from support import paths
from support.corpus_snapshots import CORPUS, import_history, versions

TGI = CORPUS / "huggingface__text-generation-inference"
README = (paths.ROOT / "README.md").read_text(encoding="utf-8")


def readme_example(marker: str) -> str:
    """The README's example claim (the entry of a claims list) under `<!-- marker -->`."""
    found = re.search(rf"<!-- {marker} -->\n```yml\n(.*?)```", README, re.S)
    assert found is not None, f"README has no {marker} example"
    return found.group(1)


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
