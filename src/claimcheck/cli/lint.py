"""The `lint` command: every claim file checked offline, against the stored snapshots.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import (
    ConfigOpt,
    ListingFormat,
    ListingFormatOpt,
    PathsArg,
    SnapshotsOpt,
)


def register(app: typer.Typer) -> None:
    """Add `lint` to the claimcheck app."""
    app.command()(lint)


def lint(
    paths: PathsArg = None,
    output_format: ListingFormatOpt = ListingFormat.TABLE,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Check every claim file offline, against the latest stored snapshots.

    Errors: schema and duplicate-id (as the parser reports them), quote-not-found,
    context-mismatch (the prefix/suffix do not fit), absent-found (the source says
    what an absence claim says it does not), no-snapshot. Warnings:
    short-quote (under 3 words or 12 characters), ambiguous-quote (several
    occurrences and no prefix/suffix). One finding a line on stdout (with --format
    json: one document listing them), the summary on stderr.

    Exit 0: no errors (warnings allowed); 1: errors; 2: a claim file cannot be used
    (schema, duplicate ids) or bad usage.
    """
    dispatch(lint, locals())
