"""The `list` and `show` commands: the claims with their last verdicts, and one claim whole.

Neither uses the network.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import (
    VERDICT_NAMES,
    ConfigOpt,
    IdArg,
    ListingFormat,
    ListingFormatOpt,
    PathsArg,
    SnapshotsOpt,
)

# What `list --verdict` filters on: a verdict, or no verdict yet. Built from the names
# of `Verdict` (a test holds them equal) so that a new verdict is a new choice here too.
NEVER_JUDGED = "never-judged"
LAST_VERDICTS = (*VERDICT_NAMES, NEVER_JUDGED)


def register(app: typer.Typer) -> None:
    """Add `list` and `show` to the claimcheck app."""
    app.command("list")(list_claims)
    app.command()(show)


def list_claims(
    paths: PathsArg = None,
    page: Annotated[
        list[str] | None,
        typer.Option(
            "--page",
            metavar="PAGE",
            help="Only this page's claims; repeatable.",
            show_default=False,
        ),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source", help="Only claims whose source URL (or citation) contains this text."
        ),
    ] = None,
    verdict: Annotated[
        list[str] | None,
        typer.Option(
            "--verdict",
            metavar="VERDICT",
            help="Only claims whose last verdict is VERDICT; repeatable "
            f"({', '.join(LAST_VERDICTS)}).",
            show_default=False,
        ),
    ] = None,
    output_format: ListingFormatOpt = ListingFormat.TABLE,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """List the claims with their last verdicts (of the last run that fetched).

    Filters combine; a claim no run has judged yet shows `never-judged` (in JSON:
    a null verdict). The count goes to stderr.
    """
    dispatch(list_claims, locals())


def show(
    claim_id: IdArg,
    paths: PathsArg = None,
    output_format: ListingFormatOpt = ListingFormat.TABLE,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Show one claim: every field, its last verdict and reason, and its snapshots.

    Exit 0: shown; 2: unknown id (the closest ids are named).
    """
    dispatch(show, locals())
