"""The `schedule` and `init` commands: nightly runs in a long-lived process, and their set-up.

`schedule` checks every input before it takes the lock and waits for the first fire
time, so a typo fails at start, not at 3 a.m.; each run then logs one line to stderr.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, FailOnOpt, OutputsOpt, PathsArg, SnapshotsOpt

DEFAULT_CRON = "17 3 * * *"
"""The default of --cron: `nightly.cycle.DEFAULT_CRON` (a test holds them equal)."""


def register(app: typer.Typer) -> None:
    """Add `schedule` and `init` to the claimcheck app."""
    app.command(name="schedule")(schedule)
    app.command(name="init")(init)


def schedule(
    paths: PathsArg = None,
    cron: Annotated[
        str,
        typer.Option(
            "--cron",
            metavar="EXPR",
            help="When to run: crontab's five fields (minute hour day month weekday).",
        ),
    ] = DEFAULT_CRON,
    timezone: Annotated[
        str, typer.Option("--timezone", metavar="NAME", help="IANA time zone of --cron.")
    ] = "UTC",
    jitter: Annotated[
        int,
        typer.Option(
            "--jitter", min=0, metavar="SECONDS", help="Start each run up to SECONDS late."
        ),
    ] = 0,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
    issues: Annotated[
        bool | None,
        typer.Option(
            "--issues/--no-issues",
            help="Keep one GitHub issue per claim to fix or review after each run, as "
            "`[issues]` says [default: when "
            "GITHUB_REPOSITORY and GITHUB_TOKEN are set].",
            show_default=False,
        ),
    ] = None,
    commit: Annotated[
        bool,
        typer.Option("--commit", help="Commit the changed snapshots to git after each run."),
    ] = False,
    once: Annotated[
        bool,
        typer.Option("--once", help="Run once now and exit with verify's exit code."),
    ] = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Run verify nightly: fetch, store, judge, write the reports, sync issues, commit.

    A run missed while the process was down runs once at start-up. One run at a time
    per snapshots folder, also across processes. SIGTERM or SIGINT: no new work, the
    current run finishes (or is left before it stores anything), exit 0. One line per
    run on stderr. Claim files are read again for every run.

    Exit (with --once): as verify; 0 when stopped by a signal; 2: bad input, or
    another process holds the lock.
    """
    dispatch(schedule, locals())


def init(
    folder: Annotated[
        Path,
        typer.Argument(
            metavar="FOLDER", help="The repository to set up.", show_default="the current folder"
        ),
    ] = Path(),
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite files that are already there.")
    ] = False,
    skip_existing: Annotated[
        bool,
        typer.Option(
            "--skip-existing",
            help="Keep files that are already there and write only the missing ones.",
        ),
    ] = False,
) -> None:
    """Set up a repository: claims/, snapshots/, claimcheck.toml and two GitHub workflows.

    The workflows are a nightly run (snapshots committed, issues kept, HTML report
    uploaded) and a pull-request gate. One line a file on stdout: `created PATH`, or
    `kept PATH` for a file --skip-existing left as it was. Exit 0: written (or nothing
    missing); 2: a file is already there without --force or --skip-existing (nothing
    is written), both flags given, or a file cannot be written.
    """
    dispatch(init, locals())
