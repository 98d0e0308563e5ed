"""Write reports to files, and to GitHub's job summary when the github format is used."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from claimcheck.errors import UsageError
from claimcheck.models import Report
from claimcheck.report.formats import OutputFormat, render, render_bytes
from claimcheck.store.files import atomic_write


def write_outputs(
    report: Report,
    targets: list[tuple[OutputFormat, Path]],
    stdout_format: OutputFormat | None = None,
    env: Mapping[str, str] | None = None,
    preface: str = "",
) -> None:
    """Write each requested report file atomically (never a half-written report).

    When the github format is used (on stdout or as a file) inside GitHub Actions, the
    Markdown report also goes to the job summary: GitHub shows only a few annotations
    per step, the summary lists every claim. `preface`, Markdown, goes before it there
    (what the run chose to judge, and why).
    """
    for fmt, path in targets:
        atomic_write(path, render_bytes(report, fmt))
    formats = {stdout_format, *(fmt for fmt, _ in targets)}
    if OutputFormat.GITHUB in formats:
        append_step_summary(report, os.environ if env is None else env, preface)


def append_step_summary(report: Report, env: Mapping[str, str], preface: str = "") -> None:
    """Append the Markdown report to the file named by GITHUB_STEP_SUMMARY, if set.

    GitHub creates that file per step and shows what the steps appended, so this
    appends and never replaces.
    """
    summary = env.get("GITHUB_STEP_SUMMARY")
    if not summary:
        return
    try:
        with Path(summary).open("a", encoding="utf-8") as handle:
            handle.write(preface + render(report, OutputFormat.MARKDOWN))
    except OSError as exc:
        raise UsageError(
            f"cannot append the job summary to GITHUB_STEP_SUMMARY={summary}: {exc.strerror}",
            hint="GITHUB_STEP_SUMMARY must name a writable file (GitHub Actions sets it)",
        ) from exc
