"""What `claimcheck report render` does: a JSON report in another format, with its exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.options import FailOn, FormatName
from claimcheck.cli.output import emit, parse_outputs
from claimcheck.cli.terminal import use_color
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.report_file import read_document
from claimcheck.models import Verdict
from claimcheck.report.build import exit_code, summary_line
from claimcheck.report.formats import OutputFormat
from claimcheck.report.load import ReportError, load_report_document
from claimcheck.report.write import write_outputs

if TYPE_CHECKING:
    from claimcheck.models import Report


def render_report(
    *, report: Path, fmt: FormatName, outputs: list[str] | None, fail_on: list[FailOn] | None
) -> int:
    """The work of `claimcheck report render`, given its parsed options: its exit code."""
    targets = parse_outputs(outputs or [])
    loaded = read_report(report)
    report_format = OutputFormat(fmt.value)
    color = report_format is OutputFormat.TABLE and use_color(sys.stdout)
    emit(loaded, report_format, color=color)
    write_outputs(loaded, targets, stdout_format=report_format)
    if report_format is not OutputFormat.TABLE:
        say(summary_line(loaded))
    return int(exit_code(loaded, fail_on=[Verdict(v) for v in fail_on or []]))


def read_report(path: Path) -> Report:
    """The report of a JSON report file; every problem names the file."""
    document = read_document(path)
    try:
        return load_report_document(document)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from exc
