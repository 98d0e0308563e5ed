"""`verify`, `diff` and `explain` name the same text for a reworded prose quote when a
code block on the page holds its words too: the sentence that replaced it.

The pages are the dynamo README as it read in March and April 2026 (the golden case
`drift-prose-not-replaced-by-code-dynamo`): the line "Start the frontend:" became
"Then start the frontend and a worker as shown above.", and the container's code
block above it says "start frontend and worker".
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from support import stored_readme

CASE = Path(__file__).resolve().parents[1] / "cases" / "drift-prose-not-replaced-by-code-dynamo"
QUOTE = "Start the frontend:"
REPLACED_BY = "Then start the frontend and a worker as shown above."
CODE_BLOCK = "# Pull a prebuilt container (SGLang example)"

runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def show(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose store holds the README on the claim's check date and now."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n[verdict]\nmax_age_days = 0\n"
    )
    for name, day in (("before.md", dt.date(2026, 3, 1)), ("after.md", dt.date(2026, 4, 1))):
        body = (CASE / name).read_text(encoding="utf-8")
        stored_readme.store_readme(tmp_path / "snapshots", body, day=day)
    (tmp_path / "claims" / "p.yaml").write_text(
        "page: p\nchecked: 2026-03-15\nclaims:\n  - id: frontend\n    claim: c\n"
        f'    source: https://github.com/o/r\n    quote: "{QUOTE}"\n'
    )
    return tmp_path


def test_verify_names_the_sentence_not_the_code_block(project: Path) -> None:
    result = run("verify", "--offline", "--format", "json")

    assert result.exit_code == 1, show(result)
    (found,) = json.loads(result.stdout)["results"]
    assert found["verdict"] == "drifted"
    assert found["found"] == REPLACED_BY


def test_diff_shows_the_text_the_judge_names(project: Path) -> None:
    result = run("diff", "frontend")

    assert result.exit_code == 0, show(result)
    now = result.stdout.split("--- now", 1)[1].split("--- word diff", 1)[0]
    assert REPLACED_BY in now, show(result)
    assert CODE_BLOCK not in now, show(result)


def test_explain_shows_the_text_the_judge_names(project: Path) -> None:
    result = run("explain", "frontend")

    assert result.exit_code == 0, show(result)
    assert REPLACED_BY in result.stdout, show(result)
    assert CODE_BLOCK not in result.stdout, show(result)
