"""`verify --changed-since REF`: a pull request's gate judges only what it changed.

Each test makes a real git repository: a desk of two claim files on three GitHub
sources (and one citation-needed claim), with this repository's stored snapshots of
those sources, committed on `main`; a branch then changes one thing, and the offline
gate must judge exactly the claims that change concerns, and say why on stderr.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from support import paths
from support.claim_files import claim, write_claims
from support.cli_runs import run, show

OLLAMA = "https://github.com/ollama/ollama"
MLC = "https://github.com/mlc-ai/mlc-llm"
LMDEPLOY = "https://github.com/InternLM/lmdeploy"
SOURCES = ("ollama/ollama", "mlc-ai/mlc-llm", "InternLM/lmdeploy")
EVERY = {"ollama-local", "mlc-portable", "lmdeploy-api", "hub-cited"}


def git(folder: Path, *args: str) -> str:
    """Run git in the desk, as its owner would; its output."""
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def commit(folder: Path, message: str) -> None:
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", message)


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository on `main` holding the desk, then on a branch `change`."""
    root = tmp_path / "desk"
    root.mkdir()
    shutil.copy(paths.ROOT / "claimcheck.toml", root / "claimcheck.toml")
    for repo in SOURCES:
        shutil.copytree(
            paths.ROOT / "snapshots" / "github.com" / repo,
            root / "snapshots" / "github.com" / repo,
            ignore=shutil.ignore_patterns(".cache", ".tmp-*"),
        )
    write_claims(
        root / "claims",
        [
            claim("ollama-local", "Get up and running with large language models", OLLAMA),
            claim("mlc-portable", "deploy AI models natively", MLC),
        ],
        name="tools.yaml",
        page="tools",
    )
    write_claims(
        root / "claims",
        [
            claim("lmdeploy-api", "OpenAI", LMDEPLOY),
            claim("hub-cited", None, None, cited="the vendor's white paper"),
        ],
        name="servers.yaml",
        page="servers",
    )
    (root / ".gitignore").write_text("snapshots/.cache/\nsnapshots/state.json\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "desk@example.org")
    git(root, "config", "user.name", "Desk")
    git(root, "config", "commit.gpgsign", "false")
    commit(root, "the desk")
    git(root, "switch", "-q", "-c", "change")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return root


def judged(*args: str) -> tuple[set[str], str]:
    """The ids an offline `verify --changed-since main` judged, and what it said on stderr."""
    result = run("verify", "--offline", "-f", "json", "--changed-since", "main", *args)
    assert result.exit_code in (0, 1, 3), show(result)
    ids = {r["id"] for r in json.loads(result.stdout)["results"]}
    return ids, result.stderr


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_changed_claim_file_selects_only_its_claims(desk: Path) -> None:
    edit(desk / "claims" / "servers.yaml", "the claim lmdeploy-api", "LMDeploy speaks OpenAI")
    commit(desk, "reword")
    ids, said = judged()
    assert ids == {"lmdeploy-api", "hub-cited"}
    assert "judging 2 of 4 claims changed since main: 2 in claims/servers.yaml (changed)" in said


def test_an_uncommitted_change_counts(desk: Path) -> None:
    edit(desk / "claims" / "tools.yaml", "the claim mlc-portable", "MLC runs anywhere")
    ids, said = judged()
    assert ids == {"ollama-local", "mlc-portable"}
    assert "2 in claims/tools.yaml (changed)" in said


def test_a_renamed_claim_file_counts_as_changed(desk: Path) -> None:
    git(desk, "mv", "claims/tools.yaml", "claims/local-tools.yaml")
    commit(desk, "rename")
    ids, said = judged()
    assert ids == {"ollama-local", "mlc-portable"}
    assert "2 in claims/local-tools.yaml (changed)" in said


def test_a_changed_snapshot_selects_the_claims_on_its_source(desk: Path) -> None:
    folder = desk / "snapshots" / "github.com" / "ollama" / "ollama" / "README"
    (folder / "review-note.txt").write_text("looked at on the desk\n", encoding="utf-8")
    commit(desk, "a stored file of ollama's README")
    ids, said = judged()
    assert ids == {"ollama-local"}
    assert (
        "judging 1 of 4 claims changed since main: "
        "1 on github.com/ollama/ollama/README (snapshot changed)"
    ) in said


def test_a_changed_config_selects_every_claim(desk: Path) -> None:
    with (desk / "claimcheck.toml").open("a", encoding="utf-8") as toml:
        toml.write("# reviewed\n")
    commit(desk, "config")
    ids, said = judged()
    assert ids == EVERY
    assert "judging 4 of 4 claims changed since main: 4 in claimcheck.toml (changed)" in said


def test_nothing_changed_judges_nothing_and_passes(desk: Path) -> None:
    (desk / "notes.md").write_text("unrelated\n", encoding="utf-8")
    commit(desk, "an unrelated file")
    result = run("verify", "--offline", "-f", "json", "--changed-since", "main")
    assert result.exit_code == 0, show(result)
    assert json.loads(result.stdout)["results"] == []
    assert "judging 0 of 4 claims: nothing they rest on changed since main" in result.stderr


def test_other_claims_are_left_out_of_every_format(desk: Path) -> None:
    edit(desk / "claims" / "servers.yaml", "the claim lmdeploy-api", "LMDeploy speaks OpenAI")
    result = run("verify", "--offline", "-f", "table", "--changed-since", "main")
    assert result.exit_code in (0, 1, 3), show(result)
    assert "lmdeploy-api" in result.stdout
    assert "ollama-local" not in result.stdout
    assert "mlc-portable" not in result.stdout


def test_an_unknown_ref_is_a_usage_error(desk: Path) -> None:
    result = run("verify", "--offline", "--changed-since", "no-such-branch")
    assert result.exit_code == 2, show(result)
    assert "no commit 'no-such-branch'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_ref_like_an_option_is_refused(desk: Path) -> None:
    result = run("verify", "--offline", "--changed-since=--output=x")
    assert result.exit_code == 2, show(result)
    assert "'--output=x' is not a git ref" in result.stderr
    assert not (desk / "x").exists()


def test_outside_a_git_repository_is_a_usage_error(desk: Path) -> None:
    shutil.rmtree(desk / ".git")
    result = run("verify", "--offline", "--changed-since", "main")
    assert result.exit_code == 2, show(result)
    assert "is not in a git repository" in result.stderr
    assert "Traceback" not in result.stderr


def test_without_git_installed_is_a_usage_error(
    desk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(desk / "no-bin"))
    result = run("verify", "--offline", "--changed-since", "main")
    assert result.exit_code == 2, show(result)
    assert "git is not installed" in result.stderr


def test_the_job_summary_says_what_was_judged_and_why(
    desk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = desk / "snapshots" / "github.com" / "InternLM" / "lmdeploy" / "README"
    (folder / "review-note.txt").write_text("looked at\n", encoding="utf-8")
    edit(desk / "claims" / "tools.yaml", "the claim mlc-portable", "MLC runs anywhere")
    commit(desk, "two changes")
    summary = desk.parent / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run("verify", "--offline", "-f", "github", "--changed-since", "main")
    assert result.exit_code in (0, 1, 3), show(result)
    written = summary.read_text(encoding="utf-8")
    assert written.startswith(
        "## Claims changed since `main`\n"
        "\n"
        "Judged 3 of 4 claims: those whose claim file or article, config or source's "
        "stored snapshot changed.\n"
        "\n"
        "| Claim | Why it was judged |\n"
        "|---|---|\n"
        "| `lmdeploy-api` | `github.com/InternLM/lmdeploy/README` snapshot changed |\n"
        "| `ollama-local` | `claims/tools.yaml` changed |\n"
        "| `mlc-portable` | `claims/tools.yaml` changed |\n"
        "\n## claimcheck: 3 claims"
    )
    assert "hub-cited" not in written


def test_verbose_names_each_judged_claim_and_its_reason(desk: Path) -> None:
    edit(desk / "claims" / "servers.yaml", "the claim lmdeploy-api", "LMDeploy speaks OpenAI")
    result = run("verify", "-v", "--offline", "-f", "json", "--changed-since", "main")
    assert result.exit_code in (0, 1, 3), show(result)
    assert "judging lmdeploy-api: claims/servers.yaml (changed)" in result.stderr
    assert "judging hub-cited: claims/servers.yaml (changed)" in result.stderr
    assert "judging ollama-local" not in result.stderr


ARTICLE = """\
---
page: ollama
title: Ollama
checked: 2026-10-20
---

Ollama helps you [get up and running]({link})<!-- claim: ollama-article --> on a laptop.
""".format(link="https://github.com/ollama/ollama#:~:text=Get%20up%20and%20running")


def test_a_changed_article_selects_its_claims(desk: Path) -> None:
    git(desk, "switch", "-q", "main")
    (desk / "content").mkdir()
    (desk / "content" / "ollama.md").write_text(ARTICLE, encoding="utf-8")
    toml = desk / "claimcheck.toml"
    edit(toml, 'claims = ["claims"]', 'claims = ["claims", "content/ollama.md"]')
    commit(desk, "an article")
    git(desk, "switch", "-q", "-c", "article-edit")
    edit(desk / "content" / "ollama.md", "on a laptop", "on your own machine")
    commit(desk, "reword the article")
    ids, said = judged()
    assert ids == {"ollama-article"}
    assert "judging 1 of 5 claims changed since main: 1 in content/ollama.md (changed)" in said
