"""Formats through the CLI: every --format and --output name, and the GitHub job summary."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.report.formats import OutputFormat, render
from claimcheck.report.write import write_outputs
from claimcheck.store.store import Store
from support.sample_reports import RICH

CLAIMS = """\
page: page
checked: 2026-10-20
claims:
  - id: quant
    claim: supports 2- to 8-bit
    source: https://github.com/o/r
    quote: "2-bit, 4-bit and 8-bit integer quantization"
"""
README = "# R\n\n- 2-bit, 3-bit and 8-bit integer quantization\n"

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A claim whose quote is no longer on its source, judged offline (a stale claim)."""
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "page.yaml").write_text(CLAIMS)
    ref = resolve_source("https://github.com/o/r")
    Store(tmp_path / "snapshots").save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=README.encode(),
        media=MediaType.MARKDOWN,
        fetched_at=dt.datetime(2026, 10, 20, 12, tzinfo=dt.UTC),
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return tmp_path


@pytest.mark.parametrize("fmt", list(OutputFormat), ids=str)
def test_every_format_on_stdout_and_as_a_file(project: Path, fmt: OutputFormat) -> None:
    result = runner.invoke(
        app, ["verify", "--offline", "--format", fmt.value, "-o", f"{fmt.value}=out/report"]
    )
    assert result.exit_code == 1, result.output
    assert "quant" in result.stdout
    assert (project / "out" / "report").read_text(encoding="utf-8") == result.stdout


def test_github_format_appends_the_markdown_report_to_the_job_summary(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = runner.invoke(app, ["verify", "--offline", "--format", "github"])
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("::error file=claims/page.yaml,line=4,")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## claimcheck: 1 claim: 1 ")
    assert "#### `quant` · " in text


def test_github_output_file_also_fills_the_job_summary(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = runner.invoke(app, ["verify", "--offline", "-f", "json", "-o", "github=gh.txt"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["results"][0]["stale"]
    assert "#### `quant` · " in summary.read_text(encoding="utf-8")


def test_no_job_summary_without_the_github_format(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = runner.invoke(app, ["verify", "--offline", "-f", "markdown"])
    assert result.exit_code == 1, result.output
    assert not summary.exists()


def test_no_job_summary_outside_github_actions(tmp_path: Path) -> None:
    write_outputs(RICH, [], stdout_format=OutputFormat.GITHUB, env={})
    assert list(tmp_path.iterdir()) == []


def test_unwritable_job_summary_is_a_run_level_error(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(project / "no" / "such" / "dir" / "s.md"))
    result = runner.invoke(app, ["verify", "--offline", "-f", "github"])
    assert result.exit_code == 2
    assert "GITHUB_STEP_SUMMARY" in result.stderr


def test_an_output_path_that_is_a_folder_is_a_run_level_error_about_that_path(
    project: Path,
) -> None:
    (project / "out").mkdir()
    result = runner.invoke(app, ["verify", "--offline", "-q", "-o", "json=out"])
    assert result.exit_code == 2
    assert "cannot write out" in result.stderr
    # The hint is about the file asked for, not about the snapshots folder.
    assert "snapshots" not in result.stderr
    assert "out is not a folder" in result.stderr


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_table_fits_the_terminal_width(width: int) -> None:
    text = render(RICH, OutputFormat.TABLE, width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert ("source" in text.splitlines()[0]) is (width >= 100)


def test_table_groups_by_page_marks_stale_rows_and_lists_them_again() -> None:
    lines = render(RICH, OutputFormat.TABLE).splitlines()
    assert lines[1].strip() == "page page"
    assert lines.count("   page other") == 1
    drifted = next(line for line in lines if "claim-drifted" in line)
    assert drifted.startswith("✗")
    verified = next(line for line in lines if "claim-verified" in line)
    assert verified.startswith("   ")
    assert "stale (5), fix these first:" in lines
    assert any(line.startswith("  ✗ claims/page.yaml:7") for line in lines)
    assert all(line == line.rstrip() for line in lines)
