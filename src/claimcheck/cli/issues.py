"""The `claimcheck issues` command: one GitHub issue per claim a person must act on.

It reads a JSON report (or runs verify) and the claim files' ids (only claims in
them are acted on, whatever the report names), lists the
repository's claimcheck issues, lets `github.sync.plan_sync` decide (which verdicts
file an issue and their labels come from `[issues]` in claimcheck.toml), and carries
the plan out one write at a time.
Each action goes to stdout as one line; the summary and errors go to stderr.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, SnapshotsOpt

API_VERSION = "2022-11-28"
"""The default of --api-version: `github.issues.API_VERSION` (a test holds them equal)."""


def register(app: typer.Typer) -> None:
    """Add `issues` to the claimcheck app."""
    app.command(name="issues")(issues)


def issues(
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            envvar="GITHUB_REPOSITORY",
            metavar="OWNER/NAME",
            help="Repository whose issues are kept [default: $GITHUB_REPOSITORY].",
            show_default=False,
            show_envvar=False,
        ),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="PATH",
            help="JSON report of a whole run (`verify --format json`, `report merge`) "
            "[default: run verify now].",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print what would be done; write nothing."),
    ] = False,
    max_new: Annotated[
        int | None,
        typer.Option(
            "--max-new",
            min=0,
            metavar="N",
            help="Create at most N issues this run [default: the config's `[issues] max_new`, 20].",
            show_default=False,
        ),
    ] = None,
    unreachable_after: Annotated[
        int,
        typer.Option(
            "--unreachable-after",
            min=1,
            metavar="N",
            help="File an unreachable source after N consecutive failed runs.",
        ),
    ] = 3,
    gone_after: Annotated[
        int,
        typer.Option(
            "--gone-after",
            min=1,
            metavar="N",
            help="File a source-gone claim after N consecutive runs.",
        ),
    ] = 2,
    label: Annotated[
        str | None,
        typer.Option(
            "--label",
            metavar="NAME",
            help="Label that marks claimcheck's issues [default: the config's `[issues] "
            "label`, claimcheck].",
            show_default=False,
        ),
    ] = None,
    api_version: Annotated[
        str, typer.Option("--api-version", metavar="DATE", help="X-GitHub-Api-Version header.")
    ] = API_VERSION,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Keep one GitHub issue per claim to fix or review: create, update, reopen, close.

    Stale claims get issues labelled `stale`; context-changed and moved ones
    `review` (`[issues]` in claimcheck.toml turns review issues off, expired ones
    on). Needs GITHUB_TOKEN (except with --dry-run); GITHUB_API_URL as for verify.
    Only claims in the claim files are acted on: a report's claim in none is named
    and skipped. An issue is closed as removed only when its claim is gone from the
    claim files.

    Exit 0: issues in sync; 2: bad input or usage (a shard's report: merge the
    shards' reports first), or GitHub refused (token, repository); 3: GitHub could
    not be reached or kept rate-limiting: run again; 4: more claims need a new issue
    than --max-new lets one run create: the rest are created by the next runs.
    """
    dispatch(issues, locals())
