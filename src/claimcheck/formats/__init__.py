"""Output formats: each renders a Report to text and sends nothing.

`FORMATTERS` maps every `OutputFormat` to its renderer; the CLI takes its choices from
the enum, and a test asserts that every name has a formatter.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from claimcheck.formats.github import render_github
from claimcheck.formats.html import render_html
from claimcheck.formats.json import render_json
from claimcheck.formats.junit import render_junit
from claimcheck.formats.markdown import render_markdown
from claimcheck.formats.sarif import render_sarif
from claimcheck.formats.table import render_table
from claimcheck.models import Report


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
