"""The benchmarks in bench/ still run: a small run of each prints its figures."""

from __future__ import annotations

import subprocess
import sys

from support import paths


def run_bench(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=paths.ROOT, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_bench_verify_runs_and_prints_its_figures() -> None:
    out = run_bench("bench/bench_verify.py", "--claims", "80")
    assert "80 claims over 10 sources" in out
    assert "per verbatim quote" in out


def test_judge_history_runs_and_prints_its_figures() -> None:
    out = run_bench("bench/judge_history.py", "--pairs", "1", "--examples", "1")
    assert "judge vs history oracle" in out
    assert "sub-token quotes verified" in out
