"""Output formats: each renders a Report to text and sends nothing.

`FORMATTERS` maps every `OutputFormat` to its renderer; the CLI takes its choices from
the enum, and a test asserts that every name has a formatter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import StrEnum

from claimcheck.models import Report
from claimcheck.report.formats.github import render_github
from claimcheck.report.formats.html import render_html
from claimcheck.report.formats.json import json_chunks, render_json, render_json_bytes
from claimcheck.report.formats.junit import render_junit
from claimcheck.report.formats.markdown import render_markdown
from claimcheck.report.formats.sarif import render_sarif, render_sarif_bytes
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


_AS_BYTES: dict[OutputFormat, Callable[[Report], bytes]] = {
    OutputFormat.JSON: render_json_bytes,
    OutputFormat.SARIF: render_sarif_bytes,
}
"""The formats that are written as UTF-8 straight from the document (JSON's): their
text is never made a `str` (see `json_text.indented_bytes`)."""


def is_utf8_document(fmt: OutputFormat) -> bool:
    """Whether the format is a JSON document written as UTF-8 bytes (`render_bytes`)."""
    return fmt in _AS_BYTES


def render_bytes(
    report: Report, fmt: OutputFormat, *, color: bool = False, width: int | None = None
) -> bytes:
    """`render(...)` as UTF-8, for a file or a stream."""
    as_bytes = _AS_BYTES.get(fmt)
    if as_bytes is not None:
        return as_bytes(report)
    return render(report, fmt, color=color, width=width).encode("utf-8")


def render_chunks(report: Report, fmt: OutputFormat) -> Iterator[bytes]:
    """`render_bytes(report, fmt)` in pieces, for a stream: the JSON report a result at a
    time (`json_chunks`), so that a large one is never held whole; the others whole."""
    if fmt is OutputFormat.JSON:
        return json_chunks(report)
    return iter((render_bytes(report, fmt),))
