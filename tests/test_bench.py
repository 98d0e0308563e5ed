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
        "--latency", "0.02,0.1", "--require-peers", "--no-history", "--json", str(figures),
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
    headers = [line for line in out.splitlines() if line.startswith("| tool ")]
    assert len(headers) == 2, out  # a table per latency
    for header in headers:
        columns = [cell.strip() for cell in header.strip("|").split("|")]
        assert {"req/source", "CPU s", "CPU ms/source"} <= set(columns), columns
    assert out.count("claimcheck --help: median ") == 2, out
    assert "claimcheck/warm files written:" in out
    document = json.loads(figures.read_text(encoding="utf-8"))
    assert document["config"]["sources"] == 12
    assert document["config"]["latencies_s"] == [0.02, 0.1]
    assert [at["latency_s"] for at in document["at"]] == [0.02, 0.1]
    for at in document["at"]:
        summary = at["summary"]
        for key in ("curl/cold", "lychee/cold", "urlwatch/cold", "urlwatch/warm"):
            assert summary[key]["requests"] / 12 == 1.0, key  # one request per source
        (run,) = at["runs"]
        for key, phase in run.items():
            assert phase["exit_code"] == 0, (key, out)
            # Every process ran, so the kernel charged it some CPU time; one run: no median.
            assert 0 < phase["cpu_s"] < 3600, (key, phase["cpu_s"])
            assert summary[key]["cpu_s"] == phase["cpu_s"], key
            assert summary[key]["cpu_ms_per_source"] == phase["cpu_s"] * 1000 / 12, key
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
        lychee, urlwatch = run["lychee/cold"]["wall_s"], run["urlwatch/cold"]["wall_s"]
        cold, warm = run["claimcheck/cold"], run["claimcheck/warm"]
        assert targets["at 100 ms: cold ≤ 2.5× lychee"] == cold["wall_s"] / lychee
        assert targets["at 100 ms: warm ≤ 1.2× lychee"] == warm["wall_s"] / lychee
        assert targets["CPU a source cold ≤ 4 ms"] == cold["cpu_s"] * 1000 / 12
        assert targets["CPU a source warm ≤ 1 ms"] == warm["cpu_s"] * 1000 / 12
        assert targets["at 20 ms: cold faster than urlwatch cold"] == cold["wall_s"] / urlwatch
        assert (
            targets["at 20 ms: warm faster than urlwatch warm"]
            == warm["wall_s"] / run["urlwatch/warm"]["wall_s"]
        )
        assert targets["fresh clone ≤ 2 s"] == fresh["wall_s"]
        assert targets["offline again ≤ 2 s"] == run["claimcheck/offline again"]["wall_s"]
        assert targets["warm 1 request/source"] == warm["requests"] / 12 == 1
        assert targets["warm 0 body bytes"] == warm["body_bytes"] == 0
        assert targets["warm 0 files written"] == len(warm["files_written"])
        assert len(at["help_s"]) == 5
        assert targets["--help ≤ 0.15 s"] == sorted(at["help_s"])[2]  # the median of 5
    # One targets table, a column per latency; a target set at one latency is judged
    # (met or not) in that column only, and shows its bare value in the other.
    assert out.count("the performance targets at each latency") == 1, out
    table = out[out.index("the performance targets at each latency") :].splitlines()
    assert "| 20 ms" in table[1], table[1]
    assert "| 100 ms" in table[1], table[1]
    lines = {
        line.strip("|").split("|")[0].strip(): [c.strip() for c in line.strip("|").split("|")[1:]]
        for line in table[3:]
        if line.startswith("| ")
    }
    assert set(lines) == set(targets), lines
    judged_at = {"at 20 ms": 0, "at 100 ms": 1}
    for name, cells in lines.items():
        assert len(cells) == 2, (name, cells)
        prefix = name[: name.index(":")] if name.startswith("at ") else None
        for column, cell in enumerate(cells):
            judged = prefix is None or judged_at[prefix] == column
            verdict = cell.endswith((" met", " NOT met"))
            assert verdict == judged, (name, column, cell)
    assert lines["warm 1 request/source"] == ["1.00 met", "1.00 met"]
    assert lines["cold ≤ 2 requests/source"] == ["2.00 met", "2.00 met"]


def test_side_by_side_says_n_a_for_a_peer_it_did_not_run() -> None:
    out = run_bench(
        "bench/side_by_side.py", "--sources", "4", "--claims-per-source", "2", "--runs", "1",
        "--latency", "0.02", "--tools", "lychee,claimcheck",
    )  # fmt: skip
    table = out[out.index("the performance targets at each latency") :].splitlines()
    urlwatch = [line for line in table if "urlwatch" in line]
    assert len(urlwatch) == 2, table
    assert all(line.split("|")[2].strip() == "n/a" for line in urlwatch), urlwatch
    assert "| CPU a source cold ≤ 4 ms" in out


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


def test_bench_pdf_text_runs_and_finds_pdfminer_in_reading_order() -> None:
    out = run_bench("bench/pdf_text.py", "--pages", "2", "--runs", "1")
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "yes" in rows["pdfminer.six (layout)"]
    assert "NO" in rows["pypdf (plain)"]
    assert "kept (U+FB01)" in rows["pdfminer.six (layout)"]
