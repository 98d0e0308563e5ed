"""What a command writes: the report on stdout, the progress bar, colour and width."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from claimcheck.cli.verbosity import quiet
from claimcheck.report.formats import is_utf8_document, render, render_chunks

if TYPE_CHECKING:
    from claimcheck.models import Report
    from claimcheck.report.formats import OutputFormat
    from claimcheck.run import ProgressCallback


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressCallback | None]:
    """A progress bar on stderr when it is a terminal (and not -q); nothing otherwise.

    It names the phase the run is in and its count (fetching 10/10, fetching and
    reading history 3/7, judging 2,000/10,000), so a long history lookup is not shown
    as fetching alone.
    """
    if not enabled or quiet() or not sys.stderr.isatty():
        yield None
        return
    console = Console(file=sys.stderr)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(phase: str, done: int, total: int) -> None:
            bar.update(task, description=phase, completed=done, total=total)

        yield update


def use_color(stream: object) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def terminal_width(stream: object) -> int | None:
    """The terminal's columns when the stream is one; None for a file or a pipe."""
    isatty = getattr(stream, "isatty", None)
    return shutil.get_terminal_size().columns if isatty and isatty() else None


def emit(report: Report, fmt: OutputFormat, *, color: bool = False) -> None:
    """Write a report to stdout in a format.

    The JSON formats (json, sarif) go as UTF-8 bytes where stdout takes bytes: a large
    report is never held as a `str` (see `json_text.indented_bytes`). The others are
    text for a person, written through stdout's own encoding (a terminal's).
    """
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None or not is_utf8_document(fmt):
        sys.stdout.write(render(report, fmt, color=color, width=terminal_width(sys.stdout)))
        return
    sys.stdout.flush()  # what was written as text goes first
    for chunk in render_chunks(report, fmt):  # the JSON report a result at a time
        buffer.write(chunk)
    buffer.flush()
