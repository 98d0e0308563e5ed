"""The `notify` command: tell the configured routes of the claims whose state changed.

This module holds the command's options and help only, so that building them (for
`--help` too) imports no more than typer; its work is `cli/work/notify.py`, imported
when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, SnapshotsOpt


def register(app: typer.Typer) -> None:
    """Add `notify` to the claimcheck app."""
    app.command(name="notify")(notify)


def notify(
    report: Annotated[
        Path,
        typer.Option(
            "--report",
            metavar="PATH",
            help="JSON report of a whole run (`verify --format json`, `report merge`).",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print each route's message and its variable; send and record nothing.",
        ),
    ] = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Tell each notification route of the claims whose state changed (Apprise).

    A route is told of a claim once, when it becomes stale, needs review or recovers;
    what each route was told is kept in snapshots/state.json. The routes are `[notify]`
    in claimcheck.toml; their Apprise URLs come from the environment only
    (CLAIMCHECK_NOTIFY for the default route). Exit 0: every route told (or nothing to
    tell); 2: bad input; 3: a route could not be told (it is told again next run).
    """
    dispatch(notify, locals())
