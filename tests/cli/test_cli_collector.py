"""The command line's garbage-collector thresholds, and that the library keeps Python's."""

from __future__ import annotations

import subprocess
import sys

from claimcheck.cli import GC_THRESHOLDS


def thresholds_after(statement: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", f"{statement}; import gc; print(gc.get_threshold())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout.strip()


def test_the_command_line_raises_the_thresholds() -> None:
    assert thresholds_after("import claimcheck.cli.app") == str(GC_THRESHOLDS)


def test_importing_the_library_leaves_them() -> None:
    default = thresholds_after("pass")
    assert thresholds_after("import claimcheck.pipeline, claimcheck.judge.verdict") == default
    assert default != str(GC_THRESHOLDS)
