"""Output formats: each renders a Report to text and sends nothing.

`FORMATTERS` names, for every `OutputFormat`, the module of this package that renders
it and the renderer there; the CLI takes its choices from the enum, and a test asserts
that every name has a formatter. A format's module is imported when a report is first
rendered in it (by name, as the package's public names are, `claimcheck.__init__`):
a run that writes JSON never loads the table's terminal cells, the JUnit writer's XML
library or the HTML page's assets.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any

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

FORMATTERS: dict[OutputFormat, tuple[str, str]] = {
    OutputFormat.TABLE: ("table", "render_table"),
    OutputFormat.JSON: ("json", "render_json"),
    OutputFormat.MARKDOWN: ("markdown", "render_markdown"),
    OutputFormat.GITHUB: ("github", "render_github"),
    OutputFormat.SARIF: ("sarif", "render_sarif"),
    OutputFormat.JUNIT: ("junit", "render_junit"),
    OutputFormat.HTML: ("html", "render_html"),
}
"""Each format's module in this package and its renderer, a `Renderer`."""


def _named(module: str, name: str) -> Any:
    """`name` of this package's `module`, which is imported now if it was not yet."""
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def renderer(fmt: OutputFormat) -> Renderer:
    """The function that renders a report in `fmt` (`report`, `color`) to text."""
    found: Renderer = _named(*FORMATTERS[fmt])
    return found


def render(
    report: Report, fmt: OutputFormat, *, color: bool = False, width: int | None = None
) -> str:
    """Render a report in the chosen format.

    `color` and `width` (the terminal's columns) only matter to the terminal table;
    without a width the table uses one wide enough for a log or a file.
    """
    if fmt is OutputFormat.TABLE and width is not None:
        table: Callable[[Report, bool, int], str] = _named("table", "render_table")
        return table(report, color, width)
    return renderer(fmt)(report, color)


_AS_BYTES: dict[OutputFormat, tuple[str, str]] = {
    OutputFormat.JSON: ("json", "render_json_bytes"),
    OutputFormat.SARIF: ("sarif", "render_sarif_bytes"),
}
"""The formats that are written as UTF-8 straight from the document (JSON's): their
text is never made a `str` (see `json_text.indented_bytes`); each one's module and
function from the report to bytes."""


def is_utf8_document(fmt: OutputFormat) -> bool:
    """Whether the format is a JSON document written as UTF-8 bytes (`render_bytes`)."""
    return fmt in _AS_BYTES


def render_bytes(
    report: Report, fmt: OutputFormat, *, color: bool = False, width: int | None = None
) -> bytes:
    """`render(...)` as UTF-8, for a file or a stream."""
    as_bytes = _AS_BYTES.get(fmt)
    if as_bytes is not None:
        to_bytes: Callable[[Report], bytes] = _named(*as_bytes)
        return to_bytes(report)
    return render(report, fmt, color=color, width=width).encode("utf-8")


def render_chunks(report: Report, fmt: OutputFormat) -> Iterator[bytes]:
    """`render_bytes(report, fmt)` in pieces, for a stream: the JSON report a result at a
    time (`json.json_chunks`), so that a large one is never held whole; the others whole."""
    if fmt is OutputFormat.JSON:
        chunks: Callable[[Report], Iterator[bytes]] = _named("json", "json_chunks")
        return chunks(report)
    return iter((render_bytes(report, fmt),))
