"""`diff`, `explain` and `blame` as a person reads them, through the real CLI.

`diff` shows a claim's unit at its baseline beside the unit now for every verdict:
where the quote is not found, that side is the unit closest to it, with its score. Its
word diff is the quote's change, the one every report format shows. Off
a terminal, `explain` and `blame` never wrap a line, so a URL stays whole for the next
program in a pipe.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from support import stored_readme
from support.replay_server import ReplayServer

CLAIMCHECK = Path(sys.executable).parent / "claimcheck"
LLAMA = "ggml-org/llama.cpp"
# The quantization bullet as the llama.cpp README wrote it from June to August 2023.
QUOTE_2023 = "4-bit, 5-bit and 8-bit integer quantization support"
README = """\
# Engine

## Backends

- Runs on CUDA and Metal GPUs out of the box
- Has a web server with an OpenAI-compatible API

## License

Licensed under the MIT License.
"""
# A source address far wider than any terminal: explain prints it whole.
LONG_URL = "https://github.com/o/" + "r" * 30 + "/blob/main/" + "/".join(["docs"] * 20) + "/x.md"

runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def show(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "40")  # a narrow terminal, were it one: nothing may wrap
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n[verdict]\nmax_age_days = 0\n"
    )
    return tmp_path


def claim_file(project: Path, checked: str, *entries: str) -> None:
    (project / "claims" / "p.yaml").write_text(
        f"page: p\nchecked: {checked}\nclaims:\n" + "".join(entries)
    )


def sourced(claim_id: str, quote: str, source: str = "https://github.com/o/r") -> str:
    return f'  - id: {claim_id}\n    claim: c\n    source: {source}\n    quote: "{quote}"\n'


def store(project: Path, body: str, day: dt.date, source: str = "https://github.com/o/r") -> None:
    stored_readme.store_readme(project / "snapshots", body, source=source, day=day)


# -- diff ----------------------------------------------------------------------------------


def test_diff_of_a_verified_claim_shows_the_same_unit_on_both_sides(project: Path) -> None:
    store(project, README, dt.date(2026, 10, 1))
    claim_file(project, "2026-10-20", sourced("gpus", "Runs on CUDA and Metal GPUs"))

    result = run("diff", "gpus")

    assert result.exit_code == 0, show(result)
    assert result.stdout.splitlines() == [
        "gpus: verified — the quote is in the source in the snapshot of 2026-10-01",
        "--- baseline (2026-10-01)",
        "§ Engine › Backends",
        "• Runs on CUDA and Metal GPUs out of the box",
        "--- now (2026-10-01)",
        "§ Engine › Backends",
        "• Runs on CUDA and Metal GPUs out of the box",
        "(no word changed)",
    ]


def test_diff_of_a_reworded_claim_shows_the_baseline_unit_beside_the_closest_now(
    project: Path,
) -> None:
    store(project, README, dt.date(2026, 10, 1))
    store(project, README.replace("CUDA and Metal", "CUDA, Vulkan and Metal"), dt.date(2026, 11, 1))
    claim_file(project, "2026-10-20", sourced("gpus", "Runs on CUDA and Metal GPUs"))

    result = run("diff", "gpus")

    assert result.exit_code == 0, show(result)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("gpus: drifted — the quote changed")
    score = lines[0].rsplit(" ", 1)[1]  # "... the closest text matches 88%"
    assert lines[1:8] == [
        "--- baseline (2026-10-01)",
        "§ Engine › Backends",
        "• Runs on CUDA and Metal GPUs out of the box",
        f"--- now (the closest text): {score}, snapshot of 2026-11-01",
        "§ Engine › Backends",
        "• Runs on CUDA, Vulkan and Metal GPUs out of the box",
        "--- word diff: the quote → the text now",
    ]
    # The quote's change: "out of the box" was there and is no part of the quote.
    assert lines[8:] == ["Runs on [-CUDA-]{+CUDA, Vulkan+} and Metal GPUs"]
    assert "(quote not found)" not in result.stdout


def test_diff_of_a_removed_quote_shows_the_closest_unit_now_with_its_score(
    project: Path,
) -> None:
    store(project, README, dt.date(2026, 10, 1))
    gone = README.replace("- Has a web server with an OpenAI-compatible API\n", "")
    store(project, gone, dt.date(2026, 11, 1))
    claim_file(
        project, "2026-10-20", sourced("server", "a web server with an OpenAI-compatible API")
    )

    result = run("diff", "server")

    assert result.exit_code == 0, show(result)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("server: missing — ")
    assert lines[1:4] == [
        "--- baseline (2026-10-01)",
        "§ Engine › Backends",
        "• Has a web server with an OpenAI-compatible API",
    ]
    assert lines[4].startswith("--- now (the closest text): ")
    assert lines[4].endswith("%, snapshot of 2026-11-01")
    assert lines[5:7] == ["§ Engine › License", "Licensed under the MIT License."]
    # Nothing close enough for the judge: the quote against the closest text, all changed.
    assert lines[7:] == [
        "--- word diff: the quote → the text now",
        "[-a web server with an OpenAI-compatible API-]{+Licensed under the MIT License.+}",
    ]


def test_diff_of_a_claim_that_never_matched_shows_the_closest_unit_at_its_check_date(
    project: Path,
) -> None:
    store(project, README, dt.date(2026, 10, 1))
    claim_file(project, "2026-10-20", sourced("typo", "Runs on CUDA and Metal GPU cards"))

    result = run("diff", "typo")

    assert result.exit_code == 0, show(result)
    lines = result.stdout.splitlines()
    assert "never matched at check date" in lines[0]
    assert lines[1].startswith("--- baseline (the closest text): ")
    assert lines[1].endswith("%, snapshot of 2026-10-01; the quote was not in it")
    assert lines[3] == "• Runs on CUDA and Metal GPUs out of the box"
    assert lines[4].startswith("--- now (the closest text): ")
    # The quote as it was never on the page, against the text that is: the words it
    # lost were replaced by the rest of the item, which is part of the change.
    assert lines[-2:] == [
        "--- word diff: the quote → the text now",
        "Runs on CUDA and Metal [-GPU cards-]{+GPUs out of the box+}",
    ]


def test_diff_without_a_baseline_says_so_and_shows_the_text_now(project: Path) -> None:
    store(project, README, dt.date(2026, 10, 1))
    claim_file(project, "2026-09-01", sourced("gpus", "Runs on CUDA and Metal GPUs"))

    result = run("diff", "gpus")

    assert result.exit_code == 0, show(result)
    assert result.stdout.splitlines()[1:] == [
        "--- baseline: none stored for 2026-09-01 (`claimcheck backfill` stores the source as "
        "it was then, from its history)",
        "--- now (2026-10-01)",
        "§ Engine › Backends",
        "• Runs on CUDA and Metal GPUs out of the box",
        "(nothing to compare it with: no word diff)",
    ]


def test_diff_with_nothing_stored_exits_3(project: Path) -> None:
    claim_file(project, "2026-10-20", sourced("gpus", "Runs on CUDA and Metal GPUs"))

    result = run("diff", "gpus")

    assert result.exit_code == 3, show(result)
    assert "(no snapshot of the source is stored: nothing to compare)" in result.stdout
    assert "claimcheck snapshot" in result.stderr


def test_diff_of_a_claim_without_source_is_a_usage_error(project: Path) -> None:
    claim_file(project, "2026-10-20", "  - id: talk\n    claim: c\n    cited: a talk\n")

    result = run("diff", "talk")

    assert result.exit_code == 2, show(result)
    assert "claim 'talk' has no source URL (citation needed): nothing to diff" in result.stderr
    assert result.stdout == ""


def test_diff_of_a_drifted_github_claim_from_its_history(
    project: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    """The real README history: the bullet checked in June 2023 was reworded in 2024."""
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    replay.as_of = dt.date(2024, 3, 15)
    claim_file(project, "2023-06-15", sourced("quant", QUOTE_2023, f"https://github.com/{LLAMA}"))
    assert run("verify", "--format", "json").exit_code == 1

    result = run("diff", "quant")

    assert result.exit_code == 0, show(result)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("quant: drifted — ")
    assert lines[1].startswith("--- baseline (2023-")
    assert lines[3] == f"• {QUOTE_2023}"
    assert lines[4].startswith("--- now (the closest text): ")
    assert "8-bit integer quantization" in lines[6]
    # The quote's change: the bits listed before "4-bit" are context, shown above.
    assert lines[7:] == [
        "--- word diff: the quote → the text now",
        "4-bit, [-5-bit-]{+5-bit, 6-bit,+} and 8-bit integer quantization "
        "[-support-]{+for faster inference and reduced memory use+}",
    ]


# -- explain and blame: no wrapping off a terminal -------------------------------------------


def whole_line_with(output: str, url: str) -> str:
    """The one line of `output` that holds the whole URL."""
    lines = [line for line in output.splitlines() if url in line]
    assert len(lines) == 1, output
    return lines[0]


def test_explain_prints_a_long_source_url_on_one_line(project: Path) -> None:
    store(project, README, dt.date(2026, 10, 1), source=LONG_URL)
    claim_file(project, "2026-10-20", sourced("long", "Runs on CUDA and Metal GPUs", LONG_URL))
    assert len(LONG_URL) > 120

    result = run("explain", "long")

    assert result.exit_code == 0, show(result)
    assert whole_line_with(result.stdout, LONG_URL) == f"source    {LONG_URL}"
    # the unit, in its context, as one line too
    assert "• Runs on CUDA and Metal GPUs out of the box" in result.stdout.splitlines()


def installed(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed command with stdout a pipe, in a narrow "terminal"."""
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
    environment |= {"COLUMNS": "40", "NO_COLOR": "1", **env}
    return subprocess.run(
        [str(CLAIMCHECK), *args],
        cwd=project,
        env=environment,
        capture_output=True,  # stdout is a pipe
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not CLAIMCHECK.exists(), reason="the claimcheck script is not installed")
def test_explain_through_a_pipe_prints_the_url_whole(project: Path) -> None:
    store(project, README, dt.date(2026, 10, 1), source=LONG_URL)
    claim_file(project, "2026-10-20", sourced("long", "Runs on CUDA and Metal GPUs", LONG_URL))

    done = installed(project, "explain", "long")

    assert done.returncode == 0, done.stderr
    assert whole_line_with(done.stdout, LONG_URL) == f"source    {LONG_URL}"


def commit_link(output: str) -> str:
    (line,) = [line for line in output.splitlines() if line.startswith("link ")]
    return line


def test_blame_prints_the_commit_link_on_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    replay.as_of = dt.date(2024, 3, 15)
    claim_file(project, "2023-06-15", sourced("quant", QUOTE_2023, f"https://github.com/{LLAMA}"))

    result = run("blame", "quant")

    assert result.exit_code == 0, show(result)
    link = commit_link(result.stdout)
    url = link.removeprefix("link").strip()
    assert url.startswith(f"https://github.com/{LLAMA}/commit/")
    assert len(url) > 80  # wider than rich's default width off a terminal
    assert len(url.rsplit("/", 1)[1]) == 40  # the whole commit id, not cut


@pytest.mark.skipif(not CLAIMCHECK.exists(), reason="the claimcheck script is not installed")
def test_blame_through_a_pipe_prints_the_commit_link_whole(
    project: Path, replay: ReplayServer
) -> None:
    replay.as_of = dt.date(2024, 3, 15)
    claim_file(project, "2023-06-15", sourced("quant", QUOTE_2023, f"https://github.com/{LLAMA}"))

    done = installed(project, "blame", "quant", GITHUB_API_URL=replay.base_url)

    assert done.returncode == 0, done.stderr
    url = commit_link(done.stdout).removeprefix("link").strip()
    assert url.startswith(f"https://github.com/{LLAMA}/commit/")
    assert len(url.rsplit("/", 1)[1]) == 40


# -- show ----------------------------------------------------------------------------------


def test_show_names_the_baseline_the_judge_and_diff_use_on_a_day_of_two_versions(
    project: Path,
) -> None:
    """Two versions on the check date, the quote in the morning's only: the judge's
    baseline is the morning's (the newest of the day the quote held in); `show` named
    the evening's, the end of the day's, and so disagreed with the verdict and `diff`."""
    day = dt.date(2026, 10, 20)
    evening = README.replace("Runs on CUDA and Metal", "Runs on")
    saved = {
        hour: stored_readme.store_readme(project / "snapshots", body, day=day, at=dt.time(hour))
        for hour, body in ((9, README), (18, evening))
    }
    claim_file(project, day.isoformat(), sourced("c", "Runs on CUDA and Metal GPUs"))

    shown = run("show", "c")

    assert shown.exit_code == 0, show(shown)
    fields = (line.partition(":") for line in shown.stdout.splitlines())
    lines = {name.strip(): value for name, _, value in fields}
    assert saved[9].file in lines["baseline"], show(shown)
    assert saved[18].file in lines["snapshot"], show(shown)
