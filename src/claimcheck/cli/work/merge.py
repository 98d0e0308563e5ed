"""What `claimcheck report merge` does: one run's report from its shards' reports."""

from __future__ import annotations

from pathlib import Path

from claimcheck.cli.lazy import state_merge
from claimcheck.cli.output import emit
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.report_file import read_document
from claimcheck.report.build import summary_line
from claimcheck.report.formats import OutputFormat
from claimcheck.report.merge import merge_documents
from claimcheck.report.write import write_outputs


def merge(
    *,
    parts: list[Path],
    output: Path | None,
    states: list[Path] | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck report merge`, given its parsed options: its exit code."""
    merged = merge_documents([(str(path), read_document(path)) for path in parts])
    if states:
        told = state_merge()(states, config_path, snapshots)
    if output is None:
        emit(merged, OutputFormat.JSON)
    else:
        write_outputs(merged, [(OutputFormat.JSON, output)])
    say(f"merged {len(parts)} reports: {summary_line(merged)}")
    if states:
        say(told)
    return 0
