"""The sharded nightly workflow template: valid, wired to real commands, and it works.

Its YAML is checked as the other workflows are (GitHub's keys, no `${{ }}` inside a
script), every `claimcheck` option its scripts pass is an option of that command, and
its two scripts are run with bash as a runner would: each matrix shard against the
replay server in a clone of a project, the artifacts carried over by copying, then the
merge job's script against the fake GitHub. The merged report must hold every claim
once, and the merge job's checkout must end up with every shard's new snapshots and
their states folded into one.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from ruamel.yaml import YAML

from claimcheck.cli.app import app
from claimcheck.nightly.init import SNAPSHOTS_GITIGNORE, WORKFLOWS, template
from support.claim_files import PAGE_HTML, claim, write_claims, write_fast_config
from support.fake_github import TOKEN, FakeGitHub, require_spec
from support.replay_server import ReplayServer

# Slow: the sharded workflow run as a runner runs it.
pytestmark = pytest.mark.slow

NAME = "claimcheck-sharded.yml"
ACTION_REF = "claimcheck/claimcheck@main"


def workflow() -> dict[str, Any]:
    document: dict[str, Any] = YAML(typ="safe", pure=True).load(template(NAME))
    return document


def steps(job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = workflow()["jobs"][job]["steps"]
    return found


def script(job: str, command: str) -> str:
    (text,) = [s["run"] for s in steps(job) if command in s.get("run", "")]
    return str(text)


def shards() -> int:
    return int(workflow()["env"]["SHARDS"])


# -- the YAML ----------------------------------------------------------------------------


def test_it_is_shipped_as_a_template_beside_the_ones_init_writes() -> None:
    assert NAME not in {Path(p).name for p in WORKFLOWS}  # init's two stay as they are
    assert template(NAME).startswith("# claimcheck sharded nightly")


def test_it_has_the_keys_github_requires() -> None:
    document = workflow()

    assert {"name", "on", "permissions", "concurrency", "jobs"} <= set(document)
    assert set(document["on"]) == {"schedule", "workflow_dispatch"}
    assert document["permissions"] == {"contents": "read"}
    # One nightly at a time, whichever of the two nightly workflows a repository runs.
    assert document["concurrency"] == {"group": "claimcheck-nightly", "cancel-in-progress": False}
    for job in document["jobs"].values():
        assert job["runs-on"] == "ubuntu-latest"
        assert isinstance(job["timeout-minutes"], int)
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), step
            assert "${{" not in step.get("run", ""), step.get("name")
    uses = [s["uses"] for job in document["jobs"].values() for s in job["steps"] if "uses" in s]
    assert "actions/checkout@v4" in uses
    assert ACTION_REF not in uses  # the action runs verify unsharded; this installs claimcheck


def test_the_matrix_deals_shards_1_to_n_and_each_verifies_its_own() -> None:
    job = workflow()["jobs"]["verify"]
    (verify,) = [s for s in job["steps"] if "claimcheck verify" in s.get("run", "")]
    (upload,) = [
        s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")
    ]

    assert job["strategy"]["matrix"]["shard"] == list(range(1, shards() + 1))
    assert job["strategy"]["fail-fast"] is False
    assert verify["env"]["SHARD"] == "${{ matrix.shard }}"
    assert 'claimcheck verify --shard "$SHARD/$SHARDS"' in verify["run"]
    assert "--output json=claimcheck-part/report.json" in verify["run"]
    assert upload["with"]["name"] == "claimcheck-part-${{ matrix.shard }}"
    assert upload["with"]["path"] == "claimcheck-part/"
    assert "permissions" not in job  # read-only: the shards write nothing to the repository


def test_the_merge_job_needs_every_shard_and_merges_renders_and_syncs() -> None:
    job = workflow()["jobs"]["merge"]
    (download,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/download-")]
    run = script("merge", "claimcheck report merge")
    commit = next(s for s in job["steps"] if "git commit" in s.get("run", ""))

    assert job["needs"] == "verify"
    assert "if" not in job  # a failed shard skips the merge: its claims' issues stay open
    assert job["permissions"] == {"contents": "write", "issues": "write"}
    assert download["with"]["pattern"] == "claimcheck-part-*"
    assert download["with"]["path"] == "claimcheck-parts"
    assert "claimcheck report merge" in run
    assert "claimcheck report render claimcheck-report/report.json --format github" in run
    assert "claimcheck issues --report claimcheck-report/report.json" in run
    assert 'git add --all -- "$snapshots"' in commit["run"]  # the config's folder
    assert "steps.claimcheck.outputs.exit-code" in commit["if"]


def invocations(text: str) -> list[list[str]]:
    """Each `claimcheck ...` command line of a script (continuations joined), as words."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        if not line.strip().startswith("claimcheck "):
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = []
        for word in lexer:
            if word in {"||", "&&", ";", "|", ">", ">>"}:
                break
            words.append(word)
        found.append(words[1:])
    return found


def command_of(words: list[str]) -> tuple[Any, list[str]]:
    """The command a `claimcheck` line runs (through its groups), and its other words."""
    command: Any = typer.main.get_command(app)
    while hasattr(command, "commands"):
        assert words[0] in command.commands, words
        command, words = command.commands[words[0]], words[1:]
    return command, words


@pytest.mark.parametrize("job", ["verify", "merge"])
def test_every_option_the_scripts_pass_exists(job: str) -> None:
    lines = [words for s in steps(job) if "run" in s for words in invocations(s["run"])]
    assert lines
    for words in lines:
        command, rest = command_of(words)
        known = {name for param in command.params for name in (*param.opts, *param.secondary_opts)}
        for word in rest:
            if word.startswith("-"):
                assert word.split("=", 1)[0] in known, (command.name, word)


# -- the scripts, run --------------------------------------------------------------------


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def bash(folder: Path, text: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    path = folder.parent / f"{folder.name}.sh"
    path.write_text(text, encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)],
        cwd=folder,
        env={
            **base,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "NO_COLOR": "1",
            "SHARDS": str(shards()),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def repository(tmp_path: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed project: eight web pages and two READMEs; one quote is gone."""
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    root = tmp_path / "repository"
    entries = []
    for number in range(8):
        url = replay.set_page(f"/docs/page-{number}.html", PAGE_HTML)
        entries.append(claim(f"page-{number}", source=url))
    entries.append(claim("llamacpp", source="https://github.com/ggml-org/llama.cpp"))
    entries.append(
        claim("vllm-gone", quote="zero-bit weights", source="https://github.com/vllm-project/vllm")
    )
    entries.append(claim("cited", source=None, quote=None, cited="a book"))
    write_claims(root / "claims", entries, checked="2026-10-20")
    write_fast_config(root)
    (root / "snapshots").mkdir()
    (root / "snapshots" / ".gitignore").write_text(SNAPSHOTS_GITIGNORE)
    git(root, "init", "-q")
    git(root, "add", "--all")
    git(root, "commit", "-q", "-m", "claims")
    return root


def test_the_shards_and_the_merge_run_as_a_runner_runs_them(
    repository: Path, replay: ReplayServer, tmp_path: Path
) -> None:
    parts = tmp_path / "merge" / "claimcheck-parts"
    for k in range(1, shards() + 1):
        clone = tmp_path / f"shard-{k}"
        shutil.copytree(repository, clone)
        done = bash(
            clone,
            script("verify", "claimcheck verify"),
            {"SHARD": str(k), "GITHUB_API_URL": replay.base_url, "GITHUB_TOKEN": ""},
        )
        assert done.returncode == 0, done.stderr
        assert f"shard {k} of {shards()}: " in done.stderr
        # upload-artifact, then download-artifact with `pattern`: one folder per artifact
        shutil.copytree(clone / "claimcheck-part", parts / f"claimcheck-part-{k}")
        assert not (parts / f"claimcheck-part-{k}" / "snapshots" / "state.json").exists()

    merge = tmp_path / "merge"
    shutil.copytree(repository, merge, dirs_exist_ok=True)
    outputs = tmp_path / "github-output"
    with FakeGitHub(require_spec(), repo="desk/site") as github:
        done = bash(
            merge,
            script("merge", "claimcheck report merge"),
            {
                "GITHUB_API_URL": github.base_url,
                "GITHUB_TOKEN": TOKEN,
                "GITHUB_REPOSITORY": "desk/site",
                "GITHUB_OUTPUT": str(outputs),
                "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            },
        )
    assert not github.errors, github.errors

    assert done.returncode == 0, done.stderr
    assert outputs.read_text() == "exit-code=1\n"  # one stale claim; issues, not a red run
    report = json.loads((merge / "claimcheck-report" / "report.json").read_text())
    assert len(report["results"]) == 11
    assert [r["id"] for r in report["results"] if r["stale"]] == ["vllm-gone"]
    assert sorted(p.name for p in (merge / "claimcheck-report").iterdir()) == [
        "report.html",
        "report.json",
        "report.md",
    ]
    (issue,) = github.open_issues()
    assert "vllm-gone" in (issue.body or "")
    assert "vllm-gone" in (tmp_path / "summary.md").read_text()
    # Every shard's new snapshot files are in the merge job's checkout, ready to commit.
    stored = {
        p.relative_to(merge).as_posix()
        for p in (merge / "snapshots").rglob("*")
        if p.is_file() and ".cache" not in p.parts
    }
    fetched = {
        p.relative_to(tmp_path / f"shard-{k}").as_posix()
        for k in range(1, shards() + 1)
        for p in (tmp_path / f"shard-{k}" / "snapshots").rglob("*")
        if p.is_file() and ".cache" not in p.parts and p.name != "state.json"
    }
    assert fetched - {"snapshots/.gitignore"} <= stored
    assert len([p for p in stored if p.endswith((".md", ".html"))]) == 10
    # The shards' states are folded into the one the merge job commits: every claim's
    # verdict is remembered, and so is every source the shards fetched.
    state = json.loads((merge / "snapshots" / "state.json").read_text())
    verdicts = {claim_id: entry["verdict"] for claim_id, entry in state["claims"].items()}
    assert verdicts == {r["id"]: r["verdict"] for r in report["results"]}
    assert len(state["sources"]) == 10
    assert "merged 4 state files into snapshots/state.json" in done.stderr


def test_the_merge_refuses_when_a_shard_is_missing(repository: Path, tmp_path: Path) -> None:
    merge = tmp_path / "merge"
    shutil.copytree(repository, merge)
    (merge / "claimcheck-parts" / "claimcheck-part-1").mkdir(parents=True)
    (merge / "claimcheck-parts" / "claimcheck-part-1" / "report.json").write_text("{}")
    outputs = tmp_path / "github-output"

    done = bash(merge, script("merge", "claimcheck report merge"), {"GITHUB_OUTPUT": str(outputs)})

    assert done.returncode == 2
    assert f"1 of {shards()} shard reports arrived" in done.stdout
    assert not outputs.exists()  # no exit-code output: the commit step does not run
