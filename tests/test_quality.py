"""The house rules as tests: ruff clean, mypy strict on src/."""

from __future__ import annotations

import subprocess
import sys

from support import paths

ROOT = paths.ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "src", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_applied() -> None:
    result = run("ruff", "format", "--check", "src", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_run_on_the_whole_checkout_changes_no_stored_snapshot() -> None:
    """A developer's `ruff format .` must not rewrite a stored README's Python blocks:
    the store would refuse the body as no longer the one its index recorded."""
    for command in (("format", "--check", "."), ("check", ".")):
        result = run("ruff", *command)
        assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
