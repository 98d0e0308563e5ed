"""Output formats: each renders a Report to text and sends nothing.

`FORMATTERS` maps every `OutputFormat` to its renderer; the CLI takes its choices from
the enum, and a test asserts that every name has a formatter.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from claimcheck.models import Report
from claimcheck.report.formats.github import render_github
from claimcheck.report.formats.html import render_html
from claimcheck.report.formats.json import render_json
from claimcheck.report.formats.junit import render_junit
from claimcheck.report.formats.markdown import render_markdown
from claimcheck.report.formats.sarif import render_sarif
from claimcheck.report.formats.table import render_table


class OutputFormat(StrEnum):
    """The names users give to --format and --output."""

    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"
    GITHUB = "github"
    SARIF = "sarif"
    JUNIT = "junit"
    HTML = "html"


Renderer = Callable[[Report, bool], str]

FORMATTERS: dict[OutputFormat, Renderer] = {
    OutputFormat.TABLE: render_table,
    OutputFormat.JSON: render_json,
    OutputFormat.MARKDOWN: render_markdown,
    OutputFormat.GITHUB: render_github,
    OutputFormat.SARIF: render_sarif,
    OutputFormat.JUNIT: render_junit,
    OutputFormat.HTML: render_html,
}


def render(
    report: Report, fmt: OutputFormat, *, color: bool = False, width: int | None = None
) -> str:
    """Render a report in the chosen format.

    `color` and `width` (the terminal's columns) only matter to the terminal table;
    without a width the table uses one wide enough for a log or a file.
    """
    if fmt is OutputFormat.TABLE and width is not None:
        return render_table(report, color, width)
    return FORMATTERS[fmt](report, color)
