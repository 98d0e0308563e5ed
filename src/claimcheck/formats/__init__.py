"""Output formats: each renders a Report to text and sends nothing.

`FORMATTERS` maps every `OutputFormat` to its renderer; the CLI takes its choices from
the enum, and a test asserts that every name has a formatter.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from claimcheck.formats.json import render_json
from claimcheck.formats.table import render_table
from claimcheck.models import Report


class OutputFormat(StrEnum):
    """The names users give to --format."""

    TABLE = "table"
    JSON = "json"


Renderer = Callable[[Report, bool], str]

FORMATTERS: dict[OutputFormat, Renderer] = {
    OutputFormat.TABLE: render_table,
    OutputFormat.JSON: render_json,
}


def render(report: Report, fmt: OutputFormat, *, color: bool = False) -> str:
    """Render a report in the chosen format; `color` only matters to terminal output."""
    return FORMATTERS[fmt](report, color)
