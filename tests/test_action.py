"""GitHub's own schemas accept the action, every workflow and every README example.

check-jsonschema is run as a command, offline, with the schemas it carries (from
SchemaStore): `vendor.github-actions` for action.yml, `vendor.github-workflows` for the
workflow templates, this repository's workflows and the README's workflows,
`vendor.dependabot` for the README's Dependabot file. A README block that is a list of
steps is checked as the steps of a one-job workflow.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from support import paths

ROOT = paths.ROOT
TEMPLATES = ROOT / "src" / "claimcheck" / "nightly" / "templates"
README = (ROOT / "README.md").read_text(encoding="utf-8")


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
    return [yaml.load(block) for block in re.findall(r"```yaml\n(.*?)```", README, re.S)]


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
