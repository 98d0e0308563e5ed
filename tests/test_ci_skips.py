"""In CI a skipped test fails the run, also when the suite runs on several workers.

`.ci/run` installs every tool and carries every file the suite needs, so a test skipped
there was not run for want of something CI should have had. The rule lives in
tests/conftest.py; these tests run pytest itself, on two xdist workers, over a file with
one passing and one skipped test, with that conftest as a plugin.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import paths

# Slow: starts pytest itself on two workers.
pytestmark = pytest.mark.slow

SAMPLE = """\
import pytest


def test_runs():
    assert True


def test_wants_data():
    pytest.skip("no data")
"""


def run_pytest(folder: Path, *, ci: str | None) -> subprocess.CompletedProcess[str]:
    (folder / "test_sample.py").write_text(SAMPLE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(paths.ROOT / "tests")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "conftest", "test_sample.py"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_skip_fails_the_run_in_ci_on_several_workers(tmp_path: Path) -> None:
    ran = run_pytest(tmp_path, ci="true")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "1 passed, 1 skipped" in ran.stdout
    assert "CI: 1 test(s) skipped; every test must run here" in ran.stdout


def test_a_skip_is_only_reported_outside_ci(tmp_path: Path) -> None:
    ran = run_pytest(tmp_path, ci=None)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed, 1 skipped" in ran.stdout
    assert "every test must run here" not in ran.stdout
