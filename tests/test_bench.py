"""The benchmarks in bench/ still run: a small run of each prints its figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import paths

# Slow: runs each benchmark for real.
pytestmark = pytest.mark.slow


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


def test_bench_read_claims_runs_and_prints_its_figures() -> None:
    out = run_bench("bench/bench_read_claims.py", "--claims", "400", "--runs", "2")
    assert "400 claims in 2 files" in out
    assert "per 10k claims" in out


def test_bench_read_pages_runs_and_finds_both_readers_alike() -> None:
    out = run_bench("bench/bench_read_pages.py", "--pages", "5", "--repeat", "1")
    assert "pages read differently by the two readers: 0" in out
    assert "speed-up:" in out


def test_judge_history_runs_and_prints_its_figures() -> None:
    out = run_bench("bench/judge_history.py", "--pairs", "1", "--examples", "1")
    assert "judge vs history oracle" in out
    assert "sub-token quotes verified" in out


def test_side_by_side_runs_every_tool_and_prints_its_figures(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    out = run_bench(
        "bench/side_by_side.py", "--sources", "12", "--claims-per-source", "2", "--runs", "1",
        "--latency", "0.005,0.01", "--require-peers", "--no-history", "--json", str(figures),
    )  # fmt: skip
    rows = {
        tuple(cell.strip() for cell in line.strip("|").split("|")[:2])
        for line in out.splitlines()
        if line.startswith("| ")
    }
    expected = {
        ("bound", "cold"), ("curl", "cold"), ("lychee", "cold"), ("urlwatch", "cold"),
        ("urlwatch", "warm"), ("claimcheck", "cold"), ("claimcheck", "warm"),
        ("claimcheck", "offline"), ("claimcheck", "offline again"),
        ("claimcheck", "offline, fresh clone"), ("claimcheck --no-history", "cold"),
    }  # fmt: skip
    assert expected <= rows, out
    assert "req/source" in out
    assert "claimcheck/warm files written:" in out
    document = json.loads(figures.read_text(encoding="utf-8"))
    assert document["config"]["sources"] == 12
    assert document["config"]["latencies_s"] == [0.005, 0.01]
    assert [at["latency_s"] for at in document["at"]] == [0.005, 0.01]
    for at in document["at"]:
        summary = at["summary"]
        for key in ("curl/cold", "lychee/cold", "urlwatch/cold", "urlwatch/warm"):
            assert summary[key]["requests"] / 12 == 1.0, key  # one request per source
        (run,) = at["runs"]
        for key, phase in run.items():
            assert phase["exit_code"] == 0, (key, out)
            if phase["tool"].startswith("claimcheck"):
                assert phase["verdicts"] == {"verified": 24}, (key, phase["verdicts"])
        assert run["claimcheck/cold"]["requests"] >= 12
        assert run["claimcheck/offline"]["requests"] == 0
        assert run["claimcheck/offline again"]["files_written"] == []  # every verdict kept
        fresh = run["claimcheck/offline, fresh clone"]
        assert fresh["requests"] == 0
        assert fresh["files_written"]  # pages read and verdicts judged afresh, kept again
        assert all(path.startswith("snapshots/.cache/") for path in fresh["files_written"])
        # The targets, read again from the raw phases of the run (one run: no median).
        targets = at["targets"]
        lychee = run["lychee/cold"]["wall_s"]
        assert targets["cold ≤ 3× lychee"] == run["claimcheck/cold"]["wall_s"] / lychee
        assert targets["warm ≤ 1.5× lychee"] == run["claimcheck/warm"]["wall_s"] / lychee
        assert targets["warm 1 request/source"] == run["claimcheck/warm"]["requests"] / 12 == 1
        assert targets["warm 0 body bytes"] == run["claimcheck/warm"]["body_bytes"] == 0
        assert targets["warm 0 files written"] == len(run["claimcheck/warm"]["files_written"])
    # The targets table has a column per latency, each target met or not.
    table = out[out.index("the performance targets at each latency") :].splitlines()
    assert "| 5 ms" in table[1], table[1]
    assert "| 10 ms" in table[1], table[1]
    cold = next(line for line in table if line.startswith("| cold ≤ 3× lychee"))
    assert cold.count("met") == 2, cold
    warm_requests = next(line for line in table if line.startswith("| warm 1 request/source"))
    assert warm_requests.count("1.00 met") == 2, warm_requests


def test_bench_render_runs_and_prints_both_costs() -> None:
    out = run_bench(
        "bench/bench_render.py", "--pages", "1", "--run", "2", "--jobs", "4", "--repeat", "1"
    )
    assert "plain fetch:" in out
    assert "browser a page:" in out
    assert "kept browser:" in out
    assert "a browser a page / plain: wall ×" in out
    assert "kept browser / a browser a page: wall ×" in out
    assert "one browser at a time (--jobs 0):" in out
    assert "2 at a time (--jobs 4):" in out
