"""The `verify` and `snapshot` commands: judge every claim, or only fetch and store.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import (
    ConcurrencyOpt,
    ConfigOpt,
    FailOnOpt,
    FormatName,
    JobsOpt,
    OutputsOpt,
    PathsArg,
    ProgressOpt,
    ShardOpt,
    SnapshotsOpt,
)


def register(app: typer.Typer) -> None:
    """Add `verify` and `snapshot` to the claimcheck app."""
    app.command()(verify)
    app.command()(snapshot)


def verify(
    paths: PathsArg = None,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Judge against stored snapshots only; no network."),
    ] = False,
    fmt: Annotated[
        FormatName, typer.Option("--format", "-f", help="Report format on stdout.")
    ] = FormatName.TABLE,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    jobs: JobsOpt = None,
    progress: ProgressOpt = True,
    allow_empty: Annotated[
        bool,
        typer.Option("--allow-empty", help="Pass when there are no claims at all (else exit 2)."),
    ] = False,
    shard: ShardOpt = None,
    cite: Annotated[
        bool,
        typer.Option(
            "--cite",
            help="Ask GitHub, the Hub or the Wayback Machine which version each uncited "
            "snapshot is, so the report links it (at most 50 per run; remembered).",
        ),
    ] = False,
    changed_since: Annotated[
        str | None,
        typer.Option(
            "--changed-since",
            metavar="REF",
            help="Judge only the claims a change since REF (a git commit, e.g. "
            "origin/main) concerns: their claim file or article changed, a stored "
            "snapshot of their source changed, or claimcheck.toml changed (then all). "
            "Uncommitted and untracked files count as changed.",
        ),
    ] = None,
    notify: Annotated[
        bool,
        typer.Option(
            "--notify",
            help="Then tell the notification routes of the claims whose state changed "
            "(`claimcheck notify`); a route that fails is named on stderr and changes "
            "no exit code.",
        ),
    ] = False,
) -> None:
    """Fetch every source, store new snapshots and judge every claim.

    Exit 0: nothing stale; 1: a claim is stale (drifted, missing, contradicted,
    source-gone, or a --fail-on verdict); 2: bad input or usage, or no claims found (unless
    --allow-empty); 3: nothing stale, but some sources could not be checked.
    """
    dispatch(verify, locals())


def snapshot(
    paths: PathsArg = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    jobs: JobsOpt = None,
    progress: ProgressOpt = True,
    shard: ShardOpt = None,
) -> None:
    """Fetch every source and store what changed, without judging.

    Exit 0: every source fetched; 3: some could not be fetched; 2: bad input.
    """
    dispatch(snapshot, locals())
