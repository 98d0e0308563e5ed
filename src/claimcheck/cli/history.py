"""Commands about a claim's history: backfill baselines, blame, diff and explain.

They answer an editor's questions about one claim — what did the source say when it
was checked, who changed it, what exactly changed, why this verdict — from the stored
snapshots, fetching only when asked to (`--fetch`) or when history is the point
(backfill, blame).

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, PartOpt, PathsArg, SnapshotsOpt, complete_claim_id

ClaimArg = Annotated[
    str,
    typer.Argument(metavar="CLAIM", help="The claim's id.", autocompletion=complete_claim_id),
]


FetchOpt = Annotated[
    bool,
    typer.Option("--fetch", help="Fetch the source first instead of using stored snapshots."),
]


def register(app: typer.Typer) -> None:
    """Add `backfill`, `blame`, `diff` and `explain` to the claimcheck app."""
    app.command(name="backfill")(backfill)
    app.command(name="blame")(blame)
    app.command(name="diff")(diff)
    app.command(name="explain")(explain)


def backfill(
    paths: PathsArg = None, config_path: ConfigOpt = None, snapshots: SnapshotsOpt = None
) -> None:
    """Store each claim's baseline (its source as of its check date) from history.

    GitHub sources come from the commit history, other pages from the Wayback Machine.
    Exit 0: every baseline is stored; 3: some could not be found; 2: bad input.
    """
    dispatch(backfill, locals())


def blame(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Name the upstream commit that changed or removed a stale claim's quote.

    Fetches the source and its history. Exit 0: printed (or the claim is not stale);
    3: the commit could not be found; 2: unknown claim or bad input.
    """
    dispatch(blame, locals())


def diff(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    fetch: FetchOpt = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Show the claim's context at its baseline and now, word by word, quote highlighted.

    Where the quote is not found (a drifted or missing claim, or one that never matched
    at its check date), that side shows the unit closest to it (the paragraph, list
    item or table row that replaced it) and how close it is; without a stored baseline,
    the text now alone. Exit 0: shown; 3: no snapshot of the source is stored; 2:
    unknown claim, or a claim without source.
    """
    dispatch(diff, locals())


def explain(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    fetch: FetchOpt = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Explain a claim's verdict: the text around the best match, the score, the rule.

    For an absence claim: the texts it says the source does not say, and the one the
    source says, in its context, when it is contradicted.

    Exit 0: explained; 2: unknown claim or bad input.
    """
    dispatch(explain, locals())
