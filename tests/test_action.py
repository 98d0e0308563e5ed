"""GitHub's own schemas accept the action, every workflow and every README example; the
action's inputs are checked and its outputs written so that no value forges another.

check-jsonschema is run as a command, offline, with the schemas it carries (from
SchemaStore): `vendor.github-actions` for action.yml, `vendor.github-workflows` for the
workflow templates, this repository's workflows and the README's workflows,
`vendor.dependabot` for the README's Dependabot file. A README block that is a list of
steps is checked as the steps of a one-job workflow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from claimcheck.nightly.action import ActionOutputError, format_output, format_outputs
from support import docs, paths
from support.github_outputs import read_outputs

ROOT = paths.ROOT
TEMPLATES = ROOT / "src" / "claimcheck" / "nightly" / "templates"


def check(schema: str, files: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def readme_yaml() -> list[Any]:
    yaml = YAML(typ="safe", pure=True)
    return [yaml.load(block) for block in docs.fenced("yaml")]


def kind_of(block: Any) -> str | None:
    """A README block's kind: a workflow (or steps of one), a Dependabot file, or neither."""
    if isinstance(block, dict) and "jobs" in block:
        return "workflow"
    steps = isinstance(block, list) and bool(block)
    if steps and all(isinstance(s, dict) and ("uses" in s or "run" in s) for s in block):
        return "steps"
    if isinstance(block, dict) and "updates" in block:
        return "dependabot"
    return None


def readme_files(tmp_path: Path, *kinds: str) -> list[Path]:
    """The README's blocks of these kinds, each a file (steps inside a one-job workflow)."""
    yaml = YAML(typ="safe", pure=True)
    found = []
    for number, block in enumerate(readme_yaml()):
        kind = kind_of(block)
        if kind not in kinds:
            continue
        if kind == "steps":
            block = {
                "on": "push",
                "jobs": {"example": {"runs-on": "ubuntu-latest", "steps": block}},
            }
        path = tmp_path / f"readme-{number}-{kind}.yml"
        with path.open("w", encoding="utf-8") as handle:
            yaml.dump(block, handle)
        found.append(path)
    return found


def test_the_action_is_valid_to_github() -> None:
    done = check("vendor.github-actions", [ROOT / "action.yml"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflows_are_valid_to_github() -> None:
    files = sorted(TEMPLATES.glob("*.yml")) + sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert len(files) >= 5  # three templates, two of them run here too

    done = check("vendor.github-workflows", files)

    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_workflows_and_steps_are_valid_to_github(tmp_path: Path) -> None:
    files = readme_files(tmp_path, "workflow", "steps")
    kinds = [f.stem.rsplit("-", 1)[1] for f in files]
    assert kinds.count("workflow") >= 1, "the README lost its workflow example"
    assert kinds.count("steps") >= 3, "the README lost its step examples"

    done = check("vendor.github-workflows", files)

    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_dependabot_file_is_valid_to_github(tmp_path: Path) -> None:
    (file,) = readme_files(tmp_path, "dependabot")

    done = check("vendor.dependabot", [file])

    assert done.returncode == 0, done.stdout + done.stderr
    assert "package-ecosystem: github-actions" in file.read_text()


def test_the_check_catches_what_github_would_refuse(tmp_path: Path) -> None:
    """The schemas are really applied: a misspelt key and a step with no action fail."""
    action = tmp_path / "action.yml"
    action.write_text((ROOT / "action.yml").read_text().replace("using: composite", "usin: x"))
    workflow = tmp_path / "workflow.yml"
    workflow.write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - {}\n"
    )

    assert check("vendor.github-actions", [action]).returncode == 1
    assert check("vendor.github-workflows", [workflow]).returncode == 1


# -- the action's outputs (claimcheck/nightly/action.py) --------------------------------

ACTION_SCRIPT = ROOT / "src" / "claimcheck" / "nightly" / "action.py"
OUTPUT_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(OUTPUT_NAMES, st.text()), unique_by=lambda pair: pair[0]))
def test_outputs_read_back_as_exactly_what_was_written(pairs: list[tuple[str, str]]) -> None:
    """Whatever the values (newlines, `x=y` lines, `name<<EOF` lines, a delimiter's
    look-alike), the runner reads back these keys and these values, no more."""
    assert read_outputs(format_outputs(pairs)) == dict(pairs)


@given(st.text())
def test_a_delimiter_in_the_value_is_never_the_one_used(value: str) -> None:
    forced = "ghadelimiter_0"
    written = format_output("name", f"{value}\n{forced}\nexit-code=0", delimiter=forced)

    assert read_outputs(written) == {"name": f"{value}\n{forced}\nexit-code=0"}
    assert not written.startswith(f"name<<{forced}\n")


@pytest.mark.parametrize("name", ["", "a=b", "a<<b", "a\nb", "1st", "a b"])
def test_a_name_that_is_no_output_name_is_refused(name: str) -> None:
    with pytest.raises(ActionOutputError):
        format_output(name, "value")


def run_script(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", str(ACTION_SCRIPT), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_script_runs_alone_and_writes_the_outputs(tmp_path: Path) -> None:
    """`python -I action.py` imports nothing of claimcheck: the action runs it with the
    Python it set up, claimcheck not installed there."""
    outputs = tmp_path / "output"
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"counts": {"verified": 2, "missing": 1}, "results": [1, 2, 3]}))
    env = {"GITHUB_OUTPUT": str(outputs), "PATH": os.environ["PATH"]}

    written = run_script("output", "report-dir", "a\nexit-code=0", env=env)
    counted = run_script("counts", str(report), env=env)
    forged = run_script("counts", str(report), env=env | {"GITHUB_OUTPUT": str(tmp_path)})

    assert (written.returncode, counted.returncode) == (0, 0)
    assert read_outputs(outputs.read_bytes().decode()) == {
        "report-dir": "a\nexit-code=0",
        "verified": "2",
        "missing": "1",
        "total": "3",
    }
    assert forged.returncode == 2
    assert forged.stderr.startswith("::error title=claimcheck::counts: ")
    assert "Traceback" not in written.stderr + counted.stderr + forged.stderr


def test_a_report_whose_verdicts_are_no_output_names_writes_nothing(tmp_path: Path) -> None:
    outputs = tmp_path / "output"
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"counts": {"x\nexit-code": 0}, "results": []}))

    done = run_script("counts", str(report), env={"GITHUB_OUTPUT": str(outputs)})

    assert done.returncode == 2
    assert not outputs.exists()
