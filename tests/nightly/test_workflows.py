"""The GitHub Action and workflows: valid YAML with GitHub's required keys, one text, safe scripts.

The action's own scripts are also run with bash, as a runner would run them, against
the replay server (and the fake GitHub for issues): the inputs reach them only through
the `env:` mapping that action.yml declares. The install is run too, offline, from a
package folder holding a stand-in claimcheck wheel made here.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from claimcheck.models import Verdict
from claimcheck.nightly.init import WORKFLOWS, pin_release, release_tag, template, write_project
from claimcheck.nightly.scheduler import cron_trigger
from support import paths
from support.claim_files import PAGE_HTML, claim, write_claims
from support.cli_runs import run
from support.fake_github import TOKEN, FakeGitHub, require_spec
from support.github_outputs import read_outputs
from support.replay_server import ReplayServer

# Slow: runs the action's and the workflows' steps in bash, some in fresh virtual environments.
pytestmark = pytest.mark.slow

ROOT = paths.ROOT
ACTION = ROOT / "action.yml"
TEMPLATES_DIR = ROOT / "src" / "claimcheck" / "nightly" / "templates"
ACTION_REF = f"claimcheck/claimcheck@{release_tag()}"
INPUT = re.compile(r"^\$\{\{ inputs\.([a-z-]+) \}\}$")
STEP_OUTPUT = re.compile(r"^\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}$")


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
    assert check["with"]["fail"] == "false"
    assert upload["with"]["path"].rstrip("/") == load(ACTION)["inputs"]["report-dir"]["default"]
    assert upload["if"] == "${{ !cancelled() }}"
    assert "snapshots=$(claimcheck config get snapshots)" in commit["run"]
    assert 'git add --all -- "$snapshots"' in commit["run"]
    assert "git push" in commit["run"]
    assert check["id"] in commit["if"]


@pytest.mark.parametrize(
    "path", [WORKFLOWS[0], "src/claimcheck/nightly/templates/claimcheck-sharded.yml"]
)
def test_the_nightly_notifies_from_secrets_before_it_commits(path: str) -> None:
    """The default route's URLs come from the secret of the same name, through `env:`;
    a failing route is a warning, not a failed night; what was told is committed."""
    steps = steps_of(workflow(path))
    notify = next(s for s in steps if "claimcheck notify --report" in s.get("run", ""))
    commit = next(s for s in steps if "git commit" in s.get("run", ""))

    assert notify["env"]["CLAIMCHECK_NOTIFY"] == "${{ secrets.CLAIMCHECK_NOTIFY }}"
    assert '[ "$code" = 3 ]' in notify["run"]
    assert "::warning" in notify["run"]
    assert steps.index(notify) < steps.index(commit)
    assert "!cancelled()" in notify["if"]


def test_the_verify_workflow_gates_pull_requests_that_touch_claims_or_snapshots() -> None:
    document = workflow(WORKFLOWS[1])

    assert set(document["on"]) == {"pull_request"}
    assert {"claims/**", "snapshots/**"} <= set(document["on"]["pull_request"]["paths"])
    assert document["permissions"] == {"contents": "read"}
    assert document["concurrency"]["cancel-in-progress"] is True


def test_the_verify_workflow_judges_only_what_the_pull_request_changed() -> None:
    steps = steps_of(workflow(WORKFLOWS[1]))
    checkout = next(s for s in steps if s.get("uses") == "actions/checkout@v4")
    check = next(s for s in steps if s.get("uses") == ACTION_REF)

    assert checkout["with"]["fetch-depth"] == 0  # the base branch's commits are there
    assert check["with"]["args"] == "--changed-since origin/${{ github.base_ref }}"
    assert "claimcheck.toml" in workflow(WORKFLOWS[1])["on"]["pull_request"]["paths"]


def test_the_action_is_composite_and_declares_its_inputs_and_outputs() -> None:
    document = load(ACTION)

    assert {"name", "description", "inputs", "outputs", "runs"} <= set(document)
    assert document["runs"]["using"] == "composite"
    for name, spec in document["inputs"].items():
        assert spec["description"], name
        assert "default" in spec, name
    for name, spec in document["outputs"].items():
        assert spec["description"], name
        assert STEP_OUTPUT.match(spec["value"]), name
    counted = {
        name for name, spec in document["outputs"].items() if "How many" in spec["description"]
    }
    assert counted == {"total", *(v.value for v in Verdict)}  # one count per verdict
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


def test_the_deprecated_gate_still_works_and_says_what_replaced_it() -> None:
    inputs = load(ACTION)["inputs"]

    assert "`fail`" in inputs["gate"]["deprecationMessage"]
    assert inputs["gate"]["default"] == ""  # unset: `fail` decides
    assert inputs["fail"]["default"] == "true"


def test_the_action_leaves_the_callers_python_alone_and_caches_pip_by_its_pyproject() -> None:
    _checked, python, plan, cache, install, verify = load(ACTION)["runs"]["steps"]

    assert python["uses"].startswith("actions/setup-python@")
    assert python["with"]["update-environment"] is False  # no PATH or env change
    assert plan["env"]["CLAIMCHECK_SOURCE"] == "${{ github.action_path }}"
    assert "pyproject.toml" in plan["run"]  # hashFiles() cannot see the action's folder
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"] == {
        "path": "${{ steps.plan.outputs.pip-cache }}",
        "key": "${{ steps.plan.outputs.cache-key }}",
        "restore-keys": "${{ steps.plan.outputs.cache-prefix }}",
    }
    assert install["env"]["PIP_CACHE_DIR"] == cache["with"]["path"]
    assert verify["id"] == "verify"
    assert "verify --format github" in verify["run"]
    assert '"$CLAIMCHECK" issues --report' in verify["run"]


# -- the action's scripts, run ---------------------------------------------------------


def action_step(step_id: str) -> dict[str, Any]:
    step: dict[str, Any] = next(s for s in load(ACTION)["runs"]["steps"] if s.get("id") == step_id)
    return step


@dataclass(frozen=True)
class Ran:
    code: int
    outputs: dict[str, str]
    stdout: str
    stderr: str


def run_step(
    step_id: str,
    cwd: Path,
    inputs: Mapping[str, str],
    earlier: Mapping[str, Mapping[str, str]],
    **env: str,
) -> Ran:
    """Run one run step's script as a runner does: its env from inputs and earlier outputs.

    An input not given takes its default (`${{ github.token }}` becomes empty); an
    earlier step's output comes from `earlier`, by step id.
    """
    spec = load(ACTION)["inputs"]
    step = action_step(step_id)
    step_env = {}
    for name, value in step.get("env", {}).items():
        if match := INPUT.match(value):
            default = str(spec[match[1]]["default"])
            step_env[name] = inputs.get(match[1], "" if "${{" in default else default)
        elif match := STEP_OUTPUT.match(value):
            step_env[name] = earlier[match[1]][match[2]]
        elif value == "${{ github.server_url }}/${{ github.action_repository }}":
            step_env[name] = env.pop(
                "ACTION_REPOSITORY", "https://github.com/claimcheck/claimcheck"
            )
        else:
            assert value == "${{ github.action_path }}", value
            step_env[name] = str(ROOT)
    outputs = cwd.parent / f"{cwd.name}-{step_id}-output"
    outputs.write_text("")
    script = cwd.parent / f"{cwd.name}-{step_id}.sh"
    script.write_text(step["run"])
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env={**base, **step_env, "GITHUB_OUTPUT": str(outputs), "NO_COLOR": "1", **env},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    values = read_outputs(outputs.read_bytes().decode("utf-8"))  # a CR stays a CR
    assert "Traceback" not in done.stderr, done.stderr
    return Ran(done.returncode, values, done.stdout, done.stderr)


@pytest.fixture
def project(tmp_path: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claims of pages on the replay server, which also answers for the Wayback Machine."""
    replay.set_page("/docs/page.html", PAGE_HTML)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "claimcheck.toml").write_text("[fetch]\nper_host_interval = 0\n")
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    return workspace


# The install step's outputs when claimcheck is the one running these tests.
INSTALLED = {
    "install": {
        "claimcheck": str(Path(sys.executable).parent / "claimcheck"),
        "python": sys.executable,
    }
}


def run_action(project: Path, api: str, inputs: Mapping[str, str], **env: str) -> Ran:
    """The verify step, after an install of the claimcheck under test."""
    return run_step(
        "verify",
        project,
        inputs,
        INSTALLED,
        GITHUB_API_URL=api,
        GITHUB_STEP_SUMMARY=str(project.parent / "step-summary"),
        **env,
    )


def page_claims(project: Path, replay: ReplayServer, *, stale: bool) -> None:
    page = f"{replay.base_url}/docs/page.html"
    entries = [claim("holds", source=page)]
    if stale:
        entries.append(claim("gone-quote", quote="zero-bit weights", source=page))
    write_claims(project / "claims", entries, checked=dt.date.today().isoformat())


def counts(**nonzero: int) -> dict[str, str]:
    """The count outputs: every verdict (zero unless given) and the total."""
    every = {v.value: str(nonzero.get(v.value.replace("-", "_"), 0)) for v in Verdict}
    return {**every, "total": str(sum(nonzero.values()))}


def test_the_action_verifies_writes_the_formats_and_summarizes(
    project: Path, replay: ReplayServer
) -> None:
    page_claims(project, replay, stale=False)

    ran = run_action(
        project,
        replay.base_url,
        {"formats": "html markdown sarif", "paths": "claims", "fail-on": "expired"},
    )

    assert ran.code == 0
    assert ran.outputs == {
        "exit-code": "0",
        "report-dir": "claimcheck-report",
        "report-json": "claimcheck-report/report.json",
        "sarif": "claimcheck-report/report.sarif",
        **counts(verified=1),
    }
    report = project / "claimcheck-report"
    assert sorted(p.name for p in report.iterdir()) == [
        "report.html",
        "report.json",
        "report.md",
        "report.sarif",
    ]
    assert "holds" in (project.parent / "step-summary").read_text()  # the job summary


def test_the_counts_are_the_json_reports(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=True)

    ran = run_action(project, replay.base_url, {"fail": "false"})

    report = json.loads((project / ran.outputs["report-json"]).read_text())
    assert ran.outputs["total"] == str(len(report["results"])) == "2"
    assert {v: ran.outputs[v] for v in report["counts"]} == {
        v: str(n) for v, n in report["counts"].items()
    }
    assert (ran.outputs["verified"], ran.outputs["missing"]) == ("1", "1")


def test_fail_fails_on_a_stale_claim(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=True)

    ran = run_action(project, replay.base_url, {})

    assert (ran.code, ran.outputs["exit-code"]) == (1, "1")
    assert "::error " in ran.stdout  # the annotation of the stale claim


@pytest.mark.parametrize(
    ("inputs", "code"),
    [
        ({"gate": "false"}, 0),
        ({"gate": "true", "fail": "false"}, 1),  # the old name, when set, wins
        ({"gate": "", "fail": "false"}, 0),
    ],
    ids=["gate-false", "gate-over-fail", "fail-false"],
)
def test_the_deprecated_gate_input_still_decides(
    project: Path, replay: ReplayServer, inputs: dict[str, str], code: int
) -> None:
    page_claims(project, replay, stale=True)

    ran = run_action(project, replay.base_url, inputs)

    assert (ran.code, ran.outputs["exit-code"]) == (code, "1")


def test_bad_input_fails_even_without_fail(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=False)

    ran = run_action(project, replay.base_url, {"formats": "nope", "fail": "false"})

    assert (ran.code, ran.outputs["exit-code"]) == (2, "2")
    assert "report-json" not in ran.outputs
    assert "total" not in ran.outputs


@pytest.mark.parametrize("name", ["fail", "gate", "issues", "fail-if-empty", "job-summary"])
def test_a_switch_that_is_neither_true_nor_false_is_bad_input(
    project: Path, replay: ReplayServer, name: str
) -> None:
    page_claims(project, replay, stale=False)

    ran = run_action(project, replay.base_url, {name: "flase"})

    assert (ran.code, ran.outputs["exit-code"]) == (2, "2")
    assert f'::error title=claimcheck::{name} must be "true" or "false", not "flase"' in ran.stderr
    assert not (project / "claimcheck-report" / "report.json").exists()  # verify never ran


def test_the_gate_judges_only_the_changed_claims_and_summarizes_why(
    project: Path, replay: ReplayServer
) -> None:
    page = f"{replay.base_url}/docs/page.html"
    today = dt.date.today().isoformat()
    write_claims(project / "claims", [claim("kept", source=page)], "a.yaml", checked=today)
    write_claims(project / "claims", [claim("edited", source=page)], "b.yaml", checked=today)
    (project / ".gitignore").write_text("snapshots/\nclaimcheck-report/\n")
    git = ["git", "-C", str(project), "-c", "user.name=Desk", "-c", "user.email=d@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "--no-gpg-sign", "-m", "desk"], check=True)
    subprocess.run([*git, "switch", "-q", "-c", "pr"], check=True)
    b_yaml = project / "claims" / "b.yaml"
    b_yaml.write_text(b_yaml.read_text().replace("the claim edited", "Reworded"))
    subprocess.run([*git, "commit", "-q", "--no-gpg-sign", "-am", "reword"], check=True)

    ran = run_action(project, replay.base_url, {"args": "--changed-since main"})

    assert ran.code == 0, ran.stderr
    assert ran.outputs["total"] == "1"
    summary = (project.parent / "step-summary").read_text()
    assert summary.startswith("## Claims changed since `main`\n")
    assert "| `edited` | `claims/b.yaml` changed |" in summary
    assert "kept" not in summary


def test_args_are_shell_words_that_nothing_evaluates(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=False)

    ran = run_action(
        project,
        replay.base_url,
        {"args": """--output 'markdown=the $(touch pwned) report.md' --output "junit=a b.xml" """},
    )

    assert ran.code == 0, ran.stderr
    assert (project / "the $(touch pwned) report.md").is_file()
    assert (project / "a b.xml").is_file()
    assert not (project / "pwned").exists()


def test_args_with_an_open_quote_are_bad_input(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=False)

    scratch = project.parent / "tmp"
    scratch.mkdir()

    ran = run_action(project, replay.base_url, {"args": "--fail-on 'expired"}, TMPDIR=str(scratch))

    assert (ran.code, ran.outputs["exit-code"]) == (2, "2")
    assert "::error title=claimcheck::args: No closing quotation" in ran.stderr
    assert list(scratch.iterdir()) == []  # the words' file is gone too


def test_sarif_goes_to_the_path_asked_for(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=True)

    ran = run_action(project, replay.base_url, {"sarif": "results/claimcheck.sarif"})

    assert ran.code == 1
    assert ran.outputs["sarif"] == "results/claimcheck.sarif"
    (run,) = json.loads((project / "results" / "claimcheck.sarif").read_text())["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["missing"]
    assert run["automationDetails"]["id"] == "claimcheck/claims/"


def test_job_summary_false_leaves_the_summary_alone(project: Path, replay: ReplayServer) -> None:
    page_claims(project, replay, stale=True)

    ran = run_action(project, replay.base_url, {"job-summary": "false", "fail": "false"})

    assert ran.code == 0
    assert not (project.parent / "step-summary").exists()
    assert "gone-quote" in ran.stdout  # the annotations still go to the log


def test_no_claims_fail_unless_fail_if_empty_is_false(project: Path, replay: ReplayServer) -> None:
    (project / "claims").mkdir()

    empty = run_action(project, replay.base_url, {})
    allowed = run_action(project, replay.base_url, {"fail-if-empty": "false"})

    assert (empty.code, empty.outputs["exit-code"]) == (2, "2")
    assert "no claims found" in empty.stderr
    assert (allowed.code, allowed.outputs["exit-code"]) == (0, "0")
    assert allowed.outputs["total"] == "0"


@pytest.fixture
def github(project: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(require_spec(), repo="desk/site") as fake:
        yield fake
    assert not fake.errors, "\n".join(fake.errors)


def test_without_fail_stale_claims_pass_and_become_issues(
    project: Path, replay: ReplayServer, github: FakeGitHub
) -> None:
    page_claims(project, replay, stale=True)

    ran = run_action(
        project,
        github.base_url,
        {"issues": "true", "fail": "false", "token": TOKEN},
        GITHUB_REPOSITORY="desk/site",
    )

    assert (ran.code, ran.outputs["exit-code"]) == (0, "1")
    (issue,) = github.open_issues()
    assert "gone-quote" in (issue.body or "")


def test_the_cap_on_new_issues_is_a_warning_not_a_failed_job(
    project: Path, replay: ReplayServer, github: FakeGitHub
) -> None:
    """`issues` exits 4 past `[issues] max_new`; the job says so and goes on."""
    page = f"{replay.base_url}/docs/page.html"
    gone = [claim(f"gone-{n}", quote="zero-bit weights", source=page) for n in range(2)]
    write_claims(project / "claims", gone, checked=dt.date.today().isoformat())
    with (project / "claimcheck.toml").open("a", encoding="utf-8") as config:
        config.write("[issues]\nmax_new = 1\n")

    ran = run_action(
        project,
        github.base_url,
        {"issues": "true", "fail": "false", "token": TOKEN},
        GITHUB_REPOSITORY="desk/site",
    )

    assert (ran.code, ran.outputs["exit-code"]) == (0, "1"), ran.stderr
    assert "::warning title=claimcheck::more claims need an issue than one run creates" in (
        ran.stdout
    )
    assert len(github.open_issues()) == 1


# -- the install, run offline ------------------------------------------------------------


def stand_in_wheel(folder: Path, *, command: bool) -> Path:
    """A wheel named claimcheck-desk 9.9.9, with or without a `claimcheck` command."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "claimcheck_desk-9.9.9-py3-none-any.whl"
    info = "claimcheck_desk-9.9.9.dist-info"
    files = {
        "standin/__init__.py": "def main():\n    print('claimcheck 9.9.9')\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: claimcheck-desk\nVersion: 9.9.9\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    if command:
        files[f"{info}/entry_points.txt"] = "[console_scripts]\nclaimcheck = standin:main\n"
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return folder


def install(tmp_path: Path, version: str, packages: Path) -> tuple[Path, Path, Ran, Ran]:
    """The plan and install steps in a fresh runner temp and workspace, pip offline."""
    runner_temp, workspace = tmp_path / "runner-temp", tmp_path / "workspace"
    runner_temp.mkdir()
    workspace.mkdir()
    runner = {
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(packages),
        "GITHUB_PATH": str(tmp_path / "github-path"),
    }
    python = {"python": {"python-path": sys.executable, "python-version": "3.12.0"}}
    plan = run_step("plan", workspace, {"version": version}, python, **runner)
    assert plan.code == 0, plan.stderr
    installed = run_step("install", workspace, {}, {**python, "plan": plan.outputs}, **runner)
    return runner_temp, workspace, plan, installed


def test_the_install_is_a_venv_in_the_runner_temp_and_adds_only_claimcheck_to_path(
    tmp_path: Path,
) -> None:
    packages = stand_in_wheel(tmp_path / "packages", command=True)
    wheel = f"claimcheck-desk @ {(packages / 'claimcheck_desk-9.9.9-py3-none-any.whl').as_uri()}"
    runner_temp, workspace, plan, ran = install(tmp_path, wheel, packages)

    assert ran.code == 0, ran.stderr
    assert plan.outputs["requirement"] == wheel
    assert plan.outputs["pip-cache"] == str(runner_temp / "claimcheck-pip-cache")
    assert plan.outputs["cache-key"].startswith(plan.outputs["cache-prefix"])
    assert plan.outputs["cache-prefix"] == "claimcheck-pip-Linux-X64-py3.12.0-"
    assert ran.outputs["version"] == "9.9.9"
    venv = runner_temp / "claimcheck-venv"
    assert ran.outputs["claimcheck"] == str(venv / "bin" / "claimcheck")
    assert ran.outputs["python"] == str(venv / "bin" / "python")
    assert list(workspace.iterdir()) == []  # nothing in the caller's workspace
    (shim,) = (tmp_path / "github-path").read_text().splitlines()
    assert [p.name for p in Path(shim).iterdir()] == ["claimcheck"]  # no python on PATH
    printed = subprocess.run(
        [str(Path(shim) / "claimcheck")], capture_output=True, text=True, check=True, timeout=60
    )
    assert printed.stdout == "claimcheck 9.9.9\n"


def test_a_package_named_claimcheck_that_is_not_claimcheck_stops_the_install(
    tmp_path: Path,
) -> None:
    packages = stand_in_wheel(tmp_path / "packages", command=False)
    wheel = f"claimcheck-desk @ {(packages / 'claimcheck_desk-9.9.9-py3-none-any.whl').as_uri()}"
    _, _, _, ran = install(tmp_path, wheel, packages)

    assert ran.code == 2
    assert "installed no claimcheck command" in ran.stdout
    assert not (tmp_path / "github-path").exists()


@pytest.mark.parametrize(
    ("version", "requirement"),
    [
        ("", str(ROOT)),  # the action's own checkout
        (" v1.2.0 ", "claimcheck-desk @ git+https://github.com/claimcheck/claimcheck@v1.2.0"),
        ("1.2.0", "claimcheck-desk @ git+https://github.com/claimcheck/claimcheck@v1.2.0"),
        ("0a1b2c3d", "claimcheck-desk @ git+https://github.com/claimcheck/claimcheck@0a1b2c3d"),
        (
            "claimcheck-desk @ git+https://github.com/fork/claimcheck@main",
            "claimcheck-desk @ git+https://github.com/fork/claimcheck@main",
        ),
        (
            "claimcheck @ git+https://github.com/claimcheck/claimcheck@v0.1.0",
            "claimcheck @ git+https://github.com/claimcheck/claimcheck@v0.1.0",
        ),
    ],
    ids=["checkout", "tag", "version", "sha", "requirement", "requirement-before-the-rename"],
)
def test_version_chooses_what_pip_installs(tmp_path: Path, version: str, requirement: str) -> None:
    ran = run_step(
        "plan",
        tmp_path,
        {"version": version},
        {"python": {"python-path": sys.executable, "python-version": "3.12.0"}},
        RUNNER_TEMP=str(tmp_path),
    )

    assert ran.code == 0, ran.stderr
    assert ran.outputs["requirement"] == requirement


@pytest.mark.parametrize(
    "version",
    [
        "nightly",
        "claimcheckx",
        "--index-url=x",
        "1.0\nkey=v",
        "latest",  # PyPI's claimcheck is another project: never installed by name
        "claimcheck",
        "claimcheck==1.2.0",
        ">=1.2,<2",
        "v1.2.0;rm",
    ],
)
def test_a_version_that_is_no_claimcheck_requirement_is_bad_input(
    tmp_path: Path, version: str
) -> None:
    ran = run_step(
        "plan",
        tmp_path,
        {"version": version},
        {"python": {"python-path": sys.executable, "python-version": "3.12.0"}},
        RUNNER_TEMP=str(tmp_path),
    )

    assert ran.code == 2
    assert "::error title=claimcheck::version must be" in ran.stdout
    assert ran.outputs == {}


def test_a_tag_needs_the_actions_repository(tmp_path: Path) -> None:
    """`uses: ./` (a local action) has no action repository to take a tag of."""
    ran = run_step(
        "plan",
        tmp_path,
        {"version": "v1.2.0"},
        {"python": {"python-path": sys.executable, "python-version": "3.12.0"}},
        RUNNER_TEMP=str(tmp_path),
        ACTION_REPOSITORY="https://github.com/",
    )

    assert ran.code == 2
    assert "needs the action's repository" in ran.stdout


# -- hostile inputs ----------------------------------------------------------------------

ACTION_INPUTS = sorted(load(ACTION)["inputs"])
HOSTILE = {
    "newline": "x\nexit-code=0",
    "cr": "x\r::set-output name=exit-code::0",
    "tab": "claims\tclaims",
    "escape": "x\x1b[31m",
    "nel": "x\x85::warning::forged",
    "line-separator": "x\u2028exit-code=0",
}
WORKFLOW_COMMAND = re.compile(r"^\s*::(?!(?:error|warning|notice|group|endgroup)[ :])", re.M)
"""A line a runner would take for a workflow command other than an annotation or a group."""


def test_every_input_is_checked_before_anything_of_the_actions_runs() -> None:
    steps = load(ACTION)["runs"]["steps"]
    checked = action_step("inputs")

    assert steps.index(checked) == 0  # before setup-python, which logs python-version
    assert "run" in checked
    assert "python" not in checked["run"]  # bash alone: no Python is set up yet
    assert {
        name: match[1]
        for name, value in checked["env"].items()
        if (match := INPUT.match(str(value)))
    } == {f"INPUT_{name.upper().replace('-', '_')}": name for name in ACTION_INPUTS}


@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("name", ACTION_INPUTS)
def test_an_input_with_a_control_character_stops_the_action_naming_it(
    tmp_path: Path, name: str, hostile: str
) -> None:
    ran = run_step("inputs", tmp_path, {name: hostile}, {})

    assert ran.code == 2
    assert ran.outputs == {}
    (line,) = ran.stderr.splitlines()
    assert line.startswith(f"::error title=claimcheck::input {name} holds a control character")
    assert hostile not in ran.stdout + ran.stderr  # the value is never printed back


def test_plain_inputs_pass_the_check(tmp_path: Path) -> None:
    ran = run_step(
        "inputs",
        tmp_path,
        {
            "args": "--offline --fail-on 'expired'",
            "report-dir": "::set-output name=a::b %0A é € \u00a0 🙂",
        },
        {},
    )

    assert (ran.code, ran.stdout, ran.stderr, ran.outputs) == (0, "", "", {})


def has_control(value: str) -> bool:
    """What the check refuses, as its spec says: C0 and C1 controls, DEL, U+2028/9."""
    return any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=8))
def test_the_check_refuses_exactly_the_values_with_a_control_character(value: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder, "workspace")
        workspace.mkdir()
        ran = run_step("inputs", workspace, {"report-dir": value}, {})

    assert ran.code == (2 if has_control(value) else 0), repr(value)
    assert ran.outputs == {}
    assert (ran.stderr != "") is has_control(value)


FORGED = "::set-output name=exit-code::0 %0Aexit-code=0 ::add-mask::x"


def test_outputs_hold_exactly_their_keys_whatever_the_values(
    project: Path, replay: ReplayServer
) -> None:
    """Past the check (the verify step run alone), a value with a newline, `%0A` or a
    workflow command is still one output's value, never a key or a command of its own."""
    page_claims(project, replay, stale=True)
    report_dir = f"{FORGED}\nexit-code=0\ntotal<<EOF\n99\nEOF"
    sarif = f"sarif {FORGED}\r\nsarif=/etc/passwd.sarif"

    ran = run_action(project, replay.base_url, {"report-dir": report_dir, "sarif": sarif})

    assert ran.code == 1, ran.stderr
    assert ran.outputs == {
        "exit-code": "1",
        "report-dir": report_dir,
        "report-json": f"{report_dir}/report.json",
        "sarif": sarif,
        **counts(verified=1, missing=1),
    }
    assert (project / report_dir / "report.json").is_file()
    assert not WORKFLOW_COMMAND.search(ran.stdout), ran.stdout
    assert not WORKFLOW_COMMAND.search(ran.stderr), ran.stderr


@pytest.mark.parametrize("value", ["::set-output name=exit-code::0", "x%0A::add-mask::y"])
def test_a_bad_switch_is_named_and_its_value_cannot_be_a_command(
    project: Path, replay: ReplayServer, value: str
) -> None:
    page_claims(project, replay, stale=False)

    ran = run_action(project, replay.base_url, {"fail": value})

    assert (ran.code, ran.outputs) == (2, {"exit-code": "2", "report-dir": "claimcheck-report"})
    (line,) = ran.stderr.splitlines()
    assert line.startswith('::error title=claimcheck::fail must be "true" or "false", not "')
    assert "%0A" not in line  # `%` is escaped: the runner shows it, never a line break
    assert not WORKFLOW_COMMAND.search(ran.stdout + ran.stderr)


# -- pinned to a release, pushed after the branch moved, the config's snapshot folder ----

PIN = re.compile(r"claimcheck/claimcheck@([^\s\"'#]+)")
SHIPPED = [*sorted(p.relative_to(ROOT).as_posix() for p in TEMPLATES_DIR.glob("*.yml")), *WORKFLOWS]


@pytest.mark.parametrize("path", SHIPPED)
def test_every_workflow_pins_claimcheck_to_the_packages_release_tag(path: str) -> None:
    """The nightly job can push: what it runs must not move under it as a branch does."""
    text = (ROOT / path).read_text(encoding="utf-8")
    version = importlib.metadata.version("claimcheck-desk")

    assert PIN.findall(text) == [f"v{version}"] * len(PIN.findall(text)) != []
    assert "@main" not in text


def test_init_writes_the_running_claimchecks_tag(tmp_path: Path) -> None:
    write_project(tmp_path, today=dt.date(2026, 12, 6))
    version = importlib.metadata.version("claimcheck-desk")

    for path in WORKFLOWS:
        assert PIN.findall((tmp_path / path).read_text()) == [f"v{version}"], path
    moved = "uses: claimcheck/claimcheck@main # x\nclaimcheck-desk @ git+https://github.com/claimcheck/claimcheck@1a2b\n"
    assert pin_release(moved) == moved.replace("@main", f"@v{version}").replace(
        "@1a2b", f"@v{version}"
    )


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=folder, env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout


GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))},
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "desk",
    "GIT_AUTHOR_EMAIL": "desk@example.org",
    "GIT_COMMITTER_NAME": "desk",
    "GIT_COMMITTER_EMAIL": "desk@example.org",
}


def commit_step_script() -> str:
    steps = steps_of(workflow(WORKFLOWS[0]))
    (step,) = [s for s in steps if "git commit" in s.get("run", "")]
    return str(step["run"])


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare repository holding a project whose config keeps snapshots in `store/`."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(bare), str(seed))
    (seed / "claimcheck.toml").write_text('snapshots = "store"\n')
    (seed / "claims").mkdir()
    (seed / "claims" / "a.yaml").write_text("# claims\n")
    (seed / "store").mkdir()
    (seed / "store" / ".gitkeep").write_text("")
    git(seed, "add", "--all")
    git(seed, "commit", "-q", "-m", "project")
    git(seed, "push", "-q", "origin", "HEAD:main")
    return bare


def run_commit_step(checkout: Path) -> subprocess.CompletedProcess[str]:
    """The nightly's commit step, as GitHub runs `shell: bash`, `claimcheck` on the PATH."""
    script = checkout.parent / "commit-step.sh"
    script.write_text(commit_step_script())
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=checkout,
        env={**GIT_ENV, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_nightly_rebases_onto_a_branch_that_moved_and_pushes(
    tmp_path: Path, remote: Path
) -> None:
    runner = tmp_path / "runner"
    git(tmp_path, "clone", "-q", str(remote), str(runner))  # the job's checkout
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    (other / "README.md").write_text("pushed while the nightly ran\n")
    git(other, "add", "README.md")
    git(other, "commit", "-q", "-m", "an edit during the run")
    git(other, "push", "-q", "origin", "HEAD:main")
    (runner / "store" / "page.html").write_text("<p>the new snapshot</p>\n")
    (runner / ".env.local").write_text("NOT=committed\n")  # outside the snapshot folder

    done = run_commit_step(runner)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "The branch moved during the run" in done.stdout
    log = git(remote, "log", "--format=%s", "main").splitlines()
    assert log == [
        "claimcheck: nightly snapshots (1 new files, 1 changed in all)",
        "an edit during the run",
        "project",
    ]
    assert git(remote, "rev-list", "--merges", "main") == ""  # linear
    assert git(remote, "show", "--name-only", "--format=", "main").split() == ["store/page.html"]


def test_the_nightly_gives_up_after_three_pushes(tmp_path: Path, remote: Path) -> None:
    attempts = tmp_path / "attempts"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\necho push >> '{attempts}'\nexit 1\n")
    hook.chmod(0o755)
    runner = tmp_path / "runner"
    git(tmp_path, "clone", "-q", str(remote), str(runner))
    (runner / "store" / "page.html").write_text("<p>the new snapshot</p>\n")

    done = run_commit_step(runner)

    assert done.returncode == 1
    assert attempts.read_text().splitlines() == ["push"] * 3
    assert (
        "::error title=claimcheck::the snapshots could not be pushed after 3 tries" in done.stdout
    )


def test_nothing_to_commit_pushes_nothing(tmp_path: Path, remote: Path) -> None:
    runner = tmp_path / "runner"
    git(tmp_path, "clone", "-q", str(remote), str(runner))
    (runner / "snapshots").mkdir()
    (runner / "snapshots" / "x.html").write_text("not the config's folder\n")

    done = run_commit_step(runner)

    assert (done.returncode, done.stdout) == (0, "No snapshot changed.\n")
    assert git(remote, "log", "--format=%s", "main").splitlines() == ["project"]


def test_config_get_prints_the_configs_folders_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "claimcheck.toml").write_text(
        'snapshots = "store"\nclaims = ["claims", "more"]\n[fetch]\ntimeout = 12.5\n'
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)

    assert run("config", "get", "snapshots").stdout == "store\n"
    assert run("config", "get", "claims").stdout == "claims\nmore\n"
    assert run("config", "get", "fetch.timeout").stdout == "12.5\n"
    monkeypatch.chdir(tmp_path / "sub")
    assert run("config", "get", "snapshots").stdout == "../store\n"


def test_config_get_of_no_setting_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_fromTheEnvironment")

    unknown = run("config", "get", "fetch.nope")
    token = run("config", "get", "github_token")
    default = run("config", "get", "snapshots")

    assert unknown.exit_code == token.exit_code == 2
    assert "no setting 'fetch.nope'" in unknown.stderr
    assert "ghp_fromTheEnvironment" not in token.stdout + token.stderr
    assert (default.exit_code, default.stdout) == (0, "snapshots\n")


def test_init_watches_the_claim_paths_and_snapshots_its_config_names(tmp_path: Path) -> None:
    (tmp_path / "desk").mkdir()
    (tmp_path / "articles").mkdir()
    (tmp_path / "articles" / "vllm-vs-sglang.md").write_text("# vLLM vs SGLang\n")
    odd = 'notes/a "quoted" name: [x].yaml'
    (tmp_path / "claimcheck.toml").write_text(
        'claims = ["desk", "articles/vllm-vs-sglang.md", "./later", '
        + json.dumps(odd)
        + ', "../elsewhere"]\nsnapshots = "store"\n'
    )

    done = subprocess.run(
        [sys.executable, "-m", "claimcheck", "init", "--skip-existing", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    workflow = YAML(typ="safe").load(
        (tmp_path / ".github/workflows/claimcheck-verify.yml").read_text()
    )
    assert workflow["on"]["pull_request"]["paths"] == [
        "desk/**",
        "articles/vllm-vs-sglang.md",
        "later/**",  # not there yet, no suffix: a folder
        odd,
        "store/**",
        "claimcheck.toml",
        ".github/workflows/claimcheck-verify.yml",
    ]


def test_init_without_a_config_writes_the_default_paths(tmp_path: Path) -> None:
    write_project(tmp_path, today=dt.date(2026, 12, 6))

    workflow = YAML(typ="safe").load(
        (tmp_path / ".github/workflows/claimcheck-verify.yml").read_text()
    )
    assert workflow["on"]["pull_request"]["paths"] == [
        "claims/**",
        "snapshots/**",
        "claimcheck.toml",
        ".github/workflows/claimcheck-verify.yml",
    ]


def test_init_refuses_a_malformed_config_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "claimcheck.toml").write_text("claims = [\n")

    done = subprocess.run(
        [sys.executable, "-m", "claimcheck", "init", "--skip-existing", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 2
    assert "claimcheck.toml:" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claimcheck.toml"]
