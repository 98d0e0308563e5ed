"""The `report` commands: merge the JSON reports of a run's shards, render a JSON report.

`verify --shard K/N` in N parallel jobs writes N partial reports; `report merge` makes
them the report of one run (report/merge.py decides, this module reads and writes
the files), and `report render` turns any JSON report into the other formats, with
verify's exit code, so the job that merges can annotate, summarize and gate.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, FailOnOpt, FormatName, OutputsOpt, SnapshotsOpt

report_app = typer.Typer(
    name="report",
    help="Merge the JSON reports of a run's shards; render a JSON report in any format.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    """Add the `report` command group to the claimcheck app."""
    app.add_typer(report_app, name="report")


@report_app.command("merge")
def merge(
    parts: Annotated[
        list[Path],
        typer.Argument(
            metavar="PART.json",
            help="The JSON reports of every shard of one run (`verify --shard K/N "
            "--format json`, each K from 1 to N once).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="Write the merged JSON report to PATH [default: stdout].",
            show_default=False,
        ),
    ] = None,
    states: Annotated[
        list[Path] | None,
        typer.Option(
            "--state",
            metavar="STATE.json",
            help="A shard's state file (its snapshots/state.json after its verify); "
            "repeat for each shard. Their changes are folded into the snapshots' "
            "state.json, as one run over all the claims would have left it.",
            show_default=False,
        ),
    ] = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Merge the JSON reports of a run's shards into the report of the whole run.

    The results in claim-file order, the counts and exit code recomputed, the
    earliest start time, offline only if every part was. Render it with `claimcheck
    report render`, sync issues with `claimcheck issues --report`. With --state, the
    shards' remembered verdicts and failure counts go into the snapshots' state.json
    too, so that `claimcheck issues` counts a failing source's nights under sharding.

    Exit 0: merged; 2: a part cannot be read, is not a JSON report, has a field
    out of its bounds (named by its JSON path, e.g. shard.count), or names no
    shard (a whole run's report, or one from before reports named their shard), the
    parts are not every shard of one run once (the missing or repeated shard is
    named), the parts' schema versions differ, or a claim is in two parts (both are
    named); a state file cannot be read, did not start from the snapshots' state, or
    changed an entry another changed differently (the state is then left as it was).
    """
    dispatch(merge, locals())


@report_app.command("render")
def render_report(
    report: Annotated[
        Path,
        typer.Argument(
            metavar="REPORT.json",
            help="A JSON report (`verify --format json`, `report merge`).",
            show_default=False,
        ),
    ],
    fmt: Annotated[
        FormatName, typer.Option("--format", "-f", help="Report format on stdout.")
    ] = FormatName.TABLE,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
) -> None:
    """Render a JSON report in another format, as verify would have.

    The github format also goes to the job summary in GitHub Actions. No network,
    no snapshots needed.

    Exit as verify's with this report: 0 nothing stale; 1 a claim is stale (or a
    --fail-on verdict); 3 nothing stale, but some sources could not be checked; 2:
    the report cannot be read or has a field out of its bounds, or bad usage.
    """
    dispatch(render_report, locals())
