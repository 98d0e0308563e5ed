"""The report a command writes: on stdout in one format, and in others to --output's paths."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.terminal import terminal_width
from claimcheck.errors import UsageError
from claimcheck.report.formats import OutputFormat, is_utf8_document, render, render_chunks

if TYPE_CHECKING:
    from claimcheck.models import Report


def parse_outputs(values: list[str]) -> list[tuple[OutputFormat, Path]]:
    """`FORMAT=PATH` pairs, checked before any work is done."""
    targets = []
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not path or name not in OutputFormat.__members__.values():
            raise UsageError(
                f"--output {value!r}: expected FORMAT=PATH with FORMAT one of "
                f"{', '.join(OutputFormat)}"
            )
        targets.append((OutputFormat(name), Path(path)))
    return targets


def emit(report: Report, fmt: OutputFormat, *, color: bool = False) -> None:
    """Write a report to stdout in a format.

    The JSON formats (json, sarif) go as UTF-8 bytes where stdout takes bytes: a large
    report is never held as a `str` (see `json_text.indented_bytes`). The others are
    text for a person, written through stdout's own encoding (a terminal's).
    """
    if getattr(sys.stdout, "buffer", None) is None or not is_utf8_document(fmt):
        sys.stdout.write(render(report, fmt, color=color, width=terminal_width(sys.stdout)))
        return
    write_utf8(render_chunks(report, fmt))  # the JSON report a result at a time


def write_utf8(chunks: Iterable[bytes]) -> None:
    """Write UTF-8 `chunks` to stdout as they are, whatever the terminal's encoding:
    straight to its bytes after what was written as text, or decoded where stdout takes
    text only."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(b"".join(chunks).decode("utf-8"))
        return
    sys.stdout.flush()  # what was written as text goes first
    for chunk in chunks:
        buffer.write(chunk)
    buffer.flush()
