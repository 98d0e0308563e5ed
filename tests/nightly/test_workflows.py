"""The GitHub Action and workflows: valid YAML with GitHub's required keys, one text, safe scripts.

The action's own script is also run with bash, as a runner would run it, against the
replay server (and the fake GitHub for issues): the inputs reach it only through the
`env:` mapping that action.yml declares.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from claimcheck.nightly.init import WORKFLOWS, template
from claimcheck.nightly.scheduler import cron_trigger
from support import paths
from support.claim_files import PAGE_HTML, claim, write_claims
from support.fake_github import TOKEN, FakeGitHub, require_spec
from support.replay_server import ReplayServer

ROOT = paths.ROOT
ACTION = ROOT / "action.yml"
ACTION_REF = "claimcheck/claimcheck@main"
INPUT = re.compile(r"^\$\{\{ inputs\.([a-z-]+) \}\}$")


def load(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def workflow(path: str) -> dict[str, Any]:
    document: dict[str, Any] = load(ROOT / path)
    return document


def steps_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in document:
        steps: list[dict[str, Any]] = document["runs"]["steps"]
        return steps
    return [step for job in document["jobs"].values() for step in job["steps"]]


ALL_FILES = [str(ACTION.relative_to(ROOT)), *WORKFLOWS]


# -- one text ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", WORKFLOWS)
def test_the_repository_runs_the_workflows_init_writes(path: str) -> None:
    assert (ROOT / path).read_text(encoding="utf-8") == template(Path(path).name)


# -- what GitHub requires --------------------------------------------------------------


@pytest.mark.parametrize("path", WORKFLOWS)
def test_workflows_have_the_keys_github_requires(path: str) -> None:
    document = workflow(path)

    assert {"name", "on", "permissions", "concurrency", "jobs"} <= set(document)
    assert document["concurrency"]["group"].startswith("claimcheck-")
    for job in document["jobs"].values():
        assert job["runs-on"] == "ubuntu-latest"
        assert isinstance(job["timeout-minutes"], int)
        assert job["steps"]
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), step
    uses = [step["uses"] for step in steps_of(document) if "uses" in step]
    assert ACTION_REF in uses
    assert "actions/checkout@v4" in uses


def test_the_nightly_runs_at_an_odd_minute_or_by_hand_with_least_permissions() -> None:
    document = workflow(WORKFLOWS[0])
    (schedule,) = document["on"]["schedule"]
    minute = schedule["cron"].split()[0]

    assert int(minute) % 2 == 1  # off the top of the hour, when GitHub is busiest
    cron_trigger(schedule["cron"], "UTC")  # a valid crontab expression
    assert "workflow_dispatch" in document["on"]
    assert document["permissions"] == {"contents": "write", "issues": "write"}
    assert document["concurrency"]["cancel-in-progress"] is False  # never cut a commit short


def test_the_nightly_uploads_the_html_report_syncs_issues_and_commits_snapshots() -> None:
    steps = steps_of(workflow(WORKFLOWS[0]))
    check = next(s for s in steps if s.get("uses") == ACTION_REF)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    commit = next(s for s in steps if "git commit" in s.get("run", ""))

    assert "html" in check["with"]["formats"].split()
    assert check["with"]["issues"] == "true"
    assert check["with"]["gate"] == "false"
    assert upload["with"]["path"].rstrip("/") == load(ACTION)["inputs"]["report-dir"]["default"]
    assert upload["if"] == "${{ !cancelled() }}"
    assert "git add --all -- snapshots" in commit["run"]
    assert "git push" in commit["run"]
    assert check["id"] in commit["if"]


def test_the_verify_workflow_gates_pull_requests_that_touch_claims_or_snapshots() -> None:
    document = workflow(WORKFLOWS[1])

    assert set(document["on"]) == {"pull_request"}
    assert {"claims/**", "snapshots/**"} <= set(document["on"]["pull_request"]["paths"])
    assert document["permissions"] == {"contents": "read"}
    assert document["concurrency"]["cancel-in-progress"] is True


def test_the_action_is_composite_and_declares_its_inputs_and_outputs() -> None:
    document = load(ACTION)

    assert {"name", "description", "inputs", "outputs", "runs"} <= set(document)
    assert document["runs"]["using"] == "composite"
    for name, spec in document["inputs"].items():
        assert spec["description"], name
        assert "default" in spec, name
    for name, spec in document["outputs"].items():
        assert spec["value"].startswith("${{ steps."), name
    for step in document["runs"]["steps"]:
        assert ("uses" in step) != ("run" in step), step
        if "run" in step:
            assert step["shell"] == "bash"  # composite run steps must name their shell
    used = {
        match[1]
        for step in document["runs"]["steps"]
        for value in [*step.get("env", {}).values(), *step.get("with", {}).values()]
        if (match := INPUT.match(str(value)))
    }
    assert used == set(document["inputs"])  # every input is used, each through env or with


@pytest.mark.parametrize("path", ALL_FILES)
def test_no_expression_is_inlined_into_a_script(path: str) -> None:
    """`${{ }}` in a script is pasted in before bash runs: an input could become code."""
    for step in steps_of(load(ROOT / path)):
        assert "${{" not in step.get("run", ""), step.get("name")


def test_the_action_installs_from_its_own_path_and_verifies_with_annotations() -> None:
    steps = load(ACTION)["runs"]["steps"]
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    script = verify_step()["run"]

    assert install["env"] == {"CLAIMCHECK_SOURCE": "${{ github.action_path }}"}
    assert '"$CLAIMCHECK_SOURCE"' in install["run"]
    assert "verify --format github" in script
    assert "claimcheck issues --report" in script


# -- the action's script, run ----------------------------------------------------------


def verify_step() -> dict[str, Any]:
    step: dict[str, Any] = next(s for s in load(ACTION)["runs"]["steps"] if s.get("id") == "verify")
    return step


@pytest.fixture
def project(tmp_path: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claims of pages on the replay server, which also answers for the Wayback Machine."""
    replay.set_page("/docs/page.html", PAGE_HTML)
    (tmp_path / "claimcheck.toml").write_text("[fetch]\nper_host_interval = 0\n")
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    return tmp_path


def run_action(
    project: Path, api: str, inputs: dict[str, str], **env: str
) -> tuple[int, dict[str, str]]:
    """Run the verify step's script as a runner does; its exit code and step outputs."""
    spec = load(ACTION)["inputs"]
    step_env = {}
    for name, value in verify_step()["env"].items():
        match = INPUT.match(value)
        assert match, value
        step_env[name] = inputs.get(match[1], spec[match[1]]["default"])
    step_env["GITHUB_TOKEN"] = inputs.get("token", "")
    outputs, summary = project / "github-output", project / "step-summary"
    script = project / "verify.sh"
    script.write_text(verify_step()["run"])
    base = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=project,
        env={
            **base,
            **step_env,
            **env,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_API_URL": api,
            "GITHUB_OUTPUT": str(outputs),
            "GITHUB_STEP_SUMMARY": str(summary),
            "NO_COLOR": "1",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, values


def page_claims(project: Path, replay: ReplayServer, *, stale: bool) -> None:
    page = f"{replay.base_url}/docs/page.html"
    entries = [claim("holds", source=page)]
    if stale:
        entries.append(claim("gone-quote", quote="zero-bit weights", source=page))
    write_claims(project / "claims", entries, checked=dt.date.today().isoformat())


def test_the_action_verifies_writes_the_formats_and_summarizes(
    project: Path, replay: ReplayServer
) -> None:
    page_claims(project, replay, stale=False)

    code, outputs = run_action(
        project,
        replay.base_url,
        {"formats": "html markdown", "paths": "claims", "fail-on": "expired"},
    )

    assert code == 0
    assert outputs == {"exit-code": "0", "report-dir": "claimcheck-report"}
    report = project / "claimcheck-report"
    assert sorted(p.name for p in report.iterdir()) == ["report.html", "report.json", "report.md"]
    assert "holds" in (project / "step-summary").read_text()  # the job summary


def test_the_gate_fails_on_a_stale_claim(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=True)

    code, outputs = run_action(project, replay.base_url, {})

    assert (code, outputs["exit-code"]) == (1, "1")


def test_bad_input_fails_even_without_the_gate(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=False)

    code, outputs = run_action(project, replay.base_url, {"formats": "nope", "gate": "false"})

    assert (code, outputs["exit-code"]) == (2, "2")


@pytest.fixture
def github(project: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(require_spec(), repo="desk/site") as fake:
        yield fake
    assert not fake.errors, "\n".join(fake.errors)


def test_without_the_gate_stale_claims_pass_and_become_issues(
    project: Path, replay: ReplayServer, github: FakeGitHub
) -> None:
    page_claims(project, replay, stale=True)

    code, outputs = run_action(
        project,
        github.base_url,
        {"issues": "true", "gate": "false", "token": TOKEN},
        GITHUB_REPOSITORY="desk/site",
    )

    assert (code, outputs["exit-code"]) == (0, "1")
    (issue,) = github.open_issues()
    assert "gone-quote" in (issue.body or "")
